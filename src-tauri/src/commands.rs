//! The IPC commands: the app's whole surface towards the web UI. Each command is a thin call into
//! the engine (through `engine.rs`); the UI reaches them only through `ui/src/lib/ipc.ts`.
//! Reading logs runs on a blocking thread so that the window stays responsive; while it reads,
//! progress and partial results stream to the UI through a `Channel`, in batches.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, Runtime, State};
use ts_rs::TS;

use crate::engine::{self, Analysis, Delta, Hit, LoadFailure, Observer, Progress, RecordPage, RecordView, Report};
use crate::places::{self, FoundLog};
use crate::settings::{RecentEntry, SettingsSlot, SettingsStore, SettingsView, Theme, ViewState};

/// What the first screen shows: the engine's version and the formats it reads.
#[derive(Debug, Clone, Serialize, TS)]
pub struct EngineInfo {
    pub version: &'static str,
    pub formats: &'static [arbor_core::FormatInfo],
}

/// How every command fails: a code the UI may branch on, and a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct CommandError {
    pub code: &'static str,
    pub message: String,
}

impl CommandError {
    fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }

    fn stopped(e: impl std::fmt::Display) -> Self {
        Self::new("internal", format!("the reader stopped: {e}"))
    }
}

impl From<LoadFailure> for CommandError {
    fn from(f: LoadFailure) -> Self {
        match f {
            LoadFailure::Cancelled => Self::new("cancelled", "opening was cancelled"),
            LoadFailure::Unreadable(message) => Self::new("load-failed", message),
        }
    }
}

/// What streams to the UI while a log is read: progress (at most a few times a second) and
/// deltas (new sessions, run edges and findings). The final report supersedes them all.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum LoadEvent {
    Progress(Progress),
    Delta(Delta),
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

/// What is open now, and which load is the current one. Starting a load, or cancelling, moves
/// the generation on; a load whose generation is no longer current stops at its next report.
#[derive(Default)]
pub struct Opened {
    analysis: Mutex<Option<Arc<Analysis>>>,
    generation: Arc<AtomicU64>,
}

impl Opened {
    fn current(&self) -> Option<Arc<Analysis>> {
        self.analysis.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
    fn set(&self, analysis: Analysis) {
        *self.analysis.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(analysis));
    }
}

/// Forwards the engine's progress and deltas to the UI, and stops when the load is superseded.
struct Forward<'a> {
    channel: &'a Channel<LoadEvent>,
    generation: &'a AtomicU64,
    mine: u64,
    last_progress: Option<Instant>,
}

impl Forward<'_> {
    fn still_wanted(&self) -> bool {
        self.generation.load(Ordering::SeqCst) == self.mine
    }
}

impl Observer for Forward<'_> {
    fn progress(&mut self, p: &Progress) -> bool {
        // A progress bar needs a few updates a second, not one per chunk.
        if self.last_progress.is_none_or(|t| t.elapsed() >= Duration::from_millis(100)) {
            self.last_progress = Some(Instant::now());
            let _ = self.channel.send(LoadEvent::Progress(*p));
        }
        self.still_wanted()
    }

    fn delta(&mut self, d: Delta) -> bool {
        let _ = self.channel.send(LoadEvent::Delta(d));
        self.still_wanted()
    }
}

/// Reads `paths` on a blocking thread, streaming to `on_event`; keeps the analysis as what is open.
async fn load_into(opened: &Opened, paths: Vec<PathBuf>, on_event: Channel<LoadEvent>) -> Result<Report, CommandError> {
    let mine = opened.generation.fetch_add(1, Ordering::SeqCst) + 1;
    let generation = opened.generation.clone();
    // The reading runs at a lower priority than the webview (see `engine::at_low_priority`).
    let (analysis, report) = tauri::async_runtime::spawn_blocking(move || {
        engine::at_low_priority(move || {
            let mut forward = Forward { channel: &on_event, generation: &generation, mine, last_progress: None };
            let analysis = engine::load(&paths, &mut forward)?;
            let report = analysis.report();
            Ok::<_, LoadFailure>((analysis, report))
        })
    })
    .await
    .map_err(CommandError::stopped)?
    .map_err(CommandError::stopped)??;
    // A newer load or a cancel that came after the last progress report still wins.
    if opened.generation.load(Ordering::SeqCst) != mine {
        return Err(LoadFailure::Cancelled.into());
    }
    opened.set(analysis);
    Ok(report)
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
        .map_err(CommandError::stopped)
}

