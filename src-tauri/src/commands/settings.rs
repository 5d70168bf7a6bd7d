//! The settings file behind the app's own commands (`crate::settings` keeps it): the recent list,
//! the theme, and each log's saved view state. A settings file that cannot be written fails the
//! command with `settings-unsaved`.

use tauri::{AppHandle, Runtime, State};

use crate::open::CommandError;
use crate::settings::{RecentEntry, SettingsSlot, SettingsStore, SettingsView, Theme, ViewState};

fn unsaved(e: std::io::Error) -> CommandError {
    CommandError::new("settings-unsaved", format!("the settings could not be saved: {e}"))
}

pub(super) fn settings_of<'a, R: Runtime>(
    app: &AppHandle<R>,
    slot: &'a SettingsSlot,
) -> Result<&'a SettingsStore, CommandError> {
    slot.get(app).map_err(|e| CommandError::new("internal", e))
}

/// The recent list and theme; `notice` says, once, that a corrupt settings file was set aside.
#[tauri::command]
pub fn settings<R: Runtime>(app: AppHandle<R>, slot: State<'_, SettingsSlot>) -> Result<SettingsView, CommandError> {
    Ok(settings_of(&app, &slot)?.view())
}

/// Records `paths` as opened now; returns the new recent list.
#[tauri::command]
pub fn remember_opened<R: Runtime>(
    paths: Vec<String>,
    app: AppHandle<R>,
    slot: State<'_, SettingsSlot>,
) -> Result<Vec<RecentEntry>, CommandError> {
    if paths.is_empty() {
        return Err(CommandError::new("no-paths", "nothing to remember"));
    }
    settings_of(&app, &slot)?.remember_opened(paths).map_err(unsaved)
}

#[tauri::command]
pub fn set_theme<R: Runtime>(
    theme: Theme,
    app: AppHandle<R>,
    slot: State<'_, SettingsSlot>,
) -> Result<(), CommandError> {
    settings_of(&app, &slot)?.set_theme(theme).map_err(unsaved)
}

/// The view state last saved for the log `key` names (the paths it was opened with).
#[tauri::command]
pub fn view_state<R: Runtime>(
    key: Vec<String>,
    app: AppHandle<R>,
    slot: State<'_, SettingsSlot>,
) -> Result<Option<ViewState>, CommandError> {
    Ok(settings_of(&app, &slot)?.view_state(&key))
}

#[tauri::command]
pub fn save_view_state<R: Runtime>(
    key: Vec<String>,
    view: ViewState,
    app: AppHandle<R>,
    slot: State<'_, SettingsSlot>,
) -> Result<(), CommandError> {
    if key.is_empty() {
        return Err(CommandError::new("no-paths", "a view state needs the log it belongs to"));
    }
    settings_of(&app, &slot)?.save_view_state(key, view).map_err(unsaved)
}
