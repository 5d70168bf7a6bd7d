//! Following what is open while it is written (SPEC 5 Follow): when the page turns Follow on, a
//! thread of its own keeps an `arbor_follow::Follower` (the engine's `Live` and a file watcher)
//! on the open log's paths. It goes on from the `Live` the load kept (a log the user left
//! followed, or never chosen one written in the last minutes, is read to be followed:
//! `engine::load_to_follow`), so that only what is appended is read, and gives it back to what is
//! open when it stops; a log read without one (Follow first turned on for an older log) is read
//! again once when Follow goes on. On each change it takes a fresh snapshot, grows the view shown
//! into that snapshot's in place (`View::grow`: the rows of what did not change are kept, the
//! tree's order and collapsed sessions too; the page's questions wait for it meanwhile), swaps in
//! the snapshot and the view as what is open under a new revision, and tells the page over the
//! load's own channel, in a `changed` message that says what grew and the new counts.
//!
//! There is at most one rebuild in flight: the thread rebuilds, then looks again, and everything
//! written meanwhile is read in that next look; rebuilds also start at most every one and a half
//! times the time the last one took, so that a log written without pause leaves a third of the
//! CPU to the page (which draws one change at a time itself: `ui/src/lib/follow.svelte.ts`), and
//! they run at the app's priority until one takes long (a large log), then at the load's lower
//! one. It owns no reading of its own (that is the engine's) and decides nothing about what is
//! shown.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use arbor_core::live::Change;
use arbor_follow::Follower;
use serde::Serialize;
use tauri::ipc::Channel;
use ts_rs::TS;

use crate::engine;
use crate::open::{lock, CommandError, Followed, LoadEvent, Open};

/// A log is followed by default when one of its files was written this recently.
pub const RECENT: Duration = Duration::from_secs(10 * 60);

/// The least time between the starts of two rebuilds (a log written continuously is redrawn
/// about this often); a rebuild that took longer spaces the next one by one and a half times its
/// time, so that the following thread takes at most two thirds of a core. The page holds what comes while it draws (`ui/src/lib/follow.svelte.ts`),
/// so rebuilds faster than it draws cost CPU but no latency; spaced more, a write waited longer
/// for its rebuild (40 ms and twice: write → screen p95 257 ms; 20 ms and 1.5 times: see
/// BENCHMARKS.md "Following").
const MIN_SPACING: Duration = Duration::from_millis(20);

/// How long a rebuild waits at most for the page to take the change before (a page that asks for
/// no rows, or is gone), and how often it looks meanwhile.
const PACE_MAX: Duration = Duration::from_millis(500);
const PACE_LOOK: Duration = Duration::from_millis(3);

/// A rebuild this long lowers the following thread's priority (`run`). Shorter ones run at the
/// app's own: at the load's lower priority, a rebuild of a few milliseconds waited behind every
/// other busy process of the machine (write → screen p95 413 ms beside two builds).
const LONG_REBUILD: Duration = Duration::from_millis(100);

/// How often the thread looks whether a newer load or a cancel superseded it while nothing is
/// written (turning Follow off wakes it at once).
const LOOK: Duration = Duration::from_millis(250);

/// Whether what is open is followed, and how long ago its newest file was written.
#[derive(Debug, Clone, Serialize, TS)]
pub struct FollowState {
    pub following: bool,
    /// Seconds since the newest of the open files was last written, when it can be told.
    pub modified_ago: Option<f64>,
    /// Whether that is within the time that turns Follow on by default.
    pub recent: bool,
}

