//! The report as borrowed parts, made from a finished `Analysis` on demand: written straight to
//! JSON (`arbor analyze --json`, by `report_json`), or collected into the owned `Report` (the
//! app, the tests).
//!
//! Both front ends read the same parts, so the two cannot disagree; the borrowed shapes mirror the
//! `report` types field for field, `report_json` writes them as serde_json writes the owned
//! `Report`, and the tests compare the two byte for byte. Writing from the parts never holds the
//! whole report: a place borrows its file's display name instead of copying it, and a turn, reply
//! or wait exists only while it is written. The owned `Report` stays the one shape of the IPC and
//! the generated types.

use crate::analysis::{Analysis, ReplyTexts};
use crate::ctx::TextRef;
use crate::finding::Loc;
use crate::graph::Placements;
use crate::intern::HashMap;
use crate::intern::Sym;
use crate::report::{self, Link, Outcome, Report, Severity, Usage, WaitOutcome};
use crate::turns::TurnId;
use crate::usage::{SessionTallies, Tally};

/// A turn id as the report shows it: what `serde_json::Value` would write for it (`null` for a
/// reply outside any turn).
#[derive(Debug, Clone, Copy)]
pub enum TurnIdRef<'a> {
    Num(i64),
    Text(&'a str),
    Null,
}

impl From<TurnIdRef<'_>> for serde_json::Value {
    fn from(t: TurnIdRef<'_>) -> Self {
        match t {
            TurnIdRef::Num(n) => n.into(),
            TurnIdRef::Text(t) => t.into(),
            TurnIdRef::Null => serde_json::Value::Null,
        }
    }
}

#[derive(Clone, Copy)]
pub struct PlaceRef<'a> {
    pub file: &'a str,
    /// `file` as a JSON string, escaped once per file (`Analysis::file_names_json`).
    pub(crate) file_json: &'a str,
    pub line: u64,
}

pub struct InputRef<'a> {
    pub file: &'a str,
    pub format: &'static str,
    pub records: u64,
    pub bad_lines: u64,
    pub bytes: u64,
}

pub struct SessionRef<'a> {
    pub id: &'a str,
    pub parent: Option<&'a str>,
    pub root: Option<&'a str>,
    pub depth: Option<u32>,
    pub label: Option<&'a str>,
    pub runs: Vec<RunRef<'a>>,
    pub events: u64,
    pub inferred_parent: bool,
    pub usage: Option<Usage>,
    pub subtree_usage: Option<Usage>,
    /// The analysis's symbols of `id`, `parent` and `root` (a view keeps a name once by them).
    pub(crate) syms: [Option<Sym>; 3],
}

pub struct RunRef<'a> {
    pub parent: Option<&'a str>,
    /// The analysis's symbol of `parent`.
    pub(crate) parent_sym: Option<Sym>,
    pub start: Option<PlaceRef<'a>>,
    pub end: Option<PlaceRef<'a>>,
    pub outcome: Outcome,
    pub link: Link,
    pub start_time: Option<f64>,
    pub end_time: Option<f64>,
    pub received: Option<ReceivedRef<'a>>,
}

pub struct ReceivedRef<'a> {
    pub text: &'a str,
    pub at: PlaceRef<'a>,
}

pub struct TurnRef<'a> {
    pub session: &'a str,
    /// The analysis's symbol of `session`.
    pub(crate) session_sym: Sym,
    pub turn: TurnIdRef<'a>,
    pub run: Option<u32>,
    pub start: Option<PlaceRef<'a>>,
    pub end: Option<PlaceRef<'a>>,
    pub reason: Option<&'a str>,
    pub steps: u32,
    pub start_time: Option<f64>,
    pub end_time: Option<f64>,
    pub step_spans: Vec<StepSpanRef<'a>>,
    pub usage: Option<Usage>,
}

pub struct StepSpanRef<'a> {
    pub step: u32,
    pub start: PlaceRef<'a>,
    pub end: Option<PlaceRef<'a>>,
    pub start_time: Option<f64>,
    pub end_time: Option<f64>,
}

#[derive(Clone, Copy)]
pub struct ReplyRef<'a> {
    pub session: &'a str,
    /// The analysis's symbol of `session`.
    pub(crate) session_sym: Sym,
    pub root: bool,
    pub turn: TurnIdRef<'a>,
    pub run: Option<u32>,
    pub text: &'a str,
    pub at: PlaceRef<'a>,
}

pub struct WaitRef<'a> {
    pub root: &'a str,
    pub start: Option<PlaceRef<'a>>,
    pub end: Option<PlaceRef<'a>>,
    pub outcome: WaitOutcome,
    pub reply: Option<&'a str>,
    pub finish_reason: Option<&'a str>,
    pub notifications: Option<u64>,
    pub events: Option<u64>,
    pub naive: NaiveWaitRef<'a>,
}

pub struct NaiveWaitRef<'a> {
    pub end: Option<Option<PlaceRef<'a>>>,
    pub outcome: Option<WaitOutcome>,
    pub reply: Option<Option<&'a str>>,
    pub notifications: Option<u64>,
}

