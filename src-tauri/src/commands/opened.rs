//! What the commands keep between calls (`Opened`, the app's state): what is open, the log being
//! read and the tree it grows (`Reading`), the search paused at its limit, the follow in progress,
//! and the generations that tell a current load or search from a superseded one; and the two ways
//! a command runs on it off the async runtime (`with_view`, `with_reading`). It answers no command
//! itself.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tauri::ipc::Channel;

use crate::engine::{Cursor, Delta, Growing, View};
use crate::open::{lock, CommandError, LoadEvent, Open};

/// The tree of the log being read: the deltas not yet folded in, and the tree they grow.
#[derive(Default)]
pub(super) struct Reading {
    pub(super) pending: Mutex<Vec<Delta>>,
    tree: Mutex<Growing>,
    /// The reading is over: the tree is let go while the view is made (the page keeps the rows it
    /// has until the log opens).
    done: std::sync::atomic::AtomicBool,
}

impl Reading {
    /// The reading is over: the tree goes (it is made again as the open log's).
    pub(super) fn finish(&self) {
        self.done.store(true, Ordering::SeqCst);
        *lock(&self.tree) = Growing::default();
        lock(&self.pending).clear();
    }

    /// The tree with every delta received so far folded in.
    pub(super) fn tree(&self) -> MutexGuard<'_, Growing> {
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
pub(super) struct Paused {
    pub(super) generation: u64,
    pub(super) cursor: Cursor,
}

/// What is open now, the log being read, and which load and search are the current ones.
/// Starting a load, or cancelling, moves the load generation on; a load whose generation is no
/// longer current stops at its next report. Searches have a generation of their own. Every
/// change of what the page may show (a tree that grew, a log opened) moves the revision on.
#[derive(Default)]
pub struct Opened {
    pub(super) open: Arc<Mutex<Option<Arc<Open>>>>,
    pub(super) reading: Mutex<Option<Arc<Reading>>>,
    pub(super) generation: Arc<AtomicU64>,
    pub(super) revision: Arc<AtomicU64>,
    pub(super) search_generation: Arc<AtomicU64>,
    pub(super) paused: Mutex<Option<Paused>>,
    /// The channel the open log was loaded over: what Follow tells the page on.
    pub(super) channel: Mutex<Option<Channel<LoadEvent>>>,
    /// The follow in progress, if any (dropping it stops it).
    pub(super) following: Mutex<Option<crate::follow::Following>>,
    /// The newest revision of the open log's tree the page has asked rows of: what a followed
    /// log's rebuilds keep pace with (`follow.rs`).
    pub(super) taken: Arc<AtomicU64>,
}

impl Opened {
    pub(super) fn current(&self) -> Result<Arc<Open>, CommandError> {
        lock(&self.open).clone().ok_or_else(|| CommandError::new("not-open", "no log is open"))
    }

    pub(super) fn reading(&self) -> Result<Arc<Reading>, CommandError> {
        lock(&self.reading)
            .clone()
            .filter(|r| !r.done.load(Ordering::SeqCst))
            .ok_or_else(|| CommandError::new("not-loading", "no log is being read"))
    }
}

/// Runs `f` on the open log's view on a blocking thread (a page can take milliseconds to make;
/// the async runtime's few threads, and the webview's main thread, are not kept waiting).
pub(super) async fn with_view<T: Send + 'static>(
    opened: &Opened,
    f: impl FnOnce(&mut View) -> T + Send + 'static,
) -> Result<T, CommandError> {
    let open = opened.current()?;
    tauri::async_runtime::spawn_blocking(move || f(&mut open.view())).await.map_err(CommandError::stopped)
}

/// Runs `f` on the tree of the log being read, on a blocking thread.
pub(super) async fn with_reading<T: Send + 'static>(
    opened: &Opened,
    f: impl FnOnce(&mut Growing, u64) -> T + Send + 'static,
) -> Result<T, CommandError> {
    let reading = opened.reading()?;
    let revision = opened.revision.clone();
    tauri::async_runtime::spawn_blocking(move || f(&mut reading.tree(), revision.load(Ordering::SeqCst)))
        .await
        .map_err(CommandError::stopped)
}
