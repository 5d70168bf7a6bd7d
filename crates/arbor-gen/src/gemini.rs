//! Gemini CLI sessions: a `.gemini/tmp/<project>/chats/` tree shaped like the producer's
//! `chatRecordingService.ts` writes it (SPEC 2.6): a metadata line, each message appended again
//! every time it grows (a `gemini` message first with its tool calls scheduled, then with its
//! tokens, then with the calls' results), `{"$set": {"lastUpdated"}}` after each message, and
//! sub-agents in `chats/<root session id>/<agentId>.jsonl` (every depth lies there: the folder
//! names the root), each named by the `agentId` of the call that ran it, down to `depth` levels
//! and `fanout` calls a step. Faults, at the fault rate: a rewind (`$rewindTo`) of the last
//! prompt, a sub-agent call that records no `agentId` (the child is linked by its folder only),
//! a call whose child's file is not written, and malformed lines at a tenth of the rate.

use crate::{GenOptions, GenStats, Rng};
use serde_json::{json, Value};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// What a Gemini CLI tree holds beyond `GenStats`: the tokens the engine must count (each
/// message once, in its last form; rewound calls too), in the report's terms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GeminiTree {
    pub stats: GenStats,
    pub input: u64,
    pub cache_read: u64,
    pub output: u64,
    /// Lines that rewrite a message (a reader that sums lines counts their tokens again).
    pub rewrites: u64,
}

/// Write a Gemini CLI tree to `dir` (`dir/tmp/<project>/chats/…`). `opts.format` is ignored.
pub fn generate_gemini_tree(opts: &GenOptions, dir: &Path) -> io::Result<GeminiTree> {
    let chats = dir.join("tmp").join("0b7dfb1274ee51b3").join("chats");
    std::fs::create_dir_all(&chats)?;
    // The CLI keeps the project's folder beside its chats (what the Library names the project).
    std::fs::write(dir.join("tmp").join("0b7dfb1274ee51b3").join(".project_root"), "/home/dev/shop\n")?;
    let mut g = Gemini {
        rng: Rng(opts.seed ^ 0x6E41_1111),
        opts: opts.clone(),
        chats,
        clock: 1_777_680_000_000, // 2026-05-02T00:00:00Z
        ids: 0,
        out: GeminiTree::default(),
    };
    while g.out.stats.bytes < opts.target_bytes {
        g.root()?;
    }
    Ok(g.out)
}

struct Gemini {
    rng: Rng,
    opts: GenOptions,
    chats: PathBuf,
    clock: u64,
    ids: u64,
    out: GeminiTree,
}

struct File {
    w: BufWriter<std::fs::File>,
    /// Messages written so far (for a rewind's target).
    prompts: Vec<String>,
}

const PH: &str = "0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9";
const MODELS: &[&str] = &["gemini-2.5-pro", "gemini-2.5-flash", "gemini-3-flash-preview"];
const WORDS: &[&str] = &[
    "the", "tests", "parser", "drops", "a", "line", "at", "the", "end", "of", "each", "file", "so", "fix", "it", "now",
];