pub struct DiagnosticRef<'a> {
    pub code: &'static str,
    pub severity: Severity,
    pub at: PlaceRef<'a>,
    pub session: Option<&'a str>,
    pub message: std::borrow::Cow<'a, str>,
    pub time: Option<f64>,
    /// Made when a followed log's snapshot was finished (`Analysis::provisional`): it may change
    /// as the log grows.
    pub provisional: bool,
}

/// A reply outside any turn, in a reply's source (`ReportParts::replies_with_sources`).
pub(crate) const LOOSE: u32 = 1 << 31;

/// What the parts of one report share: the analysis, the reply texts read back from the files,
/// and every session's root and depth.
pub struct ReportParts<'a> {
    pub(crate) a: &'a Analysis,
    /// Read back whole at the first reply asked for (`replies`, `waits`, the view's parts);
    /// `write_pretty` reads its texts a window at a time instead and leaves this unset.
    pub(crate) texts: std::sync::OnceLock<ReplyTexts>,
    /// Whether `replies()` carries the replies' texts (else only the waits' are read back:
    /// `for_view`).
    reply_texts: bool,
    placements: Placements,
    /// Each session's tokens summed over its subtree (empty when no log records tokens), and
    /// its own tokens, each with its cost where every model behind it has a price.
    subtree: SessionTallies,
    own: SessionTallies,
    prices: &'a crate::prices::PriceTable,
    /// What parents received, by (child, run): an index into `Ctx::received`; the texts are
    /// read back at the first one asked for.
    received: HashMap<(Sym, u32), usize>,
    received_texts: std::sync::OnceLock<Vec<String>>,
    /// The turns the report shows (indices into `Turns::list`), in the order of their first
    /// record's place: the order they were found in when files are read one after the other.
    turn_order: Vec<u32>,
    /// The sessions in report order (`SessionGraph::report_order`).
    order: Vec<Sym>,
}

impl<'a> ReportParts<'a> {
    pub fn new(a: &'a Analysis) -> Self {
        let placements = a.cx.graph.placements();
        let order = a.cx.graph.report_order();
        // The bundled table is parsed only for a report with tokens to price (it is 230 KB).
        let prices: &crate::prices::PriceTable = match (&a.prices, a.cx.usage.is_empty()) {
            (Some(p), _) => p,
            (None, true) => crate::prices::PriceTable::empty_ref(),
            (None, false) => crate::prices::PriceTable::bundled_ref(),
        };
        let own = own_usage(a, prices);
        let subtree = subtree_usage(a, &placements, &own, &order);
        let received = a.cx.received.iter().enumerate().map(|(i, r)| ((r.session, r.run), i)).collect();
        let turn_order = turn_order(a);
        ReportParts {
            a,
            texts: std::sync::OnceLock::new(),
            reply_texts: true,
            placements,
            subtree,
            own,
            prices,
            received,
            received_texts: std::sync::OnceLock::new(),
            turn_order,
            order,
        }
    }

    /// The parts as a viewer takes them: the replies come without their texts, which a viewer
    /// reads back a page at a time from where `replies_at` says their lines start, so that only
    /// the waits' texts are read back whole (a gigabyte log's replies are hundreds of thousands of
    /// reads that the view would drop at once).
    pub fn for_view(a: &'a Analysis) -> Self {
        ReportParts { reply_texts: false, ..ReportParts::new(a) }
    }

