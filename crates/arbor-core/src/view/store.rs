//! The report kept for a viewer, in compact tables: every id, label and code stored once (an
//! interner), a place as two numbers (the input's index and the line), texts in one buffer.
//!
//! The owned `Report` of a 1 GiB Copilot log repeats its file's name in each of its millions of
//! places and takes several times the engine's own memory; these tables hold the same facts in
//! a fraction of it, and give back the report's own types (`Wait`, `Reply`, `Diagnostic`, `Run`)
//! one item at a time, for a page. They are filled from report items, one at a time, so that the
//! whole owned report never needs to exist (see `View::build`).

use crate::intern::{HashMap, Interner, Sym};
use crate::report::{self, Diagnostic, NaiveWait, Outcome, Place, Reply, Run, Severity, Wait, WaitOutcome};

/// An input as reply texts are read back from it: its name in the report, its path, its format.
pub(crate) type TextSource = (String, std::path::PathBuf, Option<&'static crate::formats::FormatInfo>);

/// No index: an absent place, id or text.
pub(crate) const NONE: u32 = u32::MAX;

/// A place: the input's index in `Store::files` and the 1-based line. `file == NONE` is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct At {
    pub file: u32,
    pub line: u32,
}

impl At {
    pub const NONE: At = At { file: NONE, line: 0 };

    pub fn is_some(self) -> bool {
        self.file != NONE
    }

    pub fn get(self) -> Option<At> {
        self.is_some().then_some(self)
    }
}

/// Texts one after another in one buffer, each named by its index.
#[derive(Debug, Default)]
pub(crate) struct Texts {
    text: String,
    ends: Vec<usize>,
}

impl Texts {
    pub fn push(&mut self, s: &str) -> u32 {
        self.text.push_str(s);
        self.ends.push(self.text.len());
        (self.ends.len() - 1) as u32
    }

    pub fn get(&self, i: u32) -> &str {
        let i = i as usize;
        match self.ends.get(i) {
            Some(&end) => &self.text[if i == 0 { 0 } else { self.ends[i - 1] }..end],
            None => "",
        }
    }

    /// The bytes of every text kept.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    fn shrink(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

/// A turn id as the report gives it: a number (dsh), a string (Copilot's `turnId`), or null.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum TurnKey {
    Num(f64),
    Text(Sym),
    Null,
}

#[derive(Debug, Clone)]
pub(crate) struct SessionRow {
    pub id: Sym,
    pub parent: u32,
    pub root: u32,
    pub depth: u32,
    pub label: u32,
    pub events: u64,
    pub inferred_parent: bool,
    /// The session's own tokens and its subtree's, in `usages` (`NONE`: the log has none).
    pub usage: u32,
    pub subtree_usage: u32,
    /// Its runs: `runs[run_at..run_at + run_len]`.
    pub run_at: u32,
    pub run_len: u32,
}

#[derive(Debug, Clone)]
pub(crate) struct RunRow {
    pub parent: u32,
    pub start: At,
    pub end: At,
    pub outcome: Outcome,
    pub link: report::Link,
    pub start_time: f64,
    pub end_time: f64,
    /// What the parent received (its text in `texts`, `NONE` when the log does not show it).
    pub received: u32,
    pub received_at: At,
}

#[derive(Debug, Clone)]
pub(crate) struct TurnRow {
    pub session: Sym,
    pub turn: TurnKey,
    pub start: At,
    pub end: At,
    pub start_time: f64,
    pub end_time: f64,
    /// Its steps: `steps[step_at..step_at + step_len]`.
    pub step_at: u32,
    pub step_len: u32,
}

#[derive(Debug, Clone)]
pub(crate) struct StepRow {
    pub step: u32,
    pub start: At,
    pub end: At,
    pub start_time: f64,
    pub end_time: f64,
}

#[derive(Clone)]
pub(crate) struct ReplyRow {
    pub session: Sym,
    pub root: bool,
    pub turn: TurnKey,
    pub run: u32,
    /// The text (in `texts`), or `NONE` when it is read back from the file, from the line that
    /// starts at `offset`.
    pub text: u32,
    pub at: At,
    /// Where its line starts, when its text is read back (`u64::MAX` for a text kept).
    pub offset: u64,
}

/// A naive reading's optional-nullable place or text: absent, present but null, or a value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Maybe<T> {
    Absent,
    Null,
    Is(T),
}

