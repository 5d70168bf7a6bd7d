//! Opening a log, and what the first screen asks before one is open: the engine's version and
//! formats, the paths the app was started with, the logs found in the harnesses' default places.
//! A log is read on a blocking thread at a lower priority; `Forward` streams its progress and
//! "the tree of what is read so far changed" to the page, and the load ends as what is open
//! (`Opened`) unless a newer load or a cancel came first.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, Runtime, State};
use ts_rs::TS;

use super::opened::{Opened, Reading};
use super::settings::settings_of;
use crate::engine::{self, Delta, LoadFailure, Observer, Progress, Summary};
use crate::open::{lock, CommandError, LoadEvent, Open};
use crate::places::{self, FoundLog};
use crate::settings::SettingsSlot;

/// What the first screen shows: the engine's version, the commit the app was built from (empty
/// when the build could not know it: build/commit.rs) and the formats it reads.
#[derive(Debug, Clone, Serialize, TS)]
pub struct EngineInfo {
    pub version: &'static str,
    pub commit: &'static str,
    pub formats: &'static [arbor_core::FormatInfo],
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

/// Debug builds only: `arbor-app --slow-read=MBPS PATH` reads at most MBPS megabytes a second, as
/// from a slow disk. The engine reads a few hundred megabytes a second, faster than a person or
/// the end-to-end test can see the loading panel and press Cancel; this keeps a load going long
/// enough for both (tests/e2e/webdriver.mjs). Release builds ignore the flag.
#[cfg(debug_assertions)]
fn read_pace() -> Option<f64> {
    static PACE: std::sync::OnceLock<Option<f64>> = std::sync::OnceLock::new();
    *PACE.get_or_init(|| {
        std::env::args()
            .find_map(|a| a.strip_prefix("--slow-read=").and_then(|v| v.parse::<f64>().ok()))
            .filter(|&v| v > 0.0)
    })
}

/// How often the page is told how far the reading got.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Forwards the engine's progress and deltas to the UI, and stops when the load is superseded.
struct Forward<'a> {
    channel: &'a Channel<LoadEvent>,
    generation: &'a AtomicU64,
    revision: &'a AtomicU64,
    mine: u64,
    reading: &'a Reading,
    sessions: usize,
    last_progress: Option<Instant>,
    last_change: Option<Instant>,
    /// Sessions streamed since the page was last told.
    untold: bool,
    /// When the load began (for `--slow-read`).
    #[cfg(debug_assertions)]
    started: Instant,
}

impl Forward<'_> {
    fn still_wanted(&self) -> bool {
        self.generation.load(Ordering::SeqCst) == self.mine
    }

    /// Tells the page the tree grew (the first sessions at once), at most five times a second,
    /// less often as the tree grows: each telling makes the page ask for its rows, and the tree
    /// read so far is laid out again for them, which costs what its sessions count and takes
    /// CPU from the reading (about once a second at 200,000 sessions).
    fn tell_changed(&mut self, now: bool) {
        let every = Duration::from_millis(200 + self.sessions as u64 / 250);
        if self.untold && (now || self.last_change.is_none_or(|t| t.elapsed() >= every)) {
            self.untold = false;
            self.last_change = Some(Instant::now());
            let revision = self.revision.fetch_add(1, Ordering::SeqCst) + 1;
            let _ = self.channel.send(LoadEvent::Changed { revision, sessions: self.sessions as u32, follow: None });
        }
    }
}

impl Observer for Forward<'_> {
    fn progress(&mut self, p: &Progress) -> bool {
        #[cfg(debug_assertions)]
        if let Some(mbps) = read_pace() {
            // In short naps, so that a cancel is answered as soon as without the flag.
            let due = self.started + Duration::from_secs_f64(p.bytes_read as f64 / (mbps * 1e6));
            while self.still_wanted() && Instant::now() < due {
                std::thread::sleep(due.saturating_duration_since(Instant::now()).min(Duration::from_millis(20)));
            }
        }
        // A progress bar needs a few updates a second, not one per chunk: four. Each is drawn
        // by the webview (in software where there is no GPU, ~30 ms of its CPU an update while a
        // 1 GiB log is read), and that CPU is taken from the reading: at ten a second the webview
        // took 0.44 of a core throughout the read, at four 0.25 (BENCHMARKS.md).
        if self.last_progress.is_none_or(|t| t.elapsed() >= PROGRESS_EVERY) {
            self.last_progress = Some(Instant::now());
            let _ = self.channel.send(LoadEvent::Progress(*p));
        }
        self.tell_changed(false);
        self.still_wanted()
    }

    fn delta(&mut self, d: Delta) -> bool {
        if !d.sessions.is_empty() || !d.edges.is_empty() || !d.findings.is_empty() {
            self.sessions += d.sessions.len();
            self.untold = true;
            lock(&self.reading.pending).push(d);
        }
        // The first sessions go to the page at once.
        self.tell_changed(self.last_change.is_none());
        self.still_wanted()
    }
}

