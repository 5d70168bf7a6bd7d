//! Arbor's log generator: deterministic, realistic logs of every format the engine reads, of any
//! size, for tests and benchmarks.
//!
//! A seeded PRNG (splitmix64) drives a small scheduler of agents: the root agent runs turns; a turn
//! may delegate to sub-agents (up to `depth` levels, up to `fanout` children a step), which run
//! interleaved with their siblings, line by line, as in a real recording. Each agent follows a
//! script shaped like the deepseek-harness and Copilot CLI logs in `shared/corpus/`: turn and step
//! boundaries, `request/header`, `assistant/chunk` block rows, packed `*-chunks` rows,
//! `assistant/message` with content blocks, `tool/call` + `tool/result`, `session.status idle`,
//! `subagent.started`/`finished` (dsh) or the Copilot envelope with `agentId` stamps.
//!
//! Faults are injected at a rate and counted as they are written, so `GenStats::findings` says which
//! findings the engine must report (SPEC section 3). The generator never reads the engine: its
//! expectations come from the spec, which is what makes it a test of the engine.
//!
//! It deliberately does not aim at byte-exact sizes: it stops starting new work once the target is
//! reached and lets the scripts in flight finish, so a log overshoots by a few kilobytes.

mod codex;
mod gemini;
pub mod live;
pub mod opencode;
pub use codex::{generate_codex_tree, CodexTree};
pub use gemini::{generate_gemini_tree, GeminiTree};
pub use opencode::{generate_opencode, OpenCodeStore};
pub mod claude_code;

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// An input format the generator writes (the engine's format ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    DshRpc,
    DshSession,
    CopilotEvents,
    CopilotRpc,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::DshRpc, Format::DshSession, Format::CopilotEvents, Format::CopilotRpc];

    pub fn id(self) -> &'static str {
        match self {
            Format::DshRpc => "dsh-rpc",
            Format::DshSession => "dsh-session",
            Format::CopilotEvents => "copilot-events",
            Format::CopilotRpc => "copilot-rpc",
        }
    }

    pub fn from_id(s: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.id() == s)
    }

    fn copilot(self) -> bool {
        matches!(self, Format::CopilotEvents | Format::CopilotRpc)
    }
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenOptions {
    pub format: Format,
    /// Stop starting new work once this many bytes are written (the log ends a little after).
    pub target_bytes: u64,
    /// How many levels of sub-agents below the root (0: the root never delegates).
    pub depth: u32,
    /// The most sub-agents one step starts.
    pub fanout: u32,
    pub seed: u64,
    /// The chance of each fault at each place it can happen, in [0, 1]: per session turn a boundary
    /// fault; per sub-agent start a reused id or a stale settle (dsh-rpc), a child error or idle
    /// (Copilot); per wait a child reply after the root's (copilot-events); per line a malformed
    /// line at a tenth of the rate. 0 writes a clean log.
    pub fault_rate: f64,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions { format: Format::DshRpc, target_bytes: 1 << 20, depth: 2, fanout: 2, seed: 1, fault_rate: 0.0 }
    }
}

/// What was written, and what the engine should find in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenStats {
    pub bytes: u64,
    /// Lines written, malformed ones included.
    pub lines: u64,
    /// Lines that are records (JSON objects): `lines - malformed`.
    pub records: u64,
    pub malformed: u64,
    pub files: u64,
    /// Distinct sessions (dsh) or agents (Copilot), roots included.
    pub sessions: u64,
    /// Sub-agent runs (a reused child id has several).
    pub runs: u64,
    /// Root turns (dsh-rpc) or waits (Copilot): one per root user prompt.
    pub root_turns: u64,
    /// Turn records: every `turn/start` (dsh) or `assistant.turn_start` (Copilot).
    pub turns: u64,
    /// The deepest sub-agent written (0: none).
    pub max_depth: u32,
    /// Finding code → how many the engine must report.
    pub findings: BTreeMap<&'static str, u64>,
}

impl GenStats {
    /// Adds another log's figures (`arbor-gen --sessions`): counts add up, the depth is the deepest.
    pub fn add(&mut self, o: &GenStats) {
        self.bytes += o.bytes;
        self.lines += o.lines;
        self.records += o.records;
        self.malformed += o.malformed;
        self.files += o.files.max(1);
        self.sessions += o.sessions;
        self.runs += o.runs;
        self.root_turns += o.root_turns;
        self.turns += o.turns;
        self.max_depth = self.max_depth.max(o.max_depth);
        for (k, v) in &o.findings {
            *self.findings.entry(k).or_default() += v;
        }
    }

    pub(crate) fn expect(&mut self, code: &'static str) {
        *self.findings.entry(code).or_default() += 1;
    }
}

/// Parse a size such as `1G`, `100M`, `20MB`, `512k` or `12345` (binary units: 1K = 1024).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let t = s.trim_end_matches(['b', 'B']).trim_end_matches(['i', 'I']);
    let (num, mul) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1u64 << 10),
        'm' | 'M' => (&t[..t.len() - 1], 1 << 20),
        'g' | 'G' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let v: f64 = num.trim().parse().ok()?;
    (v >= 0.0).then_some((v * mul as f64) as u64)
}

/// Write one log of `opts.format` to `out`. For `dsh-session` this is the root's durable log alone
/// (its children would be files of their own: see `generate_dsh_session_folder`).
pub fn generate(opts: &GenOptions, out: &mut dyn Write) -> io::Result<GenStats> {
    let mut w = BufWriter::with_capacity(1 << 20, out);
    let mut g = Gen::new(opts);
    g.run_stream(&mut w)?;
    w.flush()?;
    g.stats.files = 1;
    Ok(g.finish())
}

/// Write a folder of `dsh-session` durable logs: `root.jsonl` and one `<child-id>.jsonl` per
/// sub-agent, whose header names its `parentSession` and `delegationDepth`. `opts.format` is ignored.
pub fn generate_dsh_session_folder(opts: &GenOptions, dir: &Path) -> io::Result<GenStats> {
    std::fs::create_dir_all(dir)?;
    let mut opts = opts.clone();
    opts.format = Format::DshSession;
    let mut g = Gen::new(&opts);
    g.folder = Some(dir.to_path_buf());
    g.run_folder(dir)?;
    Ok(g.finish())
}

/// The (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's civil_from_days).
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// splitmix64: tiny, fast, and good enough to pick words and branches.
#[derive(Debug, Clone)]
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((self.next() >> 32) * n) >> 32
    }
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && ((self.next() >> 11) as f64) < p * (1u64 << 53) as f64
    }
}

/// Between `lo` and `hi` words of `list`, space-separated (the Codex and OpenCode generators'
/// texts).
pub(crate) fn words_of(rng: &mut Rng, list: &[&str], lo: u64, hi: u64) -> String {
    let n = rng.range(lo, hi);
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(list[rng.below(list.len() as u64) as usize]);
    }
    s
}

/// Tokens of model text. Each is a complete JSON string fragment (escapes included), so any
/// concatenation of them is valid inside a JSON string.
const TOKENS: &[&str] = &[
    " the",
    " user",
    " wants",
    " me",
    " to",
    " check",
    " whether",
    " tests",
    " pass",
    " in",
    " crate",
    " and",
    " then",
    " report",
    " back",
    ".",
    ",",
    " I",
    "'ll",
    " run",
    " `cargo",
    " test`",
    " first",
    " \\\"",
    "ok",
    "\\\"",
    " file",
    " src",
    "/lib",
    ".rs",
    " has",
    " a",
    " bug",
    " on",
    " line",
    " 42",
    " fix",
    " it",
    " now",
    "\\n",
    "-",
    " done",
    " sub",
    "agent",
    " returned",
    " result",
    " summary",
    " of",
    " changes",
    ":",
    " function",
    " `parse",
    "_line`",
    " returns",
    " None",
    " when",
    " input",
    " is",
    " empty",
    " é",
    " 日本",
    " →",
];