impl<T: Copy> Maybe<T> {
    fn of(v: Option<Option<T>>) -> Self {
        match v {
            None => Maybe::Absent,
            Some(None) => Maybe::Null,
            Some(Some(t)) => Maybe::Is(t),
        }
    }

    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Option<Option<U>> {
        match self {
            Maybe::Absent => None,
            Maybe::Null => Some(None),
            Maybe::Is(t) => Some(Some(f(t))),
        }
    }
}

#[derive(Clone)]
pub(crate) struct WaitRow {
    pub root: Sym,
    pub start: At,
    pub end: At,
    pub outcome: WaitOutcome,
    pub reply: u32,
    pub finish_reason: u32,
    pub notifications: Option<u64>,
    pub events: Option<u64>,
    pub naive_end: Maybe<At>,
    pub naive_outcome: Option<WaitOutcome>,
    pub naive_reply: Maybe<u32>,
    pub naive_notifications: Option<u64>,
}

#[derive(Clone)]
pub(crate) struct DiagRow {
    pub code: Sym,
    pub severity: Severity,
    pub at: At,
    pub session: u32,
    pub message: u32,
    pub time: f64,
}

/// Every section of a report, compact. Sessions keep the report's order (roots each followed by
/// their subtree); their runs and the turns' steps are ranges of one list each, named by the row
/// (a view that grows with a followed log adds a changed session's runs at the end and leaves
/// the old ones, `garbage`).
#[derive(Default)]
pub(crate) struct Store {
    pub inputs: Vec<report::Input>,
    /// The input files' names (what places name), by index.
    pub files: Vec<String>,
    file_index: HashMap<String, u32>,
    /// The file of the last place kept: places come in runs of one file.
    last_file: u32,
    /// Session ids and every other id that names a session (parents, roots, waits' roots).
    pub ids: Interner,
    /// Labels, codes, reasons, turn ids: short strings that repeat.
    pub words: Interner,
    pub texts: Texts,
    pub sessions: Vec<SessionRow>,
    pub runs: Vec<RunRow>,
    pub turns: Vec<TurnRow>,
    pub steps: Vec<StepRow>,
    pub replies: Vec<ReplyRow>,
    pub waits: Vec<WaitRow>,
    pub diagnostics: Vec<DiagRow>,
    /// The diagnostics (ascending indices) that are provisional: made when a followed log's
    /// snapshot was finished, they may change as the log grows.
    pub provisional: Vec<u32>,
    /// Token counts of sessions and subtrees (`SessionRow::usage` and `subtree_usage` index them).
    pub usages: Vec<report::Usage>,
    /// The report's summary of tokens by model, with the price table's source.
    pub usage_summary: Option<report::UsageSummary>,
    /// A session's index in `sessions` by its id's symbol (the first, when an id repeats), by
    /// the symbol's number (`NONE`: no session).
    session_of: Vec<u32>,
    /// Where the inputs are, by file index, when reply texts are read back from them.
    pub paths: Vec<Option<std::path::PathBuf>>,
    /// Each input's format, by file index, which reads a reply's text from its line.
    pub formats: Vec<Option<&'static crate::formats::FormatInfo>>,
    /// While rows are made from one analysis's parts: the symbol here of each of that
    /// analysis's session symbols met so far (`NONE`: not yet), so that a name is looked up
    /// once, not again at every run, turn and reply that names it (those lookups, each a few
    /// cache misses in an interner of 235,000 ids, were a third of a 1 GiB log's view).
    /// Emptied when the rows are made (`finish`, `forget_syms`).
    memo: Vec<u32>,
    /// What rows made again when the view grew left behind in `texts`, `runs`, `steps` and
    /// `usages` (bytes, rows, rows, counts): once it is as much as what is kept, the view is made
    /// again whole instead.
    pub garbage: Garbage,
}

/// What a growing view's tables hold that no row names any more (`Store::garbage`).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Garbage {
    pub text: usize,
    pub runs: usize,
    pub steps: usize,
    pub usages: usize,
}

fn time(t: Option<f64>) -> f64 {
    t.unwrap_or(f64::NAN)
}

fn some_time(t: f64) -> Option<f64> {
    (!t.is_nan()).then_some(t)
}

impl Store {
    pub fn new(inputs: Vec<report::Input>) -> Self {
        let mut store = Store::default();
        for input in &inputs {
            store.file(&input.file);
        }
        store.inputs = inputs;
        store
    }