/// A follow in progress: dropping it stops the thread (woken at once); `stop` also waits for it.
pub struct Following {
    /// The load generation it follows; a newer one has stopped it.
    mine: u64,
    stop: Arc<AtomicBool>,
    waker: arbor_follow::Waker,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Following {
    /// Whether it still follows: no load or cancel came since it began.
    pub fn is_current(&self, generation: &AtomicU64) -> bool {
        generation.load(Ordering::SeqCst) == self.mine && !self.stop.load(Ordering::SeqCst)
    }

    /// Stops the thread and waits until it has given what it read back to what is open (so that
    /// Follow turned on again goes on from there).
    pub fn stop(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.waker.wake();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Following {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.waker.wake();
    }
}

/// What the following thread shares with the commands.
pub struct Shared {
    pub open: Arc<Mutex<Option<Arc<Open>>>>,
    pub revision: Arc<AtomicU64>,
    /// The load generation when following began: a newer load or a cancel stops the thread.
    pub generation: Arc<AtomicU64>,
    pub mine: u64,
    pub channel: Channel<LoadEvent>,
    /// The newest revision the page has asked the tree's rows of.
    pub taken: Arc<AtomicU64>,
}

/// Seconds since the newest of `paths` was written.
pub fn modified_ago(paths: &[PathBuf]) -> Option<f64> {
    let newest = paths
        .iter()
        .filter_map(|p| std::fs::metadata(arbor_core::bytes::rows::file_of(p)).and_then(|m| m.modified()).ok())
        .max()?;
    Some(SystemTime::now().duration_since(newest).unwrap_or_default().as_secs_f64())
}

/// Starts following `paths` (call it on a blocking thread: it may read them), from `live` when
/// what the load read was kept (nothing is read again), else reading them now. The first look
/// happens at once, so that what was written between the load and now shows.
pub fn start(paths: Vec<PathBuf>, live: Option<engine::Live>, shared: Shared) -> Result<Following, CommandError> {
    let stop = Arc::new(AtomicBool::new(false));
    let mine = shared.mine;
    engine::keep_memory_for_revisions();
    let follower = engine::at_low_priority(move || match live {
        Some(live) => Follower::continuing(live),
        None => Follower::open(&paths, &mut ()),
    })
    .map_err(|e| CommandError::new("internal", e))?
    .map_err(|e| CommandError::new("follow-failed", e))?;
    let waker = follower.waker();
    let stopped = stop.clone();
    let thread = std::thread::Builder::new()
        .name("arbor-follow".into())
        .spawn(move || {
            let follower = run(follower, &shared, &stopped);
            give_back(follower, &shared);
        })
        .map_err(|e| CommandError::new("internal", format!("no thread to follow with: {e}")))?;
    Ok(Following { mine, stop, waker, thread: Some(thread) })
}

/// What the follower read goes back to what is open, when that is still this follow's log.
fn give_back(follower: Follower, shared: &Shared) {
    let open = lock(&shared.open);
    if shared.generation.load(Ordering::SeqCst) == shared.mine {
        if let Some(open) = open.as_ref() {
            *lock(&open.live) = Some(follower.into_live());
        }
    }
}

/// Folds a later look into an earlier one.
fn merge(into: &mut Change, later: Change) {
    for g in later.grown {
        if !into.grown.contains(&g) {
            into.grown.push(g);
        }
    }
    into.appeared.extend(later.appeared);
    into.bytes += later.bytes;
    if later.reread.is_some() {
        into.reread = later.reread;
        into.rewritten |= later.rewritten;
    }
}

/// Follows until stopped or superseded; answers the follower, to give what it read back.
fn run(mut follower: Follower, shared: &Shared, stop: &AtomicBool) -> Follower {
    let wanted = || !stop.load(Ordering::SeqCst) && shared.generation.load(Ordering::SeqCst) == shared.mine;
    let trace = std::env::var_os("ARBOR_FOLLOW_TRACE").is_some_and(|v| !v.is_empty());
    let mut spacing = MIN_SPACING;
    let mut last: Option<Instant> = None;
    let mut lowered = false;
    let mut sent: Option<u64> = None;
    // What was written between the load and the start of following: read now (a follower that
    // read the files itself has read it already).
    let bytes = |files: &[arbor_core::analysis::FileInfo]| files.iter().map(|f| f.bytes).sum::<u64>();
    let caught_up = follower.update(&mut ());
    let shown = lock(&shared.open).as_ref().map(|o| bytes(&o.analysis.files));
    let mut first = (!caught_up.is_empty() || shown != Some(bytes(follower.live().files()))).then_some(caught_up);
    while wanted() {
        let waiting = Instant::now();
        let change = match first.take() {
            Some(c) => Some(c),
            None => follower.next(LOOK, &mut ()),
        };
        let Some(mut change) = change else { continue };
        let seen = Instant::now();
        let mut update = follower.last_update();
        // Rebuilds are spaced (from the start of the last one): what is written while waiting is
        // read in the same look.
        if let Some(wait) = last.map(|t| spacing.saturating_sub(t.elapsed())).filter(|w| !w.is_zero()) {
            std::thread::sleep(wait);
            merge(&mut change, follower.update(&mut ()));
            update += follower.last_update();
        }
        // One change ahead of the page at most: the next rebuild waits until the page has taken
        // the last one sent (asked for its rows), so that it reads what was written meanwhile and
        // the page, drawing one change at a time, is not sent changes it can only merge.
        let paced = Instant::now();
        while sent.is_some_and(|r| shared.taken.load(Ordering::SeqCst) < r) && paced.elapsed() < PACE_MAX && wanted() {
            std::thread::sleep(PACE_LOOK);
        }
        if paced.elapsed() >= PACE_LOOK {
            merge(&mut change, follower.update(&mut ()));
            update += follower.last_update();
        }
        if !wanted() {
            break;
        }
        let began = Instant::now();
        let snapshot = follower.live().snapshot();
        let snapshotted = Instant::now();
        let read_to = bytes(&snapshot.files);
        let revision = shared.revision.fetch_add(1, Ordering::SeqCst) + 1;
        // The view shown grows into this revision's in place (the page's questions wait for it
        // meanwhile): only what changed is made. Without one, it is made whole.
        let before = lock(&shared.open).clone();
        let (view, grown, summary) = match &before {
            Some(before) => {
                let view = before.shared_view();
                let mut shown = lock(&view);
                let Some(grown) = engine::grow(&mut shown, &before.analysis, &snapshot, revision, &wanted) else {
                    break;
                };
                let summary = shown.summary();
                drop(shown);
                (view, Some(grown), summary)
            }
            None => {
                let Some(view) = engine::followed_view_of(&snapshot, revision, &wanted) else { break };
                let summary = view.summary();
                (Arc::new(Mutex::new(view)), None, summary)
            }
        };
        let viewed = Instant::now();
        {
            let mut open = lock(&shared.open);
            // Only a newer load (or a cancel) leaves what is open alone: the view grown is of
            // this snapshot now, Follow turned off or not.
            if shared.generation.load(Ordering::SeqCst) != shared.mine {
                break;
            }
            let paths = open.as_ref().map(|o| o.paths.clone()).unwrap_or_default();
            *open = Some(Arc::new(Open::sharing(snapshot, view, paths)));
        }
        let swapped = Instant::now();
        let sessions = summary.sessions;
        let followed = Followed {
            grown: change.grown,
            appeared: change.appeared,
            bytes: change.bytes,
            read_to,
            reread: change.reread,
            errors: follower.take_errors(),
            summary,
        };
        let _ = shared.channel.send(LoadEvent::Changed { revision, sessions, follow: Some(Box::new(followed)) });
        sent = Some(revision);
        // ARBOR_FOLLOW_TRACE=1: where each revision's time went, on stderr (bench/follow-latency).
        if trace {
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            eprintln!(
                "follow: revision {revision} ({read_to} bytes): waited {:.1} ms, update {:.1} ms, spaced {:.1} ms, \
                 paced {:.1} ms, snapshot {:.1} ms, view {:.1} ms ({}), swap {:.1} ms, sent {:.1} ms",
                ms(seen - waiting),
                ms(update),
                ms(paced - seen),
                ms(began - paced),
                ms(snapshotted - began),
                ms(viewed - snapshotted),
                grown.map_or_else(|| "made".to_owned(), |g| format!("{g:?}")),
                ms(swapped - viewed),
                ms(swapped.elapsed()),
            );
        }
        spacing = (began.elapsed() * 3 / 2).max(MIN_SPACING);
        // A large log's rebuild takes long: from then on it gives way to the webview, as the
        // load does (for good: a thread cannot raise its priority again).
        if !lowered && began.elapsed() >= LONG_REBUILD {
            engine::lower_this_thread();
            lowered = true;
        }
        last = Some(began);
    }
    follower
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_looks_fold_into_one() {
        let mut a = Change { grown: vec!["a".into()], bytes: 3, ..Change::default() };
        merge(
            &mut a,
            Change {
                grown: vec!["a".into(), "b".into()],
                appeared: vec!["c".into()],
                bytes: 4,
                reread: Some("why".into()),
                rewritten: true,
            },
        );
        assert_eq!(a.grown, ["a", "b"]);
        assert_eq!(a.appeared, ["c"]);
        assert_eq!(a.bytes, 7);
        assert_eq!(a.reread.as_deref(), Some("why"));
        assert!(a.rewritten);
    }
}
