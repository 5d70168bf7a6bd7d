//! What a caller is told while an analysis is made (`Observer`): progress, and the sessions,
//! links and findings found since the last delta.

use crate::ctx::Ctx;
use crate::intern::Sym;
use crate::report::{self, Place};

/// What the engine has done so far, for a progress bar.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, ts_rs::TS)]
pub struct Progress {
    #[ts(type = "number")]
    pub files_done: usize,
    #[ts(type = "number")]
    pub files_total: usize,
    #[ts(type = "number")]
    pub bytes_read: u64,
    #[ts(type = "number")]
    pub bytes_total: u64,
    #[ts(type = "number")]
    pub records: u64,
    #[ts(type = "number")]
    pub sessions: usize,
    #[ts(type = "number")]
    pub findings: usize,
}

/// Told of progress as the analysis goes; returning `false` from either method cancels it.
pub trait Observer {
    fn progress(&mut self, _p: &Progress) -> bool {
        true
    }

    /// What was found since the last delta. Called right after the first chunks of the first
    /// file (so a viewer can show the first sessions at once), then about every 16 MB.
    fn delta(&mut self, _d: Delta) -> bool {
        true
    }

    /// Whether `delta` reads what it is given; when not, no delta is built (each copies the
    /// names of every new session and finding).
    fn wants_deltas(&self) -> bool {
        true
    }
}

impl Observer for () {
    fn wants_deltas(&self) -> bool {
        false
    }
}

impl<F: FnMut(&Progress) -> bool> Observer for F {
    fn progress(&mut self, p: &Progress) -> bool {
        self(p)
    }

    fn wants_deltas(&self) -> bool {
        false
    }
}

/// What a delta says of one session: enough to draw it in a tree before the analysis ends.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct SessionDelta {
    pub id: String,
    pub parent: Option<String>,
    pub label: Option<String>,
}

/// A run edge made since the last delta: `child` now hangs under `parent`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct EdgeDelta {
    pub child: String,
    pub parent: Option<String>,
}

/// What the analysis found since the last delta: new sessions, new run edges, new findings.
/// The final report supersedes every delta.
#[derive(Debug, Clone, serde::Serialize, ts_rs::TS)]
pub struct Delta {
    pub progress: Progress,
    pub sessions: Vec<SessionDelta>,
    pub edges: Vec<EdgeDelta>,
    pub findings: Vec<report::Diagnostic>,
}

/// Where the last delta stopped, per kind of fact.
#[derive(Debug, Default)]
pub(crate) struct DeltaMark {
    pub(super) sessions: usize,
    pub(super) runs: usize,
    pub(super) findings: usize,
}

impl DeltaMark {
    /// What is new since the last time, with files named by `file`.
    pub(super) fn take<'n>(&mut self, cx: &Ctx, file: impl Fn(usize) -> Option<&'n str>, progress: &Progress) -> Delta {
        let name = |s: Sym| cx.ids.name(s).to_owned();
        let sessions = cx
            .graph
            .order_since(self.sessions)
            .iter()
            .filter_map(|&s| cx.graph.get(s))
            .map(|n| SessionDelta {
                id: name(n.id),
                parent: n.parent.map(name),
                label: cx.graph.label(n).map(str::to_owned),
            })
            .collect::<Vec<_>>();
        let edges = cx
            .graph
            .runs_since(self.runs)
            .iter()
            .map(|&(c, p)| EdgeDelta { child: name(c), parent: p.map(name) })
            .collect::<Vec<_>>();
        let findings = cx.findings.list[self.findings.min(cx.findings.list.len())..]
            .iter()
            .map(|f| report::Diagnostic {
                code: f.code.as_str().to_owned(),
                severity: f.code.severity(),
                at: Place { file: file(f.at.file as usize).unwrap_or_default().to_owned(), line: f.at.line },
                session: f.session.map(name),
                message: f.message.to_string(),
                time: None,
            })
            .collect::<Vec<_>>();
        self.sessions += sessions.len();
        self.runs += edges.len();
        self.findings = cx.findings.list.len();
        Delta { progress: *progress, sessions, edges, findings }
    }
}
