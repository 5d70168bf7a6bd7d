//! The IPC commands: the app's whole surface towards the web UI. Each command is a thin call into
//! `arbor-core`; the UI reaches them only through `ui/src/lib/ipc.ts`.

use serde::Serialize;

/// What the first screen shows: the engine's version and the formats it reads.
#[derive(Debug, Clone, Serialize)]
pub struct EngineInfo {
    pub version: &'static str,
    pub formats: &'static [arbor_core::FormatInfo],
}

/// The engine's version and the formats it reads.
#[tauri::command]
pub fn engine_info() -> EngineInfo {
    EngineInfo { version: arbor_core::VERSION, formats: arbor_core::FORMATS }
}
