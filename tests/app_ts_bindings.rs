//! The app's own IPC types (what its commands take and answer, beyond the engine's report and
//! payloads) are generated for the UI by ts-rs into `ui/src/lib/generated/app.ts`, committed. This
//! test fails when the committed file differs from what the Rust types generate;
//! `ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-app --test app app_ts_bindings::` rewrites it.

use arbor_app::commands::compare::{CompareSide, Which};
use arbor_app::commands::export::{Exported, SharePreview};
use arbor_app::commands::load::EngineInfo;
use arbor_app::commands::transcript::TranscriptSpot;
use arbor_app::commands::tree::TreeOf;
use arbor_app::follow::FollowState;
use arbor_app::open::{CommandError, Followed, LoadEvent};
use arbor_app::places::FoundLog;
use arbor_app::settings::{RecentEntry, SettingsView, Theme, ViewState};
use ts_rs::{Config, TS};

#[path = "../crates/arbor-core/tests/support/ts_file.rs"]
mod ts_file;

const FILE: &str = "ui/src/lib/generated/app.ts";

const HEADER: &str = "// Generated from arbor-app's Rust types by ts-rs (tests/app_ts_bindings.rs).\n\
     // Do not edit: change the Rust types, then ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-app --test app app_ts_bindings::\n\n";

fn bindings() -> String {
    let cfg = Config::new();
    let decls = [
        EngineInfo::decl(&cfg),
        CommandError::decl(&cfg),
        LoadEvent::decl(&cfg),
        Followed::decl(&cfg),
        FollowState::decl(&cfg),
        TreeOf::decl(&cfg),
        FoundLog::decl(&cfg),
        RecentEntry::decl(&cfg),
        Theme::decl(&cfg),
        ViewState::decl(&cfg),
        SettingsView::decl(&cfg),
        TranscriptSpot::decl(&cfg),
        Exported::decl(&cfg),
        SharePreview::decl(&cfg),
        CompareSide::decl(&cfg),
        Which::decl(&cfg),
    ];
    ts_file::file_of(
        HEADER,
        "import type { FormatInfo, Progress } from \"./engine\";\nimport type { Summary } from \"./view\";\n\n",
        &decls,
    )
}

#[test]
fn the_committed_typescript_app_types_are_generated_from_the_rust_ones() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FILE);
    ts_file::check(&path, &bindings(), "ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-app --test app app_ts_bindings::");
}

#[test]
fn no_type_is_a_bigint() {
    // JSON numbers arrive in the UI as `number`; a `bigint` type would be a lie.
    assert!(!bindings().contains("bigint"));
}