impl Gemini {
    fn id(&mut self) -> String {
        self.ids += 1;
        let a = self.rng.next();
        format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            a as u32,
            self.ids & 0xffff,
            (a >> 32) & 0xfff,
            (a >> 44) & 0xfff,
            self.ids
        )
    }

    fn tick(&mut self) -> String {
        self.clock += self.rng.range(200, 4000);
        crate::codex::iso(self.clock)
    }

    fn words(&mut self, lo: u64, hi: u64) -> String {
        let n = self.rng.range(lo, hi);
        (0..n).map(|_| WORDS[self.rng.below(WORDS.len() as u64) as usize]).collect::<Vec<_>>().join(" ")
    }

    fn write(&mut self, f: &mut File, v: &Value) -> io::Result<()> {
        if self.rng.chance(self.opts.fault_rate / 10.0) {
            let bad = b"{\"id\": \"cut-off\", \"type\": \"gemini\", \"content\": \"unfinished\n";
            f.w.write_all(bad)?;
            self.out.stats.bytes += bad.len() as u64;
            self.out.stats.lines += 1;
            self.out.stats.malformed += 1;
            *self.out.stats.findings.entry("malformed-line").or_insert(0) += 1;
        }
        let mut line = serde_json::to_vec(v).map_err(io::Error::other)?;
        line.push(b'\n');
        f.w.write_all(&line)?;
        self.out.stats.bytes += line.len() as u64;
        self.out.stats.lines += 1;
        self.out.stats.records += 1;
        Ok(())
    }

    fn open(&mut self, path: &Path, id: &str, kind: &str) -> io::Result<File> {
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d)?;
        }
        let mut f = File { w: BufWriter::new(std::fs::File::create(path)?), prompts: Vec::new() };
        let t = self.tick();
        let meta = json!({"sessionId": id, "projectHash": PH, "startTime": t, "lastUpdated": t, "kind": kind});
        self.write(&mut f, &meta)?;
        self.out.stats.files += 1;
        self.out.stats.sessions += 1;
        // Every session's model calls are written again with their tokens.
        *self.out.stats.findings.entry("message-rewritten").or_insert(0) += 1;
        Ok(f)
    }

    fn root(&mut self) -> io::Result<()> {
        let id = self.id();
        let stamp = crate::codex::iso(self.clock);
        let name = format!("session-{}-{}.jsonl", stamp[..16].replace(':', "-"), &id[..8]);
        let path = self.chats.join(name);
        let mut f = self.open(&path, &id, "main")?;
        // The CLI sets the chat's history up with its environment first: a `user` message of
        // one `<session_context>` block, no turn.
        let (u, t) = (self.id(), self.tick());
        let context = "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nMy operating system is: linux\n- **Workspace Directories:**\n  - /home/dev/shop\n</session_context>";
        let message = json!({"id": u, "timestamp": t, "type": "user", "content": [{"text": context}]});
        self.write(&mut f, &json!({"$set": {"messages": [message], "lastUpdated": t}}))?;
        // The message it sets is a record of its own, at that line.
        self.out.stats.records += 1;
        let turns = self.rng.range(1, 3);
        for _ in 0..turns {
            self.turn(&mut f, &id, 0, 0)?;
            self.out.stats.root_turns += 1;
        }
        if self.rng.chance(self.opts.fault_rate) && f.prompts.len() > 1 {
            // The user went back: the last prompt and its replies leave the history.
            let to = f.prompts.last().cloned().unwrap_or_default();
            self.write(&mut f, &json!({"$rewindTo": to}))?;
            *self.out.stats.findings.entry("history-rewound").or_insert(0) += 1;
            self.out.stats.turns -= 1;
        }
        f.w.flush()
    }

    /// One turn: a prompt, then model calls (each a `gemini` message written as it grows), some
    /// of which run sub-agents (written whole where they run), then a reply.
    /// `depth`: the session's depth as written; `shown`: as the engine finds it (a child whose
    /// call records no `agentId` is linked by its folder, to the root).
    fn turn(&mut self, f: &mut File, root: &str, depth: u32, shown: u32) -> io::Result<String> {
        let u = self.id();
        let t = self.tick();
        let text = self.words(3, 12);
        self.write(f, &json!({"id": u, "timestamp": t, "type": "user", "content": [{"text": text}]}))?;
        f.prompts.push(u);
        self.out.stats.turns += 1;
        let t = self.tick();
        self.write(f, &json!({"$set": {"lastUpdated": t}}))?;
        let steps = self.rng.range(1, 3);
        for _ in 0..steps {
            let model = MODELS[self.rng.below(MODELS.len() as u64) as usize];
            let g = self.id();
            let t0 = self.tick();
            let mut calls = Vec::new();
            let mut children = Vec::new();
            let n = if depth < self.opts.depth { self.rng.range(0, u64::from(self.opts.fanout.max(1))) } else { 0 };
            for _ in 0..n {
                children.push(self.id());
            }
            let plain = self.rng.range(0, 2);
            for k in 0..plain + children.len() as u64 {
                let (name, args) = if (k as usize) < children.len() {
                    ("codebase_investigator", json!({"objective": self.words(3, 8)}))
                } else if self.rng.chance(0.3) {
                    (
                        "replace",
                        json!({"file_path": "/work/src/a.rs", "old_string": "let x = 1;", "new_string": "let x = 2;"}),
                    )
                } else {
                    ("read_file", json!({"file_path": "/work/README.md"}))
                };
                calls.push(json!({"id": format!("{name}-{}", self.ids), "name": name, "args": args, "status": "scheduled", "timestamp": t0}));
            }
            let thoughts = json!([{"subject": "Planning", "description": self.words(4, 10), "timestamp": t0}]);
            let mut msg = json!({"id": g, "timestamp": t0, "type": "gemini", "content": "", "thoughts": thoughts, "tokens": null, "model": model});
            if !calls.is_empty() {
                msg["toolCalls"] = Value::Array(calls.clone());
            }
            self.write(f, &msg)?;
            // The call's tokens arrive: the message is written again.
            let input = self.rng.range(1_000, 20_000);
            let cached = self.rng.range(0, input);
            let output = self.rng.range(10, 400);
            let th = self.rng.range(0, 100);
            msg["tokens"] = json!({"input": input, "output": output, "cached": cached, "thoughts": th, "tool": 0, "total": input + output + th});
            self.write(f, &msg)?;
            self.out.rewrites += 1;
            self.out.input += input - cached;
            self.out.cache_read += cached;
            self.out.output += output + th;
            if !calls.is_empty() {
                // The calls run (sub-agents written whole, where they run); the message is written again with results.
                for (k, c) in calls.iter_mut().enumerate() {
                    let name = c["name"].as_str().unwrap_or_default().to_owned();
                    let mut status = "success";
                    let output = if let Some(child) = children.get(k) {
                        let child = child.clone();
                        let written = !self.rng.chance(self.opts.fault_rate / 2.0);
                        // A call that records no `agentId` (before 2026-04-10): the folder links the child.
                        let named = !(written && self.rng.chance(self.opts.fault_rate));
                        let child_shown = if named { shown + 1 } else { 1 };
                        if written && named && child_shown >= 2 {
                            *self.out.stats.findings.entry("folder-names-root").or_insert(0) += 1;
                        }
                        let reply =
                            if written { self.child(root, &child, depth + 1, child_shown)? } else { "gone".to_owned() };
                        if !written {
                            *self.out.stats.findings.entry("subagent-transcript-missing").or_insert(0) += 1;
                        }
                        if named {
                            c["agentId"] = json!(child);
                        }
                        // The parent receives the child's reply inside the producer's lines, or,
                        // at the fault rate, only its first words (a call named and written).
                        let reply = if written && named && self.rng.chance(self.opts.fault_rate) {
                            *self.out.stats.findings.entry("subagent-reply-differs").or_insert(0) += 1;
                            reply.split(' ').take(2).collect::<Vec<_>>().join(" ")
                        } else {
                            reply
                        };
                        format!(
                            "Subagent 'codebase_investigator' finished.\nTermination Reason: GOAL\nResult:\n{reply}"
                        )
                    } else if self.rng.chance(0.1) {
                        status = "error";
                        "Error: file not found".to_owned()
                    } else {
                        self.words(5, 30)
                    };
                    let cid = c["id"].clone();
                    c["status"] = json!(status);
                    c["timestamp"] = json!(self.tick());
                    c["result"] =
                        json!([{"functionResponse": {"id": cid, "name": name, "response": {"output": output}}}]);
                    c["displayName"] = json!(name);
                    c["description"] = json!("");
                    c["renderOutputAsMarkdown"] = json!(false);
                }
                msg["toolCalls"] = Value::Array(calls);
                self.write(f, &msg)?;
                self.out.rewrites += 1;
            }
            let t = self.tick();
            self.write(f, &json!({"$set": {"lastUpdated": t}}))?;
        }
        let r = self.id();
        let t = self.tick();
        let reply = self.words(4, 20);
        let input = self.rng.range(1_000, 20_000);
        let output = self.rng.range(10, 300);
        self.write(f, &json!({"id": r, "timestamp": t, "type": "gemini", "content": reply, "thoughts": [], "tokens": {"input": input, "output": output, "cached": 0, "thoughts": 0, "tool": 0, "total": input + output}, "model": MODELS[0]}))?;
        self.out.input += input;
        self.out.output += output;
        self.write(f, &json!({"$set": {"lastUpdated": t}}))?;
        Ok(reply)
    }

    /// A sub-agent's session, written whole; its reply (its turn's last message).
    fn child(&mut self, root: &str, id: &str, depth: u32, shown: u32) -> io::Result<String> {
        let path = self.chats.join(root).join(format!("{id}.jsonl"));
        let mut f = self.open(&path, id, "subagent")?;
        self.out.stats.runs += 1;
        self.out.stats.max_depth = self.out.stats.max_depth.max(shown);
        let reply = self.turn(&mut f, root, depth, shown)?;
        f.w.flush()?;
        Ok(reply)
    }
}
