//! The IPC commands: the app's whole surface towards the web UI. Each command is a thin call into
//! the engine (through `engine.rs`); the UI reaches them only through `ui/src/lib/ipc.ts`.
//!
//! What is open stays here (`Opened`): the analysis and its view (`arbor_core::view`), which the
//! page asks for what it draws, a page or a window at a time, never the whole report. Reading a
//! log runs on a blocking thread at a lower priority; while it reads, progress and "the tree of
//! what is read so far changed" stream to the page through a `Channel`, and the page asks for the
//! rows of that tree it shows. Search streams its hits through a channel of its own.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, Runtime, State};
use ts_rs::TS;

use crate::engine::{
    self, Analysis, Axis, Cursor, Delta, Diagnostic, FindingsFilter, FindingsPage, Growing, HitQuery, LoadFailure,
    Located, Observer, Place, Progress, RecordPage, RecordView, RepliesPage, SearchEnd, SearchEvent, SessionDetail,
    Summary, TimelineHit, TimelineInfo, TimelineOpen, TimelineWindow, TranscriptIndex, TranscriptPage, TreeOrder,
    TreePage, TreeSpot, View, WaitsPage, WindowQuery,
};
use crate::open::{lock, CommandError, LoadEvent, Open};
use crate::places::{self, FoundLog};
use crate::settings::{RecentEntry, SettingsSlot, SettingsStore, SettingsView, Theme, ViewState};

/// What the first screen shows: the engine's version and the formats it reads.
#[derive(Debug, Clone, Serialize, TS)]
pub struct EngineInfo {
    pub version: &'static str,
    pub formats: &'static [arbor_core::FormatInfo],
}

/// Which tree a page of rows is of: the open log's, or the one of the log being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum TreeOf {
    Open,
    Loading,
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

/// The tree of the log being read: the deltas not yet folded in, and the tree they grow.
#[derive(Default)]
struct Reading {
    pending: Mutex<Vec<Delta>>,
    tree: Mutex<Growing>,
    /// The reading is over: the tree is let go while the view is made (the page keeps the rows it
    /// has until the log opens).
    done: std::sync::atomic::AtomicBool,
}

impl Reading {
    /// The reading is over: the tree goes (it is made again as the open log's).
    fn finish(&self) {
        self.done.store(true, Ordering::SeqCst);
        *lock(&self.tree) = Growing::default();
        lock(&self.pending).clear();
    }

    /// The tree with every delta received so far folded in.
    fn tree(&self) -> MutexGuard<'_, Growing> {
        let mut tree = self.tree.lock().unwrap_or_else(|e| e.into_inner());
        let pending = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        for d in pending {
            for s in &d.sessions {
                tree.session(&s.id, s.parent.as_deref(), s.label.as_deref());
            }
            for e in &d.edges {
                tree.edge(&e.child, e.parent.as_deref());
            }
            for f in &d.findings {
                if let Some(s) = &f.session {
                    tree.finding(s, f.severity);
                }
            }
        }
        tree
    }
}

/// A search that stopped at its limit, to go on with (`search_more`), and whose it is.
struct Paused {
    generation: u64,
    cursor: Cursor,
}

/// What is open now, the log being read, and which load and search are the current ones.
/// Starting a load, or cancelling, moves the load generation on; a load whose generation is no
/// longer current stops at its next report. Searches have a generation of their own. Every
/// change of what the page may show (a tree that grew, a log opened) moves the revision on.
#[derive(Default)]
pub struct Opened {
    open: Arc<Mutex<Option<Arc<Open>>>>,
    reading: Mutex<Option<Arc<Reading>>>,
    generation: Arc<AtomicU64>,
    revision: Arc<AtomicU64>,
    search_generation: Arc<AtomicU64>,
    paused: Mutex<Option<Paused>>,
    /// The channel the open log was loaded over: what Follow tells the page on.
    channel: Mutex<Option<Channel<LoadEvent>>>,
    /// The follow in progress, if any (dropping it stops it).
    following: Mutex<Option<crate::follow::Following>>,
    /// The newest revision of the open log's tree the page has asked rows of: what a followed
    /// log's rebuilds keep pace with (`follow.rs`).
    taken: Arc<AtomicU64>,
}

impl Opened {
    fn current(&self) -> Result<Arc<Open>, CommandError> {
        lock(&self.open).clone().ok_or_else(|| CommandError::new("not-open", "no log is open"))
    }