    fn file(&mut self, name: &str) -> u32 {
        if self.files.get(self.last_file as usize).is_some_and(|f| f == name) {
            return self.last_file;
        }
        if let Some(&i) = self.file_index.get(name) {
            self.last_file = i;
            return i;
        }
        let i = self.files.len() as u32;
        self.files.push(name.to_owned());
        self.file_index.insert(name.to_owned(), i);
        self.last_file = i;
        i
    }

    fn at(&mut self, p: Option<&Place>) -> At {
        self.at_in(p.map(|p| (p.file.as_str(), p.line)))
    }

    /// `at` of a place given as its file's name and its line.
    fn at_in(&mut self, p: Option<(&str, u64)>) -> At {
        match p {
            Some((file, line)) => At { file: self.file(file), line: u32::try_from(line).unwrap_or(u32::MAX) },
            None => At::NONE,
        }
    }

    fn id(&mut self, s: Option<&str>) -> u32 {
        s.map_or(NONE, |s| self.ids.intern(s).0)
    }

    /// `ids.intern(name)`, where `theirs` (when given) is the symbol of `name` in the analysis
    /// whose parts the rows are made from (`memo`).
    fn sym_of(&mut self, theirs: Option<Sym>, name: &str) -> Sym {
        let Some(t) = theirs else { return self.ids.intern(name) };
        let i = t.0 as usize;
        if self.memo.len() <= i {
            self.memo.resize(i + 1, NONE);
        }
        match self.memo[i] {
            NONE => {
                let s = self.ids.intern(name);
                self.memo[i] = s.0;
                s
            }
            s => Sym(s),
        }
    }

    /// `id`, with the analysis's symbol (`sym_of`).
    fn id_of(&mut self, theirs: Option<Sym>, s: Option<&str>) -> u32 {
        s.map_or(NONE, |s| self.sym_of(theirs, s).0)
    }

    /// Forgets the symbols of the analysis rows were made from (`memo`): the next rows may come
    /// from another.
    pub fn forget_syms(&mut self) {
        self.memo = Vec::new();
    }

    fn word(&mut self, s: Option<&str>) -> u32 {
        s.map_or(NONE, |s| self.words.intern(s).0)
    }

    /// `turn_key` of a turn id as report parts lend it.
    fn turn_key_ref(&mut self, t: crate::report_parts::TurnIdRef<'_>) -> TurnKey {
        use crate::report_parts::TurnIdRef;
        match t {
            TurnIdRef::Num(n) => TurnKey::Num(n as f64),
            TurnIdRef::Text(s) => TurnKey::Text(self.words.intern(s)),
            TurnIdRef::Null => TurnKey::Null,
        }
    }

    fn turn_key(&mut self, v: &serde_json::Value) -> TurnKey {
        match v {
            serde_json::Value::Number(n) => TurnKey::Num(n.as_f64().unwrap_or(0.0)),
            serde_json::Value::String(s) => TurnKey::Text(self.words.intern(s)),
            _ => TurnKey::Null,
        }
    }

    pub fn add_session(&mut self, s: report::Session) {
        let runs = s.runs.iter().map(|r| RunIn {
            parent: r.parent.as_deref(),
            parent_sym: None,
            start: r.start.as_ref().map(place),
            end: r.end.as_ref().map(place),
            outcome: r.outcome,
            link: r.link,
            start_time: r.start_time,
            end_time: r.end_time,
            received: r.received.as_ref().map(|got| (got.text.as_str(), place(&got.at))),
        });
        let session = SessionIn {
            id: &s.id,
            parent: s.parent.as_deref(),
            root: s.root.as_deref(),
            depth: s.depth,
            label: s.label.as_deref(),
            events: s.events,
            inferred_parent: s.inferred_parent,
            usage: s.usage,
            subtree_usage: s.subtree_usage,
            syms: [None; 3],
        };
        self.push_session(session, runs);
    }

    /// A session as an analysis's report parts lend it, nothing of it copied to be kept (as
    /// `add_turn_ref`).
    pub fn add_session_ref(&mut self, s: crate::report_parts::SessionRef<'_>) {
        let row = self.session_row_ref(s);
        self.keep_session(row);
    }

