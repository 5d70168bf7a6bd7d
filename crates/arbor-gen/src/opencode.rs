//! OpenCode stores (SPEC 2.7): its SQLite database (`opencode.db`, the tables of OpenCode's first
//! migration, rows in the order OpenCode writes them, WAL mode) or its older JSON `storage/` tree
//! (`session/<project>/<id>.json`, `message/<session>/<id>.json`, `part/<message>/<id>.json`,
//! pretty-printed as OpenCode wrote them), from the shapes of `message-v2.ts`, `session.sql.ts`
//! and `tool/task.ts`.
//!
//! Root sessions run turns: a user message, then assistant messages of one to three model calls
//! (step-start, reasoning, text, tool calls, step-finish with the call's tokens and cost; the
//! message's own `tokens` are its last call's, as OpenCode records them). A call may be a `task`
//! that makes a child session (`parentID` the caller, the call's `state.metadata.sessionId` the
//! child), down to `depth` levels and `fanout` tasks a message; a child is sometimes resumed by a
//! second call (one session, two runs). A child is written whole where its call runs, so rows stay
//! in time order; a call's output is its child's last reply in the producer's wrapper. Faults, at
//! the fault rate: a task call whose child is not written, a child whose parent is not written, a
//! part whose message is not written, a call whose output holds only the first words of its
//! child's reply.

use crate::{GenOptions, GenStats, Rng};
use serde_json::{json, Value};
use std::io;
use std::path::Path;

/// Which of OpenCode's stores to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// `opencode.db`.
    Database,
    /// The `storage/` tree of JSON files.
    Tree,
}

/// What an OpenCode store holds beyond `GenStats`: the tokens the engine must count (every
/// model call once, from its step-finish), in the report's terms, and the recorded cost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpenCodeStore {
    pub stats: GenStats,
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub cost: f64,
}

/// One row: its table, and its columns as SQL values (text, integer or null) and the document.
struct RowOut {
    table: &'static str,
    id: String,
    session: String,
    message: String,
    created: u64,
    doc: Value,
}

const TOOLS: &[&str] = &["bash", "read", "edit", "write", "grep", "glob"];
const WORDS: &[&str] = &["alpha", "beta", "gamma", "delta", "parser", "index", "review", "tests", "cache", "queue"];
const MODELS: &[&str] = &["claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5"];

struct Gen {
    rng: Rng,
    opts: GenOptions,
    clock: u64,
    ids: u64,
    out: OpenCodeStore,
    rows: Vec<RowOut>,
    sessions: Vec<(String, Option<String>, String, u64)>,
    /// The sessions with a message whose `tokens` miss calls (one finding each).
    partial: std::collections::HashSet<String>,
    orphans: u64,
}

/// Write an OpenCode store of `opts.target_bytes` (about) to `out`: the database file, or the
/// folder the `storage/` tree is made in. `opts.format` is ignored.
pub fn generate_opencode(opts: &GenOptions, store: Store, out: &Path) -> io::Result<OpenCodeStore> {
    let mut g = Gen {
        rng: Rng(opts.seed ^ 0x0C0D_E0C0),
        opts: opts.clone(),
        clock: 1_789_171_200_000,
        ids: 0,
        out: OpenCodeStore::default(),
        rows: Vec::new(),
        sessions: Vec::new(),
        partial: Default::default(),
        orphans: 0,
    };
    let mut writer = match store {
        Store::Database => Writer::db(out)?,
        Store::Tree => Writer::Tree(out.to_path_buf()),
    };
    // What is written so far: the database and its write-ahead log, or the tree's files.
    let mut written = 0u64;
    while written < opts.target_bytes {
        g.root();
        written += g.flush(&mut writer)?;
        if let Writer::Db(_) = &writer {
            let mut wal = out.as_os_str().to_owned();
            wal.push("-wal");
            written = [out.to_path_buf(), std::path::PathBuf::from(wal)]
                .iter()
                .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
                .sum();
        }
    }
    g.out.stats.bytes = written;
    writer.finish()?;
    let s = &mut g.out.stats;
    for _ in 0..g.partial.len() {
        s.expect("message-tokens-last-step");
    }
    if g.orphans > 0 {
        s.expect("orphan-record");
    }
    s.files = if store == Store::Database { 1 } else { s.records };
    if store == Store::Database {
        // The rendering's header line, the migration and the project rows are records too.
        s.records += 3;
        s.lines = s.records;
        s.bytes = std::fs::metadata(out)?.len();
    }
    Ok(g.out)
}