    fn received_of(&self, s: Sym, run: usize) -> Option<ReceivedRef<'_>> {
        let i = *self.received.get(&(s, u32::try_from(run).ok()?))?;
        let texts = self.received_texts.get_or_init(|| self.a.received_texts());
        let r = &self.a.cx.received[i];
        Some(ReceivedRef { text: texts.get(i).map_or("", String::as_str), at: self.place(r.at.at) })
    }

    /// Tokens per model over the whole report, and in all; `None` when no log records tokens.
    pub fn usage(&self) -> Option<report::UsageSummary> {
        if self.a.cx.usage.is_empty() {
            return None;
        }
        let mut models: std::collections::BTreeMap<&str, Usage> = std::collections::BTreeMap::new();
        for (_, model, u) in self.a.cx.usage.by_model() {
            models.entry(model).or_default().add(&u);
        }
        let mut total = Usage::default();
        let models: Vec<report::ModelUsage> = models
            .into_iter()
            .map(|(m, usage)| {
                let usage = self.prices.costed(m, usage);
                total.add_costed(&usage);
                report::ModelUsage { model: m.to_owned(), usage }
            })
            .collect();
        Some(report::UsageSummary { models, total, prices: self.prices.about.clone() })
    }

    fn texts(&self) -> &ReplyTexts {
        self.texts.get_or_init(|| self.a.reply_texts(self.reply_texts))
    }

    fn name(&self, s: Sym) -> &'a str {
        self.a.cx.ids.name(s)
    }

    fn place(&self, at: Loc) -> PlaceRef<'a> {
        let file = at.file as usize;
        PlaceRef { file: &self.a.files[file].display, file_json: &self.a.file_names_json[file], line: at.line }
    }

    fn text(&self, r: &TextRef) -> &str {
        self.texts().get(r)
    }

    pub(crate) fn is_root(&self, s: Sym) -> bool {
        self.placements.get(&s).and_then(|p| p.root) == Some(s)
    }

    /// A turn's run number, shown only for sessions that ran more than once.
    pub(crate) fn run_of(&self, t: &crate::turns::TurnRec) -> Option<u32> {
        t.run().filter(|_| self.a.cx.graph.get(t.session).map_or(0, |n| n.runs.len()) > 1)
    }

    pub fn inputs(&self) -> impl Iterator<Item = InputRef<'a>> + '_ {
        let mut files: Vec<(u32, &'a crate::analysis::FileInfo)> =
            self.a.files.iter().enumerate().map(|(i, f)| (self.a.cx.rank(i as u32), f)).collect();
        files.sort_by_key(|&(rank, _)| rank);
        files.into_iter().map(|(_, f)| InputRef {
            file: &f.display,
            format: f.format.map_or("unknown", |f| f.id),
            records: f.records,
            bad_lines: f.bad_lines,
            bytes: f.bytes,
        })
    }

    pub fn sessions(&self) -> impl Iterator<Item = SessionRef<'_>> + '_ {
        self.sessions_with_sources().map(|(_, s)| s)
    }

    /// `sessions`, each with its symbol.
    pub(crate) fn sessions_with_sources(&self) -> impl Iterator<Item = (Sym, SessionRef<'_>)> + '_ {
        self.order.iter().filter_map(|&s| Some((s, self.session_ref(s, |s, run| self.received_of(s, run))?)))
    }

    /// The sessions in report order.
    pub(crate) fn session_order(&self) -> &[Sym] {
        &self.order
    }

    /// Session `s` as `sessions` gives it, what its parent received from each of its runs from
    /// `received` (`None` when nothing is known).
    pub(crate) fn session_ref<'r>(
        &'r self,
        s: Sym,
        received: impl Fn(Sym, usize) -> Option<ReceivedRef<'r>>,
    ) -> Option<SessionRef<'r>> {
        let g = &self.a.cx.graph;
        let n = g.get(s)?;
        let p = self.placements.get(&n.id).copied();
        let root = p.and_then(|p| p.root);
        Some(SessionRef {
            id: self.name(n.id),
            parent: n.parent.map(|s| self.name(s)),
            root: root.map(|s| self.name(s)),
            depth: p.and_then(|p| p.depth),
            label: g.label(n),
            runs: n
                .runs
                .iter()
                .enumerate()
                .map(|(i, r)| RunRef {
                    parent: r.parent.map(|s| self.name(s)),
                    parent_sym: r.parent,
                    start: r.start.map(|l| self.place(l)),
                    end: r.end.map(|l| self.place(l)),
                    outcome: r.outcome,
                    link: r.link,
                    start_time: r.start.and_then(|l| self.a.time_at(l)),
                    end_time: r.end.and_then(|l| self.a.time_at(l)),
                    received: received(n.id, i),
                })
                .collect(),
            events: n.events,
            inferred_parent: n.inferred_parent,
            usage: self.own.get(n.id),
            subtree_usage: self.subtree.get(n.id),
            syms: [Some(n.id), n.parent, root],
        })
    }

    /// What the parent of `s` received from its run `run`: an index into `Ctx::received`.
    pub(crate) fn received_index(&self, s: Sym, run: usize) -> Option<usize> {
        self.received.get(&(s, u32::try_from(run).ok()?)).copied()
    }

    /// The place of a received item, as its `ReceivedRef` names it.
    pub(crate) fn received_ref<'r>(&'r self, i: usize, text: &'r str) -> ReceivedRef<'r> {
        ReceivedRef { text, at: self.place(self.a.cx.received[i].at.at) }
    }

    /// A session's root and depth in the final tree.
    pub(crate) fn placement(&self, s: Sym) -> Option<crate::graph::Placement> {
        self.placements.get(&s).copied()
    }

    /// A session's own tokens and its subtree's.
    pub(crate) fn usage_of(&self, s: Sym) -> (Option<Usage>, Option<Usage>) {
        (self.own.get(s), self.subtree.get(s))
    }

    fn turn_id(&self, t: &crate::turns::TurnRec) -> TurnIdRef<'a> {
        match t.turn {
            TurnId::Num(n) => TurnIdRef::Num(n),
            TurnId::Text(s) => TurnIdRef::Text(self.a.cx.turns.id_text(s)),
        }
    }

    /// The place of a record.
    fn record_place(&self, record: u32) -> Option<PlaceRef<'a>> {
        self.a.cx.loc_of(record).map(|l| self.place(l))
    }

    pub fn turns(&self) -> impl Iterator<Item = TurnRef<'a>> + '_ {
        self.turns_with_sources().map(|(_, t)| t)
    }

    /// `turns`, each with its index in `Turns::list`.
    pub(crate) fn turns_with_sources(&self) -> impl Iterator<Item = (u32, TurnRef<'a>)> + '_ {
        self.turn_order.iter().map(|&i| (i, self.turn_ref(i as usize)))
    }

    /// The turns the report shows (indices into `Turns::list`), in report order.
    pub(crate) fn turn_order(&self) -> &[u32] {
        &self.turn_order
    }

    /// Turn `i` (its index in `Turns::list`) as `turns` gives it.
    pub(crate) fn turn_ref(&self, i: usize) -> TurnRef<'a> {
        let cx = &self.a.cx;
        let t = &cx.turns.list[i];
        TurnRef {
            session: self.name(t.session),
            session_sym: t.session,
            turn: self.turn_id(t),
            run: self.run_of(t),
            start: t.start().and_then(|r| self.record_place(r)),
            end: t.end().and_then(|r| self.record_place(r)),
            reason: cx.turns.reason(t),
            steps: t.steps,
            start_time: t.start().and_then(|r| cx.time_of(r)),
            end_time: t.end().and_then(|r| cx.time_of(r)),
            step_spans: cx
                .turns
                .step_spans(t)
                .iter()
                .filter_map(|s| {
                    Some(StepSpanRef {
                        step: s.step,
                        start: self.record_place(s.start)?,
                        end: s.end().and_then(|r| self.record_place(r)),
                        start_time: cx.time_of(s.start),
                        end_time: s.end().and_then(|r| cx.time_of(r)),
                    })
                })
                .collect(),
            // Each model's share at its own price (a turn can switch models).
            usage: cx.usage.turn(i).map(|_| {
                let mut u = Usage::default();
                for (m, share) in cx.usage.turn_models(i) {
                    u.add_costed(&self.prices.costed(m, share));
                }
                u
            }),
        }
    }

    /// The turns' replies in turn order, then the replies outside any turn.
    pub fn replies(&self) -> impl Iterator<Item = ReplyRef<'_>> + '_ {
        self.replies_at().map(|(r, _)| r)
    }

    /// The replies (as `replies`), each with where its line starts in its file (to read its
    /// text back from).
    pub fn replies_at(&self) -> impl Iterator<Item = (ReplyRef<'_>, u64)> + '_ {
        self.replies_with_sources().map(|(_, r, offset)| (r, offset))
    }

    /// `replies_at`, each with its source: the index of its turn in `Turns::list`, or of the
    /// reply in `Ctx::loose_replies` with `LOOSE` set.
    pub(crate) fn replies_with_sources(&self) -> impl Iterator<Item = (u32, ReplyRef<'_>, u64)> + '_ {
        self.replies_from(self.reply_texts).map(|(i, r, at)| (i, r, at.offset))
    }

    /// The replies as `replies` gives them, each with where its text is, and with its text only
    /// when `texts` (else `""`: `write_pretty` reads the texts a window at a time).
    pub(crate) fn replies_from(&self, texts: bool) -> impl Iterator<Item = (u32, ReplyRef<'_>, TextRef)> + '_ {
        let in_turns = self.turn_order.iter().filter_map(move |&i| {
            let (r, at) = self.turn_reply_from(i as usize, texts)?;
            Some((i, r, at))
        });
        let loose = self.loose_order().into_iter().map(move |j| {
            let (r, at) = self.loose_reply_from(j as usize, texts);
            (j | LOOSE, r, at)
        });
        in_turns.chain(loose)
    }

    /// The reply of turn `i` (its index in `Turns::list`), with where its line starts; `None`
    /// when it has none.
    pub(crate) fn turn_reply(&self, i: usize) -> Option<(ReplyRef<'_>, u64)> {
        self.turn_reply_from(i, self.reply_texts).map(|(r, at)| (r, at.offset))
    }

    fn turn_reply_from(&self, i: usize, texts: bool) -> Option<(ReplyRef<'_>, TextRef)> {
        let t = &self.a.cx.turns.list[i];
        let r = self.turn_reply_at(i)?;
        let text = if texts { self.texts().of_turn(i).unwrap_or_else(|| self.text(&r)) } else { "" };
        Some((
            ReplyRef {
                session: self.name(t.session),
                session_sym: t.session,
                root: self.is_root(t.session),
                turn: self.turn_id(t),
                run: self.run_of(t),
                text,
                at: self.place(r.at),
            },
            r,
        ))
    }

    /// Where the reply of turn `i` is, when it has one.
    pub(crate) fn turn_reply_at(&self, i: usize) -> Option<TextRef> {
        self.a.cx.text_ref(self.a.cx.turns.list[i].reply()?)
    }

    /// Whether turn `i` has a reply (`turn_reply_at` is `Some`), without finding where.
    pub(crate) fn has_turn_reply(&self, i: usize) -> bool {
        self.a.cx.turns.list[i].reply().is_some_and(|r| self.a.cx.is_placed(r))
    }

    /// The replies outside any turn (indices into `Ctx::loose_replies`), in report order:
    /// grouped by file in reading order, each file's in the order its reader found them.
    pub(crate) fn loose_order(&self) -> Vec<u32> {
        let loose = &self.a.cx.loose_replies;
        let mut order: Vec<u32> = (0..loose.len() as u32).collect();
        order.sort_by_key(|&j| self.a.cx.rank(loose[j as usize].text.at.file));
        order
    }

    /// The reply outside any turn `j` (its index in `Ctx::loose_replies`), with where its line
    /// starts.
    pub(crate) fn loose_reply(&self, j: usize) -> (ReplyRef<'_>, u64) {
        let (reply, at) = self.loose_reply_from(j, self.reply_texts);
        (reply, at.offset)
    }

    fn loose_reply_from(&self, j: usize, texts: bool) -> (ReplyRef<'_>, TextRef) {
        let r = &self.a.cx.loose_replies[j];
        let reply = ReplyRef {
            session: self.name(r.session),
            session_sym: r.session,
            root: self.is_root(r.session),
            turn: TurnIdRef::Null,
            run: None,
            text: if texts { self.text(&r.text) } else { "" },
            at: self.place(r.text.at),
        };
        (reply, r.text)
    }

    pub fn waits(&self) -> impl Iterator<Item = WaitRef<'_>> + '_ {
        self.waits_with_sources().map(|(_, w)| w)
    }

    /// `waits`, each with its index in `Ctx::waits`.
    pub(crate) fn waits_with_sources(&self) -> impl Iterator<Item = (u32, WaitRef<'_>)> + '_ {
        self.wait_order().into_iter().map(|i| (i, self.wait_ref(i as usize, |r| self.text(r))))
    }

    /// The waits (indices into `Ctx::waits`) in report order: by where each began.
    pub(crate) fn wait_order(&self) -> Vec<u32> {
        let waits = &self.a.cx.waits;
        let mut order: Vec<u32> = (0..waits.len() as u32).collect();
        order.sort_by_key(|&i| waits[i as usize].start.map(|l| self.a.cx.place_key(l)));
        order
    }

    /// Wait `i` (its index in `Ctx::waits`), its texts from `text`.
    pub(crate) fn wait_ref<'r>(&'r self, i: usize, text: impl Fn(&TextRef) -> &'r str) -> WaitRef<'r> {
        let w = &self.a.cx.waits[i];
        WaitRef {
            root: self.name(w.root),
            start: w.start.map(|l| self.place(l)),
            end: w.end.map(|l| self.place(l)),
            outcome: w.outcome,
            reply: w.reply.map(|r| text(&r)),
            finish_reason: w.finish_reason.as_deref(),
            notifications: w.notifications,
            events: w.events,
            naive: NaiveWaitRef {
                end: w.naive.end.map(|e| e.map(|l| self.place(l))),
                outcome: w.naive.outcome,
                reply: w.naive.reply.map(|n| n.map(|r| text(&r))),
                notifications: w.naive.notifications,
            },
        }
    }

    pub fn diagnostics(&self) -> impl Iterator<Item = DiagnosticRef<'a>> + '_ {
        self.diagnostics_with_sources().map(|(_, d)| d)
    }

    /// `diagnostics`, each with its index in the context's findings.
    pub(crate) fn diagnostics_with_sources(&self) -> impl Iterator<Item = (u32, DiagnosticRef<'a>)> + '_ {
        self.diagnostic_order().into_iter().map(|i| (i, self.diagnostic_ref(i as usize)))
    }

    /// The findings the report shows (indices into the context's findings) in report order: by
    /// place; a recording's boundary findings of a session with a durable log are left out
    /// (SPEC 2.3).
    pub(crate) fn diagnostic_order(&self) -> Vec<u32> {
        let list = &self.a.cx.findings.list;
        let mut order: Vec<u32> = (0..list.len() as u32)
            .filter(|&i| {
                let f = &list[i as usize];
                !(f.code.is_boundary() && f.session.is_some_and(|s| self.a.superseded_by_durable(f.at.file, s)))
            })
            .collect();
        order.sort_by_key(|&i| self.a.cx.place_key(list[i as usize].at));
        order
    }

    /// Finding `i` (its index in the context's findings) as `diagnostics` gives it.
    pub(crate) fn diagnostic_ref(&self, i: usize) -> DiagnosticRef<'a> {
        let f = &self.a.cx.findings.list[i];
        DiagnosticRef {
            provisional: self.a.provisional.is_some_and(|p| i >= p),
            code: f.code.as_str(),
            severity: f.code.severity(),
            at: self.place(f.at),
            session: f.session.map(|s| self.name(s)),
            message: f.message.text(),
            time: self.a.time_at(f.at),
        }
    }

    /// The owned report, every string copied.
    pub fn to_report(&self) -> Report {
        Report {
            report_version: 1,
            inputs: self.inputs().map(Into::into).collect(),
            sessions: self.sessions().map(Into::into).collect(),
            turns: self.turns().map(Into::into).collect(),
            replies: self.replies().map(Into::into).collect(),
            waits: self.waits().map(Into::into).collect(),
            diagnostics: self.diagnostics().map(Into::into).collect(),
            usage: self.usage(),
        }
    }
}

/// The turns a report shows, grouped by the file of each one's first record in reading order, and
/// each file's in the order its reader found them: a recording's turns of a session with a
/// durable log are left out (SPEC 2.3). Files read one after the other found them in that order
/// already; a followed folder, whose files grow in turn, did not.
fn turn_order(a: &Analysis) -> Vec<u32> {
    let cx = &a.cx;
    // Only a session with a durable log can have turns left out: with none, no turn is asked
    // (a followed log's every revision orders every turn).
    let durable = !cx.durable.is_empty();
    let mut keyed: Vec<(u32, u32)> = cx
        .turns
        .list
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            // The file of the turn's first record (`loc_of`'s, without its line).
            let file = t.start().or(t.end()).and_then(|r| cx.file_of(r as usize));
            if durable && a.superseded_by_durable(file.unwrap_or(0), t.session) {
                return None;
            }
            Some((file.map_or(u32::MAX, |f| cx.rank(f)), i as u32))
        })
        .collect();
    if !keyed.is_sorted_by_key(|k| k.0) {
        keyed.sort_by_key(|k| k.0);
    }
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// Each session's tokens summed with those of every session under it (following the last parent
/// each had); sessions in a cycle keep their own. Empty when no log records tokens.
fn subtree_usage(a: &Analysis, placements: &Placements, own: &SessionTallies, order: &[Sym]) -> SessionTallies {
    if a.cx.usage.is_empty() {
        return SessionTallies::default();
    }
    let mut sums = SessionTallies::with_sessions(a.cx.ids.len());
    let g = &a.cx.graph;
    // Report order puts every session after its ancestors: backwards, children come first, and
    // the order is fixed, so costs add up the same way each time.
    for &s in order.iter().rev() {
        let total = {
            let e = sums.entry(s);
            if let Some(mine) = own.get(s) {
                e.add(&mine);
            }
            e.usage()
        };
        let placed = placements.get(&s).is_some_and(|p| p.root.is_some());
        if let (true, Some(p)) = (placed, g.get(s).and_then(|n| n.parent)) {
            sums.entry(p).add(&total);
        }
    }
    sums
}

/// Each session's own tokens, with their cost where every model behind them has a price (summed
/// model by model in name order, so the same report adds up the same way).
fn own_usage(a: &Analysis, prices: &crate::prices::PriceTable) -> SessionTallies {
    // One list sorted by session, then model name (a list for each session cost an allocation
    // each, for a quarter million sessions).
    let mut rows: Vec<(Sym, &str, &Tally)> = a.cx.usage.by_model_tallies().collect();
    rows.sort_unstable_by(|x, y| x.0.cmp(&y.0).then_with(|| x.1.cmp(y.1)));
    let mut out = SessionTallies::with_sessions(if rows.is_empty() { 0 } else { a.cx.ids.len() });
    for group in rows.chunk_by(|x, y| x.0 == y.0) {
        let mut total = Usage::default();
        for (_, m, u) in group {
            total.add_costed(&prices.costed(m, u.usage()));
        }
        *out.entry(group[0].0) = Tally::of(total);
    }
    out
}

impl From<PlaceRef<'_>> for report::Place {
    fn from(p: PlaceRef<'_>) -> Self {
        report::Place { file: p.file.to_owned(), line: p.line }
    }
}

impl From<InputRef<'_>> for report::Input {
    fn from(i: InputRef<'_>) -> Self {
        report::Input {
            file: i.file.to_owned(),
            format: i.format.to_owned(),
            records: i.records,
            bad_lines: i.bad_lines,
            bytes: i.bytes,
        }
    }
}