    /// `add_session_ref`'s row, its runs kept, the row not.
    pub fn session_row_ref(&mut self, s: crate::report_parts::SessionRef<'_>) -> SessionRow {
        let runs = s.runs.iter().map(|r| RunIn {
            parent: r.parent,
            parent_sym: r.parent_sym,
            start: r.start.as_ref().map(place_ref),
            end: r.end.as_ref().map(place_ref),
            outcome: r.outcome,
            link: r.link,
            start_time: r.start_time,
            end_time: r.end_time,
            received: r.received.as_ref().map(|got| (got.text, place_ref(&got.at))),
        });
        let session = SessionIn {
            id: s.id,
            parent: s.parent,
            root: s.root,
            depth: s.depth,
            label: s.label,
            events: s.events,
            inferred_parent: s.inferred_parent,
            usage: s.usage,
            subtree_usage: s.subtree_usage,
            syms: s.syms,
        };
        self.session_row(session, runs)
    }

    /// The sessions, in order, as rows (`session_row_ref`'s and kept ones).
    pub fn set_sessions(&mut self, rows: Vec<SessionRow>) {
        self.session_of.fill(NONE);
        for (i, row) in rows.iter().enumerate() {
            self.index_session(row.id, i as u32);
        }
        self.sessions = rows;
    }

