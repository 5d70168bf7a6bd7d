//! Arbor's engine: read → detect → normalize → graph → analyses → report. No Tauri, no clock, no UI.
//!
//! - `reader` owns bytes: files of an opened path, zstd, lines with numbers and offsets.
//! - `detect` names a file's format from its content.
//! - `wire` is the lenient, borrowed shape of one JSON line; `scan` parses a line into it.
//! - `dsh` and `copilot` are the format modules: routing, root turns, waits, the sub-agent tree.
//! - `boundary` is the turn/step invariant checker; `graph` holds sessions and runs in petgraph.
//! - `analysis` drives a run and builds the `report`, the plain data every consumer reads.
//! - `view` keeps a report for a viewer and answers it a page at a time (tree rows, timeline
//!   windows, findings, waits, replies, search hits).
//!
//! Parsing never fails: every input problem is a `Finding` with its place, and loading goes on.

pub mod analysis;
pub mod boundary;
pub mod copilot;
pub mod ctx;
pub mod detect;
pub mod dsh;
pub mod finding;
pub mod graph;
pub mod intern;
pub mod reader;
pub mod report;
pub(crate) mod report_json;
pub mod report_parts;
pub mod sample;
mod scan;
pub mod view;
pub mod wire;

use std::path::PathBuf;

pub use analysis::{
    analyze, Analysis, Delta, EdgeDelta, Hit, Observer, Progress, RecordPage, RecordView, SessionDelta,
};
pub use report::Report;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A format the engine reads: its id (as in reports) and a sentence for people.
#[derive(Debug, Clone, Copy, serde::Serialize, ts_rs::TS)]
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

/// Analyze files and folders into one report. `Err` only when no input could be read in a known
/// format; otherwise every problem is a finding in the report.
pub fn analyze_paths(paths: &[PathBuf]) -> Result<Report, LoadError> {
    let analysis = analyze(paths, &mut ());
    if analysis.files.iter().all(|f| f.format.is_none()) {
        let why: Vec<String> = analysis.cx.findings.list.iter().map(|f| f.message.clone()).collect();
        return Err(LoadError {
            message: if why.is_empty() { "no log files found".to_owned() } else { why.join("; ") },
        });
    }
    Ok(analysis.report())
}

/// The raw text of line `line` (1-based) of a file, read back on demand.
pub fn raw_line(path: &std::path::Path, line: u64) -> Option<String> {
    reader::raw_line_numbered(path, line).ok().flatten().map(|b| String::from_utf8_lossy(&b).into_owned())
}
