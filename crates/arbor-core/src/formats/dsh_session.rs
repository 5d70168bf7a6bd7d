//! `dsh-session`: deepseek-harness durable session logs (SPEC 2.3). Line 1 is a header naming the
//! session (and, for a child, its `parentSession` and `delegationDepth`); each file is one
//! session's fact log, checked by a boundary `Checker` (`dsh_events`). Children are hung under
//! their parents once every file is read (`settle`), since a parent's file may come later.
//!
//! Before anything is read (`plan`), an older generation of a session file that a newer one
//! beside it replaces is set aside (SPEC 1). Headers whose ids are placeholders (golden
//! snapshots, SPEC 1.1) are told apart by file, and a child's parent is then found by its
//! `delegationDepth`. This module does not own the boundary checks or the vocabulary.

use super::dsh_events::{event_kind, event_view, label_from, message_usage, Checker};
use super::{routed, FileStart, FormatInfo, HeadLine, Machine, Routed};
use crate::ctx::{Ctx, Kind};
use crate::finding::{Code, Loc};
use crate::graph::Ancestry;
use crate::intern::{HashMap, Sym};
use crate::report::{Link, Outcome};
use crate::wire::Line;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

pub const FORMAT: FormatInfo = FormatInfo {
    id: "dsh-session",
    description: "deepseek-harness durable session logs (files or folders)",
    reader: &DshSessionFormat,
};

#[derive(Debug)]
struct DshSessionFormat;

impl super::Format for DshSessionFormat {
    fn id_space(&self) -> Option<&'static str> {
        Some("dsh")
    }

    /// Set aside older generations of a session file.
    fn plan(&self, plan: &mut super::Plan) {
        set_aside_generations(plan);
    }

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

    fn machine(&self, file: &FileStart<'_>) -> Box<dyn Routed> {
        let folder = file.path.parent().map(Path::to_path_buf);
        routed(DshSession::new(super::stem(file.display), file.display.to_owned(), folder))
    }

    fn settle(&self, cx: &mut Ctx) {
        link_headers(cx);
    }

    fn parse_ahead(&self) -> Option<crate::formats::ParseAhead> {
        Some(crate::formats::ahead::<crate::scan::WireShape>)
    }

    fn reply_text(&self, line: &[u8]) -> String {
        crate::scan::reply_text(line)
    }

    fn transcript(&self, line: &[u8], out: &mut Vec<crate::vocab::transcript::Draft>) {
        super::wire_transcript::transcript(line, out)
    }

    fn may_compare(&self, kind: crate::ctx::Kind) -> bool {
        super::wire_transcript::may_compare(kind)
    }

    fn compared_parts(&self, line: &[u8], _kind: crate::ctx::Kind, out: &mut Vec<crate::vocab::transcript::Draft>) {
        super::wire_transcript::compared(line, out)
    }

    /// A `session/title`, else a `user/message`'s text (a string, or its first text block).
    fn about(&self, line: &[u8]) -> Option<super::About> {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        match v.get("type")?.as_str()? {
            "session/title" => super::about_str(&v, "/data/title").map(super::About::Title),
            "user/message" => super::about_str(&v, "/data/text")
                .or_else(|| super::about_str(&v, "/data/content"))
                .or_else(|| super::about_str(&v, "/data/content/0/text"))
                .map(super::About::Prompt),
            _ => None,
        }
    }
}

/// What the session files leave for `settle`: each header's parent link, and each child's run as
/// its file ended, by the header that opened it (two files may carry the same id).
#[derive(Debug, Default, Clone)]
struct Headers {
    links: Vec<(Sym, Sym, Loc)>,
    run_ends: HashMap<Loc, (Option<Loc>, Outcome)>,
    /// Headers whose id is a placeholder, for the parent rule of SPEC 1.1.
    placeholder_heads: Vec<PlaceholderHead>,
}

#[derive(Debug, Clone)]
struct PlaceholderHead {
    session: Sym,
    placeholder: String,
    folder: Option<PathBuf>,
    depth: Option<i64>,
    at: Loc,
    /// Its `parentSession` is the placeholder it carries itself: it says nothing of its parent.
    names_itself: bool,
}

/// Once surveyed, how many headers of the planned files (`Ctx::planned`) carry each placeholder id.
#[derive(Debug, Default, Clone)]
struct Placeholders {
    counts: Option<HashMap<String, u32>>,
}

