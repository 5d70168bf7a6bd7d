//! Build script: generates the Tauri context from the root `tauri.conf.json` and the root
//! `capabilities/`, and declares the app's own commands so that each one needs an explicit
//! permission in a capability (an undeclared command would be allowed everywhere).

fn main() {
    let manifest = tauri_build::AppManifest::new().commands(&[
        "engine_info",
        "launch_paths",
        "found_logs",
        "open_paths",
        "open_sample",
        "cancel_load",
        "raw_line",
        "records_around",
        "search",
        "settings",
        "remember_opened",
        "set_theme",
        "view_state",
        "save_view_state",
        "naive_dropped",
        "search_more",
        "cancel_search",
        "tree_rows",
        "tree_set_open",
        "tree_reveal",
        "findings_page",
        "findings_at",
        "session_detail",
        "waits_page",
        "replies_page",
        "timeline_info",
        "timeline_open",
        "timeline_window",
        "timeline_hit",
        "timeline_locate",
        "follow_state",
        "set_follow",
        "transcript_page",
        "transcript_part",
        "transcript_locate",
        "export_otel",
    ]);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest))
        .expect("tauri-build failed (see tauri.conf.json and capabilities/)");
}
