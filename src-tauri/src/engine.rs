//! The app's adapter over `arbor-core`: the few engine calls the commands make, in one place, so
//! that a change in the engine's surface is a change here and nowhere else. It owns no analysis.

use std::path::{Path, PathBuf};

pub use arbor_core::{Analysis, Delta, Hit, LoadError, Observer, Progress, RecordPage, RecordView, Report};

/// Why a load produced no analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadFailure {
    /// The observer asked to stop (the user cancelled, or opened something else).
    Cancelled,
    /// Nothing could be read in a known format.
    Unreadable(String),
}

/// Analyzes files and folders, telling `observer` of progress and deltas as it goes (call it on a
/// blocking thread: it reads files). Fails as `arbor_core::analyze_paths` does: only when no input
/// could be read in a known format.
pub fn load(paths: &[PathBuf], observer: &mut dyn Observer) -> Result<Analysis, LoadFailure> {
    let analysis = arbor_core::analyze(paths, observer);
    if analysis.cancelled {
        return Err(LoadFailure::Cancelled);
    }
    if analysis.files.iter().all(|f| f.format.is_none()) {
        let why: Vec<String> = analysis.report().diagnostics.into_iter().map(|d| d.message).collect();
        return Err(LoadFailure::Unreadable(if why.is_empty() { "no log files found".into() } else { why.join("; ") }));
    }
    Ok(analysis)
}

/// Analyzes files and folders into one report, with no observer.
pub fn analyze_paths(paths: &[PathBuf]) -> Result<Report, LoadError> {
    arbor_core::analyze_paths(paths)
}

/// Writes the built-in sample under `dir` (the app's cache folder) and returns its folder, to be
/// read like any folder of logs so that its raw lines can be shown like any other.
pub fn write_sample(dir: &Path) -> Result<PathBuf, LoadFailure> {
    arbor_core::sample::write_to(dir)
        .map_err(|e| LoadFailure::Unreadable(format!("could not write the sample under {}: {e}", dir.display())))
}