impl From<RunRef<'_>> for report::Run {
    fn from(r: RunRef<'_>) -> Self {
        report::Run {
            parent: r.parent.map(str::to_owned),
            start: r.start.map(Into::into),
            end: r.end.map(Into::into),
            outcome: r.outcome,
            link: r.link,
            start_time: r.start_time,
            end_time: r.end_time,
            received: r.received.map(|x| report::Received { text: x.text.to_owned(), at: x.at.into() }),
        }
    }
}

impl From<SessionRef<'_>> for report::Session {
    fn from(s: SessionRef<'_>) -> Self {
        report::Session {
            id: s.id.to_owned(),
            parent: s.parent.map(str::to_owned),
            root: s.root.map(str::to_owned),
            depth: s.depth,
            label: s.label.map(str::to_owned),
            runs: s.runs.into_iter().map(Into::into).collect(),
            events: s.events,
            inferred_parent: s.inferred_parent,
            usage: s.usage,
            subtree_usage: s.subtree_usage,
        }
    }
}

impl From<StepSpanRef<'_>> for report::StepSpan {
    fn from(s: StepSpanRef<'_>) -> Self {
        report::StepSpan {
            step: s.step,
            start: s.start.into(),
            end: s.end.map(Into::into),
            start_time: s.start_time,
            end_time: s.end_time,
        }
    }
}