    fn reading(&self) -> Result<Arc<Reading>, CommandError> {
        lock(&self.reading)
            .clone()
            .filter(|r| !r.done.load(Ordering::SeqCst))
            .ok_or_else(|| CommandError::new("not-loading", "no log is being read"))
    }
}

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
        // A progress bar needs a few updates a second, not one per chunk.
        if self.last_progress.is_none_or(|t| t.elapsed() >= Duration::from_millis(100)) {
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

/// The raw text of line `line` (1-based) of `file`, a file as the open report names it; `None`
/// when the file has no such line. Only the files of what is open can be read.
#[tauri::command]
pub async fn raw_line(file: String, line: u64, opened: State<'_, Opened>) -> Result<Option<String>, CommandError> {
    let open = opened.current()?;
    if !open.analysis.files.iter().any(|f| f.display == file) {
        return Err(CommandError::new("not-open", format!("{file} is not part of what is open")));
    }
    tauri::async_runtime::spawn_blocking(move || open.analysis.raw_line(&file, line))
        .await
        .map_err(CommandError::stopped)
}

/// The records around the one at line `line` (1-based) of `file`: up to `before` (capped at 50)
/// before it, the record itself, up to `after` (capped at 50) after it, in wire order. Empty when
/// no record starts on that line. Only the files of what is open can be asked about.
#[tauri::command]
pub async fn records_around(
    file: String,
    line: u64,
    before: usize,
    after: usize,
    opened: State<'_, Opened>,
) -> Result<Vec<RecordView>, CommandError> {
    let open = opened.current()?;
    let analysis = &open.analysis;
    if !analysis.files.iter().any(|f| f.display == file) {
        return Err(CommandError::new("not-open", format!("{file} is not part of what is open")));
    }
    Ok(analysis
        .find_record(&file, line)
        .map_or_else(Vec::new, |i| analysis.records_around(i, before.min(50), after.min(50))))
}

/// How many hits a search finds before it waits to be asked for more, at most.
const SEARCH_LIMIT: u32 = 1000;

/// Runs a search from `cursor` on a blocking thread at a lower priority, its hits and progress
/// (at most ten times a second) streamed to `on_event`, until `limit` hits, the end, or a newer
/// search; a search stopped at its limit is kept for `search_more`.
async fn search_from(
    opened: &Opened,
    open: Arc<Open>,
    mine: u64,
    mut cursor: Cursor,
    limit: u32,
    on_event: Channel<SearchEvent>,
) -> Result<SearchEnd, CommandError> {
    let generation = opened.search_generation.clone();
    let (end, cursor) = tauri::async_runtime::spawn_blocking(move || {
        engine::at_low_priority(move || {
            let mut last: Option<Instant> = None;
            // The view is held while its sessions are searched, not while the records are read:
            // a followed log's view grows meanwhile.
            let end = cursor.run_lent(&open.analysis, || open.view(), limit.min(SEARCH_LIMIT), &mut |e| {
                let wanted = generation.load(Ordering::SeqCst) == mine;
                if wanted
                    && (!matches!(e, SearchEvent::Progress { .. })
                        || last.is_none_or(|t| t.elapsed() >= Duration::from_millis(100)))
                {
                    if matches!(e, SearchEvent::Progress { .. }) {
                        last = Some(Instant::now());
                    }
                    let _ = on_event.send(e);
                }
                wanted
            });
            (end, cursor)
        })
    })
    .await
    .map_err(CommandError::stopped)?
    .map_err(CommandError::stopped)?;
    if end == SearchEnd::Limit {
        *lock(&opened.paused) = Some(Paused { generation: mine, cursor });
    }
    Ok(end)
}

/// Sessions whose id or label contains `query`, then records whose line does (ignoring case),
/// streamed to `on_event` as they are found, with progress, up to `limit` (at most 1000) hits;
/// `search_more` goes on from there. A newer search (or `cancel_search`) stops this one.
#[tauri::command]
pub async fn search(
    query: String,
    limit: u32,
    on_event: Channel<SearchEvent>,
    opened: State<'_, Opened>,
) -> Result<SearchEnd, CommandError> {
    let mine = opened.search_generation.fetch_add(1, Ordering::SeqCst) + 1;
    *lock(&opened.paused) = None;
    let open = opened.current()?;
    let Some(cursor) = Cursor::new(&query) else {
        let _ = on_event.send(SearchEvent::End { end: SearchEnd::Done, hits: 0 });
        return Ok(SearchEnd::Done);
    };
    search_from(&opened, open, mine, cursor, limit, on_event).await
}

/// Goes on with the last search after its limit: `limit` (at most 1000) more hits.
#[tauri::command]
pub async fn search_more(
    limit: u32,
    on_event: Channel<SearchEvent>,
    opened: State<'_, Opened>,
) -> Result<SearchEnd, CommandError> {
    let open = opened.current()?;
    let paused = lock(&opened.paused).take();
    let mine = opened.search_generation.load(Ordering::SeqCst);
    match paused.filter(|p| p.generation == mine) {
        Some(p) => search_from(&opened, open, mine, p.cursor, limit, on_event).await,
        None => Err(CommandError::new("no-search", "no search to go on with")),
    }
}

/// Stops the search in progress, if any.
#[tauri::command]
pub fn cancel_search(opened: State<'_, Opened>) {
    opened.search_generation.fetch_add(1, Ordering::SeqCst);
    *lock(&opened.paused) = None;
}

/// Runs `f` on the open log's view on a blocking thread (a page can take milliseconds to make;
/// the async runtime's few threads, and the webview's main thread, are not kept waiting).
async fn with_view<T: Send + 'static>(
    opened: &Opened,
    f: impl FnOnce(&mut View) -> T + Send + 'static,
) -> Result<T, CommandError> {
    let open = opened.current()?;
    tauri::async_runtime::spawn_blocking(move || f(&mut open.view())).await.map_err(CommandError::stopped)
}