    fn push_session<'a>(&mut self, s: SessionIn<'_>, runs: impl Iterator<Item = RunIn<'a>>) {
        let row = self.session_row(s, runs);
        self.keep_session(row);
    }

    /// Keeps a session's row at the end of `sessions`.
    pub fn keep_session(&mut self, row: SessionRow) {
        self.index_session(row.id, self.sessions.len() as u32);
        self.sessions.push(row);
    }

    /// Session `id` is at `index` in `sessions`, unless an earlier one has its id.
    fn index_session(&mut self, id: Sym, index: u32) {
        let i = id.0 as usize;
        if self.session_of.len() <= i {
            self.session_of.resize(i + 1, NONE);
        }
        if self.session_of[i] == NONE {
            self.session_of[i] = index;
        }
    }

    /// A session's row, its runs added to `runs`.
    fn session_row<'a>(&mut self, s: SessionIn<'_>, runs: impl Iterator<Item = RunIn<'a>>) -> SessionRow {
        let [id_sym, parent_sym, root_sym] = s.syms;
        let id = self.sym_of(id_sym, s.id);
        let run_at = self.runs.len() as u32;
        let mut row = SessionRow {
            id,
            parent: self.id_of(parent_sym, s.parent),
            root: self.id_of(root_sym, s.root),
            depth: s.depth.unwrap_or(NONE),
            label: self.word(s.label),
            events: s.events,
            inferred_parent: s.inferred_parent,
            usage: self.usage(s.usage),
            subtree_usage: self.usage(s.subtree_usage),
            run_at,
            run_len: 0,
        };
        for r in runs {
            let (received, received_at) = match r.received {
                Some((text, at)) => (self.texts.push(text), self.at_in(Some(at))),
                None => (NONE, self.at_in(None)),
            };
            let run = RunRow {
                parent: self.id_of(r.parent_sym, r.parent),
                start: self.at_in(r.start),
                end: self.at_in(r.end),
                outcome: r.outcome,
                link: r.link,
                start_time: time(r.start_time),
                end_time: time(r.end_time),
                received,
                received_at,
            };
            self.runs.push(run);
        }
        row.run_len = self.runs.len() as u32 - run_at;
        row
    }

    /// A count of tokens kept, by its index in `usages`.
    fn usage(&mut self, u: Option<report::Usage>) -> u32 {
        match u {
            Some(u) => {
                self.usages.push(u);
                (self.usages.len() - 1) as u32
            }
            None => NONE,
        }
    }

    /// A count of tokens kept (`NONE`: none).
    pub fn usage_of(&self, i: u32) -> Option<report::Usage> {
        self.usages.get(i as usize).cloned()
    }

    pub fn add_turn(&mut self, t: report::Turn) {
        let turn = self.turn_key(&t.turn);
        let steps = t.step_spans.iter().map(|s| StepIn {
            step: s.step,
            start: place(&s.start),
            end: s.end.as_ref().map(place),
            start_time: s.start_time,
            end_time: s.end_time,
        });
        let start = t.start.as_ref().map(place);
        let end = t.end.as_ref().map(place);
        self.push_turn(
            TurnIn {
                session: &t.session,
                session_sym: None,
                turn,
                start,
                end,
                start_time: t.start_time,
                end_time: t.end_time,
            },
            steps,
        );
    }

    /// A turn as an analysis's report parts lend it, nothing of it copied to be kept (a large
    /// log's view made each turn's ids, places and steps owned only to read them here: the
    /// turns of a 1 GiB dsh-rpc log took 149–177 ms, 79–104 ms this way).
    pub fn add_turn_ref(&mut self, t: crate::report_parts::TurnRef<'_>) {
        let row = self.turn_row_ref(t);
        self.turns.push(row);
    }

    /// `add_turn_ref`'s row, its steps kept, the row not.
    pub fn turn_row_ref(&mut self, t: crate::report_parts::TurnRef<'_>) -> TurnRow {
        let turn = self.turn_key_ref(t.turn);
        let steps = t.step_spans.iter().map(|s| StepIn {
            step: s.step,
            start: place_ref(&s.start),
            end: s.end.as_ref().map(place_ref),
            start_time: s.start_time,
            end_time: s.end_time,
        });
        let start = t.start.as_ref().map(place_ref);
        let end = t.end.as_ref().map(place_ref);
        self.turn_row(
            TurnIn {
                session: t.session,
                session_sym: Some(t.session_sym),
                turn,
                start,
                end,
                start_time: t.start_time,
                end_time: t.end_time,
            },
            steps,
        )
    }

    fn push_turn<'a>(&mut self, t: TurnIn<'_>, steps: impl Iterator<Item = StepIn<'a>>) {
        let row = self.turn_row(t, steps);
        self.turns.push(row);
    }

    /// A turn's row, its steps added to `steps`.
    fn turn_row<'a>(&mut self, t: TurnIn<'_>, steps: impl Iterator<Item = StepIn<'a>>) -> TurnRow {
        let step_at = self.steps.len() as u32;
        let mut row = TurnRow {
            session: self.sym_of(t.session_sym, t.session),
            turn: t.turn,
            start: self.at_in(t.start),
            end: self.at_in(t.end),
            start_time: time(t.start_time),
            end_time: time(t.end_time),
            step_at,
            step_len: 0,
        };
        for s in steps {
            let step = StepRow {
                step: s.step,
                start: self.at_in(Some(s.start)),
                end: self.at_in(s.end),
                start_time: time(s.start_time),
                end_time: time(s.end_time),
            };
            self.steps.push(step);
        }
        row.step_len = self.steps.len() as u32 - step_at;
        row
    }

    /// A reply; with `offset` (of its line in its file), its text is not kept but read back.
    pub fn add_reply(&mut self, r: report::Reply, offset: Option<u64>) {
        let turn = self.turn_key(&r.turn);
        let reply = ReplyIn {
            session: &r.session,
            session_sym: None,
            root: r.root,
            turn,
            run: r.run,
            text: &r.text,
            at: place(&r.at),
        };
        let row = self.reply_row(reply, offset);
        self.replies.push(row);
    }

    /// `add_reply`'s row of a reply as an analysis's report parts lend it, the row not kept
    /// (nothing of the reply copied but a text that is kept).
    pub fn reply_row_ref(&mut self, r: crate::report_parts::ReplyRef<'_>, offset: u64) -> ReplyRow {
        let turn = self.turn_key_ref(r.turn);
        let reply = ReplyIn {
            session: r.session,
            session_sym: Some(r.session_sym),
            root: r.root,
            turn,
            run: r.run,
            text: r.text,
            at: place_ref(&r.at),
        };
        self.reply_row(reply, Some(offset))
    }

    /// A reply's row: its text read back from the line that starts at `offset` when there is
    /// one and the input's path is known, else kept.
    fn reply_row(&mut self, r: ReplyIn<'_>, offset: Option<u64>) -> ReplyRow {
        let at = self.at_in(Some(r.at));
        let (text, offset) = match offset {
            Some(o) if self.paths.get(at.file as usize).is_some_and(Option::is_some) => (NONE, o),
            _ => (self.texts.push(r.text), u64::MAX),
        };
        ReplyRow {
            session: self.sym_of(r.session_sym, r.session),
            root: r.root,
            turn: r.turn,
            run: r.run.unwrap_or(NONE),
            text,
            at,
            offset,
        }
    }

    /// The inputs' paths, by their names, so that reply texts can be read back from them.
    pub fn set_paths(&mut self, paths: impl IntoIterator<Item = TextSource>) {
        for (name, path, format) in paths {
            let f = self.file(&name) as usize;
            if self.paths.len() <= f {
                self.paths.resize(f + 1, None);
                self.formats.resize(f + 1, None);
            }
            self.paths[f] = Some(path);
            self.formats[f] = format;
        }
    }

    pub fn add_wait(&mut self, w: report::Wait) {
        let row = self.wait_row(w);
        self.waits.push(row);
    }

    /// `add_wait`'s row, its texts kept, the row not.
    pub fn wait_row(&mut self, w: report::Wait) -> WaitRow {
        let naive_end = match &w.naive.end {
            None => Maybe::Absent,
            Some(None) => Maybe::Null,
            Some(Some(p)) => Maybe::Is(self.at(Some(p))),
        };
        let naive_reply = Maybe::of(w.naive.reply.as_ref().map(|r| r.as_deref().map(|t| self.texts.push(t))));
        let row = WaitRow {
            root: self.ids.intern(&w.root),
            start: self.at(w.start.as_ref()),
            end: self.at(w.end.as_ref()),
            outcome: w.outcome,
            reply: w.reply.as_deref().map_or(NONE, |t| self.texts.push(t)),
            finish_reason: self.word(w.finish_reason.as_deref()),
            notifications: w.notifications,
            events: w.events,
            naive_end,
            naive_outcome: w.naive.outcome,
            naive_reply,
            naive_notifications: w.naive.notifications,
        };
        row
    }

    pub fn add_diagnostic(&mut self, d: report::Diagnostic) {
        let row = self.diagnostic_row(d);
        self.diagnostics.push(row);
    }

    /// `add_diagnostic`'s row, its message kept, the row not.
    pub fn diagnostic_row(&mut self, d: report::Diagnostic) -> DiagRow {
        DiagRow {
            code: self.words.intern(&d.code),
            severity: d.severity,
            at: self.at(Some(&d.at)),
            session: self.id(d.session.as_deref()),
            message: self.texts.push(&d.message),
            time: time(d.time),
        }
    }

    /// Gives back what the lists reserved beyond their items: they grow no more.
    pub fn finish(&mut self) {
        self.texts.shrink();
        self.sessions.shrink_to_fit();
        self.runs.shrink_to_fit();
        self.turns.shrink_to_fit();
        self.steps.shrink_to_fit();
        self.replies.shrink_to_fit();
        self.waits.shrink_to_fit();
        self.diagnostics.shrink_to_fit();
        self.forget_syms();
    }

    // -----------------------------------------------------------------------------------------
    // Reading back

    pub fn name(&self, s: u32) -> Option<&str> {
        (s != NONE).then(|| self.ids.name(Sym(s)))
    }

    pub fn word_of(&self, s: u32) -> Option<&str> {
        (s != NONE).then(|| self.words.name(Sym(s)))
    }

    /// The session named `id`, by its index in report order.
    pub fn session(&self, id: &str) -> Option<u32> {
        self.session_of_sym(self.ids.get(id)?)
    }

    pub fn session_of_sym(&self, s: Sym) -> Option<u32> {
        self.session_of.get(s.0 as usize).copied().filter(|&i| i != NONE)
    }

    /// The runs of a session's row.
    pub fn runs_of_row(&self, row: &SessionRow) -> &[RunRow] {
        &self.runs[row.run_at as usize..(row.run_at + row.run_len) as usize]
    }

    pub fn runs_of(&self, session: u32) -> &[RunRow] {
        self.runs_of_row(&self.sessions[session as usize])
    }

    pub fn steps_of(&self, turn: u32) -> &[StepRow] {
        let row = &self.turns[turn as usize];
        &self.steps[row.step_at as usize..(row.step_at + row.step_len) as usize]
    }

    pub fn place(&self, a: At) -> Option<Place> {
        let file = self.files.get(a.get()?.file as usize)?;
        Some(Place { file: file.clone(), line: u64::from(a.line) })
    }

    /// The file index of a place as the report names it.
    pub fn at_of(&self, p: &Place) -> Option<At> {
        Some(At { file: *self.file_index.get(&p.file)?, line: u32::try_from(p.line).ok()? })
    }

    pub fn turn_value(&self, t: TurnKey) -> serde_json::Value {
        match t {
            TurnKey::Num(n) if n.fract() == 0.0 && n.abs() < 9e15 => (n as i64).into(),
            TurnKey::Num(n) => serde_json::Number::from_f64(n).map_or(serde_json::Value::Null, Into::into),
            TurnKey::Text(s) => self.words.name(s).into(),
            TurnKey::Null => serde_json::Value::Null,
        }
    }

    pub fn run(&self, r: &RunRow) -> Run {
        Run {
            parent: self.name(r.parent).map(str::to_owned),
            start: self.place(r.start),
            end: self.place(r.end),
            outcome: r.outcome,
            link: r.link,
            start_time: some_time(r.start_time),
            end_time: some_time(r.end_time),
            received: (r.received != NONE)
                .then(|| {
                    Some(report::Received {
                        text: self.texts.get(r.received).to_owned(),
                        at: self.place(r.received_at)?,
                    })
                })
                .flatten(),
        }
    }

    /// Replies `list` (indices), their texts read back from the files where they are not kept
    /// (one pass a file); in the order given.
    pub fn replies_of(&self, list: &[u32]) -> Vec<Reply> {
        let mut texts: HashMap<u32, String> = HashMap::default();
        let mut wanted: Vec<(u32, u64, u32)> = list
            .iter()
            .filter_map(|&i| {
                let r = self.replies.get(i as usize)?;
                (r.text == NONE && r.offset != u64::MAX).then_some((r.at.file, r.offset, i))
            })
            .collect();
        wanted.sort_unstable();
        for group in wanted.chunk_by(|a, b| a.0 == b.0) {
            let Some(Some(path)) = self.paths.get(group[0].0 as usize) else { continue };
            let format = self.formats.get(group[0].0 as usize).copied().flatten();
            let pieces: Vec<(u64, crate::reader::Piece)> =
                group.iter().map(|w| (w.1, crate::reader::Piece::Line)).collect();
            // A file that cannot be read again gives empty texts, as the report's read back does.
            let _ = crate::reader::each_piece_at(path, &pieces, |k, bytes| {
                let text = bytes.zip(format).map(|(b, f)| f.reader.reply_text(b));
                texts.insert(group[k].2, text.unwrap_or_default());
            });
        }
        list.iter()
            .filter_map(|&i| {
                let r = self.replies.get(i as usize)?;
                let text = if r.text == NONE {
                    texts.remove(&i).unwrap_or_default()
                } else {
                    self.texts.get(r.text).to_owned()
                };
                Some(Reply {
                    session: self.ids.name(r.session).to_owned(),
                    root: r.root,
                    turn: self.turn_value(r.turn),
                    run: (r.run != NONE).then_some(r.run),
                    text,
                    at: self.place(r.at)?,
                })
            })
            .collect()
    }

    pub fn wait(&self, i: u32) -> Option<Wait> {
        let w = self.waits.get(i as usize)?;
        let text = |t: u32| (t != NONE).then(|| self.texts.get(t).to_owned());
        Some(Wait {
            root: self.ids.name(w.root).to_owned(),
            start: self.place(w.start),
            end: self.place(w.end),
            outcome: w.outcome,
            reply: text(w.reply),
            finish_reason: self.word_of(w.finish_reason).map(str::to_owned),
            notifications: w.notifications,
            events: w.events,
            naive: NaiveWait {
                end: w.naive_end.map(|a| self.place(a)).map(Option::flatten),
                outcome: w.naive_outcome,
                reply: w.naive_reply.map(|t| self.texts.get(t).to_owned()),
                notifications: w.naive_notifications,
            },
        })
    }

    pub fn diagnostic(&self, i: u32) -> Option<Diagnostic> {
        let d = self.diagnostics.get(i as usize)?;
        Some(Diagnostic {
            code: self.words.name(d.code).to_owned(),
            severity: d.severity,
            at: self.place(d.at)?,
            session: self.name(d.session).map(str::to_owned),
            message: self.texts.get(d.message).to_owned(),
            time: some_time(d.time),
        })
    }
}