impl From<TurnRef<'_>> for report::Turn {
    fn from(t: TurnRef<'_>) -> Self {
        report::Turn {
            session: t.session.to_owned(),
            turn: t.turn.into(),
            run: t.run,
            start: t.start.map(Into::into),
            end: t.end.map(Into::into),
            reason: t.reason.map(str::to_owned),
            steps: t.steps,
            start_time: t.start_time,
            end_time: t.end_time,
            step_spans: t.step_spans.into_iter().map(Into::into).collect(),
            usage: t.usage,
        }
    }
}

impl From<ReplyRef<'_>> for report::Reply {
    fn from(r: ReplyRef<'_>) -> Self {
        report::Reply {
            session: r.session.to_owned(),
            root: r.root,
            turn: r.turn.into(),
            run: r.run,
            text: r.text.to_owned(),
            at: r.at.into(),
        }
    }
}

impl From<WaitRef<'_>> for report::Wait {
    fn from(w: WaitRef<'_>) -> Self {
        report::Wait {
            root: w.root.to_owned(),
            start: w.start.map(Into::into),
            end: w.end.map(Into::into),
            outcome: w.outcome,
            reply: w.reply.map(str::to_owned),
            finish_reason: w.finish_reason.map(str::to_owned),
            notifications: w.notifications,
            events: w.events,
            naive: report::NaiveWait {
                end: w.naive.end.map(|e| e.map(Into::into)),
                outcome: w.naive.outcome,
                reply: w.naive.reply.map(|r| r.map(str::to_owned)),
                notifications: w.naive.notifications,
            },
        }
    }
}

