//! `dsh-session`: deepseek-harness durable session logs (SPEC 2.3). Line 1 is a header naming the
//! session (and, for a child, its `parentSession` and `delegationDepth`); each file is one
//! session's fact log, checked by a boundary `Checker` (`dsh_events`). Children are hung under
//! their parents once every file is read (`settle`), since a parent's file may come later.

use super::dsh_events::{event_kind, event_view, label_from, Checker};
use super::{FormatInfo, HeadLine, Machine, Reading};
use crate::ctx::{Ctx, Kind};
use crate::finding::{Code, Loc};
use crate::graph::Ancestry;
use crate::intern::{HashMap, Sym};
use crate::report::{Link, Outcome};
use crate::wire::Line;

pub const FORMAT: FormatInfo = FormatInfo {
    id: "dsh-session",
    description: "deepseek-harness durable session logs (files or folders)",
    reader: &DshSessionFormat,
};

#[derive(Debug)]
struct DshSessionFormat;

impl super::Format for DshSessionFormat {
    /// A header (`type: session` with an `id` and a `version`), or an event with a dsh type and a
    /// `data` or `seq`; never a JSON-RPC line.
    fn vote(&self, head: &HeadLine) -> bool {
        let Some(line) = head.wire() else { return false };
        if line.method.as_str().is_some() {
            return false;
        }
        let Some(t) = line.kind.as_str() else { return false };
        (t == "session" && line.id.as_str().is_some() && line.version.get().is_some())
            || (super::dsh_like_type(t) && (line.data.0.is_some() || line.seq.get().is_some()))
    }

    fn read(&self, file: Reading<'_>) -> bool {
        let stem = super::stem(file.display());
        file.route(DshSession::new(stem))
    }

    fn settle(&self, cx: &mut Ctx) {
        link_headers(cx);
    }

    fn reply_text(&self, line: &[u8]) -> String {
        crate::wire::reply_text(line)
    }

    fn transcript(&self, line: &[u8], out: &mut Vec<crate::transcript::Draft>) {
        super::wire_transcript::transcript(line, out)
    }
}

/// What the session files leave for `settle`: each header's parent link, and each child's run as
/// its file ended, by the header that opened it (two files may carry the same id).
#[derive(Debug, Default, Clone)]
struct Headers {
    links: Vec<(Sym, Sym, Loc)>,
    run_ends: HashMap<Loc, (Option<Loc>, Outcome)>,
}

impl Machine for DshSession {
    type Shape = crate::wire::WireShape;

    fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        DshSession::line(self, cx, line, at, offset)
    }

    fn finish(&mut self, cx: &mut Ctx) {
        DshSession::finish(self, cx)
    }
}

/// The state of one `dsh-session` file.
#[derive(Debug, Clone)]
struct DshSession {
    session: Option<Sym>,
    checker: Option<Checker>,
    header: Option<Loc>,
    stem: String,
}

impl DshSession {
    fn new(stem: String) -> Self {
        DshSession { session: None, checker: None, header: None, stem }
    }

    fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        if self.session.is_none() && line.kind.as_str() == Some("session") {
            if let Some(id) = line.id.non_empty() {
                self.header_line(cx, line, id, at, offset);
                return;
            }
        }
        let s = match self.session {
            Some(s) => s,
            None => {
                // A log without a header: the file's stem names the session.
                let s = cx.sym(&self.stem.clone(), at);
                self.begin(cx, s);
                s
            }
        };
        let view = event_view(line);
        cx.record(at, offset, Some(s), event_kind(view.kind), view.time);
        if let Some(label) = label_from(&view) {
            cx.graph.set_label(s, &label);
        }
        let checker = self.checker.as_mut().expect("begun above");
        checker.event(&view, at, cx.records.len(), &mut cx.turns, &mut cx.findings);
    }

    fn begin(&mut self, cx: &mut Ctx, s: Sym) {
        cx.graph.session(s);
        cx.durable.insert(s);
        self.session = Some(s);
        self.checker = Some(Checker::new(s, None));
    }

    fn header_line(&mut self, cx: &mut Ctx, line: &Line, id: &str, at: Loc, offset: u64) {
        let s = cx.sym(id, at);
        self.begin(cx, s);
        self.header = Some(at);
        cx.record(at, offset, Some(s), Kind::Header, None);
        if let Some(d) = line.delegation_depth.int() {
            cx.graph.set_header_depth(s, d, at);
        }
        if let Some(parent) = line.parent_session.non_empty() {
            let p = cx.sym(parent, at);
            cx.ext::<Headers>().links.push((s, p, at));
        }
    }

    /// The end of the file: report what is open, and settle the child's run from its last turn.
    fn finish(&mut self, cx: &mut Ctx) {
        let (Some(_), Some(mut checker)) = (self.session, self.checker.take()) else { return };
        checker.finish(&mut cx.findings);
        let outcome = match checker.last_reason(&cx.turns) {
            None => Outcome::Open,
            Some("completed" | "max-tokens") => Outcome::Ok,
            Some("aborted" | "interrupted") => Outcome::Cancelled,
            Some(_) => Outcome::Error,
        };
        let end = checker.last_turn_end(&cx.turns).and_then(|r| cx.loc_of(r));
        if let Some(header) = self.header {
            cx.ext::<Headers>().run_ends.insert(header, (end, outcome));
        }
    }
}

/// Once every file is read: hang `dsh-session` children under their headers' parents, then
/// compare header depths with the tree.
fn link_headers(cx: &mut Ctx) {
    let Headers { links, run_ends } = std::mem::take(cx.ext::<Headers>());
    let mut ancestry = Ancestry::default();
    for (child, parent, at) in links {
        let (cn, pn) = (cx.ids.name(child).to_owned(), cx.ids.name(parent).to_owned());
        if child == parent && crate::ctx::is_placeholder(&cn) {
            // A normalized snapshot: both ids were replaced by the same placeholder, so the link
            // says nothing (placeholder-ids already tells the user).
            continue;
        }
        if ancestry.would_cycle(child, parent) {
            cx.findings.add(
                Code::AncestryCycle,
                at,
                Some(child),
                format!("the header of `{cn}` names `{pn}` as its parent, which makes `{cn}` its own ancestor"),
            );
        } else if !cx.graph.contains(parent) {
            cx.findings.add(
                Code::MissingParentSession,
                at,
                Some(child),
                format!("the header's parentSession `{pn}` names no loaded session"),
            );
        }
        if child != parent {
            ancestry.set_parent(child, parent);
        }
        let (end, outcome) = run_ends.get(&at).copied().unwrap_or((None, Outcome::Open));
        let run = cx.graph.open_run(child, Some(parent), Some(at), Link::Header);
        let node = cx.graph.session(child);
        node.runs[run].end = end;
        node.runs[run].outcome = outcome;
    }
    let placements = cx.graph.placements();
    let mut mismatches = Vec::new();
    for node in cx.graph.nodes() {
        if let (Some((d, at)), Some(p)) = (cx.graph.header_depth(node.id), placements.get(&node.id)) {
            if let Some(depth) = p.depth {
                if d != depth as i64 {
                    mismatches.push((node.id, d, depth, at));
                }
            }
        }
    }
    for (s, d, depth, at) in mismatches {
        let name = cx.ids.name(s).to_owned();
        cx.findings.add(
            Code::DelegationDepthMismatch,
            at,
            Some(s),
            format!("the header of `{name}` says delegationDepth {d}, but it sits at depth {depth} in the tree"),
        );
    }
}
