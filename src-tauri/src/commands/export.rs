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

/// A session written to share, shown before it is saved: the export's first bytes (a preview
/// of a large session stops at `PREVIEW_BYTES`, `cut` then).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct SharePreview {
    /// The session shown (the one asked for, else the log's first root).
    pub session: String,
    pub text: String,
    pub cut: bool,
    pub sessions: u32,
    #[ts(type = "number")]
    pub rows: u64,
}

/// What a preview holds at most.
const PREVIEW_BYTES: u64 = 2 << 20;

/// The session to share: `session`, else the open log's first root.
fn share_session(open: &crate::open::Open, session: Option<String>) -> Result<String, CommandError> {
    session
        .or_else(|| open.analysis.root_sessions().first().map(|s| (*s).to_owned()))
        .ok_or_else(|| CommandError::new("no-session", "the open log has no session to share"))
}

/// `session` (else the first root) as Markdown or HTML, as `arbor export --markdown/--html`
/// writes it, up to `PREVIEW_BYTES`.
#[tauri::command]
pub async fn share_preview(
    session: Option<String>,
    options: arbor_core::share::ShareOptions,
    opened: State<'_, Opened>,
) -> Result<SharePreview, CommandError> {
    let open = opened.current()?;
    tauri::async_runtime::spawn_blocking(move || {
        let session = share_session(&open, session)?;
        let mut bytes = Vec::new();
        let shared = open
            .analysis
            .share(&session, &options, &mut bytes, None, PREVIEW_BYTES)
            .map_err(|e| CommandError::new("export-failed", format!("could not write the export: {e}")))?
            .ok_or_else(|| CommandError::new("no-session", format!("no session `{session}` in the open log")))?;
        Ok(SharePreview {
            session,
            text: String::from_utf8_lossy(&bytes).into_owned(),
            cut: shared.cut,
            sessions: shared.sessions,
            rows: shared.rows,
        })
    })
    .await
    .map_err(CommandError::stopped)?
}

/// Writes `session` (else the first root) as Markdown or HTML to `path`, a file the user chose in
/// the save dialog (whole or not at all), sub-agents' own files beside it when asked.
#[tauri::command]
pub async fn export_share(
    path: String,
    session: Option<String>,
    options: arbor_core::share::ShareOptions,
    opened: State<'_, Opened>,
) -> Result<arbor_core::share::Shared, CommandError> {
    let open = opened.current()?;
    tauri::async_runtime::spawn_blocking(move || {
        let session = share_session(&open, session)?;
        open.analysis
            .share_file(&session, &options, std::path::Path::new(&path))
            .map_err(|e| CommandError::new("export-failed", format!("could not write {path}: {e}")))?
            .ok_or_else(|| CommandError::new("no-session", format!("no session `{session}` in the open log")))
    })
    .await
    .map_err(CommandError::stopped)?
}