impl From<DiagnosticRef<'_>> for report::Diagnostic {
    fn from(d: DiagnosticRef<'_>) -> Self {
        report::Diagnostic {
            code: d.code.to_owned(),
            severity: d.severity,
            at: d.at.into(),
            session: d.session.map(str::to_owned),
            message: d.message.into_owned(),
            time: d.time,
        }
    }
}

/// The report of an analysis: the value read into parts, then made owned or written as JSON.
impl Analysis {
    /// The owned report (the app sends it over IPC; tests read it).
    pub fn report(&self) -> Report {
        ReportParts::new(self).to_report()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every batch size, reply-text window and thread count writes the bytes serde_json's own
    /// pretty writer does for the owned report, for a report with every section filled (from a
    /// plain file, and from a zstd one whose texts are read in one window), and for one with
    /// every section empty; and so do parts whose texts were read before.
    #[test]
    fn batched_parallel_writing_gives_the_pretty_writers_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let sample = crate::sample::write_to(dir.path()).unwrap();
        let empty = dir.path().join("empty.jsonl");
        std::fs::write(&empty, "").unwrap();
        // The sample's files, each compressed, in a folder of their own.
        let zst = dir.path().join("zst");
        std::fs::create_dir(&zst).unwrap();
        for f in std::fs::read_dir(&sample).unwrap() {
            let f = f.unwrap().path();
            let name = format!("{}.zst", f.file_name().unwrap().to_string_lossy());
            std::fs::write(zst.join(name), zstd::encode_all(&std::fs::read(&f).unwrap()[..], 3).unwrap()).unwrap();
        }
        for paths in [vec![sample], vec![zst], vec![empty]] {
            let a = crate::analyze(&paths, &mut ());
            let read = ReportParts::new(&a);
            let want = serde_json::to_vec_pretty(&read.to_report()).unwrap();
            assert!(
                a.cx.turns.list.len() > 3 || paths[0].ends_with("empty.jsonl"),
                "windows of 1-3 replies part the sample's"
            );
            for threads in 0..=3 {
                for (batch, window) in [(1, 1), (2, 2), (3, 3), (5, 1), (1000, 4096)] {
                    let mut got = Vec::new();
                    ReportParts::new(&a).write_pretty_in(&mut got, threads, batch, window).unwrap();
                    let got = String::from_utf8(got).unwrap();
                    assert_eq!(got, String::from_utf8_lossy(&want), "{threads} {batch} {window}");
                    let mut again = Vec::new();
                    read.write_pretty_in(&mut again, threads, batch, window).unwrap();
                    assert_eq!(String::from_utf8(again).unwrap(), got, "texts read before: {threads} {batch}");
                }
            }
        }
    }

