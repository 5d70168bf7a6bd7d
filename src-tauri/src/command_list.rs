//! The table of the app's IPC commands: every command once, as the file of `commands/` that
//! holds it and its name. `lib.rs` makes the invoke handler from it and `build.rs` (which compiles
//! this file as a module of its own) declares the same names to Tauri, so that each needs a
//! permission; a name here with no such command in that file does not compile.
//! `tests/app_commands.rs` holds what is kept by hand to the table: the `#[tauri::command]`s of
//! `commands/`, the capability that grants each, `ui/src/lib/ipc.ts` that calls each, and the
//! view host the UI's browser tests ask.
//!
//! It holds names alone: the build script compiles it with no Tauri, engine or `crate::commands`.

/// Hands the table to the macro `$then`, as `file::{name, ...}, ...` (a file of `commands/`, then
/// the commands it holds).
macro_rules! app_commands {
    ($then:ident) => {
        $then! {
            load::{engine_info, launch_paths, found_logs, open_paths, open_sample, cancel_load},
            records::{raw_line, records_around, naive_dropped},
            search::{search, search_more, cancel_search},
            tree::{tree_rows, tree_set_open, tree_reveal},
            pages::{findings_page, findings_at, session_detail, waits_page, replies_page, usage_page},
            timeline::{timeline_info, timeline_open, timeline_window, timeline_hit, timeline_locate},
            settings::{settings, remember_opened, set_theme, view_state, save_view_state},
            follow::{follow_state, set_follow},
            transcript::{transcript_page, transcript_part, transcript_media, transcript_locate, transcript_find, changes_page},
            export::{export_otel, share_preview, export_share},
            library::{library_sessions, library_search, library_usage},
            compare::{compare_pairs, compare_runs, compare_transcript},
        }
    };
}

/// The names alone, in the table's order.
macro_rules! names {
    ($($file:ident::{$($name:ident),* $(,)?}),* $(,)?) => {
        &[$($(stringify!($name)),*),*]
    };
}

/// Every command's name: what the UI invokes, and what the capability grants as `allow-<name>`
/// (with `-` for `_`).
pub const COMMANDS: &[&str] = app_commands!(names);