enum Writer {
    Db(Box<rusqlite::Connection>),
    Tree(std::path::PathBuf),
}

/// OpenCode's first migration's tables, in its order (the rendering reads them in this order).
const SCHEMA: &str = "
CREATE TABLE `__drizzle_migrations` (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric);
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, `icon_url` text, `icon_color` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `permission` (`project_id` text PRIMARY KEY, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `revert` text, `permission` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer);
CREATE TABLE `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL, `priority` text NOT NULL, `position` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, PRIMARY KEY(`session_id`, `position`));
CREATE INDEX `message_session_idx` ON `message` (`session_id`);
CREATE INDEX `part_message_idx` ON `part` (`message_id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE INDEX `session_project_idx` ON `session` (`project_id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
INSERT INTO `__drizzle_migrations` VALUES (1, 'familiar_lady_ursula', 1769552633000);
INSERT INTO `project` VALUES ('proj_gen', '/work/gen', 'git', NULL, NULL, NULL, 1789171200000, 1789171200000, NULL, '[]');
";

impl Writer {
    fn db(path: &Path) -> io::Result<Writer> {
        let _ = std::fs::remove_file(path);
        for c in ["-wal", "-shm"] {
            let mut p = path.as_os_str().to_owned();
            p.push(c);
            let _ = std::fs::remove_file(std::path::PathBuf::from(p));
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let c = rusqlite::Connection::open(path).map_err(io::Error::other)?;
        c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;").map_err(io::Error::other)?;
        c.execute_batch(SCHEMA).map_err(io::Error::other)?;
        Ok(Writer::Db(Box::new(c)))
    }

    fn finish(self) -> io::Result<()> {
        if let Writer::Db(c) = self {
            // Checkpointed and closed: the store is whole in its file.
            c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").map_err(io::Error::other)?;
        }
        Ok(())
    }
}

/// A JSON document as OpenCode's JSON storage wrote it (`JSON.stringify(x, null, 2)`).
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

impl Gen {
    fn tick(&mut self, lo: u64, hi: u64) -> u64 {
        self.clock += self.rng.range(lo, hi);
        self.clock
    }

    fn words(&mut self, lo: u64, hi: u64) -> String {
        crate::words_of(&mut self.rng, WORDS, lo, hi)
    }

    /// An ascending id, as OpenCode's `Identifier.ascending` makes them (time first).
    fn id(&mut self, prefix: &str) -> String {
        self.ids += 1;
        let r = self.rng.next();
        format!("{prefix}_{:012x}{:014x}", (self.clock << 12) | (self.ids & 0xfff), r >> 8)
    }

    fn push(&mut self, table: &'static str, id: String, session: &str, message: &str, doc: Value) {
        let created = self.clock;
        self.out.stats.records += 1;
        self.out.stats.lines += 1;
        self.rows.push(RowOut { table, id, session: session.to_owned(), message: message.to_owned(), created, doc });
    }

    /// Write the rows made so far; the bytes of the files written (a tree's).
    fn flush(&mut self, w: &mut Writer) -> io::Result<u64> {
        let mut bytes = 0u64;
        let rows = std::mem::take(&mut self.rows);
        let sessions = std::mem::take(&mut self.sessions);
        match w {
            Writer::Db(c) => {
                let tx = c.transaction().map_err(io::Error::other)?;
                {
                    let mut m = tx
                        .prepare_cached("INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)")
                        .map_err(io::Error::other)?;
                    let mut p = tx
                        .prepare_cached("INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)")
                        .map_err(io::Error::other)?;
                    for r in &rows {
                        let data = r.doc.to_string();
                        match r.table {
                            "message" => m.execute(rusqlite::params![r.id, r.session, r.created as i64, data]),
                            _ => p.execute(rusqlite::params![r.id, r.message, r.session, r.created as i64, data]),
                        }
                        .map_err(io::Error::other)?;
                    }
                    let mut s = tx
                        .prepare_cached("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?1, 'proj_gen', ?2, ?1, '/work/gen', ?3, '1.1.50', ?4, ?4)")
                        .map_err(io::Error::other)?;
                    for (id, parent, title, at) in &sessions {
                        s.execute(rusqlite::params![id, parent, title, *at as i64]).map_err(io::Error::other)?;
                    }
                }
                tx.commit().map_err(io::Error::other)?;
            }
            Writer::Tree(dir) => {
                for r in &rows {
                    let mut doc = r.doc.clone();
                    let (folder, key) = match r.table {
                        "message" => ("message", &r.session),
                        _ => ("part", &r.message),
                    };
                    if let Value::Object(o) = &mut doc {
                        o.insert("id".into(), r.id.clone().into());
                        o.insert("sessionID".into(), r.session.clone().into());
                        if r.table == "part" {
                            o.insert("messageID".into(), r.message.clone().into());
                        }
                    }
                    let d = dir.join(folder).join(key);
                    std::fs::create_dir_all(&d)?;
                    let text = pretty(&doc);
                    bytes += text.len() as u64;
                    std::fs::write(d.join(format!("{}.json", r.id)), text)?;
                }
                for (id, parent, title, at) in &sessions {
                    let d = dir.join("session").join("proj_gen");
                    std::fs::create_dir_all(&d)?;
                    let mut doc = json!({"id": id, "version": "1.1.50", "projectID": "proj_gen", "directory": "/work/gen",
                        "title": title, "time": {"created": at, "updated": at}});
                    if let Some(p) = parent {
                        doc["parentID"] = p.clone().into();
                    }
                    let text = pretty(&doc);
                    bytes += text.len() as u64;
                    std::fs::write(d.join(format!("{id}.json")), text)?;
                }
            }
        }
        Ok(bytes)
    }

    fn session(&mut self, parent: Option<String>, title: String) -> String {
        let id = self.id("ses");
        self.out.stats.sessions += 1;
        self.out.stats.records += 1;
        self.out.stats.lines += 1;
        self.sessions.push((id.clone(), parent, title, self.clock));
        id
    }

    fn root(&mut self) {
        let prompt = self.words(3, 8);
        let s = self.session(None, prompt.clone());
        let turns = self.rng.range(1, 4);
        for t in 0..turns {
            let text = if t == 0 { prompt.clone() } else { self.words(3, 10) };
            self.out.stats.root_turns += 1;
            self.turn(&s, &text, 0, "build");
        }
    }

    /// One turn of session `s` at `depth`: its user message and the replies to it.
    fn turn(&mut self, s: &str, prompt: &str, depth: u32, agent: &str) -> String {
        self.out.stats.turns += 1;
        let model = MODELS[self.rng.below(MODELS.len() as u64) as usize];
        self.tick(500, 5_000);
        let user = self.id("msg");
        let created = self.clock;
        self.push(
            "message",
            user.clone(),
            s,
            "",
            json!({"role": "user", "time": {"created": created}, "agent": agent,
                   "model": {"providerID": "anthropic", "modelID": model}}),
        );
        let pid = self.id("prt");
        self.push("part", pid, s, &user, json!({"type": "text", "text": prompt}));
        let replies = self.rng.range(1, 3);
        let mut said = String::new();
        for k in 0..replies {
            said = self.reply(s, &user, depth, agent, model, k + 1 == replies);
        }
        said
    }

    /// One assistant message of one to three model calls; its last text part's text.
    fn reply(&mut self, s: &str, user: &str, depth: u32, agent: &str, model: &str, last: bool) -> String {
        self.tick(100, 1_000);
        let mid = self.id("msg");
        let created = self.clock;
        let steps = self.rng.range(1, 3);
        let mut last_tokens = json!({});
        let mut message_cost = 0.0;
        let mut summed = 0u64;
        let mut message_rows = Vec::new();
        let mut said = String::new();
        for step in 0..steps {
            let id = self.id("prt");
            message_rows.push(("part", id, json!({"type": "step-start", "snapshot": "4b825dc6"})));
            if self.rng.chance(0.5) {
                let text = self.words(5, 30);
                let id = self.id("prt");
                let (a, b) = (self.clock, self.tick(10, 300));
                message_rows.push((
                    "part",
                    id,
                    json!({"type": "reasoning", "text": text, "time": {"start": a, "end": b}}),
                ));
            }
            let final_step = step + 1 == steps;
            if !final_step || !last {
                self.write_rows(&mut message_rows, s, &mid);
                self.tools(s, &mid, depth, &mut message_rows);
            }
            let text = self.words(4, 40);
            let id = self.id("prt");
            let (a, b) = (self.clock, self.tick(10, 300));
            message_rows.push(("part", id, json!({"type": "text", "text": text, "time": {"start": a, "end": b}})));
            said = text;
            let (input, output, reasoning) =
                (self.rng.range(200, 20_000), self.rng.range(10, 2_000), self.rng.range(0, 500));
            let (read, write) = (self.rng.range(0, 50_000), self.rng.range(0, 2_000));
            let cost = if model == "gpt-5" { 0.0 } else { (input + output) as f64 * 3e-6 };
            let tokens = json!({"input": input, "output": output, "reasoning": reasoning, "cache": {"read": read, "write": write}});
            let id = self.id("prt");
            message_rows.push((
                "part",
                id,
                json!({"type": "step-finish", "reason": if final_step { "stop" } else { "tool-calls" },
                       "snapshot": "4b825dc6", "cost": cost, "tokens": tokens}),
            ));
            self.out.input += input;
            self.out.output += output + reasoning;
            self.out.cache_read += read;
            self.out.cache_write += write;
            self.out.cost += cost;
            summed += input + output + reasoning + read + write;
            last_tokens = tokens;
            // OpenCode adds each call's cost to its message, and overwrites its tokens.
            message_cost += cost;
        }
        if steps > 1 {
            let own =
                ["input", "output", "reasoning"].iter().map(|k| last_tokens[k].as_u64().unwrap_or(0)).sum::<u64>()
                    + last_tokens["cache"]["read"].as_u64().unwrap_or(0)
                    + last_tokens["cache"]["write"].as_u64().unwrap_or(0);
            if summed > own {
                self.partial.insert(s.to_owned());
            }
        }
        let completed = self.clock;
        // The message row is stored first, then its parts; its tokens are its last call's, its
        // cost the sum of its calls' (processor.ts: `cost += usage.cost`, `tokens = usage.tokens`).
        let doc = json!({"role": "assistant", "time": {"created": created, "completed": completed}, "parentID": user,
            "modelID": model, "providerID": "anthropic", "mode": agent, "agent": agent,
            "path": {"cwd": "/work/gen", "root": "/work/gen"}, "cost": message_cost, "tokens": last_tokens, "finish": "stop"});
        let at = self.clock;
        self.clock = created;
        self.push("message", mid.clone(), s, "", doc);
        self.clock = at;
        self.write_rows(&mut message_rows, s, &mid);
        if self.rng.chance(self.opts.fault_rate / 4.0) {
            // A part whose message is not in the store.
            let id = self.id("prt");
            let gone = self.id("msg");
            self.push("part", id, s, &gone, json!({"type": "text", "text": "lost"}));
            self.orphans += 1;
        }
        said
    }

    fn write_rows(&mut self, rows: &mut Vec<(&'static str, String, Value)>, s: &str, mid: &str) {
        for (t, id, doc) in rows.drain(..) {
            self.push(t, id, s, mid, doc);
        }
    }

    /// A step's tool calls: plain tools, and tasks that run children.
    fn tools(&mut self, s: &str, mid: &str, depth: u32, rows: &mut Vec<(&'static str, String, Value)>) {
        let n = self.rng.range(0, 2);
        for _ in 0..n {
            let tool = TOOLS[self.rng.below(TOOLS.len() as u64) as usize];
            let id = self.id("prt");
            let call = format!("toolu_{:016x}", self.rng.next());
            let (a, b) = (self.tick(5, 50), self.tick(10, 2_000));
            let path = format!("/work/gen/src/{}.rs", WORDS[self.rng.below(WORDS.len() as u64) as usize]);
            let input = match tool {
                "bash" => json!({"command": "cargo test", "description": "run the tests"}),
                "read" | "glob" | "grep" => json!({"filePath": path}),
                "edit" => json!({"filePath": path, "oldString": "let a = 1;", "newString": "let a = 2;"}),
                _ => json!({"filePath": path, "content": "fn main() {}\n"}),
            };
            let output = self.words(2, 20);
            rows.push((
                "part",
                id,
                json!({"type": "tool", "callID": call, "tool": tool, "state": {"status": "completed", "input": input,
                       "output": output, "title": tool, "metadata": {}, "time": {"start": a, "end": b}}}),
            ));
        }
        if depth >= self.opts.depth {
            return;
        }
        let tasks = self.rng.range(0, u64::from(self.opts.fanout));
        for _ in 0..tasks {
            self.write_rows(rows, s, mid);
            self.task(s, mid, depth, None);
        }
    }

    /// A task call of session `s` that runs a child (a new one, or `resume`).
    fn task(&mut self, s: &str, mid: &str, depth: u32, resume: Option<(String, String, bool)>) {
        let id = self.id("prt");
        let call = format!("toolu_{:016x}", self.rng.next());
        let start = self.tick(5, 50);
        let description = self.words(2, 4);
        let prompt = self.words(5, 15);
        let agent = if self.rng.chance(0.5) { "general" } else { "explore" };
        let missing = resume.is_none() && self.rng.chance(self.opts.fault_rate);
        // A resumed child whose parent was not written disagrees with each call that names it.
        let lost_parent = match &resume {
            Some((_, _, lost)) => *lost,
            None => !missing && self.rng.chance(self.opts.fault_rate),
        };
        let (child, agent) = match &resume {
            Some((c, a, _)) => (c.clone(), a.clone()),
            None if missing => (self.id("ses"), agent.to_owned()),
            None => {
                let parent = if lost_parent { self.id("ses") } else { s.to_owned() };
                (self.session(Some(parent), format!("{description} (@{agent} subagent)")), agent.to_owned())
            }
        };
        // The call's row is stored when the call starts (its state is updated in place as it
        // runs): before the child's rows. Its output is made when the child has replied.
        let reply = self.words(3, 12);
        let output = format!(
            "task_id: {child} (for resuming to continue this task if needed)\n\n<task_result>\n{reply}\n</task_result>"
        );
        let mut input = json!({"description": description, "prompt": prompt, "subagent_type": agent});
        if resume.is_some() {
            input["task_id"] = child.clone().into();
        }
        let row = self.rows.len();
        self.push(
            "part",
            id,
            s,
            mid,
            json!({"type": "tool", "callID": call, "tool": "task", "state": {"status": "completed", "input": input,
                   "output": output, "title": description, "metadata": {"sessionId": child, "model": {"modelID": "claude-haiku-4-5", "providerID": "anthropic"}},
                   "time": {"start": start, "end": start}}}),
        );
        if missing {
            self.out.stats.expect("subagent-transcript-missing");
        } else {
            self.out.stats.runs += 1;
            self.out.stats.max_depth = self.out.stats.max_depth.max(depth + 1);
            if lost_parent {
                // Its run is still the caller's (the call names it); the session's parentID
                // names a session that is not written.
                self.out.stats.expect("subagent-links-disagree");
            }
            let said = self.turn(&child, &prompt, depth + 1, &agent);
            // The call's output is the child's reply inside the producer's wrapper, or, at the
            // fault rate, only its first words.
            let said = if self.rng.chance(self.opts.fault_rate) {
                self.out.stats.expect("subagent-reply-differs");
                said.split(' ').take(2).collect::<Vec<_>>().join(" ")
            } else {
                said
            };
            self.rows[row].doc["state"]["output"] = format!(
                "task_id: {child} (for resuming to continue this task if needed)\n\n<task_result>\n{said}\n</task_result>"
            )
            .into();
        }
        let end = self.tick(10, 200);
        self.rows[row].doc["state"]["time"]["end"] = end.into();
        if resume.is_none() && !missing && self.rng.chance(0.2) {
            self.task(s, mid, depth, Some((child, agent, lost_parent)));
        }
    }
}
