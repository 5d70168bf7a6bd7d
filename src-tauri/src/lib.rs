//! The desktop app: the only crate that knows Tauri. It owns the window, the plugins, the IPC
//! commands and what is open; it owns no analysis. Every command is a few lines that call the
//! engine (`engine.rs`) and hand back plain data (the engine's report types), so the engine stays
//! testable without a display.

#[macro_use]
mod command_list;
pub mod commands;
pub mod engine;
pub mod follow;
pub mod open;
pub mod places;
pub mod settings;

use std::path::PathBuf;

use tauri::Runtime;

pub use command_list::COMMANDS;

/// The invoke handler of every command in the table (`command_list.rs`), each at
/// `commands::<file>::<name>`.
macro_rules! handler {
    ($($file:ident::{$($name:ident),* $(,)?}),* $(,)?) => {
        tauri::generate_handler![$($(commands::$file::$name),*),*]
    };
}

/// Everything the app registers on a builder: plugins, state and the command list. Tests call it
/// with `tauri::test::mock_builder()`, so the real permission checks run without a window.
/// `settings` is the settings file; `None` is `settings.json` in the app's data folder.
pub fn app_builder<R: Runtime>(
    builder: tauri::Builder<R>,
    launch: commands::load::LaunchPaths,
    settings: Option<PathBuf>,
) -> tauri::Builder<R> {
    builder
        .plugin(tauri_plugin_dialog::init())
        .manage(settings::SettingsSlot::new(settings))
        .manage(launch)
        .manage(commands::opened::Opened::default())
        .manage(commands::compare::Compared::default())
        .invoke_handler(app_commands!(handler))
        // Closing the window stops following what it showed.
        .on_window_event(|window, event| {
            if let tauri::WindowEvent::Destroyed = event {
                use tauri::Manager;
                commands::follow::stop_following(&window.state::<commands::opened::Opened>());
            }
        })
}

/// Runs the app until its last window closes. `arbor-app PATH...` opens those paths; with none,
/// the UI opens the built-in sample.
pub fn run() {
    choose_rendering();
    app_builder(tauri::Builder::default(), commands::load::LaunchPaths::from_args(std::env::args()), None)
        .run(tauri::generate_context!())
        .expect("error while running the Arbor app");
}

/// On Linux with no GPU to render with (no DRM render node: a VM, a container, a remote display,
/// Xvfb), WebKit's accelerated compositing draws every frame of the window through Mesa's
/// software GL, and while a log loads that takes most of a core from the engine. On such a
/// machine a 1 GiB Copilot log opened fully in 6.2 s with compositing and in 4.5 s without, the
/// timeline in 60 ms instead of 170-290 ms (BENCHMARKS.md, "The app as fast as its engine"). There
/// WebKit is asked to paint without compositing; a user's own `WEBKIT_DISABLE_COMPOSITING_MODE`
/// (either way) is left as it is. Called first thing, before any thread starts.
fn choose_rendering() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("WEBKIT_DISABLE_COMPOSITING_MODE").is_none()
        && !has_render_node(std::path::Path::new("/dev/dri"))
    {
        std::env::set_var("WEBKIT_DISABLE_COMPOSITING_MODE", "1");
    }
}

/// Whether `dri` (`/dev/dri`) holds a GPU's render node (`renderD128`, …).
#[cfg(target_os = "linux")]
fn has_render_node(dri: &std::path::Path) -> bool {
    std::fs::read_dir(dri)
        .map(|entries| entries.flatten().any(|e| e.file_name().to_string_lossy().starts_with("renderD")))
        .unwrap_or(false)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// A machine renders with a GPU only when its DRM folder has a render node: a folder with only
    /// a display card, an empty one, or none at all means software rendering.
    #[test]
    fn a_render_node_means_a_gpu() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!super::has_render_node(&dir.path().join("no-such-folder")));
        assert!(!super::has_render_node(dir.path()));
        std::fs::write(dir.path().join("card0"), "").unwrap();
        assert!(!super::has_render_node(dir.path()));
        std::fs::write(dir.path().join("renderD128"), "").unwrap();
        assert!(super::has_render_node(dir.path()));
    }
}