impl Placeholders {
    /// How many headers of the planned files carry `id`: their first lines are read the first
    /// time a header is a placeholder (most logs have none, and no file is opened twice for them).
    fn count(cx: &mut Ctx, id: &str) -> u32 {
        let files = cx.planned.clone();
        let counts = cx.ext::<Placeholders>().counts.get_or_insert_with(|| {
            let mut counts: HashMap<String, u32> = HashMap::default();
            for h in files.iter().flatten().filter_map(|p| first_line(p).as_deref().and_then(header_id)) {
                if crate::ctx::is_placeholder(&h) {
                    *counts.entry(h).or_default() += 1;
                }
            }
            counts
        });
        counts.get(id).copied().unwrap_or(0)
    }
}

/// The longest first line read to find a header id without reading the file.
const FIRST_LINE_MAX: u64 = 1 << 20;

/// A file's first line, without its line ending or a byte-order mark (zstd files decompressed).
fn first_line(path: &Path) -> Option<Vec<u8>> {
    let stream = crate::reader::open_unbuffered(path).ok()?;
    let mut reader = std::io::BufReader::with_capacity(8 << 10, stream).take(FIRST_LINE_MAX);
    let mut line = Vec::new();
    reader.read_until(b'\n', &mut line).ok()?;
    while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        line.pop();
    }
    // Line 1 as the reader gives it: a byte-order mark before it is not part of it.
    let bom = line.len() - crate::reader::without_bom(&line).len();
    line.drain(..bom);
    Some(line)
}

/// The session id a header line names (a line the format's vote takes for a header).
fn header_id(line: &[u8]) -> Option<String> {
    let l = crate::scan::parse_line(line)?;
    let header = l.method.as_str().is_none() && l.kind.as_str() == Some("session") && l.version.get().is_some();
    header.then(|| l.id.non_empty().map(str::to_owned)).flatten()
}

/// A session file's name without its generation mark and compression, and its generation:
/// `session.v4.jsonl.zstd` is (`session.jsonl`, 4), `session.1.jsonl` (`session.1.jsonl`, 0).
fn generation(path: &Path) -> Option<(String, u32)> {
    let name = path.file_name()?.to_str()?;
    let lower = name.to_ascii_lowercase();
    let plain = match (lower.strip_suffix(".zst"), lower.strip_suffix(".zstd")) {
        (Some(p), _) | (_, Some(p)) => &name[..p.len()],
        _ => name,
    };
    let parts: Vec<&str> = plain.split('.').collect();
    if parts.len() >= 3 {
        let mark = parts[parts.len() - 2];
        if let Some(n) = mark.strip_prefix('v').filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) {
            if let Ok(n) = n.parse() {
                let mut rest = parts.clone();
                rest.remove(parts.len() - 2);
                return Some((rest.join("."), n));
            }
        }
    }
    Some((plain.to_owned(), 0))
}

/// SPEC 1 "Generations of one session file": in one folder, files whose names differ only in the
/// `.vN` mark and whose headers name the same session are one session; the highest generation is
/// read and each other one set aside with `superseded-session-file`.
fn set_aside_generations(plan: &mut super::Plan) {
    let mut groups: HashMap<(PathBuf, String), Vec<(usize, u32)>> = HashMap::default();
    for (i, f) in plan.files.iter().enumerate() {
        if f.skip.is_some() {
            continue;
        }
        if let (Some(folder), Some((key, n))) = (f.input.path.parent(), generation(&f.input.path)) {
            groups.entry((folder.to_path_buf(), key)).or_default().push((i, n));
        }
    }
    let mut skips = Vec::new();
    for members in groups.into_values().filter(|m| m.len() > 1) {
        let heads: Vec<(usize, u32, Option<String>)> = members
            .into_iter()
            .map(|(i, n)| (i, n, first_line(&plan.files[i].input.path).as_deref().and_then(header_id)))
            .collect();
        for (i, n, id) in &heads {
            let Some(id) = id else { continue };
            let newest = heads.iter().filter(|h| h.2.as_ref() == Some(id)).max_by_key(|h| (h.1, std::cmp::Reverse(h.0)));
            if let Some(&(j, ..)) = newest.filter(|h| h.1 > *n) {
                let newer = plan.files[j].input.display.rsplit('/').next().unwrap_or_default().to_owned();
                skips.push((*i, format!("an older generation of session `{id}`: `{newer}` beside it is the same session, written by a newer harness version, so this file is not read")));
            }
        }
    }
    for (i, message) in skips {
        plan.files[i].skip = Some(super::Skip { format: &FORMAT, code: Code::SupersededSessionFile, message });
    }
}