/// Runs `f` on the tree of the log being read, on a blocking thread.
async fn with_reading<T: Send + 'static>(
    opened: &Opened,
    f: impl FnOnce(&mut Growing, u64) -> T + Send + 'static,
) -> Result<T, CommandError> {
    let reading = opened.reading()?;
    let revision = opened.revision.clone();
    tauri::async_runtime::spawn_blocking(move || f(&mut reading.tree(), revision.load(Ordering::SeqCst)))
        .await
        .map_err(CommandError::stopped)
}

/// Rows `offset..offset + limit` (at most 500) of the visible rows of a tree: the open log's, or
/// the one of the log being read.
#[tauri::command]
pub async fn tree_rows(
    of: TreeOf,
    offset: u32,
    limit: u32,
    order: Option<TreeOrder>,
    opened: State<'_, Opened>,
) -> Result<TreePage, CommandError> {
    let limit = limit.min(500);
    match of {
        // The siblings' order, when given, is the tree's from then on (the tree being read has
        // no tokens yet: it keeps the log's order).
        TreeOf::Open => {
            let page = with_view(&opened, move |v| {
                if let Some(order) = order {
                    v.set_tree_order(order);
                }
                v.tree_page(offset, limit)
            })
            .await?;
            // The page has taken this revision (a followed log's next rebuild may start).
            opened.taken.fetch_max(page.revision, Ordering::SeqCst);
            Ok(page)
        }
        TreeOf::Loading => with_reading(&opened, move |t, revision| t.page(revision, offset, limit)).await,
    }
}

/// Opens (`open: true`), closes (`false`) or flips (`null`) a session's subtree in a tree.
#[tauri::command]
pub async fn tree_set_open(
    of: TreeOf,
    id: String,
    open: Option<bool>,
    opened: State<'_, Opened>,
) -> Result<TreeSpot, CommandError> {
    match of {
        TreeOf::Open => with_view(&opened, move |v| v.tree_set_open(&id, open)).await,
        TreeOf::Loading => with_reading(&opened, move |t, _| t.set_open(&id, open)).await,
    }
}

/// Opens every collapsed ancestor of a session, and says where its row is.
#[tauri::command]
pub async fn tree_reveal(of: TreeOf, id: String, opened: State<'_, Opened>) -> Result<TreeSpot, CommandError> {
    match of {
        TreeOf::Open => with_view(&opened, move |v| v.tree_reveal(&id)).await,
        TreeOf::Loading => with_reading(&opened, move |t, _| t.reveal(&id)).await,
    }
}

/// Rows `offset..offset + limit` (at most 500) of the findings list for `filter`.
#[tauri::command]
pub async fn findings_page(
    filter: FindingsFilter,
    offset: u32,
    limit: u32,
    opened: State<'_, Opened>,
) -> Result<FindingsPage, CommandError> {
    with_view(&opened, move |v| v.findings(&filter, offset, limit.min(500))).await
}