    /// Tokens, subtree sums, the per-model summary and what a parent received are written as
    /// serde writes them, and add up: a subtree's total is its own plus its descendants'.
    #[test]
    fn usage_and_received_are_written_as_serde_writes_them() {
        let dir = tempfile::tempdir().unwrap();
        let sample = crate::sample::write_to(dir.path()).unwrap();
        let mut a = crate::analyze(&[sample], &mut ());
        let id = |a: &Analysis, name: &str| a.cx.ids.get(name).unwrap_or_else(|| panic!("no {name}"));
        let (root, child) = (id(&a, "lead"), id(&a, "fact-checker"));
        let tokens =
            |n: u64| Usage { input: n, output: 2 * n, cache_read: 3, cache_write: 0, cost: None, unpriced: None };
        a.cx.usage.add(root, Some(0), Some("model-a"), tokens(10));
        a.cx.usage.add(child, None, Some("model-b"), tokens(5));
        a.cx.usage.add(child, None, None, tokens(1));
        let run = a.cx.graph.get(child).unwrap().runs.len() as u32 - 1;
        let at = a.cx.graph.get(child).unwrap().runs[run as usize].end.unwrap();
        let record = a.cx.find_record(at).unwrap();
        a.cx.received.push(crate::ctx::ReceivedRec {
            session: child,
            run,
            at: a.cx.text_ref(record as u32).unwrap(),
            key: None,
        });
        let parts = ReportParts::new(&a);
        let report = parts.to_report();
        let want = serde_json::to_vec_pretty(&report).unwrap();
        let mut got = Vec::new();
        parts.write_pretty_in(&mut got, 2, 3, 2).unwrap();
        assert_eq!(String::from_utf8(got).unwrap(), String::from_utf8(want).unwrap());
        let of = |name: &str| report.sessions.iter().find(|s| s.id == name).unwrap();
        assert_eq!(of("fact-checker").usage.as_ref().map(|u| u.input), Some(6));
        assert_eq!(of("lead").subtree_usage.as_ref().map(|u| (u.input, u.output, u.cache_read)), Some((16, 32, 9)));
        let summary = report.usage.unwrap();
        let models: Vec<(&str, u64)> = summary.models.iter().map(|m| (m.model.as_str(), m.usage.input)).collect();
        assert_eq!(models, [(crate::usage::UNKNOWN_MODEL, 1), ("model-a", 10), ("model-b", 5)]);
        assert_eq!(summary.total.input, 16);
        assert!(of("fact-checker").runs.last().unwrap().received.is_some());
        // Unknown models have no price: no cost, never a cost of zero; their tokens are named.
        assert_eq!(of("lead").usage.as_ref().unwrap().cost, None);
        assert_eq!(summary.total.cost, None);
        let unpriced = summary.total.unpriced.as_ref().unwrap();
        assert_eq!(unpriced.models, [crate::usage::UNKNOWN_MODEL, "model-a", "model-b"]);
        assert_eq!(unpriced.tokens, summary.total.tokens());
    }