const WORDS: &[&str] =
    &["alpha", "beta", "gamma", "delta", "probe", "indexer", "reviewer", "planner", "tester", "scout", "builder"];

/// One step of an agent's script, rendered when it is its turn to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    // deepseek-harness durable events (dsh-rpc wraps each in `session.event`).
    Descriptor,
    Title,
    Spliced,
    UserMsg,
    TurnStart,
    TurnEnd,
    StepStart {
        step: u32,
    },
    /// `named`: the step it names (another than the open one is a fault); `dup_seq`: reuse the last seq.
    StepEnd {
        step: u32,
        named: u32,
        dup_seq: bool,
    },
    ReqHeader,
    BlockStart {
        step: u32,
        index: u8,
        kind: Blk,
    },
    Packed {
        step: u32,
        index: u8,
        kind: Blk,
    },
    BlockEnd {
        step: u32,
        index: u8,
        kind: Blk,
    },
    Usage {
        step: u32,
    },
    Finish {
        step: u32,
        tools: bool,
    },
    AsstMsg {
        step: u32,
        calls: u8,
        text: bool,
    },
    ToolCall {
        step: u32,
        i: u8,
        spawn: bool,
    },
    ToolResult {
        step: u32,
        i: u8,
    },
    /// Start `n` sub-agents for calls `0..n` and wait for them.
    Spawn {
        n: u8,
    },
    Ignorable,
    Unknown,
    Mirror {
        step: u32,
    },
    OrphanResult {
        step: u32,
    },
    /// dsh-rpc: the child's start edge again, then the first run's stale `subagent.finished`.
    Restart,
    /// The root's `session.status idle` (dsh-rpc) or `session.idle` (copilot-rpc).
    RootIdle,
    // Copilot envelopes.
    CUser,
    CTurnStart,
    CTurnEnd,
    CMsg {
        last: bool,
    },
    CToolStart {
        i: u8,
        task: bool,
    },
    CToolDone {
        i: u8,
    },
    CChildIdle,
    CChildError,
    CTrailing,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Blk {
    Reasoning,
    Text,
    ToolCall,
}

impl Blk {
    fn block_type(self) -> &'static str {
        match self {
            Blk::Reasoning => "reasoning",
            Blk::Text => "text",
            Blk::ToolCall => "tool-call",
        }
    }
}

#[derive(Debug, Default)]
struct Agent {
    id: String,
    depth: u32,
    parent: Option<usize>,
    seq: u64,
    turn: u32,
    script: VecDeque<Act>,
    /// Children still running.
    waiting: u32,
    /// Call ids of the current step, and what each answered.
    calls: Vec<String>,
    results: Vec<String>,
    /// The tokens of the current step's reasoning, text and tool arguments.
    reasoning: Vec<u16>,
    text: Vec<u16>,
    /// The last text reply, for `subagent.finished.lastAssistantMessage` and the parent's result.
    reply: String,
    /// Copilot: the `toolCallId` that started it; turn ids; whether it failed.
    tool_call: String,
    turn_ids: u32,
    failed: bool,
    label: &'static str,
    eldest: bool,
}

/// Per-wait state of the naive waiter (SPEC 2.2), simulated to know when the engine must report
/// `child-reply-would-replace-root-reply`.
#[derive(Debug, Default)]
struct NaiveSim {
    /// A wait is running (a root `user.message` was written).
    open: bool,
    /// The naive waiter has ended (at the first `session.idle` or `session.error` of any agent).
    done: bool,
    /// It ended at an idle (not an error).
    idle: bool,
    /// `Some(true)` when the last message it saw was a sub-agent's.
    reply_from_sub: Option<bool>,
}

struct Gen {
    opts: GenOptions,
    rng: Rng,
    stats: GenStats,
    buf: Vec<u8>,
    /// Scratch for a broken copy of a line.
    broken: Vec<u8>,
    agents: Vec<Option<Agent>>,
    free: Vec<usize>,
    active: Vec<usize>,
    /// Ids of finished sub-agents that may be started again (dsh-rpc `child-id-reused`).
    reusable: Vec<String>,
    clock: u64,
    root: usize,
    root_turn: u64,
    rpc_id: u64,
    /// Copilot: the previous event's id (the envelope's `parentId`).
    prev_event: String,
    naive: NaiveSim,
    /// The sub-agent that last finished in the current wait (for a trailing reply).
    last_child: Option<String>,
    /// dsh-session folder mode: where the child files go.
    folder: Option<std::path::PathBuf>,
    /// Acts in all scripts not yet written.
    pending: u64,
}

impl Gen {
    fn new(opts: &GenOptions) -> Gen {
        let mut opts = opts.clone();
        opts.fanout = opts.fanout.clamp(1, 255);
        opts.fault_rate = opts.fault_rate.clamp(0.0, 1.0);
        Gen {
            rng: Rng(opts.seed ^ 0x5EED_0FA7_B0B0),
            opts,
            stats: GenStats::default(),
            buf: Vec::with_capacity(1 << 16),
            broken: Vec::new(),
            agents: Vec::new(),
            free: Vec::new(),
            active: Vec::new(),
            reusable: Vec::new(),
            clock: 1_785_097_410_290,
            root: 0,
            root_turn: 0,
            rpc_id: 0,
            prev_event: String::new(),
            naive: NaiveSim::default(),
            last_child: None,
            folder: None,
            pending: 0,
        }
    }

    fn finish(mut self) -> GenStats {
        self.stats.records = self.stats.lines - self.stats.malformed;
        self.stats.findings.retain(|_, n| *n > 0);
        self.stats
    }

    /// Whether what is written plus what the scripts in flight have promised reaches the target:
    /// then no new work starts.
    fn over_budget(&self) -> bool {
        let avg = self.stats.bytes.checked_div(self.stats.lines).unwrap_or(300);
        self.stats.bytes + self.pending * avg >= self.opts.target_bytes
    }

    fn tick(&mut self) -> u64 {
        self.clock += self.rng.range(1, 40);
        self.clock
    }

    // ---------- small writers into `buf` ----------

    fn raw(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    fn num(&mut self, n: u64) {
        let mut b = itoa::Buffer::new();
        self.buf.extend_from_slice(b.format(n).as_bytes());
    }

    /// A JSON string of text that needs no escaping.
    fn q(&mut self, s: &str) {
        self.buf.push(b'"');
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(b'"');
    }

    fn hex(&mut self, mut v: u64, digits: usize) {
        const H: &[u8; 16] = b"0123456789abcdef";
        let start = self.buf.len();
        self.buf.resize(start + digits, b'0');
        for i in (0..digits).rev() {
            self.buf[start + i] = H[(v & 15) as usize];
            v >>= 4;
        }
    }

    fn uuid(&mut self) -> String {
        let (a, b) = (self.rng.next(), self.rng.next());
        let mut s = String::with_capacity(36);
        use std::fmt::Write as _;
        let _ = write!(
            s,
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff
        );
        s
    }

    fn call_id(&mut self) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let mut s = String::from("call_00_");
        for _ in 0..22 {
            s.push(A[self.rng.below(A.len() as u64) as usize] as char);
        }
        s
    }

    fn tokens(&mut self, lo: u64, hi: u64) -> Vec<u16> {
        let n = self.rng.range(lo, hi);
        (0..n).map(|_| self.rng.below(TOKENS.len() as u64) as u16).collect()
    }

    fn text_of(toks: &[u16]) -> String {
        toks.iter().map(|&t| TOKENS[t as usize]).collect::<String>().trim_start().to_owned()
    }

    fn write_text(&mut self, toks: &[u16]) {
        self.buf.push(b'"');
        let mut first = true;
        for &t in toks {
            let s = TOKENS[t as usize];
            let s = if first { s.trim_start() } else { s };
            first = false;
            self.buf.extend_from_slice(s.as_bytes());
        }
        self.buf.push(b'"');
    }