impl Machine for DshSession {
    type Shape = crate::scan::WireShape;

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
    /// The file's name in the report.
    display: String,
    /// The folder it is in.
    folder: Option<PathBuf>,
}

impl DshSession {
    fn new(stem: String, display: String, folder: Option<PathBuf>) -> Self {
        DshSession { session: None, checker: None, header: None, stem, display, folder }
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
        if let Some((usage, model)) = message_usage(&view) {
            cx.usage.add(s, checker.message_turn(), model, usage);
        }
    }

    fn begin(&mut self, cx: &mut Ctx, s: Sym) {
        cx.graph.session(s);
        cx.durable.insert(s);
        self.session = Some(s);
        self.checker = Some(Checker::new(s, None));
    }

    fn header_line(&mut self, cx: &mut Ctx, line: &Line, id: &str, at: Loc, offset: u64) {
        let placeholder = crate::ctx::is_placeholder(id);
        let folder = if placeholder { self.folder.clone() } else { None };
        // Each file is its own session (SPEC 1.1): when several headers carry this placeholder
        // (in its folder, or in other folders opened with it), the session is named by it and
        // the file.
        let shared = placeholder && Placeholders::count(cx, id) > 1;
        let s = if shared {
            // The placeholder itself names no session here: only the file's `placeholder-ids`
            // finding tells of it (interning it would claim the id for this format).
            cx.note_placeholder(id, at);
            cx.placeholder_shared(at.file, id);
            cx.sym(&format!("{id}@{}", self.display), at)
        } else {
            cx.sym(id, at)
        };
        self.begin(cx, s);
        self.header = Some(at);
        cx.record(at, offset, Some(s), Kind::Header, None);
        let depth = line.delegation_depth.int();
        if let Some(d) = depth {
            cx.graph.set_header_depth(s, d, at);
        }
        let parent = line.parent_session.non_empty();
        let names_itself = placeholder && parent == Some(id);
        if placeholder {
            let head = PlaceholderHead { session: s, placeholder: id.to_owned(), folder, depth, at, names_itself };
            cx.ext::<Headers>().placeholder_heads.push(head);
        }
        if let (Some(parent), false) = (parent, names_itself) {
            let p = cx.sym(parent, at);
            cx.ext::<Headers>().links.push((s, p, at));
        }
    }

    /// The end of the file: report what is open, and settle the child's run from its last turn.
    fn finish(&mut self, cx: &mut Ctx) {
        let (Some(_), Some(checker)) = (self.session, self.checker.take()) else { return };
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
    let Headers { mut links, run_ends, placeholder_heads } = std::mem::take(cx.ext::<Headers>());
    // A header that names its own placeholder as its parent (SPEC 1.1): its parent is the one
    // other session of the folder with that placeholder and a depth one less, else unknown.
    for head in placeholder_heads.iter().filter(|h| h.names_itself) {
        let mut parents = placeholder_heads.iter().filter(|p| {
            p.session != head.session
                && p.placeholder == head.placeholder
                && p.folder == head.folder
                && head.depth.is_some_and(|d| p.depth == Some(d - 1))
        });
        match (parents.next(), parents.next()) {
            (Some(p), None) => links.push((head.session, p.session, head.at)),
            _ => {
                let (end, outcome) = run_ends.get(&head.at).copied().unwrap_or((None, Outcome::Open));
                let run = cx.graph.open_run(head.session, None, Some(head.at), Link::Header);
                let node = cx.graph.session(head.session);
                node.unknown_parent = true;
                node.runs[run].end = end;
                node.runs[run].outcome = outcome;
            }
        }
    }
    let mut ancestry = Ancestry::default();
    for (child, parent, at) in links {
        let (cn, pn) = (cx.ids.name(child).to_owned(), cx.ids.name(parent).to_owned());
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
    // The tree's depths are worked out only when a header gave one to compare (25 ms for the
    // 243,622 sessions of a 1 GiB Copilot log, which has no headers, at every followed change).
    if !cx.graph.has_header_depths() {
        return;
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