/// Reads log files and folders into one report, streaming progress and partial results to
/// `on_event`, and keeps them as what is open. Opening something else cancels this.
#[tauri::command]
pub async fn open_paths(
    paths: Vec<String>,
    on_event: Channel<LoadEvent>,
    opened: State<'_, Opened>,
) -> Result<Report, CommandError> {
    if paths.is_empty() {
        return Err(CommandError::new("no-paths", "nothing to open: choose at least one file or folder"));
    }
    load_into(&opened, paths.into_iter().map(PathBuf::from).collect(), on_event).await
}

/// Opens the built-in sample log (written to the app's cache folder, then read like any folder).
#[tauri::command]
pub async fn open_sample<R: Runtime>(
    app: AppHandle<R>,
    on_event: Channel<LoadEvent>,
    opened: State<'_, Opened>,
) -> Result<Report, CommandError> {
    let cache = app
        .path()
        .app_cache_dir()
        .map_err(|e| CommandError::new("internal", format!("no cache folder for the sample: {e}")))?;
    let folder = tauri::async_runtime::spawn_blocking(move || engine::write_sample(&cache))
        .await
        .map_err(CommandError::stopped)??;
    load_into(&opened, vec![folder], on_event).await
}

/// Stops the load in progress, if any (it then fails with the code `cancelled`).
#[tauri::command]
pub fn cancel_load(opened: State<'_, Opened>) {
    opened.generation.fetch_add(1, Ordering::SeqCst);
}

/// The raw text of line `line` (1-based) of `file`, a file as the open report names it; `None`
/// when the file has no such line. Only the files of what is open can be read.
#[tauri::command]
pub async fn raw_line(file: String, line: u64, opened: State<'_, Opened>) -> Result<Option<String>, CommandError> {
    let analysis = opened.current().ok_or_else(|| CommandError::new("not-open", "no log is open"))?;
    if !analysis.files.iter().any(|f| f.display == file) {
        return Err(CommandError::new("not-open", format!("{file} is not part of what is open")));
    }
    tauri::async_runtime::spawn_blocking(move || analysis.raw_line(&file, line)).await.map_err(CommandError::stopped)
}

/// The records around the one at line `line` (1-based) of `file`: up to `before` (capped at 50)
/// before it, the record itself, up to `after` (capped at 50) after it, in wire order. Empty when
/// no record starts on that line. Only the files of what is open can be asked about.
#[tauri::command]
pub fn records_around(
    file: String,
    line: u64,
    before: usize,
    after: usize,
    opened: State<'_, Opened>,
) -> Result<Vec<RecordView>, CommandError> {
    let analysis = opened.current().ok_or_else(|| CommandError::new("not-open", "no log is open"))?;
    if !analysis.files.iter().any(|f| f.display == file) {
        return Err(CommandError::new("not-open", format!("{file} is not part of what is open")));
    }
    Ok(analysis
        .find_record(&file, line)
        .map_or_else(Vec::new, |i| analysis.records_around(i, before.min(50), after.min(50))))
}

/// Sessions whose id or label contains `query`, then records whose kind or raw text does
/// (ignoring case), at most `limit` (capped at 500) hits.
#[tauri::command]
pub async fn search(query: String, limit: usize, opened: State<'_, Opened>) -> Result<Vec<Hit>, CommandError> {
    let analysis = opened.current().ok_or_else(|| CommandError::new("not-open", "no log is open"))?;
    if query.trim().is_empty() {
        return Ok(Vec::new());
    }
    tauri::async_runtime::spawn_blocking(move || analysis.search(query.trim(), limit.min(500)))
        .await
        .map_err(CommandError::stopped)
}