    /// A cost is each priced model's tokens at its price, summed up the tree; one unpriced model
    /// below never hides it: the subtree's cost is the priced part's, and the unpriced tokens and
    /// model are named beside it (SPEC 4). A turn that used two models prices each at its own.
    #[test]
    fn costs_are_reckoned_where_prices_are_known() {
        let dir = tempfile::tempdir().unwrap();
        let sample = crate::sample::write_to(dir.path()).unwrap();
        let mut a = crate::analyze(&[sample], &mut ());
        let id = |a: &Analysis, name: &str| a.cx.ids.get(name).unwrap();
        let (lead, planner, fact) = (id(&a, "lead"), id(&a, "planner"), id(&a, "fact-checker"));
        let u = |input: u64, output: u64| Usage {
            input,
            output,
            cache_read: 0,
            cache_write: 0,
            cost: None,
            unpriced: None,
        };
        let price = crate::prices::PriceTable::bundled().price("claude-sonnet-4-5").unwrap();
        a.cx.usage.add(lead, None, Some("claude-sonnet-4-5"), u(1000, 100));
        a.cx.usage.add(planner, None, Some("claude-sonnet-4-5-20250929"), u(10, 10));
        let report = ReportParts::new(&a).to_report();
        let of = |name: &str| report.sessions.iter().find(|s| s.id == name).unwrap().clone();
        let lead_cost = price.cost(&u(1000, 100));
        assert_eq!(of("lead").usage.unwrap().cost, Some(lead_cost));
        let sum = lead_cost + price.cost(&u(10, 10));
        assert!((of("lead").subtree_usage.unwrap().cost.unwrap() - sum).abs() < 1e-12);
        a.cx.usage.add(fact, None, Some("an-unpriced-model"), u(5, 5));
        let report = ReportParts::new(&a).to_report();
        let of = |name: &str| report.sessions.iter().find(|s| s.id == name).unwrap().clone();
        let subtree = of("lead").subtree_usage.unwrap();
        assert!((subtree.cost.unwrap() - sum).abs() < 1e-12, "one unknown model below hides nothing");
        let unpriced = subtree.unpriced.unwrap();
        assert_eq!((unpriced.tokens, unpriced.models), (10, vec!["an-unpriced-model".to_owned()]));
        assert_eq!(of("lead").usage.unwrap().cost, Some(lead_cost), "its own tokens are still priced");
        assert_eq!(of("lead").usage.unwrap().unpriced, None);
        let models = report.usage.clone().unwrap().models;
        assert_eq!(models.iter().find(|m| m.model == "an-unpriced-model").unwrap().usage.cost, None);
        assert!(models.iter().find(|m| m.model == "claude-sonnet-4-5").unwrap().usage.cost.is_some());
        let total = report.usage.as_ref().unwrap().total.clone();
        assert!((total.cost.unwrap() - sum).abs() < 1e-12);
        assert_eq!(total.unpriced.map(|x| x.tokens), Some(10));
        // A turn of two models: each share at its own price.
        let turn = a.cx.turns.list.iter().position(|t| t.session == lead).expect("the sample's lead has a turn");
        a.cx.usage.add(lead, Some(turn), Some("claude-sonnet-4-5"), u(1000, 0));
        a.cx.usage.add(lead, Some(turn), Some("gpt-5"), u(1000, 0));
        a.cx.usage.add(lead, Some(turn), Some("an-unpriced-model"), u(7, 0));
        let gpt5 = crate::prices::PriceTable::bundled().price("gpt-5").unwrap();
        let parts = ReportParts::new(&a);
        let t = parts.turn_ref(turn).usage.unwrap();
        assert_eq!(t.input, 2007);
        assert!((t.cost.unwrap() - price.cost(&u(1000, 0)) - gpt5.cost(&u(1000, 0))).abs() < 1e-12);
        assert_eq!(t.unpriced.map(|x| (x.tokens, x.models)), Some((7, vec!["an-unpriced-model".to_owned()])));
    }
}