/// A place as the store reads it: its file's name and its line.
type PlaceIn<'a> = (&'a str, u64);

fn place(p: &Place) -> PlaceIn<'_> {
    (p.file.as_str(), p.line)
}

fn place_ref<'a>(p: &crate::report_parts::PlaceRef<'a>) -> PlaceIn<'a> {
    (p.file, p.line)
}

/// What the store reads of a session, a run, a turn, a reply and a step, borrowed from either
/// the owned report or its parts.
struct SessionIn<'a> {
    id: &'a str,
    parent: Option<&'a str>,
    root: Option<&'a str>,
    depth: Option<u32>,
    label: Option<&'a str>,
    events: u64,
    inferred_parent: bool,
    usage: Option<report::Usage>,
    subtree_usage: Option<report::Usage>,
    /// The analysis's symbols of `id`, `parent` and `root`, when the session is its parts'.
    syms: [Option<Sym>; 3],
}

struct RunIn<'a> {
    parent: Option<&'a str>,
    parent_sym: Option<Sym>,
    start: Option<PlaceIn<'a>>,
    end: Option<PlaceIn<'a>>,
    outcome: Outcome,
    link: report::Link,
    start_time: Option<f64>,
    end_time: Option<f64>,
    received: Option<(&'a str, PlaceIn<'a>)>,
}

