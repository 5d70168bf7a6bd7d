//! What is open, and what the commands and the following thread (`follow.rs`) both hand the
//! page: a log that is open (`Open`: its analysis, its view, the paths it was opened with and
//! what following goes on from), how every command fails (`CommandError`), and what streams over
//! the channel a log was loaded on (`LoadEvent`, with a followed revision's `Followed`). It sits
//! below both so that they import it and not each other; it keeps no app state of its own (that
//! is `commands::Opened`) and runs no command.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use ts_rs::TS;

use crate::engine::{self, Analysis, LoadFailure, Progress, Summary, TranscriptIndex, View};

/// How every command fails: a code the UI may branch on, and a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct CommandError {
    pub code: &'static str,
    pub message: String,
}

impl CommandError {
    pub(crate) fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self { code, message: message.into() }
    }

    pub(crate) fn stopped(e: impl std::fmt::Display) -> Self {
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

/// What streams to the UI while a log is read: progress (at most ten times a second), and that
/// the tree of what is read so far has grown to `sessions` (at most five times a second, the
/// first sessions at once): the page then asks for the rows it shows (`tree_rows` of
/// `loading`). Every change moves the revision on; the open log's answers carry it too.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum LoadEvent {
    Progress(Progress),
    Changed {
        #[ts(type = "number")]
        revision: u64,
        sessions: u32,
        /// Set when the open log grew while it was followed (`follow.rs`): the revision is then
        /// the open log's, and every view asks for what it shows again.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        follow: Option<Box<Followed>>,
    },
}

/// What one rebuild of a followed log found, sent in a `changed` message.
#[derive(Debug, Clone, Serialize, TS)]
pub struct Followed {
    /// Files that grew and files that appeared since the last message, by their names in the report.
    pub grown: Vec<String>,
    pub appeared: Vec<String>,
    /// Bytes read for this message, and the bytes of every open file read so far.
    #[ts(type = "number")]
    pub bytes: u64,
    #[ts(type = "number")]
    pub read_to: u64,
    /// Why everything was read again from the start, when it was (a file truncated, replaced or
    /// deleted: the findings then say so too).
    pub reread: Option<String>,
    /// What the watcher could not do (a folder that cannot be watched).
    pub errors: Vec<String>,
    /// The open log's summary as of this revision (the counts the page shows).
    pub summary: Summary,
}

/// The edits of a subtree (`None`: the whole log), as the Changes tab pages through them.
type KeptEdits = (Option<String>, Arc<Vec<arbor_core::changes::Edit>>);

/// A log that is open: its analysis (the files it was read from, its records) and its view, and
/// the paths it was opened with (what Follow watches).
pub struct Open {
    pub(crate) analysis: Analysis,
    /// Shared with the revision before while a followed log's view grows into this one's
    /// (`follow.rs`): the view is changed in place, not copied.
    view: Arc<Mutex<View>>,
    pub(crate) paths: Vec<PathBuf>,
    /// The transcript index of the session last read (its rows, a few bytes each): made once
    /// when a session's transcript is first asked for, kept while the page scrolls through it.
    transcript: Mutex<Option<(String, Arc<TranscriptIndex>)>>,
    /// The edits of the subtree last shown in the Changes tab (`None` key: the whole log): read
    /// back from the transcripts once, kept while its pages are asked for.
    changes: Mutex<Option<KeptEdits>>,
    /// What following it goes on from (`engine::load_to_follow`), until Follow takes it: kept
    /// for a log written in the last minutes (Follow's default), and given back when Follow
    /// stops, so that turning it on reads only what was appended since.
    pub(crate) live: Mutex<Option<engine::Live>>,
}

impl Open {
    pub(crate) fn new(analysis: Analysis, view: View, paths: Vec<PathBuf>) -> Open {
        Open::sharing(analysis, Arc::new(Mutex::new(view)), paths)
    }

    /// What is open, its view the one `view` holds (a followed log's view, grown from the
    /// revision before into this one).
    pub(crate) fn sharing(analysis: Analysis, view: Arc<Mutex<View>>, paths: Vec<PathBuf>) -> Open {
        Open { analysis, view, paths, transcript: Mutex::default(), changes: Mutex::default(), live: Mutex::default() }
    }

    pub(crate) fn view(&self) -> MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The view, to be grown into the next revision's (`Open::sharing`).
    pub(crate) fn shared_view(&self) -> Arc<Mutex<View>> {
        self.view.clone()
    }

    /// The transcript index of `session` (made now unless it is the one kept); `None` when the
    /// log has no such session.
    pub(crate) fn transcript(&self, session: &str) -> Option<Arc<TranscriptIndex>> {
        let mut kept = lock(&self.transcript);
        if let Some((id, index)) = kept.as_ref() {
            if id == session {
                return Some(index.clone());
            }
        }
        let index = Arc::new(self.analysis.transcript_index(session)?);
        *kept = Some((session.to_owned(), index.clone()));
        Some(index)
    }

    /// The edits of `session`'s subtree (of the whole log: `None`), made now unless they are the
    /// ones kept.
    pub(crate) fn changes(&self, session: Option<&str>) -> Arc<Vec<arbor_core::changes::Edit>> {
        let mut kept = lock(&self.changes);
        if let Some((id, edits)) = kept.as_ref() {
            if id.as_deref() == session {
                return edits.clone();
            }
        }
        let edits = Arc::new(self.analysis.changes(session));
        *kept = Some((session.map(str::to_owned), edits.clone()));
        edits
    }
}

/// A lock's guard, also when a thread panicked holding it (what it guards stays usable).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_failures_cross_with_their_codes() {
        assert_eq!(CommandError::from(LoadFailure::Cancelled).code, "cancelled");
        let e = CommandError::from(LoadFailure::Unreadable("no log files found".into()));
        assert_eq!((e.code, e.message.as_str()), ("load-failed", "no log files found"));
    }
}
