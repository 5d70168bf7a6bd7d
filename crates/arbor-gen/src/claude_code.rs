//! Claude Code project folders (SPEC 2.4), as `arbor-gen --format claude-code -o DIR` writes them:
//! one `<sessionId>.jsonl` per session, and each session's sub-agents in one of three layouts:
//! `<sessionId>/subagents/agent-<id>.jsonl` with `agent-<id>.meta.json` sidecars, flat at every
//! depth (2.1, `claude-code`); `agent-<id>.jsonl` beside the sessions (2.0, `claude-code-flat`);
//! or inline sidechains of the session file (1.0, `claude-code-inline`).
//!
//! Sessions run turns (a prompt, then API messages split one content block a line, each line
//! repeating a growing usage snapshot, and tool results); a turn may spawn sub-agents (`Agent`
//! calls, up to `fanout` a message, nested up to `depth`), now and then in the background (an
//! `async_launched` result, then the `<task-notification>` with its queue-operation and
//! attachment copies). Sessions are compacted now and then (a `compact_boundary`, its summary,
//! and in 2.1 the compaction agent's transcript), some are resumed (a new file replaying the
//! previous session's lines) and some children are forks (their file starts with `forkedFrom`
//! copies). Faults are injected at `fault_rate` and counted, so `ClaudeStats` says what the
//! engine must report: a line cut in two, a cut final line, a dangling `parentUuid`, a missing
//! transcript, a child nothing links, swapped `toolUseResult.agentId`s, a relayed reply that
//! differs from the child's. Its expectations come from the spec, never from the engine.

use super::{GenOptions, GenStats, Rng, TOKENS};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where a project's sub-agent transcripts are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// 2.1: `<sessionId>/subagents/agent-<id>.jsonl` and `agent-<id>.meta.json`.
    Subagents,
    /// 2.0: `agent-<id>.jsonl` beside the session files.
    Flat,
    /// 1.0: `isSidechain` lines inside the session file.
    Inline,
}

impl Layout {
    pub const ALL: [Layout; 3] = [Layout::Subagents, Layout::Flat, Layout::Inline];

    pub fn id(self) -> &'static str {
        match self {
            Layout::Subagents => "claude-code",
            Layout::Flat => "claude-code-flat",
            Layout::Inline => "claude-code-inline",
        }
    }

    pub fn from_id(s: &str) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.id() == s)
    }

    fn version(self) -> &'static str {
        match self {
            Layout::Subagents => "2.1.228",
            Layout::Flat => "2.0.52",
            Layout::Inline => "1.0.98",
        }
    }
}

/// What was written, and what the engine should find in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaudeStats {
    /// Lines, records, files, sessions (roots and sub-agents), runs (one per sub-agent), turns
    /// (prompts), the deepest sub-agent, and the findings, over the whole folder.
    pub gen: GenStats,
    /// Output tokens, each API message counted once.
    pub output_tokens: u64,
    /// Runs by how their parent is established (`runs[].link`).
    pub links: BTreeMap<&'static str, u64>,
    pub compactions: u64,
    pub background: u64,
    pub resumed: u64,
    pub forks: u64,
}

/// Write a Claude Code project folder of about `opts.target_bytes` to `dir`.
pub fn generate_project(opts: &GenOptions, layout: Layout, dir: &Path) -> io::Result<ClaudeStats> {
    std::fs::create_dir_all(dir)?;
    let mut g = G::new(opts, layout, dir);
    let mut previous: Option<(Vec<Value>, String)> = None;
    let mut first = true;
    while first || !g.over_budget() {
        let resume = previous.take().filter(|_| !first && g.rng.chance(0.3));
        previous = Some(g.session(resume, first)?);
        first = false;
    }
    let mut s = g.stats;
    s.gen.records = s.gen.lines - s.gen.malformed;
    s.gen.findings.retain(|_, n| *n > 0);
    Ok(s)
}

/// Write one root session of `turns` turns to `dir` (a transcript of a known length, whatever
/// its size: `opts.target_bytes` is not looked at; `opts.depth` 0 for a session with no
/// sub-agents).
pub fn generate_session(opts: &GenOptions, layout: Layout, dir: &Path, turns: u64) -> io::Result<ClaudeStats> {
    std::fs::create_dir_all(dir)?;
    let mut g = G::new(opts, layout, dir);
    g.turns = Some(turns);
    g.session(None, false)?;
    let mut s = g.stats;
    s.gen.records = s.gen.lines - s.gen.malformed;
    s.gen.findings.retain(|_, n| *n > 0);
    Ok(s)
}

