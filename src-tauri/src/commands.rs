//! The IPC commands: the app's whole surface towards the web UI. Each command is a thin call into
//! the engine (through `engine.rs`); the UI reaches them only through `ui/src/lib/ipc.ts`.
//! Reading logs runs on a blocking thread so that the window stays responsive.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Serialize;
use tauri::{AppHandle, Manager, Runtime, State};

use crate::engine::{self, Report};
use crate::places::{self, FoundLog};

/// What the first screen shows: the engine's version and the formats it reads.
#[derive(Debug, Clone, Serialize)]
pub struct EngineInfo {
    pub version: &'static str,
    pub formats: &'static [arbor_core::FormatInfo],
}

/// How every command fails: a code the UI may branch on, and a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandError {
    pub code: &'static str,
    pub message: String,
}

impl CommandError {
    fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }
}

/// The paths given on the command line (`arbor-app PATH...`), read once at start.
#[derive(Debug, Default)]
pub struct LaunchPaths(pub Vec<String>);

impl LaunchPaths {
    /// Paths from the process arguments: everything after the program name that is not a flag
    /// (webview automation and macOS add flags of their own).
    pub fn from_args(args: impl IntoIterator<Item = String>) -> Self {
        Self(args.into_iter().skip(1).filter(|a| !a.starts_with('-')).collect())
    }
}

/// What is open now; the inspector reads raw lines only from it.
#[derive(Debug, Default)]
pub struct Opened(Mutex<Source>);

#[derive(Debug, Default, Clone)]
enum Source {
    #[default]
    Nothing,
    Paths(Vec<PathBuf>),
}

impl Opened {
    fn set(&self, source: Source) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = source;
    }
    fn get(&self) -> Source {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The engine's version and the formats it reads.
#[tauri::command]
pub fn engine_info() -> EngineInfo {
    EngineInfo { version: arbor_core::VERSION, formats: arbor_core::FORMATS }
}

/// The paths the app was started with; empty when it should open the sample.
#[tauri::command]
pub fn launch_paths(launch: State<'_, LaunchPaths>) -> Vec<String> {
    launch.0.clone()
}

/// Session logs in the harnesses' default places on this machine, newest first.
#[tauri::command]
pub async fn found_logs<R: Runtime>(app: AppHandle<R>) -> Result<Vec<FoundLog>, CommandError> {
    let home = app.path().home_dir().map_err(|e| CommandError::new("internal", format!("no home folder: {e}")))?;
    let dsh_home = std::env::var_os("DSH_HOME").map(PathBuf::from);
    tauri::async_runtime::spawn_blocking(move || places::found_logs(&home, dsh_home.as_deref()))
        .await
        .map_err(|e| CommandError::new("internal", format!("the search stopped: {e}")))
}

/// Reads log files and folders into one report, and remembers them as what is open.
#[tauri::command]
pub async fn open_paths(paths: Vec<String>, opened: State<'_, Opened>) -> Result<Report, CommandError> {
    if paths.is_empty() {
        return Err(CommandError::new("no-paths", "nothing to open: choose at least one file or folder"));
    }
    let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
    let given = paths.clone();
    let report = tauri::async_runtime::spawn_blocking(move || engine::analyze_paths(&given))
        .await
        .map_err(|e| CommandError::new("internal", format!("the reader stopped: {e}")))?
        .map_err(|e| CommandError::new("load-failed", e.message))?;
    opened.set(Source::Paths(paths));
    Ok(report)
}

/// Opens the built-in sample log (written to the app's cache folder, then read like any folder).
#[tauri::command]
pub async fn open_sample<R: Runtime>(app: AppHandle<R>, opened: State<'_, Opened>) -> Result<Report, CommandError> {
    let cache = app
        .path()
        .app_cache_dir()
        .map_err(|e| CommandError::new("internal", format!("no cache folder for the sample: {e}")))?;
    let (folder, report) = tauri::async_runtime::spawn_blocking(move || engine::sample(&cache))
        .await
        .map_err(|e| CommandError::new("internal", format!("the reader stopped: {e}")))?
        .map_err(|e| CommandError::new("load-failed", e.message))?;
    opened.set(Source::Paths(vec![folder]));
    Ok(report)
}

/// The raw text of line `line` (1-based) of `file`, a file as the open report names it; `None`
/// when the file has no such line. Only files that are open (or inside an open folder) are read.
#[tauri::command]
pub async fn raw_line(file: String, line: u64, opened: State<'_, Opened>) -> Result<Option<String>, CommandError> {
    match opened.get() {
        Source::Nothing => Err(CommandError::new("not-open", "no log is open")),
        Source::Paths(roots) => {
            let path = resolve(&roots, &file)
                .ok_or_else(|| CommandError::new("not-open", format!("{file} is not part of what is open")))?;
            tauri::async_runtime::spawn_blocking(move || engine::raw_line(&path, line))
                .await
                .map_err(|e| CommandError::new("internal", format!("the reader stopped: {e}")))
        }
    }
}

/// Finds the file a report place names: an opened file given by the same path, or a file inside an
/// opened folder (places in a folder are relative to it). Anything outside what is open is refused,
/// so the command cannot read arbitrary files.
fn resolve(roots: &[PathBuf], file: &str) -> Option<PathBuf> {
    let wanted = Path::new(file);
    for root in roots {
        if root.is_dir() {
            let candidate = if wanted.is_absolute() { wanted.to_path_buf() } else { root.join(wanted) };
            if let (Ok(c), Ok(r)) = (candidate.canonicalize(), root.canonicalize()) {
                if c.starts_with(&r) && c.is_file() {
                    return Some(c);
                }
            }
        } else if root.as_path() == wanted || same_file(root, wanted) {
            return Some(root.clone());
        }
    }
    None
}

fn same_file(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_paths_skip_the_program_and_flags() {
        let args = ["arbor-app", "--automation", "a.jsonl", "logs/", "-psn_0_1"].map(String::from);
        assert_eq!(LaunchPaths::from_args(args).0, vec!["a.jsonl", "logs/"]);
    }

    #[test]
    fn resolve_reads_only_inside_what_is_open() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("sessions");
        std::fs::create_dir_all(folder.join("s1")).unwrap();
        std::fs::write(folder.join("s1/events.jsonl"), "{}\n").unwrap();
        let single = dir.path().join("run.jsonl");
        std::fs::write(&single, "{}\n").unwrap();
        let outside = dir.path().join("secret.txt");
        std::fs::write(&outside, "x\n").unwrap();

        let roots = vec![folder.clone(), single.clone()];
        assert!(resolve(&roots, "s1/events.jsonl").is_some());
        assert_eq!(resolve(&roots, single.to_str().unwrap()), Some(single.clone()));
        assert_eq!(resolve(&roots, "../secret.txt"), None);
        assert_eq!(resolve(&roots, outside.to_str().unwrap()), None);
        assert_eq!(resolve(&roots, "s1/missing.jsonl"), None);
    }
}