/// Reads `paths` on a blocking thread, streaming to `on_event`; keeps the analysis and its view
/// as what is open, and answers what the page shows first.
///
/// `follow` is whether the user left this log followed (its saved view state), when they chose:
/// a log that will be followed is read keeping what following goes on from, so that turning
/// Follow on reads only what was appended. Never chosen, that is a log written in the last
/// minutes (the page follows those by default).
async fn load_into(
    opened: &Opened,
    paths: Vec<PathBuf>,
    follow: Option<bool>,
    on_event: Channel<LoadEvent>,
) -> Result<Summary, CommandError> {
    let mine = opened.generation.fetch_add(1, Ordering::SeqCst) + 1;
    // Another log opened: what was followed is followed no more.
    *lock(&opened.following) = None;
    let channel = on_event.clone();
    let kept_paths = paths.clone();
    let reading = Arc::new(Reading::default());
    *lock(&opened.reading) = Some(reading.clone());
    let (generation, revision) = (opened.generation.clone(), opened.revision.clone());
    // The reading runs at a lower priority than the webview (see `engine::at_low_priority`).
    let read = reading.clone();
    let open = tauri::async_runtime::spawn_blocking(move || {
        engine::at_low_priority(move || {
            let mut forward = Forward {
                channel: &on_event,
                generation: &generation,
                revision: &revision,
                mine,
                reading: &read,
                sessions: 0,
                last_progress: None,
                last_change: None,
                untold: false,
                #[cfg(debug_assertions)]
                started: Instant::now(),
            };
            let started = Instant::now();
            let to_follow = follow.unwrap_or_else(|| engine::written_within(&paths, crate::follow::RECENT));
            let (analysis, live) = if to_follow {
                let (analysis, live) = engine::load_to_follow(&paths, &mut forward)?;
                (analysis, Some(live))
            } else {
                (engine::load(&paths, &mut forward)?, None)
            };
            let read_in = started.elapsed();
            read.finish();
            let wanted = || generation.load(Ordering::SeqCst) == mine;
            let rev = revision.fetch_add(1, Ordering::SeqCst) + 1;
            let view = engine::view_of(&analysis, rev, &wanted).ok_or(LoadFailure::Cancelled)?;
            // ARBOR_LOAD_TRACE=1: where a load's time goes on the Rust side (bench/app-load).
            if std::env::var_os("ARBOR_LOAD_TRACE").is_some() {
                let all = started.elapsed();
                eprintln!(
                    "arbor-load: read {:.3} s, view {:.3} s",
                    read_in.as_secs_f64(),
                    (all - read_in).as_secs_f64()
                );
            }
            let open = Open::new(analysis, view, kept_paths);
            *lock(&open.live) = live;
            Ok::<_, LoadFailure>(open)
        })
    })
    .await
    .map_err(CommandError::stopped)?
    .map_err(CommandError::stopped);
    let mut now_reading = lock(&opened.reading);
    if now_reading.as_ref().is_some_and(|r| Arc::ptr_eq(r, &reading)) {
        *now_reading = None;
    }
    drop(now_reading);
    let open = open??;
    // A newer load or a cancel that came after the last progress report still wins.
    if opened.generation.load(Ordering::SeqCst) != mine {
        return Err(LoadFailure::Cancelled.into());
    }
    let summary = open.view().summary();
    *lock(&opened.open) = Some(Arc::new(open));
    *lock(&opened.channel) = Some(channel);
    // A search of what was open before goes no further.
    opened.search_generation.fetch_add(1, Ordering::SeqCst);
    Ok(summary)
}

/// The engine's version and the formats it reads.
#[tauri::command]
pub fn engine_info() -> EngineInfo {
    EngineInfo { version: arbor_core::VERSION, commit: env!("ARBOR_COMMIT"), formats: arbor_core::FORMATS }
}

/// The paths the app was started with; empty when it should open the sample.
#[tauri::command]
pub fn launch_paths(launch: State<'_, LaunchPaths>) -> Vec<String> {
    launch.0.clone()
}

/// Session logs in the harnesses' default places on this machine, newest first.
#[tauri::command]
pub async fn found_logs<R: Runtime>(app: AppHandle<R>) -> Result<Vec<FoundLog>, CommandError> {
    let mut env = arbor_library::places::Env::from_process();
    if env.home.is_none() {
        env.home =
            Some(app.path().home_dir().map_err(|e| CommandError::new("internal", format!("no home folder: {e}")))?);
    }
    tauri::async_runtime::spawn_blocking(move || places::found_logs(&env)).await.map_err(CommandError::stopped)
}