/// The findings reported at line `line` of `file`.
#[tauri::command]
pub async fn findings_at(file: String, line: u64, opened: State<'_, Opened>) -> Result<Vec<Diagnostic>, CommandError> {
    with_view(&opened, move |v| v.findings_at(&Place { file, line })).await
}

/// One session: its runs, with the parent each ran under; `null` when the log has no such session.
#[tauri::command]
pub async fn session_detail(id: String, opened: State<'_, Opened>) -> Result<Option<SessionDetail>, CommandError> {
    with_view(&opened, move |v| v.session(&id)).await
}

/// Root waits `offset..offset + limit` (at most 200), each beside its naive reading.
#[tauri::command]
pub async fn waits_page(offset: u32, limit: u32, opened: State<'_, Opened>) -> Result<WaitsPage, CommandError> {
    with_view(&opened, move |v| v.waits(offset, limit.min(200))).await
}

/// Replies `offset..offset + limit` (at most 200), grouped by session in the tree's order.
#[tauri::command]
pub async fn replies_page(offset: u32, limit: u32, opened: State<'_, Opened>) -> Result<RepliesPage, CommandError> {
    with_view(&opened, move |v| v.replies(offset, limit.min(200))).await
}

/// The timeline's axis, domain and lane count (on `axis` when the log has a clock, else wire order).
#[tauri::command]
pub async fn timeline_info(axis: Axis, opened: State<'_, Opened>) -> Result<TimelineInfo, CommandError> {
    with_view(&opened, move |v| v.timeline_info(axis)).await
}

/// The timeline's axis and domain, and the window of lanes `first..last` (at most 500) over the
/// whole domain at `width` pixels: what it draws as it opens, in one answer.
#[tauri::command]
pub async fn timeline_open(
    axis: Axis,
    first: u32,
    last: u32,
    width: f64,
    opened: State<'_, Opened>,
) -> Result<TimelineOpen, CommandError> {
    let (last, width) = (last.min(first.saturating_add(500)), width.clamp(1.0, 20_000.0));
    with_view(&opened, move |v| v.timeline_open(axis, first, last, width)).await
}

/// The lanes and rectangles of a window of the timeline, at its resolution (at most 500 lanes).
#[tauri::command]
pub async fn timeline_window(
    mut query: WindowQuery,
    opened: State<'_, Opened>,
) -> Result<TimelineWindow, CommandError> {
    query.last = query.last.min(query.first.saturating_add(500));
    query.width = query.width.clamp(1.0, 20_000.0);
    with_view(&opened, move |v| v.timeline_window(&query)).await
}

/// What is under a point of the timeline.
#[tauri::command]
pub async fn timeline_hit(query: HitQuery, opened: State<'_, Opened>) -> Result<Option<TimelineHit>, CommandError> {
    with_view(&opened, move |v| v.timeline_hit(&query)).await
}

/// Where a session's lane is and where a place is on the timeline's axis.
#[tauri::command]
pub async fn timeline_locate(
    axis: Axis,
    session: Option<String>,
    place: Option<Place>,
    opened: State<'_, Opened>,
) -> Result<Located, CommandError> {
    with_view(&opened, move |v| v.timeline_locate(axis, session.as_deref(), place.as_ref())).await
}

/// Whether what is open is followed, and how recently it was written (Follow is on by default
/// for a log written in the last minutes).
#[tauri::command]
pub fn follow_state(opened: State<'_, Opened>) -> Result<crate::follow::FollowState, CommandError> {
    let open = opened.current()?;
    let files: Vec<PathBuf> = open.analysis.files.iter().map(|f| f.path.clone()).collect();
    let modified_ago = crate::follow::modified_ago(&files);
    Ok(crate::follow::FollowState {
        following: lock(&opened.following).as_ref().is_some_and(|f| f.is_current(&opened.generation)),
        modified_ago,
        recent: modified_ago.is_some_and(|s| s <= crate::follow::RECENT.as_secs_f64()),
    })
}

