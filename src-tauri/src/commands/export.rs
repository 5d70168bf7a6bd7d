//! Exporting what is open as OpenTelemetry spans (OTLP-JSON, `arbor-otel`) to the file the user
//! chose.

use serde::Serialize;
use tauri::State;
use ts_rs::TS;

use super::opened::Opened;
use crate::open::CommandError;

/// What an export wrote: where, and how many traces and spans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Exported {
    pub path: String,
    #[ts(type = "number")]
    pub traces: u64,
    #[ts(type = "number")]
    pub spans: u64,
}

/// Writes the open log as OTLP-JSON (OpenTelemetry GenAI spans, `arbor-otel`) to `path`, a file
/// the user chose in the save dialog; the file appears whole or not at all.
#[tauri::command]
pub async fn export_otel(path: String, opened: State<'_, Opened>) -> Result<Exported, CommandError> {
    let open = opened.current()?;
    tauri::async_runtime::spawn_blocking(move || {
        arbor_otel::write_json_file(&open.analysis, std::path::Path::new(&path), &arbor_otel::Options::default())
            .map(|s| Exported { path, traces: s.traces, spans: s.spans })
            .map_err(|e| CommandError::new("export-failed", format!("could not write the export: {e}")))
    })
    .await
    .map_err(CommandError::stopped)?
}