struct TurnIn<'a> {
    session: &'a str,
    session_sym: Option<Sym>,
    turn: TurnKey,
    start: Option<PlaceIn<'a>>,
    end: Option<PlaceIn<'a>>,
    start_time: Option<f64>,
    end_time: Option<f64>,
}

struct ReplyIn<'a> {
    session: &'a str,
    session_sym: Option<Sym>,
    root: bool,
    turn: TurnKey,
    run: Option<u32>,
    text: &'a str,
    at: PlaceIn<'a>,
}

struct StepIn<'a> {
    step: u32,
    start: PlaceIn<'a>,
    end: Option<PlaceIn<'a>>,
    start_time: Option<f64>,
    end_time: Option<f64>,
}

/// A session or a turn the store keeps: the report's own, or the one its parts lend.
pub trait Keep {
    fn keep_in(self, store: &mut Store);
}

impl Keep for report::Turn {
    fn keep_in(self, store: &mut Store) {
        store.add_turn(self)
    }
}

impl Keep for crate::report_parts::TurnRef<'_> {
    fn keep_in(self, store: &mut Store) {
        store.add_turn_ref(self)
    }
}

impl Keep for (report::Reply, Option<u64>) {
    fn keep_in(self, store: &mut Store) {
        store.add_reply(self.0, self.1)
    }
}