    /// Write the line in `buf` (plus a newline), and now and then a broken copy of it after.
    fn commit(&mut self, out: &mut dyn Write) -> io::Result<()> {
        self.buf.push(b'\n');
        out.write_all(&self.buf)?;
        self.stats.bytes += self.buf.len() as u64;
        self.stats.lines += 1;
        if self.rng.chance(self.opts.fault_rate / 10.0) {
            // A line cut in the middle (a crashed writer that later resumed): not JSON.
            let cut = (self.buf.len() / 2).max(2);
            self.broken.clear();
            self.broken.extend_from_slice(&self.buf[..cut]);
            self.broken.push(b'\n');
            out.write_all(&self.broken)?;
            self.stats.bytes += self.broken.len() as u64;
            self.stats.lines += 1;
            self.stats.malformed += 1;
            self.stats.expect("malformed-line");
        }
        self.buf.clear();
        Ok(())
    }

    // ---------- agents ----------

    fn add_agent(&mut self, a: Agent) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.agents[i] = Some(a);
                i
            }
            None => {
                self.agents.push(Some(a));
                self.agents.len() - 1
            }
        }
    }

    fn ag(&mut self, i: usize) -> &mut Agent {
        self.agents[i].as_mut().expect("live agent")
    }

    /// The agent's tokens that a text or reasoning block writes (a text block its reply, any
    /// other its reasoning).
    fn tokens_of(&mut self, i: usize, kind: Blk) -> &mut Vec<u16> {
        let a = self.ag(i);
        if kind == Blk::Text {
            &mut a.text
        } else {
            &mut a.reasoning
        }
    }

    fn new_session_id(&mut self) -> String {
        let id = self.uuid();
        self.stats.sessions += 1;
        id
    }

    /// Whether an agent at this depth delegates in this turn, and to how many. `eldest`: the first
    /// child of its parent (or the root).
    fn spawn_count(&mut self, depth: u32, eldest: bool) -> u8 {
        if depth >= self.opts.depth || self.over_budget() {
            return 0;
        }
        // In the first root turn the eldest child at each level delegates to `fanout` children, so
        // that even a small log reaches the full depth and fan-out.
        if self.root_turn == 1 {
            return if eldest { self.opts.fanout as u8 } else { 0 };
        }
        if !self.rng.chance(0.6) {
            return 0;
        }
        self.rng.range(1, self.opts.fanout as u64) as u8
    }

    /// The script of one dsh turn.
    fn dsh_turn(&mut self, depth: u32, first: bool, is_root: bool, eldest: bool) -> VecDeque<Act> {
        let mut s = VecDeque::new();
        if first && !is_root {
            s.push_back(Act::Descriptor);
        }
        if is_root {
            s.push_back(Act::Spliced);
        }
        s.push_back(Act::TurnStart);
        let spawn = self.spawn_count(depth, eldest);
        let bash_steps = self.rng.below(3) as u32;
        let mut step = 1;
        // The root's prompt arrives inside its first step, as the harness writes it.
        let mut prompt = is_root;
        let title = self.root_turn == 1 && is_root;
        let open_step = |s: &mut VecDeque<Act>, step: u32, prompt: &mut bool| {
            s.push_back(Act::StepStart { step });
            if std::mem::take(prompt) {
                s.push_back(Act::UserMsg);
                if title {
                    s.push_back(Act::Title);
                }
            }
            s.push_back(Act::ReqHeader);
        };
        let tool_step = |s: &mut VecDeque<Act>, step: u32, n: u8, spawn: bool, prompt: &mut bool| {
            open_step(s, step, prompt);
            s.push_back(Act::BlockStart { step, index: 0, kind: Blk::Reasoning });
            s.push_back(Act::Packed { step, index: 0, kind: Blk::Reasoning });
            s.push_back(Act::BlockStart { step, index: 1, kind: Blk::ToolCall });
            s.push_back(Act::Packed { step, index: 1, kind: Blk::ToolCall });
            s.push_back(Act::BlockEnd { step, index: 0, kind: Blk::Reasoning });
            s.push_back(Act::BlockEnd { step, index: 1, kind: Blk::ToolCall });
            s.push_back(Act::Usage { step });
            s.push_back(Act::Finish { step, tools: true });
            s.push_back(Act::AsstMsg { step, calls: n, text: false });
            for i in 0..n {
                s.push_back(Act::ToolCall { step, i, spawn });
            }
            if spawn {
                s.push_back(Act::Spawn { n });
            }
            for i in 0..n {
                s.push_back(Act::ToolResult { step, i });
            }
            s.push_back(Act::StepEnd { step, named: step, dup_seq: false });
        };
        if spawn > 0 {
            tool_step(&mut s, step, spawn, true, &mut prompt);
            step += 1;
        }
        for _ in 0..bash_steps {
            let n = self.rng.range(1, 2) as u8;
            tool_step(&mut s, step, n, false, &mut prompt);
            step += 1;
        }
        // A boundary fault in the final step, now and then.
        let fault = if self.rng.chance(self.opts.fault_rate) { Some(self.rng.below(8)) } else { None };
        if fault == Some(1) {
            step += 1;
            self.stats.expect("step-number-skipped");
        }
        open_step(&mut s, step, &mut prompt);
        s.push_back(Act::BlockStart { step, index: 0, kind: Blk::Reasoning });
        s.push_back(Act::Packed { step, index: 0, kind: Blk::Reasoning });
        s.push_back(Act::BlockEnd { step, index: 0, kind: Blk::Reasoning });
        s.push_back(Act::BlockStart { step, index: 1, kind: Blk::Text });
        s.push_back(Act::Packed { step, index: 1, kind: Blk::Text });
        if self.rng.chance(0.05) {
            s.push_back(Act::Ignorable);
        }
        match fault {
            Some(3) => {
                s.push_back(Act::Unknown);
                self.stats.expect("unknown-event-type");
            }
            Some(4) => {
                s.push_back(Act::Mirror { step });
                self.stats.expect("boundary-mirror-event");
            }
            Some(5) => {
                s.push_back(Act::OrphanResult { step });
                self.stats.expect("tool-result-without-call");
            }
            _ => {}
        }
        s.push_back(Act::BlockEnd { step, index: 1, kind: Blk::Text });
        s.push_back(Act::Usage { step });
        s.push_back(Act::Finish { step, tools: false });
        s.push_back(Act::AsstMsg { step, calls: 0, text: true });
        match fault {
            Some(0) => self.stats.expect("turn-end-with-open-step"),
            Some(2) => {
                s.push_back(Act::StepEnd { step, named: step, dup_seq: true });
                self.stats.expect("seq-not-increasing");
            }
            Some(7) => {
                s.push_back(Act::StepEnd { step, named: step + 5, dup_seq: false });
                self.stats.expect("boundary-mismatch");
            }
            _ => s.push_back(Act::StepEnd { step, named: step, dup_seq: false }),
        }
        if fault == Some(6) {
            // Content naming the step that just closed.
            s.push_back(Act::Usage { step });
            self.stats.expect("event-outside-step");
        }
        s.push_back(Act::TurnEnd);
        self.stats.turns += 1;
        self.pending += s.len() as u64;
        s
    }

    /// The script of one Copilot turn of an agent.
    fn copilot_turn(&mut self, depth: u32, is_root: bool, eldest: bool) -> VecDeque<Act> {
        let mut s = VecDeque::new();
        if is_root {
            s.push_back(Act::CUser);
        }
        s.push_back(Act::CTurnStart);
        self.stats.turns += 1;
        let spawn = self.spawn_count(depth, eldest);
        if spawn > 0 || !is_root {
            s.push_back(Act::CMsg { last: false });
        }
        if spawn > 0 {
            for i in 0..spawn {
                s.push_back(Act::CToolStart { i, task: true });
            }
            s.push_back(Act::Spawn { n: spawn });
            for i in 0..spawn {
                s.push_back(Act::CToolDone { i });
            }
        }
        for j in 0..self.rng.below(3) as u8 {
            let i = spawn + j;
            s.push_back(Act::CToolStart { i, task: false });
            s.push_back(Act::CToolDone { i });
        }
        s.push_back(Act::CMsg { last: true });
        s.push_back(Act::CTurnEnd);
        if is_root {
            if self.opts.format == Format::CopilotEvents && self.rng.chance(self.opts.fault_rate) {
                s.push_back(Act::CTrailing);
            }
            if self.opts.format == Format::CopilotRpc {
                s.push_back(Act::RootIdle);
            }
        } else {
            if self.opts.format == Format::CopilotRpc && self.rng.chance(self.opts.fault_rate) {
                s.push_back(Act::CChildIdle);
            }
            if self.rng.chance(self.opts.fault_rate) {
                s.push_back(Act::CChildError);
            }
        }
        self.pending += s.len() as u64;
        s
    }

    // ---------- the stream driver (dsh-rpc, dsh-session root log, Copilot) ----------

    fn run_stream(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let copilot = self.opts.format.copilot();
        let root_id = self.new_session_id();
        self.root = self.add_agent(Agent { id: root_id.clone(), label: "root", eldest: true, ..Agent::default() });
        match self.opts.format {
            Format::DshRpc => {
                self.rpc_id += 1;
                self.raw(r#"{"method":"initialize","params":{"cwd":"/work/project","provider":"deepseek-official","model":"deepseek-v4-flash"},"id":"#);
                self.num(self.rpc_id);
                self.raw("}");
                self.commit(out)?;
                self.raw(r#"{"jsonrpc":"2.0","id":"#);
                self.num(self.rpc_id);
                self.raw(
                    r#","result":{"protocolVersion":1,"agentInfo":{"name":"deepseek-harness","version":"0.0.1"}}}"#,
                );
                self.commit(out)?;
            }
            Format::DshSession => {
                self.raw(r#"{"type":"session","version":0,"id":"#);
                self.q(&root_id);
                self.raw(r#","createdAt":"#);
                self.num(self.clock);
                self.raw(r#","cwd":"/work/project","delegationDepth":0}"#);
                self.commit(out)?;
            }
            Format::CopilotEvents | Format::CopilotRpc => {
                self.copilot_envelope_start("session.start");
                self.raw(r#"{"sessionId":"#);
                self.q(&root_id);
                self.raw(r#","version":1,"producer":"copilot-agent","copilotVersion":"1.0.83","startTime":""#);
                self.iso(self.clock);
                self.raw(r#""}"#);
                self.copilot_envelope_end(None)?;
                self.commit(out)?;
            }
        }
        loop {
            if self.active.is_empty() {
                if self.over_budget() {
                    break;
                }
                self.root_turn += 1;
                self.stats.root_turns += 1;
                let first = self.root_turn == 1;
                let mut script =
                    if copilot { self.copilot_turn(0, true, true) } else { self.dsh_turn(0, first, true, true) };
                if self.opts.format == Format::DshRpc {
                    script.push_back(Act::RootIdle);
                    self.pending += 1;
                }
                let r = self.root;
                self.ag(r).script = script;
                self.active.push(r);
                self.start_root_turn(out)?;
            }
            let pick = self.rng.below(self.active.len() as u64) as usize;
            let i = self.active[pick];
            let act = self.ag(i).script.pop_front();
            self.pending -= u64::from(act.is_some());
            let Some(act) = act else {
                self.active.swap_remove(pick);
                if i != self.root {
                    self.end_child(i, out)?;
                }
                continue;
            };
            if let Act::Spawn { n } = act {
                self.active.swap_remove(pick);
                self.spawn(i, n, out)?;
                continue;
            }
            self.render(i, act, out)?;
        }
        if copilot {
            self.settle_naive();
        }
        Ok(())
    }

    fn start_root_turn(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let root_id = self.agents[self.root].as_ref().map(|a| a.id.clone()).unwrap_or_default();
        match self.opts.format {
            Format::DshRpc => {
                self.rpc_id += 1;
                self.raw(r#"{"method":"session/prompt","params":{"sessionId":"#);
                self.q(&root_id);
                self.raw(r#","contentBlocks":[{"type":"text","text":"#);
                let toks = self.tokens(8, 30);
                self.write_text(&toks);
                self.raw(r#"}]},"id":"#);
                self.num(self.rpc_id);
                self.raw("}");
                self.commit(out)?;
                self.raw(r#"{"method":"session.status","params":{"sessionId":"#);
                self.q(&root_id);
                self.raw(r#","status":"running"}}"#);
                self.commit(out)
            }
            Format::CopilotRpc => {
                self.rpc_id += 1;
                self.raw(r#"{"jsonrpc":"2.0","id":"#);
                self.num(self.rpc_id);
                self.raw(r#","method":"session.send","params":{"sessionId":"#);
                self.q(&root_id);
                self.raw(r#","prompt":"#);
                let toks = self.tokens(8, 30);
                self.write_text(&toks);
                self.raw("}}");
                self.commit(out)?;
                self.raw(r#"{"jsonrpc":"2.0","id":"#);
                self.num(self.rpc_id);
                self.raw(r#","result":{"messageId":""#);
                let id = self.uuid();
                self.raw(&id);
                self.raw(r#""}}"#);
                self.commit(out)
            }
            _ => Ok(()),
        }
    }

    fn spawn(&mut self, parent: usize, n: u8, out: &mut dyn Write) -> io::Result<()> {
        let (pdepth, pid) = {
            let p = self.ag(parent);
            p.waiting = n as u32;
            p.results = vec![String::new(); n as usize];
            (p.depth, p.id.clone())
        };
        let phantom = self.opts.format == Format::DshSession && self.folder.is_none();
        if phantom || self.over_budget() {
            // The root's own durable log: children write their own files, so all it shows of
            // them is the tool results. Past the size target, children are not started either
            // (their tool calls come back at once), so that the log ends soon after it.
            for k in 0..n as usize {
                let toks = self.tokens(5, 40);
                self.ag(parent).results[k] = Gen::text_of(&toks);
            }
            self.ag(parent).waiting = 0;
            if self.folder.is_none() {
                self.active.push(parent);
            }
            return Ok(());
        }
        let depth = pdepth + 1;
        self.stats.max_depth = self.stats.max_depth.max(depth);
        for k in 0..n {
            let rate = self.opts.fault_rate;
            let rpc = self.opts.format == Format::DshRpc;
            let reuse = rpc && !self.reusable.is_empty() && self.rng.chance(rate);
            let id = if reuse {
                let j = self.rng.below(self.reusable.len() as u64) as usize;
                self.stats.expect("child-id-reused");
                self.reusable.swap_remove(j)
            } else {
                self.new_session_id()
            };
            self.stats.runs += 1;
            let label = WORDS[self.rng.below(WORDS.len() as u64) as usize];
            let tool_call =
                self.agents[parent].as_ref().and_then(|p| p.calls.get(k as usize).cloned()).unwrap_or_default();
            let eldest = k == 0 && self.agents[parent].as_ref().is_some_and(|p| p.eldest);
            let mut script = if self.opts.format.copilot() {
                self.copilot_turn(depth, false, eldest)
            } else {
                self.dsh_turn(depth, true, false, eldest)
            };
            if rpc && !reuse && self.rng.chance(rate) {
                // The child id is started again while its first run is open; that run's
                // `subagent.finished` arrives after the new start edge (SPEC 2.1).
                let partial = [
                    Act::Descriptor,
                    Act::TurnStart,
                    Act::StepStart { step: 1 },
                    Act::ReqHeader,
                    Act::BlockStart { step: 1, index: 0, kind: Blk::Reasoning },
                    Act::Restart,
                ];
                self.stats.turns += 1;
                self.stats.runs += 1;
                self.stats.expect("child-id-reused");
                self.stats.expect("stale-run-settled");
                self.pending += partial.len() as u64;
                for a in partial.into_iter().rev() {
                    script.push_front(a);
                }
            }
            let child = Agent {
                id: id.clone(),
                depth,
                parent: Some(parent),
                script,
                tool_call,
                label,
                eldest,
                ..Agent::default()
            };
            let c = self.add_agent(child);
            if let Some(dir) = self.folder.clone() {
                // Folder mode runs each child to its end, in its own file, before the next.
                self.run_folder_child(c, &pid, &dir)?;
                continue;
            }
            match self.opts.format {
                Format::DshRpc => {
                    self.raw(r#"{"method":"subagent.started","params":{"parentSessionId":"#);
                    self.q(&pid);
                    self.raw(r#","childSessionId":"#);
                    self.q(&id);
                    self.raw("}}");
                    self.commit(out)?;
                    self.active.push(c);
                }
                Format::DshSession => unreachable!("handled above"),
                Format::CopilotEvents | Format::CopilotRpc => {
                    let tc = self.ag(c).tool_call.clone();
                    let is_nested = parent != self.root;
                    self.copilot_envelope_start("subagent.started");
                    self.raw(r#"{"toolCallId":"#);
                    self.q(&tc);
                    self.raw(r#","agentName":"#);
                    self.q(label);
                    self.raw(r#","agentDisplayName":""#);
                    let mut cap = label.to_owned();
                    cap[..1].make_ascii_uppercase();
                    self.raw(&cap);
                    self.raw(r#" agent""#);
                    if is_nested {
                        self.raw(r#","parentId":"#);
                        self.q(&pid);
                    }
                    self.raw("}");
                    self.copilot_envelope_end(Some(&id))?;
                    self.naive_see("subagent.started", true);
                    self.commit(out)?;
                    self.active.push(c);
                }
            }
        }
        Ok(())
    }

    /// A sub-agent's script is done: settle its run and wake its parent when it was the last.
    fn end_child(&mut self, c: usize, out: &mut dyn Write) -> io::Result<()> {
        let a = self.agents[c].take().expect("live agent");
        self.free.push(c);
        let p = a.parent.expect("a child has a parent");
        let pid = self.agents[p].as_ref().map(|p| p.id.clone()).unwrap_or_default();
        match self.opts.format {
            Format::DshRpc => {
                self.raw(r#"{"method":"session.status","params":{"sessionId":"#);
                self.q(&a.id);
                self.raw(r#","status":"idle"}}"#);
                self.commit(out)?;
                self.raw(r#"{"method":"subagent.finished","params":{"provider":"spawn","agentId":"#);
                self.q(&a.id);
                self.raw(r#","parentSessionId":"#);
                self.q(&pid);
                self.raw(r#","childSessionId":"#);
                self.q(&a.id);
                self.raw(r#","status":"ok","stopReason":"completed","lastAssistantMessage":[{"type":"text","text":"#);
                self.q(&a.reply);
                self.raw("}]}}");
                self.commit(out)?;
                if self.reusable.len() < 64 {
                    self.reusable.push(a.id.clone());
                }
            }
            Format::CopilotEvents | Format::CopilotRpc => {
                let kind = if a.failed { "subagent.failed" } else { "subagent.completed" };
                self.copilot_envelope_start(kind);
                self.raw(r#"{"toolCallId":"#);
                self.q(&a.tool_call);
                if a.failed {
                    self.raw(r#","error":"model error: the request was rejected""#);
                }
                self.raw("}");
                self.copilot_envelope_end(Some(&a.id))?;
                self.naive_see(kind, true);
                self.commit(out)?;
                self.last_child = Some(a.id.clone());
            }
            Format::DshSession => {}
        }
        let slot = self.results_slot(p, &a);
        let parent = self.ag(p);
        if let Some(s) = slot {
            parent.results[s] = a.reply;
        }
        parent.waiting = parent.waiting.saturating_sub(1);
        if parent.waiting == 0 && self.folder.is_none() {
            self.active.push(p);
        }
        Ok(())
    }

    fn results_slot(&self, p: usize, a: &Agent) -> Option<usize> {
        let parent = self.agents[p].as_ref()?;
        let i = parent.calls.iter().position(|c| *c == a.tool_call)?;
        (i < parent.results.len()).then_some(i)
    }

    // ---------- dsh-session folders ----------

    fn run_folder(&mut self, dir: &Path) -> io::Result<()> {
        let root_id = self.new_session_id();
        self.root = self.add_agent(Agent { id: root_id.clone(), label: "root", eldest: true, ..Agent::default() });
        let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(dir.join("root.jsonl"))?);
        self.stats.files = 1;
        self.raw(r#"{"type":"session","version":0,"id":"#);
        self.q(&root_id);
        self.raw(r#","createdAt":"#);
        self.num(self.clock);
        self.raw(r#","cwd":"/work/project","delegationDepth":0}"#);
        self.commit(&mut w)?;
        while !self.over_budget() {
            self.root_turn += 1;
            self.stats.root_turns += 1;
            let first = self.root_turn == 1;
            let script = self.dsh_turn(0, first, true, true);
            let r = self.root;
            self.ag(r).script = script;
            self.drain(r, &mut w)?;
        }
        w.flush()
    }

    /// Folder mode: run an agent's script to its end (children included, depth first).
    fn drain(&mut self, i: usize, w: &mut dyn Write) -> io::Result<()> {
        while let Some(act) = self.ag(i).script.pop_front() {
            self.pending -= 1;
            match act {
                Act::Spawn { n } => self.spawn(i, n, w)?,
                _ => self.render(i, act, w)?,
            }
        }
        Ok(())
    }

    fn run_folder_child(&mut self, c: usize, pid: &str, dir: &Path) -> io::Result<()> {
        let (id, depth) = {
            let a = self.ag(c);
            (a.id.clone(), a.depth)
        };
        let mut w = BufWriter::with_capacity(1 << 16, std::fs::File::create(dir.join(format!("{id}.jsonl")))?);
        self.stats.files += 1;
        self.raw(r#"{"type":"session","version":0,"id":"#);
        self.q(&id);
        self.raw(r#","createdAt":"#);
        self.num(self.clock);
        self.raw(r#","parentSession":"#);
        self.q(pid);
        self.raw(r#","origin":"subagent","delegationDepth":"#);
        self.num(depth as u64);
        self.raw("}");
        self.commit(&mut w)?;
        self.drain(c, &mut w)?;
        w.flush()?;
        self.end_child(c, &mut w)
    }

    // ---------- rendering ----------

    fn render(&mut self, i: usize, act: Act, out: &mut dyn Write) -> io::Result<()> {
        match act {
            Act::CUser
            | Act::CTurnStart
            | Act::CTurnEnd
            | Act::CMsg { .. }
            | Act::CToolStart { .. }
            | Act::CToolDone { .. }
            | Act::CChildIdle
            | Act::CChildError
            | Act::CTrailing => self.render_copilot(i, act, out),
            Act::RootIdle if self.opts.format.copilot() => self.render_copilot(i, act, out),
            _ => self.render_dsh(i, act, out),
        }
    }

    /// The call id `k` of the agent's current step, made on first use.
    fn call(&mut self, i: usize, k: usize) -> String {
        while self.ag(i).calls.len() <= k {
            let id = self.call_id();
            self.ag(i).calls.push(id);
        }
        self.ag(i).calls[k].clone()
    }

    /// `{"type":KIND,"seq":N,"time":T,"data":{` with the dsh-rpc wrapper in front when recording.
    fn dsh_open(&mut self, i: usize, kind: &str, count: u64, dup_seq: bool) {
        let time = self.tick();
        let rpc = self.opts.format == Format::DshRpc;
        let a = self.agents[i].as_mut().expect("live agent");
        let seq = if dup_seq { a.seq.saturating_sub(1) } else { a.seq };
        if !dup_seq {
            a.seq += count;
        }
        let b = &mut self.buf;
        if rpc {
            b.extend_from_slice(br#"{"method":"session.event","params":{"sessionId":""#);
            b.extend_from_slice(a.id.as_bytes());
            b.extend_from_slice(br#"","event":"#);
        }
        b.extend_from_slice(br#"{"type":""#);
        b.extend_from_slice(kind.as_bytes());
        let packed = kind.ends_with("-chunks");
        b.extend_from_slice(if packed { br#"","seq0":"# } else { br#"","seq":"# });
        let mut n = itoa::Buffer::new();
        b.extend_from_slice(n.format(seq).as_bytes());
        b.extend_from_slice(if packed { br#","time0":"# } else { br#","time":"# });
        b.extend_from_slice(n.format(time).as_bytes());
        b.extend_from_slice(br#","data":{"#);
    }

    fn dsh_close(&mut self, suffix: &str) {
        self.raw("}");
        self.raw(suffix);
        self.raw("}");
        if self.opts.format == Format::DshRpc {
            self.raw("}}");
        }
    }

    fn turn_step(&mut self, i: usize, step: u32) {
        let t = self.ag(i).turn as u64;
        self.raw(r#""turn":"#);
        self.num(t);
        self.raw(r#","step":"#);
        self.num(step as u64);
    }

    fn words(&mut self, lo: u64, hi: u64) {
        let n = self.rng.range(lo, hi);
        for k in 0..n {
            if k > 0 {
                self.buf.push(b' ');
            }
            let w = WORDS[self.rng.below(WORDS.len() as u64) as usize];
            self.raw(w);
        }
    }

    fn render_dsh(&mut self, i: usize, act: Act, out: &mut dyn Write) -> io::Result<()> {
        match act {
            Act::Descriptor => {
                self.dsh_open(i, "subagent/descriptor", 1, false);
                let label = self.ag(i).label;
                self.raw(r#""version":2,"mode":"one-shot","provider":"spawn","label":"#);
                self.q(label);
                self.dsh_close("");
            }
            Act::Title => {
                self.dsh_open(i, "session/title", 1, false);
                self.raw(r#""title":""#);
                self.words(3, 6);
                self.raw(r#"","messageSeqs":[4],"source":{"kind":"fallback"}"#);
                self.dsh_close("");
            }
            Act::Spliced => {
                self.dsh_open(i, "agent/inbox/spliced", 1, false);
                self.raw(r#""target":"next-turn","start":0,"removedCount":0,"inserted":[]"#);
                self.dsh_close("");
            }
            Act::UserMsg => {
                self.dsh_open(i, "user/message", 1, false);
                self.raw(r#""content":[{"type":"text","text":"#);
                let toks = self.tokens(10, 60);
                self.write_text(&toks);
                self.raw(r#"}],"source":{"kind":"user"},"role":"user","id":""#);
                let id = self.uuid();
                self.raw(&id);
                self.raw(r#"""#);
                self.dsh_close(r#","surfaceOp":"append""#);
            }
            Act::TurnStart => {
                self.ag(i).turn += 1;
                self.dsh_open(i, "turn/start", 1, false);
                let t = self.ag(i).turn as u64;
                self.raw(r#""turn":"#);
                self.num(t);
                self.dsh_close("");
            }
            Act::TurnEnd => {
                self.dsh_open(i, "turn/end", 1, false);
                let t = self.ag(i).turn as u64;
                self.raw(r#""turn":"#);
                self.num(t);
                self.raw(r#","reason":{"kind":"completed"}"#);
                self.dsh_close("");
            }
            Act::StepStart { step } => {
                self.ag(i).calls.clear();
                self.dsh_open(i, "step/start", 1, false);
                self.turn_step(i, step);
                self.dsh_close("");
            }
            Act::StepEnd { named, dup_seq, .. } => {
                self.dsh_open(i, "step/end", 1, dup_seq);
                self.turn_step(i, named);
                self.dsh_close("");
            }
            Act::ReqHeader => {
                self.dsh_open(i, "request/header", 1, false);
                self.raw(r#""header":{"config":{"provider":"deepseek-official","model":"deepseek-v4-flash","maxTokens":8192},"system":"You are a careful coding agent working in /work/project.","tools":["bash","read","write","subagent"]},"reason":"initial""#);
                self.dsh_close("");
            }
            Act::BlockStart { step, index, kind } => {
                self.dsh_open(i, "assistant/chunk", 1, false);
                self.turn_step(i, step);
                self.raw(r#","chunk":{"type":"block-start","index":"#);
                self.num(index as u64);
                self.raw(r#","blockType":"#);
                self.q(kind.block_type());
                self.raw("}");
                self.dsh_close("");
            }
            Act::Packed { step, index, kind } => {
                let toks = match kind {
                    Blk::Reasoning => self.tokens(10, 90),
                    Blk::Text => self.tokens(5, 70),
                    Blk::ToolCall => Vec::new(),
                };
                let args: Vec<&'static str> = if kind == Blk::ToolCall {
                    let mut v = vec!["", "{", "\\\"", "prompt", "\\\"", ": ", "\\\""];
                    for _ in 0..self.rng.range(2, 10) {
                        v.push(WORDS[self.rng.below(WORDS.len() as u64) as usize]);
                        v.push(" ");
                    }
                    v.push("\\\"}");
                    v
                } else {
                    Vec::new()
                };
                let count = if kind == Blk::ToolCall { args.len() } else { toks.len() } as u64;
                let type_ = match kind {
                    Blk::Reasoning => "reasoning-chunks",
                    Blk::Text => "text-chunks",
                    Blk::ToolCall => "tool-call-chunks",
                };
                self.dsh_open(i, type_, count.max(1), false);
                self.turn_step(i, step);
                self.raw(r#","index":"#);
                self.num(index as u64);
                self.raw(r#","dt":["#);
                for k in 0..count.max(1) {
                    if k > 0 {
                        self.buf.push(b',');
                    }
                    let dt = if self.rng.chance(0.4) { self.rng.range(20, 35) } else { self.rng.below(2) };
                    self.num(dt);
                }
                self.raw("],");
                if kind == Blk::ToolCall {
                    let id = self.call(i, 0);
                    self.raw(r#""id":"#);
                    self.q(&id);
                    self.raw(r#","name":"subagent","args":["#);
                    for (k, a) in args.iter().enumerate() {
                        if k > 0 {
                            self.buf.push(b',');
                        }
                        self.q(a);
                    }
                    self.raw("]");
                } else {
                    self.raw(r#""texts":["#);
                    for (k, &t) in toks.iter().enumerate() {
                        if k > 0 {
                            self.buf.push(b',');
                        }
                        self.q(TOKENS[t as usize]);
                    }
                    self.raw("]");
                    *self.tokens_of(i, kind) = toks;
                }
                self.dsh_close("");
            }
            Act::BlockEnd { step, index, kind } => {
                self.dsh_open(i, "assistant/chunk", 1, false);
                self.turn_step(i, step);
                self.raw(r#","chunk":{"type":"block-end","index":"#);
                self.num(index as u64);
                self.raw(r#","block":{"type":"#);
                self.q(kind.block_type());
                match kind {
                    Blk::ToolCall => {
                        let id = self.call(i, 0);
                        self.raw(r#","id":"#);
                        self.q(&id);
                        self.raw(r#","name":"subagent","arguments":"{\"prompt\": \""#);
                        self.words(2, 10);
                        self.raw(r#"\"}""#);
                    }
                    _ => {
                        let toks = std::mem::take(self.tokens_of(i, kind));
                        self.raw(r#","text":"#);
                        self.write_text(&toks);
                        *self.tokens_of(i, kind) = toks;
                    }
                }
                self.raw("}}");
                self.dsh_close("");
            }
            Act::Usage { step } => {
                self.dsh_open(i, "assistant/chunk", 1, false);
                self.turn_step(i, step);
                self.raw(r#","chunk":{"type":"usage","usage":{"inputTokens":"#);
                let n = self.rng.range(1000, 90000);
                self.num(n);
                self.raw(r#","outputTokens":"#);
                let n = self.rng.range(10, 900);
                self.num(n);
                self.raw(r#","cacheReadTokens":0,"reasoningTokens":"#);
                let n = self.rng.range(10, 300);
                self.num(n);
                self.raw("}}");
                self.dsh_close("");
            }
            Act::Finish { step, tools } => {
                self.dsh_open(i, "assistant/chunk", 1, false);
                self.turn_step(i, step);
                self.raw(r#","chunk":{"type":"finish","reason":{"kind":"#);
                self.q(if tools { "tool-calls" } else { "stop" });
                self.raw("}}");
                self.dsh_close("");
            }
            Act::AsstMsg { step, calls, text } => {
                self.dsh_open(i, "assistant/message", 1, false);
                self.turn_step(i, step);
                self.raw(r#","message":{"role":"assistant","content":[{"type":"reasoning","text":"#);
                let r = std::mem::take(&mut self.ag(i).reasoning);
                self.write_text(&r);
                self.raw("}");
                for k in 0..calls as usize {
                    let id = self.call(i, k);
                    self.raw(r#",{"type":"tool-call","id":"#);
                    self.q(&id);
                    self.raw(r#","name":"subagent","arguments":"{\"prompt\": \""#);
                    self.words(2, 10);
                    self.raw(r#"\"}"}"#);
                }
                if text {
                    let t = std::mem::take(&mut self.ag(i).text);
                    self.raw(r#",{"type":"text","text":"#);
                    self.write_text(&t);
                    self.raw("}");
                    self.ag(i).reply = Gen::text_of(&t);
                }
                self.raw(r#"],"source":{"kind":"model","provider":"deepseek-official","model":"deepseek-v4-flash"}}"#);
                self.dsh_close("");
            }
            Act::ToolCall { step, i: k, spawn } => {
                let id = self.call(i, k as usize);
                self.dsh_open(i, "tool/call", 1, false);
                self.turn_step(i, step);
                self.raw(r#","callId":"#);
                self.q(&id);
                if spawn {
                    self.raw(r#","name":"subagent","arguments":"{\"description\": \""#);
                    self.words(2, 4);
                    self.raw(r#"\", \"prompt\": \""#);
                    self.words(5, 20);
                    self.raw(r#"\", \"run_in_background\": false}""#);
                } else {
                    self.raw(r#","name":"bash","arguments":"{\"command\": \"cargo test -p "#);
                    self.words(1, 1);
                    self.raw(r#"\"}""#);
                }
                self.dsh_close("");
            }
            Act::ToolResult { step, i: k } => {
                let id = self.call(i, k as usize);
                let result = self.ag(i).results.get(k as usize).cloned().unwrap_or_default();
                self.dsh_open(i, "tool/result", 1, false);
                self.turn_step(i, step);
                self.raw(r#","message":{"source":{"kind":"tool","callId":"#);
                self.q(&id);
                self.raw(r#"},"content":[{"type":"tool-result","toolCallId":"#);
                self.q(&id);
                self.raw(r#","content":[{"type":"text","text":"#);
                if result.is_empty() {
                    let toks = self.tokens(5, 120);
                    self.write_text(&toks);
                } else {
                    self.q(&result);
                }
                self.raw(r#"}],"isError":false}],"role":"user","id":""#);
                let u = self.uuid();
                self.raw(&u);
                self.raw(r#""}"#);
                self.dsh_close(r#","sourceEventSeqs":[99],"surfaceOp":"append""#);
            }
            Act::Ignorable => {
                self.dsh_open(i, "provider/latency-sample", 1, false);
                self.raw(r#""latencyMs":"#);
                let n = self.rng.range(30, 3000);
                self.num(n);
                self.dsh_close(r#","ignorable":true"#);
            }
            Act::Unknown => {
                self.dsh_open(i, "vendor/trace-span", 1, false);
                self.raw(r#""span":""#);
                self.hex(self.rng.0, 16);
                self.raw(r#"""#);
                self.dsh_close("");
            }
            Act::Mirror { step } => {
                self.dsh_open(i, "agent/step-start", 1, false);
                self.turn_step(i, step);
                self.dsh_close("");
            }
            Act::OrphanResult { step } => {
                self.dsh_open(i, "tool/result", 1, false);
                self.turn_step(i, step);
                self.raw(r#","message":{"source":{"kind":"tool","callId":"call_missing_"#);
                self.hex(self.rng.0, 12);
                self.raw(r#""},"content":[{"type":"text","text":"late result"}],"role":"user"}"#);
                self.dsh_close("");
            }
            Act::Restart => {
                let (id, p) = {
                    let a = self.ag(i);
                    (a.id.clone(), a.parent.expect("a child"))
                };
                let pid = self.ag(p).id.clone();
                self.raw(r#"{"method":"subagent.started","params":{"parentSessionId":"#);
                self.q(&pid);
                self.raw(r#","childSessionId":"#);
                self.q(&id);
                self.raw("}}");
                self.commit(out)?;
                self.raw(r#"{"method":"subagent.finished","params":{"provider":"spawn","agentId":"#);
                self.q(&id);
                self.raw(r#","parentSessionId":"#);
                self.q(&pid);
                self.raw(r#","childSessionId":"#);
                self.q(&id);
                self.raw(r#","status":"error","stopReason":"aborted"}}"#);
                let a = self.ag(i);
                a.seq = 0;
                a.turn = 0;
            }
            Act::RootIdle => {
                let id = self.ag(i).id.clone();
                self.raw(r#"{"method":"session.status","params":{"sessionId":"#);
                self.q(&id);
                self.raw(r#","status":"idle"}}"#);
            }
            _ => unreachable!("a Copilot act in a dsh log"),
        }
        self.commit(out)
    }

    // ---------- Copilot ----------

    /// `{"type":KIND,"data":` with the copilot-rpc wrapper in front when recording.
    fn copilot_envelope_start(&mut self, kind: &str) {
        if self.opts.format == Format::CopilotRpc {
            self.raw(r#"{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":""#);
            let a = self.agents[self.root].as_ref().expect("root");
            self.buf.extend_from_slice(a.id.as_bytes());
            self.raw(r#"","event":"#);
        }
        self.raw(r#"{"type":"#);
        self.q(kind);
        self.raw(r#","data":"#);
    }

    fn copilot_envelope_end(&mut self, agent: Option<&str>) -> io::Result<()> {
        let id = self.uuid();
        self.raw(r#","id":"#);
        self.q(&id);
        self.raw(r#","timestamp":""#);
        let t = self.tick();
        self.iso(t);
        self.raw(r#"","parentId":"#);
        if self.prev_event.is_empty() {
            self.raw("null");
        } else {
            let prev = std::mem::take(&mut self.prev_event);
            self.q(&prev);
        }
        self.prev_event = id;
        if let Some(a) = agent {
            self.raw(r#","agentId":"#);
            self.q(a);
        }
        self.raw("}");
        if self.opts.format == Format::CopilotRpc {
            self.raw("}}");
        }
        Ok(())
    }

    /// An ISO 8601 UTC timestamp with milliseconds, from epoch milliseconds.
    fn iso(&mut self, ms: u64) {
        let secs = ms / 1000;
        let days = (secs / 86_400) as i64;
        let sod = secs % 86_400;
        let (y, m, d) = civil_from_days(days);
        let two = |b: &mut Vec<u8>, v: u64| {
            b.push(b'0' + (v / 10) as u8);
            b.push(b'0' + (v % 10) as u8);
        };
        self.num(y as u64);
        self.buf.push(b'-');
        two(&mut self.buf, m as u64);
        self.buf.push(b'-');
        two(&mut self.buf, d as u64);
        self.buf.push(b'T');
        two(&mut self.buf, sod / 3600);
        self.buf.push(b':');
        two(&mut self.buf, sod / 60 % 60);
        self.buf.push(b':');
        two(&mut self.buf, sod % 60);
        self.buf.push(b'.');
        let f = ms % 1000;
        self.buf.push(b'0' + (f / 100) as u8);
        two(&mut self.buf, f % 100);
        self.buf.push(b'Z');
    }

    fn naive_see(&mut self, kind: &str, from_sub: bool) {
        let n = &mut self.naive;
        if !n.open || n.done {
            return;
        }
        match kind {
            "assistant.message" => n.reply_from_sub = Some(from_sub),
            "session.idle" => {
                n.done = true;
                n.idle = true;
            }
            "session.error" => {
                n.done = true;
                n.idle = false;
                n.reply_from_sub = None;
            }
            _ => {}
        }
    }

    /// The end of a wait: the naive waiter ends `idle`, or `inferred` in a log without idle.
    fn settle_naive(&mut self) {
        let n = std::mem::take(&mut self.naive);
        if !n.open {
            return;
        }
        let has_idle = self.opts.format == Format::CopilotRpc;
        let ends_with_reply = if n.done { n.idle } else { !has_idle };
        if ends_with_reply && n.reply_from_sub == Some(true) {
            self.stats.expect("child-reply-would-replace-root-reply");
        }
    }

    fn render_copilot(&mut self, i: usize, act: Act, out: &mut dyn Write) -> io::Result<()> {
        let is_root = i == self.root;
        let agent = if is_root { None } else { Some(self.ag(i).id.clone()) };
        let agent = agent.as_deref();
        match act {
            Act::CUser => {
                self.settle_naive();
                self.naive.open = true;
                self.last_child = None;
                self.copilot_envelope_start("user.message");
                self.raw(r#"{"content":"#);
                let toks = self.tokens(8, 60);
                self.write_text(&toks);
                self.raw(r#","attachments":[]}"#);
                self.copilot_envelope_end(agent)?;
            }
            Act::CTurnStart | Act::CTurnEnd => {
                let a = self.ag(i);
                if act == Act::CTurnStart {
                    a.turn_ids += 1;
                    a.calls.clear();
                }
                let t = a.turn_ids - 1;
                let kind = if act == Act::CTurnStart { "assistant.turn_start" } else { "assistant.turn_end" };
                self.copilot_envelope_start(kind);
                self.raw(r#"{"turnId":""#);
                self.num(t as u64);
                self.raw(r#""}"#);
                self.copilot_envelope_end(agent)?;
            }
            Act::CMsg { last } => {
                self.copilot_envelope_start("assistant.message");
                self.raw(r#"{"messageId":""#);
                let id = self.uuid();
                self.raw(&id);
                self.raw(r#"","content":"#);
                let toks = self.tokens(5, 90);
                self.write_text(&toks);
                self.raw(r#","toolRequests":[]}"#);
                self.copilot_envelope_end(agent)?;
                if last {
                    self.ag(i).reply = Gen::text_of(&toks);
                }
                self.naive_see("assistant.message", !is_root);
            }
            Act::CToolStart { i: k, task } => {
                let id = self.call(i, k as usize);
                self.copilot_envelope_start("tool.execution_start");
                self.raw(r#"{"toolCallId":"#);
                self.q(&id);
                if task {
                    self.raw(r#","toolName":"task","arguments":{"description":""#);
                    self.words(2, 4);
                    self.raw(r#"","prompt":""#);
                    self.words(5, 25);
                    self.raw(r#"","subagent_type":"general-purpose"}}"#);
                } else {
                    self.raw(r#","toolName":"bash","arguments":{"command":"cargo test -p "#);
                    self.words(1, 1);
                    self.raw(r#""}}"#);
                }
                self.copilot_envelope_end(agent)?;
            }
            Act::CToolDone { i: k } => {
                let id = self.call(i, k as usize);
                let result = self.ag(i).results.get(k as usize).cloned().unwrap_or_default();
                self.copilot_envelope_start("tool.execution_complete");
                self.raw(r#"{"toolCallId":"#);
                self.q(&id);
                self.raw(r#","success":true,"result":{"content":"#);
                if result.is_empty() {
                    let toks = self.tokens(5, 120);
                    self.write_text(&toks);
                } else {
                    self.q(&result);
                }
                self.raw("}}");
                self.copilot_envelope_end(agent)?;
            }
            Act::CChildIdle => {
                self.copilot_envelope_start("session.idle");
                self.raw("{}");
                self.copilot_envelope_end(agent)?;
                self.stats.expect("child-idle-would-resolve-wait");
                self.naive_see("session.idle", true);
            }
            Act::CChildError => {
                self.copilot_envelope_start("session.error");
                self.raw(r#"{"errorType":"model","message":"the model request failed: 503 upstream overloaded"}"#);
                self.copilot_envelope_end(agent)?;
                self.ag(i).failed = true;
                self.stats.expect("child-error-would-fail-wait");
                self.naive_see("session.error", true);
            }
            Act::CTrailing => {
                let Some(child) = self.last_child.clone() else { return Ok(()) };
                self.copilot_envelope_start("assistant.message");
                self.raw(r#"{"messageId":""#);
                let id = self.uuid();
                self.raw(&id);
                self.raw(r#"","content":"#);
                let toks = self.tokens(5, 40);
                self.write_text(&toks);
                self.raw(r#","toolRequests":[]}"#);
                self.copilot_envelope_end(Some(&child))?;
                self.naive_see("assistant.message", true);
            }
            Act::RootIdle => {
                self.copilot_envelope_start("session.idle");
                self.raw("{}");
                self.copilot_envelope_end(None)?;
                self.naive_see("session.idle", false);
            }
            _ => unreachable!("a dsh act in a Copilot log"),
        }
        self.commit(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_binary_units() {
        assert_eq!(parse_size("1G"), Some(1 << 30));
        assert_eq!(parse_size("100M"), Some(100 << 20));
        assert_eq!(parse_size("20MB"), Some(20 << 20));
        assert_eq!(parse_size("1.5k"), Some(1536));
        assert_eq!(parse_size("512KiB"), Some(512 << 10));
        assert_eq!(parse_size("12345"), Some(12345));
        assert_eq!(parse_size("lots"), None);
    }

    #[test]
    fn timestamps_are_iso_8601_utc() {
        let mut g = Gen::new(&GenOptions::default());
        g.iso(1_785_097_410_290);
        assert_eq!(std::str::from_utf8(&g.buf).unwrap(), "2026-07-26T20:23:30.290Z");
        g.buf.clear();
        g.iso(951_782_400_007); // a leap day
        assert_eq!(std::str::from_utf8(&g.buf).unwrap(), "2000-02-29T00:00:00.007Z");
    }

    #[test]
    fn every_line_is_one_json_object() {
        for format in Format::ALL {
            let opts = GenOptions { format, target_bytes: 200 << 10, depth: 3, fanout: 3, ..GenOptions::default() };
            let mut out = Vec::new();
            let stats = generate(&opts, &mut out).unwrap();
            let mut n = 0;
            for line in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                let v: serde_json::Value = serde_json::from_slice(line).unwrap();
                assert!(v.is_object());
                n += 1;
            }
            assert_eq!(n, stats.lines);
        }
    }
}
