//! Where each row of a view came from (`Source`, made by a `Recorder` as the view is made from an
//! analysis), which `View::grow` (`grow`) reads to keep the rows whose source did not change.

use super::store::{Store, NONE};
use crate::analysis::Analysis;

/// What a view made from a followed log's snapshot keeps to grow with it: which snapshot it
/// shows, and where each row came from.
pub(crate) struct Source {
    /// The snapshot the view shows (`Lineage::snapshot`) and its `Live`.
    pub(super) snapshot: u64,
    pub(super) live: u64,
    /// Engine symbol → the store's symbol of the same id (`NONE`: not looked up yet).
    pub(super) ids: Vec<u32>,
    /// Engine file index → the store's file index.
    pub(super) files: Vec<u32>,
    /// Per row of each table, its source: the session's symbol; the turn's index in
    /// `Turns::list`; the reply's turn, or its index in `Ctx::loose_replies` with `LOOSE` set;
    /// the wait's index in `Ctx::waits`; the finding's index in the context's findings.
    pub(super) sessions: Vec<u32>,
    pub(super) turns: Vec<u32>,
    pub(super) replies: Vec<u32>,
    pub(super) waits: Vec<u32>,
    pub(super) diagnostics: Vec<u32>,
}

/// Where each row of a view made from an analysis came from, recorded as the rows are kept
/// (`View::of_analysis_with`).
#[derive(Default)]
pub(crate) struct Recorder {
    pub sessions: Vec<u32>,
    pub turns: Vec<u32>,
    pub replies: Vec<u32>,
    pub waits: Vec<u32>,
    pub diagnostics: Vec<u32>,
}

impl Recorder {
    /// The sources of a view of `a`, whose store is `store`; `None` when `a` is not a followed
    /// log's snapshot.
    pub(crate) fn finish(self, a: &Analysis, store: &Store) -> Option<Source> {
        let lineage = a.lineage.as_ref()?;
        let files = a
            .files
            .iter()
            .map(|f| store.at_of(&crate::report::Place { file: f.display.clone(), line: 0 }).map_or(NONE, |at| at.file))
            .collect();
        Some(Source {
            snapshot: lineage.snapshot,
            live: lineage.live,
            ids: Vec::new(),
            files,
            sessions: self.sessions,
            turns: self.turns,
            replies: self.replies,
            waits: self.waits,
            diagnostics: self.diagnostics,
        })
    }
}

/// The rows of a findings table whose sources (`order`, indices into the context's findings)
/// are provisional: made when a followed log's snapshot was finished, from `first` on.
pub(crate) fn provisional_rows(order: &[u32], first: Option<usize>) -> Vec<u32> {
    let Some(first) = first else { return Vec::new() };
    order.iter().enumerate().filter(|(_, &i)| i as usize >= first).map(|(k, _)| k as u32).collect()
}

/// What `View::grow` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grown {
    /// It grew: rows kept from the view before, and rows made.
    Grew { kept: usize, made: usize },
    /// It was made again whole, for this reason.
    Made(&'static str),
}