/// Reads log files and folders into one report, streaming progress and the growing tree to
/// `on_event`, and keeps it as what is open; answers its summary. Opening something else cancels
/// this.
#[tauri::command]
pub async fn open_paths<R: Runtime>(
    paths: Vec<String>,
    on_event: Channel<LoadEvent>,
    app: AppHandle<R>,
    opened: State<'_, Opened>,
    slot: State<'_, SettingsSlot>,
) -> Result<Summary, CommandError> {
    if paths.is_empty() {
        return Err(CommandError::new("no-paths", "nothing to open: choose at least one file or folder"));
    }
    // The page keeps a log's view state under the paths it opened it with.
    let follow = chosen_follow(&app, &slot, &paths);
    load_into(&opened, paths.into_iter().map(PathBuf::from).collect(), follow, on_event).await
}

/// Whether the user left the log saved under `key` followed, when they chose (an unreadable
/// settings file is no choice).
fn chosen_follow<R: Runtime>(app: &AppHandle<R>, slot: &SettingsSlot, key: &[String]) -> Option<bool> {
    settings_of(app, slot).ok()?.view_state(key)?.follow
}

/// The key the page keeps the built-in sample's view state under (`ui/src/lib/settings.ts`).
const SAMPLE_KEY: &str = "arbor:sample";

/// Opens the built-in sample log (written to the app's cache folder, then read like any folder).
#[tauri::command]
pub async fn open_sample<R: Runtime>(
    app: AppHandle<R>,
    on_event: Channel<LoadEvent>,
    opened: State<'_, Opened>,
    slot: State<'_, SettingsSlot>,
) -> Result<Summary, CommandError> {
    let cache = app
        .path()
        .app_cache_dir()
        .map_err(|e| CommandError::new("internal", format!("no cache folder for the sample: {e}")))?;
    let folder = tauri::async_runtime::spawn_blocking(move || engine::write_sample(&cache))
        .await
        .map_err(CommandError::stopped)??;
    // The sample is written afresh each time it opens, but followed only when the user chose to.
    let follow = chosen_follow(&app, &slot, &[SAMPLE_KEY.to_owned()]).unwrap_or(false);
    load_into(&opened, vec![folder], Some(follow), on_event).await
}

/// Stops the load in progress, if any (it then fails with the code `cancelled`), and the follow
/// of what is open, which the page turns off with it (a cancel moves the generation on, which
/// stops the following thread; it was still said to be following).
#[tauri::command]
pub fn cancel_load(opened: State<'_, Opened>) {
    let following = lock(&opened.following).take();
    opened.generation.fetch_add(1, Ordering::SeqCst);
    drop(following);
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

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

    /// A `Forward` for load `mine` of `generation`, into `reading`.
    fn forward<'a>(
        channel: &'a Channel<LoadEvent>,
        generation: &'a AtomicU64,
        revision: &'a AtomicU64,
        reading: &'a Reading,
    ) -> Forward<'a> {
        Forward {
            channel,
            generation,
            revision,
            mine: 1,
            reading,
            sessions: 0,
            last_progress: None,
            last_change: None,
            untold: false,
            #[cfg(debug_assertions)]
            started: Instant::now(),
        }
    }

    #[test]
    fn a_load_grows_a_tree_of_every_session_and_says_when_it_changed() {
        let (channel, seen) = recorder();
        let (generation, revision, reading) = (AtomicU64::new(1), AtomicU64::new(0), Reading::default());
        let mut forward = forward(&channel, &generation, &revision, &reading);
        let analysis = engine::load(&[case("dsh-rpc-two-level")], &mut forward).unwrap();
        forward.tell_changed(true);
        let report = analysis.report();

        let events = seen.lock().unwrap();
        assert!(events.iter().all(|e| e["type"] == "changed" || e["type"] == "progress"));
        let changes: Vec<u64> =
            events.iter().filter(|e| e["type"] == "changed").map(|e| e["revision"].as_u64().unwrap()).collect();
        assert!(!changes.is_empty() && changes.windows(2).all(|w| w[0] < w[1]), "{changes:?}");
        let last = events.iter().rev().find(|e| e["type"] == "changed").unwrap();
        assert_eq!(last["sessions"].as_u64(), Some(report.sessions.len() as u64));
        // The tree of what was read holds every session of the report, under its parent.
        let page = reading.tree().page(9, 0, 100);
        let mut got: Vec<(String, Option<String>)> =
            page.rows.iter().map(|r| (r.id.clone(), r.parent.clone())).collect();
        let mut want: Vec<(String, Option<String>)> =
            report.sessions.iter().map(|s| (s.id.clone(), s.parent.clone())).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want);
        assert_eq!(page.revision, 9);
    }

    #[test]
    fn a_superseded_load_is_cancelled() {
        let (channel, _seen) = recorder();
        // The app's generation has moved on (a cancel or a newer load): this load is not wanted.
        let (generation, revision, reading) = (AtomicU64::new(2), AtomicU64::new(0), Reading::default());
        let mut forward = forward(&channel, &generation, &revision, &reading);
        assert_eq!(engine::load(&[case("dsh-rpc-two-level")], &mut forward).err(), Some(LoadFailure::Cancelled));
    }
}
