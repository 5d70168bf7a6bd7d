//! The desktop app: the only crate that knows Tauri. It owns the window, the plugins and the IPC
//! commands; it owns no analysis. Every command is a few lines that call `arbor-core` and hand
//! back plain data (the engine's report types), so the engine stays testable without a display.

pub mod commands;

use tauri::Runtime;

/// Everything the app registers on a builder: plugins and the command list. Tests call it with
/// `tauri::test::mock_builder()`, so the real permission checks run without a window.
pub fn app_builder<R: Runtime>(builder: tauri::Builder<R>) -> tauri::Builder<R> {
    builder
        .plugin(tauri_plugin_store::Builder::default().build())
        .plugin(tauri_plugin_dialog::init())
        .invoke_handler(tauri::generate_handler![commands::engine_info])
}

/// Runs the app until its last window closes.
pub fn run() {
    app_builder(tauri::Builder::default()).run(tauri::generate_context!()).expect("error while running the Arbor app");
}