fn unsaved(e: std::io::Error) -> CommandError {
    CommandError::new("settings-unsaved", format!("the settings could not be saved: {e}"))
}

fn settings_of<'a, R: Runtime>(app: &AppHandle<R>, slot: &'a SettingsSlot) -> Result<&'a SettingsStore, CommandError> {
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

/// The notifications of the dsh-rpc root turn of `root` that starts at `file:line` that the naive
/// reading drops (attributed to the root through a descendant): `limit` (capped at 500) of them
/// from `offset`, and how many there are, so that a huge turn crosses the IPC a page at a time.
#[tauri::command]
pub fn naive_dropped(
    root: String,
    file: String,
    line: u64,
    offset: usize,
    limit: usize,
    opened: State<'_, Opened>,
) -> Result<RecordPage, CommandError> {
    let analysis = opened.current().ok_or_else(|| CommandError::new("not-open", "no log is open"))?;
    analysis
        .naive_dropped(&root, &file, line, offset, limit.min(500))
        .ok_or_else(|| CommandError::new("no-such-wait", format!("no root turn of {root} starts at {file}:{line}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_paths_skip_the_program_and_flags() {
        let args = ["arbor-app", "--automation", "a.jsonl", "logs/", "-psn_0_1"].map(String::from);
        assert_eq!(LaunchPaths::from_args(args).0, vec!["a.jsonl", "logs/"]);
    }

    fn case(name: &str) -> PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases").join(name).join("input")
    }

    /// A channel that keeps what is sent on it, as JSON.
    fn recorder() -> (Channel<LoadEvent>, Arc<Mutex<Vec<serde_json::Value>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let keep = seen.clone();
        let channel = Channel::new(move |body| {
            keep.lock().unwrap().push(body.deserialize::<serde_json::Value>().unwrap());
            Ok(())
        });
        (channel, seen)
    }

    #[test]
    fn a_load_streams_deltas_that_add_up_to_the_reports_sessions() {
        let (channel, seen) = recorder();
        let generation = AtomicU64::new(1);
        let mut forward = Forward { channel: &channel, generation: &generation, mine: 1, last_progress: None };
        let analysis = engine::load(&[case("dsh-rpc-two-level")], &mut forward).unwrap();
        let report = analysis.report();

        let events = seen.lock().unwrap();
        let streamed: Vec<String> = events
            .iter()
            .filter(|e| e["type"] == "delta")
            .flat_map(|e| e["sessions"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_owned()))
            .collect();
        let mut want: Vec<String> = report.sessions.iter().map(|s| s.id.clone()).collect();
        let mut got = streamed.clone();
        want.sort();
        got.sort();
        assert_eq!(got, want, "every session is streamed once");
        assert!(events.iter().all(|e| e["type"] == "delta" || e["type"] == "progress"));
    }

    #[test]
    fn a_superseded_load_is_cancelled() {
        let (channel, _seen) = recorder();
        // The app's generation has moved on (a cancel or a newer load): this load is not wanted.
        let generation = AtomicU64::new(2);
        let mut forward = Forward { channel: &channel, generation: &generation, mine: 1, last_progress: None };
        assert_eq!(engine::load(&[case("dsh-rpc-two-level")], &mut forward).err(), Some(LoadFailure::Cancelled));
    }

    #[test]
    fn load_failures_cross_with_their_codes() {
        assert_eq!(CommandError::from(LoadFailure::Cancelled).code, "cancelled");
        let e = CommandError::from(LoadFailure::Unreadable("no log files found".into()));
        assert_eq!((e.code, e.message.as_str()), ("load-failed", "no log files found"));
    }
}
