//! Arbor's engine: read → detect → normalize → graph → analyses → report. No Tauri, no clock, no UI.
//!
//! In layers, each a folder, each importing only itself and the layers before it
//! (`tests/layers.rs`; ARCHITECTURE.md's code map):
//! - `vocab`: interned ids, the report's types, findings and their catalog, transcript parts.
//! - `bytes`: files of an opened path, zstd, lines with numbers and offsets (`reader`).
//! - `text`: JSON string text (`json`), timestamps (`time`), line shapes (`shape`), the harness
//!   family's line (`wire`) and its one-pass parser (`scan`).
//! - `records`: the context formats write into, the session graph, turns, usage, prices.
//! - `formats`: one module per format behind one interface; a format returns its machine.
//! - `analysis`: the `Analysis` value and the driver that makes it (plan, read-ahead, flow,
//!   route, live).
//! - `outputs`: the report's parts and JSON writer, transcripts.
//! - `view`: a report kept for a viewer and answered a page at a time.
//!
//! Parsing never fails: every input problem is a `Finding` with its place, and loading goes on.

// The layers (their order, lowest first, is the table in tests/layers.rs and ARCHITECTURE.md's
// code map), and the front.
pub mod analysis;
pub mod bytes;
pub mod formats;
pub mod outputs;
pub mod records;
pub mod sample;
pub mod text;
pub mod view;
pub mod vocab;

// The modules' paths from before the layers had folders, kept while other crates move over.
pub use analysis::live;
pub use bytes::reader;
pub use outputs::{changes, report_parts, share, transcript};
pub use records::{ctx, graph, prices, turns, usage};
pub(crate) use text::scan;
pub use text::wire;
pub use vocab::{explain, finding, intern, report};

use std::path::PathBuf;

pub use analysis::{
    analyze, analyze_with, Analysis, Delta, EdgeDelta, Hit, Observer, Progress, RecordPage, RecordView, SessionDelta,
    Threads,
};
pub use report::Report;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub use formats::{FormatInfo, FORMATS};

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
        let why: Vec<String> = analysis.cx.findings.list.iter().map(|f| f.message.to_string()).collect();
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