impl ClaudeStats {
    /// As one JSON object (what `arbor-gen` prints on stderr).
    pub fn to_json(&self, opts: &GenOptions, layout: Layout) -> Value {
        let s = &self.gen;
        let map = |m: &BTreeMap<&'static str, u64>| -> serde_json::Map<String, Value> {
            m.iter().map(|(k, v)| (k.to_string(), (*v).into())).collect()
        };
        json!({
            "format": layout.id(), "seed": opts.seed, "bytes": s.bytes, "lines": s.lines, "records": s.records,
            "malformed": s.malformed, "files": s.files, "sessions": s.sessions, "runs": s.runs, "root_turns": 0,
            "turns": s.turns, "max_depth": s.max_depth, "findings": map(&s.findings), "links": map(&self.links),
            "output_tokens": self.output_tokens, "compactions": self.compactions, "background": self.background,
            "resumed": self.resumed, "forks": self.forks,
        })
    }
}

/// One file being written.
struct Out {
    w: BufWriter<std::fs::File>,
    /// Lines written as records, kept for a later resumption (a session file only).
    keep: Option<Vec<Value>>,
    dangling: bool,
}

/// Who writes the lines of a transcript.
#[derive(Clone)]
struct Who {
    /// The root session's id (every line's `sessionId`).
    sid: String,
    /// The sub-agent's id (`agentId` on its lines), for a sub-agent with a file of its own.
    agent: Option<String>,
    /// A sub-agent (its lines are a sidechain's).
    side: bool,
    depth: u32,
    /// The file it writes to (index into `G::outs`).
    out: usize,
    /// Its chain, among those of its file (the root's is "").
    chain: String,
    /// Spawns nothing.
    leaf: bool,
}

/// What a sub-agent gave its parent.
struct Child {
    id: Option<String>,
    reply: String,
}

struct G {
    opts: GenOptions,
    layout: Layout,
    rng: Rng,
    stats: ClaudeStats,
    dir: PathBuf,
    /// Milliseconds since the epoch of the next line.
    clock: u64,
    words: Vec<String>,
    /// Files being written; `None` once closed.
    outs: Vec<Option<Out>>,
    /// The uuid of the line each transcript wrote last (its chain's tip), by file and agent.
    tips: BTreeMap<(usize, String), String>,
    /// The first root turn delegates along its eldest path to the full depth.
    eldest: bool,
    /// A root session's turns, when asked for (`generate_session`), else drawn.
    turns: Option<u64>,
}

impl G {
    fn new(opts: &GenOptions, layout: Layout, dir: &Path) -> G {
        let mut opts = opts.clone();
        opts.fanout = opts.fanout.clamp(1, 16);
        opts.fault_rate = opts.fault_rate.clamp(0.0, 1.0);
        let words =
            TOKENS.iter().map(|t| serde_json::from_str::<String>(&format!("\"{t}\"")).unwrap_or_default()).collect();
        G {
            rng: Rng(opts.seed ^ 0xC1A0_DE00_5EED),
            opts,
            layout,
            stats: ClaudeStats::default(),
            dir: dir.to_path_buf(),
            clock: 1_790_848_805_000,
            words,
            outs: Vec::new(),
            tips: BTreeMap::new(),
            turns: None,
            eldest: true,
        }
    }

    fn out(&mut self, i: usize) -> &mut Out {
        self.outs[i].as_mut().expect("a file still being written")
    }

    /// Flush and close a file; the lines it kept.
    fn close(&mut self, i: usize) -> io::Result<Option<Vec<Value>>> {
        match self.outs[i].take() {
            Some(mut o) => {
                o.w.flush()?;
                Ok(o.keep)
            }
            None => Ok(None),
        }
    }

    fn over_budget(&self) -> bool {
        self.stats.gen.bytes >= self.opts.target_bytes
    }

    fn fault(&mut self) -> bool {
        self.rng.chance(self.opts.fault_rate)
    }

