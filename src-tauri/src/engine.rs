//! The app's adapter over `arbor-core`: the few engine calls the commands make, in one place, so
//! that a change in the engine's surface is a change here and nowhere else. It owns no analysis.

use std::path::{Path, PathBuf};

pub use arbor_core::{LoadError, Report};

/// Analyzes files and folders into one report (call it on a blocking thread: it reads files).
pub fn analyze_paths(paths: &[PathBuf]) -> Result<Report, LoadError> {
    arbor_core::analyze_paths(paths)
}

/// Writes the built-in sample under `dir` and analyzes it like any folder of logs, so that its raw
/// lines can be read back like any other. Returns the sample's folder and its report.
pub fn sample(dir: &Path) -> Result<(PathBuf, Report), LoadError> {
    let folder = arbor_core::sample::write_to(dir)
        .map_err(|e| LoadError { message: format!("could not write the sample under {}: {e}", dir.display()) })?;
    let report = analyze_paths(std::slice::from_ref(&folder))?;
    Ok((folder, report))
}

/// Line `line` (1-based) of a log file, read back by the engine's reader.
pub fn raw_line(path: &Path, line: u64) -> Option<String> {
    arbor_core::raw_line(path, line)
}
