//! Arbor's engine: read → normalize → graph → analyses → report. No Tauri, no clock, no UI.
//!
//! (The engine lands in stages; this file states the public surface the CLI and the app call.)

pub mod report;

use std::path::PathBuf;

pub use report::Report;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A format the engine reads: its id (as in reports) and a sentence for people.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct FormatInfo {
    pub id: &'static str,
    pub description: &'static str,
}

pub const FORMATS: &[FormatInfo] = &[
    FormatInfo { id: "dsh-rpc", description: "deepseek-harness JSON-RPC recording" },
    FormatInfo { id: "dsh-session", description: "deepseek-harness durable session logs (files or folders)" },
    FormatInfo { id: "copilot-events", description: "GitHub Copilot CLI events.jsonl" },
    FormatInfo { id: "copilot-rpc", description: "GitHub Copilot SDK JSON-RPC recording" },
];

/// Why nothing could be read at all (a path that does not exist, a folder with no logs).
#[derive(Debug, Clone)]
pub struct LoadError {
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LoadError {}

/// Analyze files and folders into one report.
pub fn analyze_paths(paths: &[PathBuf]) -> Result<Report, LoadError> {
    let _ = paths;
    Err(LoadError { message: "the engine is not built yet".into() })
}