    fn uuid(&mut self) -> String {
        let (a, b) = (self.rng.next(), self.rng.next());
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff
        )
    }

    fn hex_id(&mut self, n: usize) -> String {
        let v = self.rng.next();
        let s = format!("{v:016x}{:016x}", self.rng.next());
        s[..n].to_owned()
    }

    fn words(&mut self, lo: u64, hi: u64) -> String {
        let n = self.rng.range(lo, hi);
        let mut s = String::new();
        for _ in 0..n {
            let w = self.rng.below(self.words.len() as u64) as usize;
            s.push_str(&self.words[w]);
        }
        let t = s.trim();
        if t.is_empty() {
            "ok".to_owned()
        } else {
            t.to_owned()
        }
    }

    fn time(&mut self) -> String {
        self.clock += self.rng.range(20, 4000);
        let ms = self.clock;
        let (secs, milli) = (ms / 1000, ms % 1000);
        let days = secs / 86_400;
        let rem = secs % 86_400;
        // Civil date from days since the epoch (Howard Hinnant's algorithm).
        let z = days as i64 + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + i64::from(m <= 2);
        format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{milli:03}Z", rem / 3600, rem / 60 % 60, rem % 60)
    }

    fn open(&mut self, rel: &str, keep: bool) -> io::Result<usize> {
        let path = self.dir.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p)?;
        }
        let w = BufWriter::with_capacity(1 << 16, std::fs::File::create(path)?);
        self.outs.push(Some(Out { w, keep: keep.then(Vec::new), dangling: false }));
        self.stats.gen.files += 1;
        Ok(self.outs.len() - 1)
    }

    /// Write a record, and now and then a copy of it cut in two (a malformed line) after it.
    fn put(&mut self, out: usize, v: Value) -> io::Result<()> {
        let mut bytes = serde_json::to_vec(&v).map_err(io::Error::other)?;
        bytes.push(b'\n');
        let o = self.out(out);
        o.w.write_all(&bytes)?;
        if let Some(k) = &mut o.keep {
            k.push(v);
        }
        self.stats.gen.bytes += bytes.len() as u64;
        self.stats.gen.lines += 1;
        if self.rng.chance(self.opts.fault_rate / 10.0) {
            let cut = bytes.len() / 2;
            let o = self.out(out);
            o.w.write_all(&bytes[..cut])?;
            o.w.write_all(b"\n")?;
            self.stats.gen.bytes += cut as u64 + 1;
            self.stats.gen.lines += 1;
            self.stats.gen.malformed += 1;
            self.stats.gen.expect("malformed-line");
        }
        Ok(())
    }

    /// The common fields of a transcript line by `who`, chained after its last line (or
    /// starting a chain).
    fn line(&mut self, who: &Who, kind: &str, start: bool) -> (Value, String) {
        let uuid = self.uuid();
        let key = (who.out, who.chain.clone());
        let parent = if start { None } else { self.tips.get(&key).cloned() };
        self.tips.insert(key, uuid.clone());
        let mut v = json!({
            "parentUuid": parent, "isSidechain": who.side, "userType": "external", "cwd": "/home/dev/project",
            "sessionId": who.sid, "version": self.layout.version(), "gitBranch": "main", "type": kind,
            "uuid": uuid, "timestamp": self.time(),
        });
        if let Some(a) = &who.agent {
            v["agentId"] = json!(a);
        }
        (v, uuid)
    }

    fn user(&mut self, who: &Who, content: Value, start: bool) -> Value {
        let (mut v, _) = self.line(who, "user", start);
        v["message"] = json!({"role": "user", "content": content});
        v
    }

    /// One API message, one content block a line, each line with the usage so far.
    fn message(&mut self, who: &Who, blocks: Vec<Value>, stop: &str) -> io::Result<()> {
        let id = format!("msg_01{}", self.hex_id(22));
        let req = format!("req_011{}", self.hex_id(21));
        let input = self.rng.range(3, 40);
        let cache = self.rng.range(0, 30_000);
        let n = blocks.len();
        let mut output = 0;
        for (i, b) in blocks.into_iter().enumerate() {
            output += self.rng.range(1, 400);
            let (mut v, _) = self.line(who, "assistant", false);
            v["requestId"] = json!(req);
            v["message"] = json!({
                "model": "claude-sonnet-4-5-20250929", "id": id, "type": "message", "role": "assistant",
                "content": [b], "stop_reason": if i + 1 == n { json!(stop) } else { Value::Null }, "stop_sequence": null,
                "usage": {"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": cache,
                          "output_tokens": output, "service_tier": "standard"},
            });
            self.put(who.out, v)?;
        }
        self.stats.output_tokens += output;
        Ok(())
    }

    fn thinking(&mut self) -> Value {
        let t = self.words(20, 120);
        json!({"type": "thinking", "thinking": t, "signature": format!("Eu8B{}", self.hex_id(32))})
    }

    /// A root session: its file, its turns, now and then a compaction between them; `resume`
    /// replays a previous session's lines first. Returns its lines and id for a later resumption.
    fn session(&mut self, resume: Option<(Vec<Value>, String)>, first: bool) -> io::Result<(Vec<Value>, String)> {
        let sid = self.uuid();
        let out = self.open(&format!("{sid}.jsonl"), true)?;
        self.stats.gen.sessions += 1;
        let who = Who { sid: sid.clone(), agent: None, side: false, depth: 0, out, chain: String::new(), leaf: false };
        if let Some((lines, _)) = resume {
            self.stats.resumed += 1;
            self.stats.gen.expect("replayed-history");
            let mut tip = None;
            for mut v in lines {
                v["sessionId"] = json!(sid);
                tip = v["uuid"].as_str().map(str::to_owned).or(tip);
                self.put(out, v)?;
            }
            if let Some(t) = tip {
                self.tips.insert((out, String::new()), t);
            }
        }
        if self.rng.chance(0.3) {
            let v =
                json!({"type": "queue-operation", "operation": "dequeue", "timestamp": self.time(), "sessionId": sid});
            self.put(out, v)?;
        }
        let turns = match self.turns {
            Some(n) => n,
            None if first => 2,
            None => self.rng.range(10, 60),
        };
        for t in 0..turns {
            if t > 0 && self.turns.is_none() && self.over_budget() {
                break;
            }
            if t > 0 && self.rng.chance(0.05) {
                self.compaction(&who)?;
            }
            let prompt = self.words(8, 40);
            self.turn(&who, prompt, t == 0)?;
        }
        if self.fault() {
            // The file ends in a line cut short (still being written).
            let (v, _) = self.line(&who, "user", false);
            let bytes = serde_json::to_vec(&v).map_err(io::Error::other)?;
            self.out(out).w.write_all(&bytes[..bytes.len() / 2])?;
            self.stats.gen.bytes += (bytes.len() / 2) as u64;
            self.stats.gen.lines += 1;
            self.stats.gen.malformed += 1;
            self.stats.gen.expect("truncated-final-line");
        }
        let kept = self.close(out)?.unwrap_or_default();
        Ok((kept, sid))
    }

    /// A compaction: the boundary (a new chain, naming the last line), its summary, and in 2.1
    /// the compaction agent's transcript, which starts at that line.
    fn compaction(&mut self, who: &Who) -> io::Result<()> {
        self.stats.compactions += 1;
        let last = self.tips.get(&(who.out, String::new())).cloned();
        let (mut b, _) = self.line(who, "system", true);
        b["subtype"] = json!("compact_boundary");
        b["content"] = json!("Conversation compacted");
        b["logicalParentUuid"] = json!(last);
        b["compactMetadata"] = json!({"trigger": "auto", "preTokens": self.rng.range(100_000, 180_000)});
        self.put(who.out, b)?;
        let summary = format!("This session is being continued from a previous conversation. {}", self.words(40, 120));
        let mut s = self.user(who, json!(summary), false);
        s["isCompactSummary"] = json!(true);
        self.put(who.out, s)?;
        if self.layout == Layout::Subagents {
            if let Some(last) = last {
                let id = format!("acompact-{}", self.hex_id(16));
                let out = self.open(&format!("{}/subagents/agent-{id}.jsonl", who.sid), false)?;
                let agent = Who {
                    sid: who.sid.clone(),
                    agent: Some(id.clone()),
                    side: true,
                    depth: 1,
                    out,
                    chain: id,
                    leaf: true,
                };
                let (mut v, _) = self.line(&agent, "user", true);
                v["parentUuid"] = json!(last);
                v["message"] = json!({"role": "user", "content": "Your task is to create a detailed summary of the conversation so far."});
                self.put(out, v)?;
                let sum = self.words(40, 100);
                self.message(&agent, vec![json!({"type": "text", "text": sum})], "end_turn")?;
                self.close(out)?;
                self.stats.gen.sessions += 1;
                self.stats.gen.runs += 1;
                self.stats.gen.turns += 1;
                self.stats.gen.max_depth = self.stats.gen.max_depth.max(1);
                *self.stats.links.entry("parent-uuid").or_default() += 1;
            }
        }
        Ok(())
    }

    /// One turn of `who`: its prompt, a few steps of tool calls (sub-agents among them), and the
    /// reply. Returns the reply.
    fn turn(&mut self, who: &Who, prompt: String, first: bool) -> io::Result<String> {
        self.stats.gen.turns += 1;
        let mut p = self.user(who, json!(prompt), first);
        if who.depth == 0 && !first && self.fault() && !self.out(who.out).dangling {
            // A parentUuid that names no line (an edited or cut file).
            p["parentUuid"] = json!(self.uuid());
            self.out(who.out).dangling = true;
            self.stats.gen.expect("dangling-parent-uuid");
        }
        self.put(who.out, p)?;
        if who.depth == 0 && self.rng.chance(0.2) {
            let mut m = self.user(
                who,
                json!([{"type": "text", "text": "<system-reminder>Keep the todo list current.</system-reminder>"}]),
                false,
            );
            m["isMeta"] = json!(true);
            self.put(who.out, m)?;
        }
        let spawns = if who.leaf { 0 } else { self.spawn_count(who.depth) };
        // A sub-agent works through more tool calls than a turn of its parent does.
        let steps = if who.depth == 0 { self.rng.range(0, 3) } else { self.rng.range(3, 15) };
        let mut spawned = false;
        for step in 0..=steps {
            let spawn_here = spawns > 0 && !spawned && (step == steps || self.rng.chance(0.5));
            if spawn_here {
                spawned = true;
                self.spawn_step(who, spawns)?;
            } else {
                self.tool_step(who)?;
            }
        }
        let reply = self.words(10, 80);
        let think = self.thinking();
        self.message(who, vec![think, json!({"type": "text", "text": reply})], "end_turn")?;
        Ok(reply)
    }

    fn spawn_count(&mut self, depth: u32) -> u64 {
        if depth >= self.opts.depth || self.over_budget() {
            return 0;
        }
        if self.eldest {
            if depth + 1 >= self.opts.depth {
                self.eldest = false;
            }
            return u64::from(self.opts.fanout);
        }
        if !self.rng.chance(if depth == 0 { 0.3 } else { 0.25 }) {
            return 0;
        }
        self.rng.range(1, u64::from(self.opts.fanout))
    }

    /// A message of ordinary tool calls and their results.
    fn tool_step(&mut self, who: &Who) -> io::Result<()> {
        let n = self.rng.range(1, 2);
        let mut blocks = vec![self.thinking()];
        if self.rng.chance(0.4) {
            let t = self.words(5, 30);
            blocks.push(json!({"type": "text", "text": t}));
        }
        let mut calls = Vec::new();
        for _ in 0..n {
            let id = format!("toolu_01{}", self.hex_id(22));
            let cmd = self.words(2, 6);
            blocks.push(json!({"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd, "description": "Run a command"}}));
            calls.push(id);
        }
        self.message(who, blocks, "tool_use")?;
        for id in calls {
            let output = self.words(30, 600);
            let mut r = self.user(
                who,
                json!([{"tool_use_id": id, "type": "tool_result", "content": output, "is_error": false}]),
                false,
            );
            r["toolUseResult"] = json!({"stdout": output, "stderr": "", "interrupted": false, "isImage": false});
            self.put(who.out, r)?;
        }
        Ok(())
    }

    /// A message of `n` `Agent` calls: each child's transcript, then each result; a background
    /// child's result comes at once, and its notification after the others'.
    fn spawn_step(&mut self, who: &Who, n: u64) -> io::Result<()> {
        let mut blocks = vec![self.thinking()];
        let mut calls = Vec::new();
        for _ in 0..n {
            let id = format!("toolu_01{}", self.hex_id(22));
            let prompt = self.words(10, 50);
            let description = self.words(2, 4);
            let background = self.layout != Layout::Inline && self.rng.chance(0.15);
            // A child nothing links (no sidecar, no agentId, another prompt): only at depth 1, and
            // spawning nothing, so that the fallback (the root) puts it in its place; never in the
            // background (whose launch result names its agentId).
            let missing = self.fault();
            let unlinked = !missing && !background && who.depth == 0 && self.fault();
            let mut input = json!({"description": description, "prompt": prompt, "subagent_type": "general-purpose"});
            if background {
                input["run_in_background"] = json!(true);
            }
            let name = if self.layout == Layout::Subagents { "Agent" } else { "Task" };
            blocks.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
            calls.push((id, prompt, description, background, missing, unlinked));
        }
        self.message(who, blocks, "tool_use")?;
        let mut children = Vec::new();
        for &(ref id, ref prompt, ref description, background, missing, unlinked) in &calls {
            let child = if missing {
                self.stats.gen.expect("subagent-transcript-missing");
                Child { id: None, reply: self.words(5, 20) }
            } else {
                self.child(who, id, prompt, description, background, unlinked)?
            };
            if unlinked {
                // Hung under the root by inference, it answers one of the root's calls no
                // evidence links (SPEC 2.4 Missing transcripts): no transcript is missing for it.
                self.stats.gen.expect("subagent-link-inferred");
            }
            children.push((child, unlinked));
        }
        // Two siblings' toolUseResult.agentIds swapped: each disagrees with its sidecar.
        let linkable: Vec<usize> =
            (0..children.len()).filter(|&i| children[i].0.id.is_some() && !children[i].1 && !calls[i].3).collect();
        let mut named: Vec<Option<String>> =
            children.iter().map(|(c, u)| if *u { None } else { c.id.clone() }).collect();
        if self.layout == Layout::Subagents && who.depth == 0 && linkable.len() >= 2 && self.fault() {
            let (a, b) = (linkable[0], linkable[1]);
            named.swap(a, b);
            self.stats.gen.expect("subagent-links-disagree");
            self.stats.gen.expect("subagent-links-disagree");
        }
        let mut notices = Vec::new();
        for (i, ((id, _, description, background, _, _), (child, unlinked))) in calls.iter().zip(&children).enumerate()
        {
            let mut reply = child.reply.clone();
            if child.id.is_some() && !*unlinked && self.fault() {
                reply.push_str(" (as relayed by the harness)");
                self.stats.gen.expect("subagent-reply-differs");
            }
            let tail = match (&child.id, *unlinked, self.layout) {
                (Some(a), false, Layout::Subagents | Layout::Flat) => Some(a.clone()),
                _ => None,
            };
            if *background && child.id.is_some() {
                let a = child.id.clone().unwrap_or_default();
                let text = format!("Async agent launched successfully.\nagentId: {a} (This is an internal ID for your use, do not mention it to the user.)");
                let mut r = self.user(
                    who,
                    json!([{"tool_use_id": id, "type": "tool_result", "content": [{"type": "text", "text": text}]}]),
                    false,
                );
                let mut tur = json!({"isAsync": true, "status": "async_launched", "description": description});
                if who.depth == 0 {
                    tur["agentId"] = json!(named[i]);
                }
                r["toolUseResult"] = tur;
                self.put(who.out, r)?;
                notices.push((id.clone(), a, description.clone(), reply));
                continue;
            }
            let mut content = vec![json!({"type": "text", "text": reply})];
            if let Some(a) = &tail {
                let usage = format!(
                    "<usage>total_tokens: {}\ntool_uses: 1\nduration_ms: 4200</usage>",
                    self.rng.range(1000, 90_000)
                );
                content.push(json!({"type": "text", "text": format!("agentId: {a} (use SendMessage with to: '{a}' to continue this agent)\n{usage}")}));
            }
            let mut r = self.user(who, json!([{"tool_use_id": id, "type": "tool_result", "content": content}]), false);
            let mut tur = json!({"status": "completed", "content": [{"type": "text", "text": reply}], "totalTokens": 1200, "totalToolUseCount": 1});
            if self.layout != Layout::Inline && who.depth == 0 {
                // toolUseResult.agentId is written at the trunk only; nested results carry the
                // `agentId:` text alone.
                if let Some(a) = &named[i] {
                    tur["agentId"] = json!(a);
                }
            }
            r["toolUseResult"] = tur;
            self.put(who.out, r)?;
        }
        for (id, agent, description, reply) in notices {
            let note = format!(
                "<task-notification>\n<task-id>{agent}</task-id>\n<tool-use-id>{id}</tool-use-id>\n<status>completed</status>\n<summary>Agent \"{description}\" completed</summary>\n<result>{reply}</result>\n<usage>total_tokens: 900\ntool_uses: 2</usage>\n</task-notification>"
            );
            let v = json!({"type": "queue-operation", "operation": "enqueue", "timestamp": self.time(), "sessionId": who.sid, "content": note});
            self.put(who.out, v)?;
            let (mut a, _) = self.line(who, "attachment", false);
            a["attachment"] = json!({"type": "queued_command", "prompt": note, "commandMode": "task-notification"});
            self.put(who.out, a)?;
            let mut u = self.user(who, json!(note), false);
            u["origin"] = json!({"kind": "task-notification"});
            self.put(who.out, u)?;
        }
        Ok(())
    }

    /// A sub-agent's transcript: its file (or its inline chain), its one turn, its sidecar.
    fn child(
        &mut self,
        parent: &Who,
        call: &str,
        prompt: &str,
        description: &str,
        background: bool,
        unlinked: bool,
    ) -> io::Result<Child> {
        let depth = parent.depth + 1;
        let id = format!("a{}", self.hex_id(16));
        let (out, agent) = match self.layout {
            Layout::Subagents => {
                (self.open(&format!("{}/subagents/agent-{id}.jsonl", parent.sid), false)?, Some(id.clone()))
            }
            Layout::Flat => (self.open(&format!("agent-{id}.jsonl"), false)?, Some(id.clone())),
            Layout::Inline => (parent.out, None),
        };
        let who = Who {
            sid: parent.sid.clone(),
            agent: agent.clone(),
            side: true,
            depth,
            out,
            chain: id.clone(),
            leaf: unlinked,
        };
        self.stats.gen.sessions += 1;
        self.stats.gen.runs += 1;
        self.stats.gen.max_depth = self.stats.gen.max_depth.max(depth);
        if background {
            self.stats.background += 1;
        }
        let link = match (unlinked, self.layout) {
            (true, _) => "inferred",
            (false, Layout::Subagents) => "meta",
            (false, Layout::Flat) if depth == 1 => "tool-result",
            (false, Layout::Flat) => "result-text",
            (false, Layout::Inline) => "prompt",
        };
        *self.stats.links.entry(link).or_default() += 1;
        if self.layout == Layout::Subagents && !unlinked {
            let mut meta = json!({"agentType": "general-purpose", "description": description, "toolUseId": call, "spawnDepth": depth});
            if depth > 1 {
                meta["parentAgentId"] = json!(parent.agent);
            }
            let path = self.dir.join(format!("{}/subagents/agent-{id}.meta.json", parent.sid));
            std::fs::write(path, serde_json::to_vec(&meta).map_err(io::Error::other)?)?;
            self.stats.gen.files += 1;
            self.stats.gen.lines += 1;
            self.stats.gen.bytes += serde_json::to_vec(&meta).map_or(0, |m| m.len() as u64);
        }
        if self.layout == Layout::Subagents && !unlinked && self.rng.chance(0.1) {
            // A fork: the child's file starts with a copy of its parent's history.
            self.stats.forks += 1;
            self.stats.gen.expect("replayed-history");
            let from = json!({"sessionId": parent.sid, "messageUuid": self.uuid()});
            for i in 0..2 {
                let text = self.words(5, 20);
                let mut v = self.user(&who, json!(text), i == 0);
                v["forkedFrom"] = from.clone();
                self.put(out, v)?;
            }
        }
        let task = if unlinked { format!("{prompt} (rephrased)") } else { prompt.to_owned() };
        let reply = self.turn(&who, task, true)?;
        if self.layout != Layout::Inline {
            self.close(out)?;
        }
        Ok(Child { id: Some(agent.unwrap_or(id)), reply })
    }
}