/// Follows what is open as it is written (`on: true`), or stops following it. While it is
/// followed, `changed` messages with a `follow` part come over the channel it was loaded over.
#[tauri::command]
pub async fn set_follow(on: bool, opened: State<'_, Opened>) -> Result<crate::follow::FollowState, CommandError> {
    // The follow in progress ends (its thread gives what it read back to what is open).
    let before = lock(&opened.following).take();
    if let Some(before) = before {
        tauri::async_runtime::spawn_blocking(move || before.stop()).await.map_err(CommandError::stopped)?;
    }
    if on {
        let open = opened.current()?;
        let channel = lock(&opened.channel).clone().ok_or_else(|| CommandError::new("not-open", "no log is open"))?;
        let mine = opened.generation.load(Ordering::SeqCst);
        let shared = crate::follow::Shared {
            open: opened.open.clone(),
            revision: opened.revision.clone(),
            generation: opened.generation.clone(),
            mine,
            channel,
            taken: opened.taken.clone(),
        };
        let paths = open.paths.clone();
        // What the load (or the last follow) read, when it was kept: following goes on from it.
        let live = lock(&open.live).take();
        let following = tauri::async_runtime::spawn_blocking(move || crate::follow::start(paths, live, shared))
            .await
            .map_err(CommandError::stopped)??;
        // A load that began meanwhile wins (the follow is dropped, and stops).
        if opened.generation.load(Ordering::SeqCst) == mine {
            *lock(&opened.following) = Some(following);
        }
    }
    follow_state(opened)
}

/// Stops following (the window is closing).
pub fn stop_following(opened: &Opened) {
    *lock(&opened.following) = None;
}

/// How many characters of one part a transcript page carries; `transcript_part` gives the rest.
const TRANSCRIPT_TEXT: usize = 4000;

/// Runs `f` on the open log's analysis and the transcript index of `session` on a blocking
/// thread (the first ask for a session walks its records); `no-session` when there is none.
async fn with_transcript<T: Send + 'static>(
    opened: &Opened,
    session: String,
    f: impl FnOnce(&Analysis, &TranscriptIndex) -> T + Send + 'static,
) -> Result<T, CommandError> {
    let open = opened.current()?;
    tauri::async_runtime::spawn_blocking(move || {
        let index = open.transcript(&session);
        index
            .map(|i| f(&open.analysis, &i))
            .ok_or_else(|| CommandError::new("no-session", format!("no session {session}")))
    })
    .await
    .map_err(CommandError::stopped)?
}

/// Rows `from..from + limit` (at most 500) of a session's transcript, each part's text cut to
/// 4,000 characters (with its whole length).
#[tauri::command]
pub async fn transcript_page(
    session: String,
    from: u32,
    limit: u32,
    opened: State<'_, Opened>,
) -> Result<TranscriptPage, CommandError> {
    with_transcript(&opened, session, move |a, i| a.transcript_page(i, from, limit.min(500), TRANSCRIPT_TEXT)).await
}

/// The whole text of part `part` of row `row` of a session's transcript; `null` when it has none.
#[tauri::command]
pub async fn transcript_part(
    session: String,
    row: u32,
    part: u32,
    opened: State<'_, Opened>,
) -> Result<Option<String>, CommandError> {
    with_transcript(&opened, session, move |a, i| a.transcript_part(i, row, part as usize)).await
}

/// Where a place opens in a transcript: the session of the record there (else `session`), and the
/// row of that record or of the last one before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct TranscriptSpot {
    pub session: String,
    pub row: u32,
}

/// The transcript item a place (a finding's, a search hit's, a run's start) opens: `null` when no
/// record starts there and `session` is not given, or its transcript is empty.
#[tauri::command]
pub async fn transcript_locate(
    session: Option<String>,
    place: Place,
    opened: State<'_, Opened>,
) -> Result<Option<TranscriptSpot>, CommandError> {
    let open = opened.current()?;
    tauri::async_runtime::spawn_blocking(move || {
        let record = open.analysis.find_record(&place.file, place.line);
        let owner = record.and_then(|r| open.analysis.record_view(r)).and_then(|v| v.session);
        let session = owner.or(session)?;
        let index = open.transcript(&session)?;
        let row = match record {
            Some(r) => index.row_near(r)?,
            None if index.is_empty() => return None,
            None => 0,
        };
        Some(TranscriptSpot { session, row })
    })
    .await
    .map_err(CommandError::stopped)
}

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
pub async fn naive_dropped(
    root: String,
    file: String,
    line: u64,
    offset: usize,
    limit: usize,
    opened: State<'_, Opened>,
) -> Result<RecordPage, CommandError> {
    opened
        .current()?
        .analysis
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