impl Keep for (crate::report_parts::ReplyRef<'_>, u64) {
    fn keep_in(self, store: &mut Store) {
        let row = store.reply_row_ref(self.0, self.1);
        store.replies.push(row);
    }
}

impl Keep for report::Session {
    fn keep_in(self, store: &mut Store) {
        store.add_session(self)
    }
}

impl Keep for crate::report_parts::SessionRef<'_> {
    fn keep_in(self, store: &mut Store) {
        store.add_session_ref(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_read_back_from_the_tables_is_the_report() {
        let report = crate::view::tests::sample_report();
        let mut store = Store::new(report.inputs.clone());
        for s in report.sessions.clone() {
            store.add_session(s);
        }
        for t in report.turns.clone() {
            store.add_turn(t);
        }
        for r in report.replies.clone() {
            store.add_reply(r, None);
        }
        for w in report.waits.clone() {
            store.add_wait(w);
        }
        for d in report.diagnostics.clone() {
            store.add_diagnostic(d);
        }
        store.finish();
        let replies: Vec<Reply> = store.replies_of(&(0..store.replies.len() as u32).collect::<Vec<_>>());
        let waits: Vec<Wait> = (0..store.waits.len() as u32).filter_map(|i| store.wait(i)).collect();
        let diagnostics: Vec<Diagnostic> =
            (0..store.diagnostics.len() as u32).filter_map(|i| store.diagnostic(i)).collect();
        assert_eq!(replies, report.replies);
        assert_eq!(waits, report.waits);
        assert_eq!(diagnostics, report.diagnostics);
        for (i, s) in report.sessions.iter().enumerate() {
            let runs: Vec<Run> = store.runs_of(i as u32).iter().map(|r| store.run(r)).collect();
            assert_eq!(runs, s.runs, "{}", s.id);
            assert_eq!(store.session(&s.id).map(|i| store.sessions[i as usize].events), Some(s.events));
        }
        assert_eq!(store.turns.len(), report.turns.len());
        for (i, t) in report.turns.iter().enumerate() {
            assert_eq!(store.turn_value(store.turns[i].turn), t.turn);
            assert_eq!(store.steps_of(i as u32).len(), t.step_spans.len());
        }
    }
}
