//! The UI's report types are generated from the engine's (ts-rs) into
//! `ui/src/lib/generated/report.ts`, committed. This test fails when the committed file differs from
//! what the Rust types generate; `ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core --test
//! ts_bindings` rewrites it.

use arbor_core::report::*;
use ts_rs::{Config, TS};

const FILE: &str = "ui/src/lib/generated/report.ts";
const ENGINE_FILE: &str = "ui/src/lib/generated/engine.ts";
const VIEW_FILE: &str = "ui/src/lib/generated/view.ts";

const HEADER: &str = "// Generated from arbor-core's Rust types by ts-rs (crates/arbor-core/tests/ts_bindings.rs).\n\
     // Do not edit: change the Rust types, then ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core --test integration ts_bindings::\n\n";

use crate::ts_file;

const UPDATE: &str = "ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core --test integration ts_bindings::";

fn file_of(imports: &str, decls: &[String]) -> String {
    ts_file::file_of(HEADER, imports, decls)
}

/// The payloads of the app's IPC that the engine defines: progress and deltas while loading,
/// record views, search hits, formats.
fn engine_bindings() -> String {
    use arbor_core::{Delta, EdgeDelta, FormatInfo, Hit, Progress, RecordPage, RecordView, SessionDelta};
    let cfg = Config::new();
    let decls = [
        Progress::decl(&cfg),
        SessionDelta::decl(&cfg),
        EdgeDelta::decl(&cfg),
        Delta::decl(&cfg),
        RecordView::decl(&cfg),
        RecordPage::decl(&cfg),
        Hit::decl(&cfg),
        FormatInfo::decl(&cfg),
        arbor_core::transcript::PartKind::decl(&cfg),
        arbor_core::transcript::Media::decl(&cfg),
        arbor_core::changes::Edit::decl(&cfg),
        arbor_core::changes::ChangesPage::decl(&cfg),
        arbor_core::transcript::Part::decl(&cfg),
        arbor_core::transcript::Row::decl(&cfg),
        arbor_core::transcript::Page::decl(&cfg),
        arbor_core::share::Style::decl(&cfg),
        arbor_core::share::Subagents::decl(&cfg),
        arbor_core::share::ShareOptions::decl(&cfg),
        arbor_core::share::Shared::decl(&cfg),
        arbor_core::outputs::compare::Measure::decl(&cfg),
        arbor_core::outputs::compare::CountDelta::decl(&cfg),
        arbor_core::outputs::compare::AmountDelta::decl(&cfg),
        arbor_core::outputs::compare::TokenDeltas::decl(&cfg),
        arbor_core::outputs::compare::Outcomes::decl(&cfg),
        arbor_core::outputs::compare::PairDelta::decl(&cfg),
        arbor_core::outputs::compare::ComparedItem::decl(&cfg),
        arbor_core::outputs::compare::Divergence::decl(&cfg),
        arbor_core::outputs::compare::ComparedPair::decl(&cfg),
        arbor_core::outputs::compare::ComparedRun::decl(&cfg),
        arbor_core::outputs::compare::Comparison::decl(&cfg),
        arbor_core::outputs::compare::ComparisonHead::decl(&cfg),
        arbor_core::outputs::compare::PairsPage::decl(&cfg),
    ];
    file_of("import type { Diagnostic, Outcome, Place, Usage } from \"./report\";\n\n", &decls)
}

/// What the app's page asks of an open log (`arbor_core::view`): pages of the tree, findings,
/// waits and replies, windows of the timeline, search hits.
fn view_bindings() -> String {
    use arbor_core::view::search::{SearchEnd, SearchEvent, SearchHit};
    use arbor_core::view::*;
    let cfg = Config::new();
    let decls = [
        Summary::decl(&cfg),
        SessionDetail::decl(&cfg),
        SeverityCounts::decl(&cfg),
        TreeRow::decl(&cfg),
        TreePage::decl(&cfg),
        TreeSpot::decl(&cfg),
        TreeOrder::decl(&cfg),
        UsageColumn::decl(&cfg),
        UsageScope::decl(&cfg),
        UsageSort::decl(&cfg),
        UsageRow::decl(&cfg),
        UsagePage::decl(&cfg),
        FindingsFilter::decl(&cfg),
        FindingRow::decl(&cfg),
        FindingsPage::decl(&cfg),
        WaitItem::decl(&cfg),
        WaitsPage::decl(&cfg),
        ReplyGroup::decl(&cfg),
        RepliesPage::decl(&cfg),
        Axis::decl(&cfg),
        AxisInput::decl(&cfg),
        TimelineInfo::decl(&cfg),
        TimelineOpen::decl(&cfg),
        WindowQuery::decl(&cfg),
        RunRect::decl(&cfg),
        MarkPoint::decl(&cfg),
        LaneWindow::decl(&cfg),
        Connector::decl(&cfg),
        TimelineWindow::decl(&cfg),
        Band::decl(&cfg),
        HitQuery::decl(&cfg),
        TimelineHit::decl(&cfg),
        Located::decl(&cfg),
        SearchHit::decl(&cfg),
        SearchEnd::decl(&cfg),
        SearchEvent::decl(&cfg),
    ];
    file_of(
        "import type { RecordView } from \"./engine\";\nimport type { Diagnostic, Input, Link, Outcome, Place, Reply, Run, Severity, Usage, UsageSummary, Wait } from \"./report\";\n\n",
        &decls,
    )
}

fn bindings() -> String {
    let cfg = Config::new();
    let decls = [
        Place::decl(&cfg),
        Severity::decl(&cfg),
        Outcome::decl(&cfg),
        WaitOutcome::decl(&cfg),
        Report::decl(&cfg),
        Input::decl(&cfg),
        Session::decl(&cfg),
        Run::decl(&cfg),
        Link::decl(&cfg),
        Received::decl(&cfg),
        Usage::decl(&cfg),
        Unpriced::decl(&cfg),
        ModelUsage::decl(&cfg),
        UsageSummary::decl(&cfg),
        arbor_core::report::PriceSource::decl(&cfg),
        Turn::decl(&cfg),
        StepSpan::decl(&cfg),
        Reply::decl(&cfg),
        Wait::decl(&cfg),
        NaiveWait::decl(&cfg),
        Diagnostic::decl(&cfg),
    ];
    file_of("", &decls)
}

fn check(file: &str, want: String) {
    ts_file::check(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(file), &want, UPDATE);
}

#[test]
fn the_committed_typescript_report_types_are_generated_from_the_rust_ones() {
    check(FILE, bindings());
}

#[test]
fn the_committed_typescript_ipc_payload_types_are_generated_from_the_rust_ones() {
    check(ENGINE_FILE, engine_bindings());
}

#[test]
fn the_committed_typescript_view_types_are_generated_from_the_rust_ones() {
    check(VIEW_FILE, view_bindings());
}

#[test]
fn large_integers_are_numbers_not_bigints() {
    // JSON numbers arrive in the UI as `number`; a `bigint` type would be a lie.
    assert!(
        !bindings().contains("bigint") && !engine_bindings().contains("bigint") && !view_bindings().contains("bigint")
    );
}
