//! Codex CLI rollouts: a `sessions/YYYY/MM/DD/` tree of one file per thread, shaped like the
//! rollouts in `shared/corpus/codex-cli` and the field notes (SPEC 2.5).
//!
//! Root threads run turns of model calls (reasoning, tool calls and their outputs, token counts);
//! a call may spawn sub-agent threads (`spawn_agent` + `sub_agent_activity`, or the paginated
//! `item_completed SubAgentActivity`), each its own rollout naming its parent in
//! `source.subagent.thread_spawn`, down to `depth` levels and `fanout` children a call; a child's
//! reply comes back to its parent as a `FINAL_ANSWER` agent message, at once or (a background
//! spawn) in the parent's next turn. Some children are forks that copy their parent's current
//! turn after a second `session_meta`; some turns are review sub-agents found by the time window;
//! some turns compact. Faults, at the fault rate: malformed lines, turns left open, replies the
//! parent received differently, sub-agents with no link, parents that are not written.
//!
//! One global clock runs through the whole tree (a child is written whole where it is spawned),
//! so review windows never overlap and every file's timestamps increase.

use crate::{GenOptions, GenStats, Rng};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// What a Codex tree holds beyond `GenStats`: the tokens the engine must count (own history only,
/// once per model call), in the report's terms.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodexTree {
    pub stats: GenStats,
    pub input: u64,
    pub cache_read: u64,
    pub output: u64,
    /// Runs whose parent only a review window gives (`time-window`).
    pub windows: u64,
}

/// Write a Codex sessions tree to `dir`. `opts.format` is ignored.
pub fn generate_codex_tree(opts: &GenOptions, dir: &Path) -> io::Result<CodexTree> {
    std::fs::create_dir_all(dir)?;
    let mut g = Codex {
        rng: Rng(opts.seed ^ 0xC0DE_C0DE),
        opts: opts.clone(),
        dir: dir.to_path_buf(),
        clock: 1_789_171_200_000, // 2026-09-12T00:00:00Z
        threads: 0,
        trees: 0,
        out: CodexTree::default(),
    };
    while g.out.stats.bytes < opts.target_bytes {
        g.root()?;
    }
    Ok(g.out)
}

struct Codex {
    rng: Rng,
    opts: GenOptions,
    dir: PathBuf,
    /// Epoch milliseconds of the next record.
    clock: u64,
    threads: u64,
    trees: u64,
    out: CodexTree,
}

/// One rollout being written.
struct File {
    w: BufWriter<std::fs::File>,
    /// Paginated history (`ordinal` on each line, `item_completed` items).
    paginated: bool,
    ordinal: u64,
    /// The lines of the current turn (a fork copies them), with the turn's start.
    turn_lines: Vec<String>,
    meta: String,
    /// The cumulative token counter.
    total: [u64; 3],
    /// Replies from background children that arrive in the next turn.
    pending: Vec<(String, String)>,
}

/// A thread's place in its tree.
#[derive(Clone)]
struct Place {
    id: String,
    path: String,
    depth: u32,
    paginated: bool,
    /// Spawns nothing: a thread whose own place in the tree the engine cannot know (no link,
    /// a parent not written) or a review sub-agent.
    leaf: bool,
}

const TOOLS: &[&str] = &["shell_command", "exec_command", "apply_patch", "read_file"];
const WORDS: &[&str] = &["alpha", "beta", "gamma", "delta", "parser", "index", "review", "tests", "cache", "queue"];

impl Codex {
    fn tick(&mut self, lo: u64, hi: u64) -> u64 {
        self.clock += self.rng.range(lo, hi);
        self.clock
    }

    /// Between `lo` and `hi` words.
    fn words(&mut self, lo: u64, hi: u64) -> String {
        crate::words_of(&mut self.rng, WORDS, lo, hi)
    }

    fn thread_id(&mut self) -> String {
        self.threads += 1;
        format!("019{:05x}-{:04x}-7000-8000-{:012x}", self.trees & 0xfffff, self.threads & 0xffff, self.threads)
    }

    fn open(&mut self, id: &str, paginated: bool) -> io::Result<File> {
        let (date, time) = stamp(self.clock);
        let (y, rest) = date.split_at(4);
        let (m, d) = (&rest[1..3], &rest[4..6]);
        let folder = self.dir.join(y).join(m).join(d);
        std::fs::create_dir_all(&folder)?;
        let name = format!("rollout-{date}T{}-{id}.jsonl", time[..8].replace(':', "-"));
        let w = BufWriter::with_capacity(1 << 16, std::fs::File::create(folder.join(name))?);
        self.out.stats.files += 1;
        self.out.stats.sessions += 1;
        Ok(File {
            w,
            paginated,
            ordinal: 0,
            turn_lines: Vec::new(),
            meta: String::new(),
            total: [0; 3],
            pending: Vec::new(),
        })
    }

    /// Write one record: the envelope around `payload` at the clock's time.
    fn line(&mut self, f: &mut File, kind: &str, payload: &str) -> io::Result<()> {
        let (date, time) = stamp(self.clock);
        let ordinal = if f.paginated { format!(",\"ordinal\":{}", f.ordinal) } else { String::new() };
        f.ordinal += 1;
        let l = format!("{{\"timestamp\":\"{date}T{time}Z\",\"type\":\"{kind}\"{ordinal},\"payload\":{payload}}}");
        self.raw(f, &l)?;
        f.turn_lines.push(l);
        self.out.stats.records += 1;
        // A malformed line now and then, at a tenth of the fault rate.
        if self.rng.chance(self.opts.fault_rate / 10.0) {
            self.raw(f, "{\"timestamp\":\"2026-09-12T00:00:00Z\",\"type\":")?;
            self.out.stats.malformed += 1;
            self.out.stats.expect("malformed-line");
        }
        Ok(())
    }

    fn raw(&mut self, f: &mut File, l: &str) -> io::Result<()> {
        f.w.write_all(l.as_bytes())?;
        f.w.write_all(b"\n")?;
        self.out.stats.bytes += l.len() as u64 + 1;
        self.out.stats.lines += 1;
        Ok(())
    }

    fn root(&mut self) -> io::Result<()> {
        self.trees += 1;
        let paginated = self.rng.chance(0.3);
        let id = self.thread_id();
        let mut f = self.open(&id, paginated)?;
        let meta = format!(
            "{{\"id\":\"{id}\",\"session_id\":\"{id}\",\"timestamp\":\"{}\",\"cwd\":\"/work/demo\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.147.0\",\"source\":\"cli\",\"thread_source\":\"user\",\"model_provider\":\"openai\",\"history_mode\":\"{}\"}}",
            iso(self.clock),
            if paginated { "paginated" } else { "legacy" }
        );
        f.meta = meta.clone();
        self.line(&mut f, "session_meta", &meta)?;
        let place = Place { id, path: "/root".into(), depth: 0, paginated, leaf: false };
        let turns = self.rng.range(20, 80);
        for t in 0..turns {
            self.out.stats.root_turns += 1;
            self.turn(&mut f, &place, t, turns, None)?;
            if self.out.stats.bytes >= self.opts.target_bytes {
                break;
            }
        }
        self.deliver(&mut f)?;
        self.close(f)
    }

    /// Replies of background children still on their way arrive after the thread's last turn.
    fn deliver(&mut self, f: &mut File) -> io::Result<()> {
        for (author, text) in std::mem::take(&mut f.pending) {
            self.final_answer(f, &author, &text)?;
        }
        Ok(())
    }

    fn close(&mut self, mut f: File) -> io::Result<()> {
        f.w.flush()
    }

    /// One turn of `place`'s thread; `reply` is the text its last message must have (a child's).
    fn turn(&mut self, f: &mut File, place: &Place, t: u64, turns: u64, reply: Option<&str>) -> io::Result<String> {
        f.turn_lines.clear();
        let turn_id = format!("{}-t{t}", &place.id[..8]);
        self.tick(500, 3000);
        self.line(
            f,
            "event_msg",
            &format!("{{\"type\":\"task_started\",\"turn_id\":\"{turn_id}\",\"model_context_window\":258400}}"),
        )?;
        self.out.stats.turns += 1;
        let model = if place.depth == 0 { "gpt-5.2-codex" } else { "gpt-5.1-codex-mini" };
        self.tick(5, 40);
        self.line(
            f,
            "turn_context",
            &format!(
                "{{\"turn_id\":\"{turn_id}\",\"cwd\":\"/work/demo\",\"model\":\"{model}\",\"effort\":\"medium\"}}"
            ),
        )?;
        let prompt = self.words(4, 30);
        self.tick(5, 40);
        self.line(f, "response_item", &format!("{{\"type\":\"message\",\"role\":\"user\",\"content\":[{{\"type\":\"input_text\",\"text\":\"{prompt}\"}}]}}"))?;
        self.line(f, "event_msg", &format!("{{\"type\":\"user_message\",\"message\":\"{prompt}\",\"images\":[]}}"))?;
        // Replies of background children spawned in the previous turn arrive now.
        self.deliver(f)?;
        if place.depth == 0 && self.rng.chance(0.04) {
            self.review(f, place)?;
        }
        let calls = if place.depth == 0 { self.rng.range(1, 6) } else { self.rng.range(1, 4) };
        for c in 0..calls {
            self.call(f, place, c + 1 == calls, &turn_id)?;
        }
        if self.rng.chance(0.05) {
            self.tick(100, 900);
            let summary = self.words(12, 12);
            self.line(
                f,
                "compacted",
                &format!("{{\"message\":\"{summary}\",\"window_number\":1,\"replacement_history\":[]}}"),
            )?;
            self.line(f, "event_msg", "{\"type\":\"context_compacted\"}")?;
        }
        // The turn's last model call: its final message.
        let text = match reply {
            Some(r) => r.to_owned(),
            None => self.words(6, 60),
        };
        self.tick(300, 4000);
        self.line(f, "response_item", &format!("{{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"output_text\",\"text\":\"{text}\"}}]}}"))?;
        self.tokens(f)?;
        // A turn left open (the last of its thread, or cut by the next start).
        if t + 1 == turns && self.rng.chance(self.opts.fault_rate) {
            self.out.stats.expect("unclosed-at-end");
            return Ok(text);
        }
        self.tick(5, 40);
        self.line(f, "event_msg", &format!("{{\"type\":\"task_complete\",\"turn_id\":\"{turn_id}\",\"last_agent_message\":\"{text}\",\"duration_ms\":9000}}"))?;
        Ok(text)
    }

    /// One model call: reasoning, a tool call, its count, the tool's output; maybe a spawn.
    fn call(&mut self, f: &mut File, place: &Place, last: bool, turn_id: &str) -> io::Result<()> {
        self.tick(500, 5000);
        let enc: String =
            (0..self.rng.range(200, 900)).map(|i| (b'A' + ((i * 7 + self.clock) % 26) as u8) as char).collect();
        let title = self.words(4, 4);
        self.line(f, "response_item", &format!("{{\"type\":\"reasoning\",\"summary\":[{{\"type\":\"summary_text\",\"text\":\"**{title}**\"}}],\"content\":null,\"encrypted_content\":\"gAAAA{enc}\"}}"))?;
        let spawn = !place.leaf
            && place.depth < self.opts.depth
            && !last
            && self.rng.chance(if place.depth == 0 { 0.12 } else { 0.08 });
        if spawn {
            let n = self.rng.range(1, u64::from(self.opts.fanout.max(1)));
            for _ in 0..n {
                self.spawn(f, place, turn_id)?;
            }
            return Ok(());
        }
        let tool = TOOLS[self.rng.below(TOOLS.len() as u64) as usize];
        let call_id = format!("call_{:x}", self.rng.next() & 0xffff_ffff_ffff);
        self.tick(5, 200);
        let command = self.words(3, 3);
        self.line(f, "response_item", &format!("{{\"type\":\"function_call\",\"name\":\"{tool}\",\"arguments\":\"{{\\\"command\\\":\\\"{command}\\\"}}\",\"call_id\":\"{call_id}\"}}"))?;
        self.tokens(f)?;
        self.tick(50, 2000);
        let output = self.words(40, 1500);
        self.line(f, "response_item", &format!("{{\"type\":\"function_call_output\",\"call_id\":\"{call_id}\",\"output\":\"Exit code: 0\\nOutput:\\n{output}\"}}"))?;
        Ok(())
    }

    /// A token count for the model call just made, and (in a legacy rollout, after the next
    /// turn_context) now and then its unchanged repeat.
    fn tokens(&mut self, f: &mut File) -> io::Result<()> {
        let input = self.rng.range(2000, 40000);
        let cached = self.rng.range(0, input);
        let output = self.rng.range(10, 900);
        f.total = [f.total[0] + input, f.total[1] + cached, f.total[2] + output];
        self.out.input += input - cached;
        self.out.cache_read += cached;
        self.out.output += output;
        let u = |i: u64, c: u64, o: u64| {
            format!("{{\"input_tokens\":{i},\"cached_input_tokens\":{c},\"output_tokens\":{o},\"reasoning_output_tokens\":0,\"total_tokens\":{}}}", i + o)
        };
        let payload = format!(
            "{{\"type\":\"token_count\",\"info\":{{\"total_token_usage\":{},\"last_token_usage\":{},\"model_context_window\":258400}},\"rate_limits\":{{\"primary\":{{\"used_percent\":1.0,\"window_minutes\":300}}}}}}",
            u(f.total[0], f.total[1], f.total[2]),
            u(input, cached, output)
        );
        self.tick(5, 50);
        self.line(f, "event_msg", &payload)?;
        if self.rng.chance(0.3) {
            self.line(f, "event_msg", &payload)?;
        }
        Ok(())
    }

    fn final_answer(&mut self, f: &mut File, author: &str, text: &str) -> io::Result<()> {
        self.tick(5, 100);
        self.line(f, "response_item", &format!("{{\"type\":\"agent_message\",\"author\":\"{author}\",\"recipient\":\"/root\",\"content\":[{{\"type\":\"input_text\",\"text\":\"Message Type: FINAL_ANSWER\\nTask name: /root\\nSender: {author}\\nPayload:\\n{text}\"}}]}}"))
    }

    /// Spawn one child thread: the call, the activity, the child's rollout written whole, the
    /// call's output, and its reply now or (a background spawn) in the next turn.
    fn spawn(&mut self, f: &mut File, place: &Place, turn_id: &str) -> io::Result<()> {
        let id = self.thread_id();
        let name = format!("{}_{}", WORDS[self.rng.below(WORDS.len() as u64) as usize], self.threads);
        let path = format!("{}/{name}", place.path);
        let call_id = format!("call_spawn_{:x}", self.rng.next() & 0xffff_ffff);
        let fork = self.rng.chance(0.15);
        let unlinked = self.rng.chance(self.opts.fault_rate);
        let lost_parent = !unlinked && self.rng.chance(self.opts.fault_rate);
        self.tick(5, 200);
        let (turns, secret) = (if fork { "all" } else { "none" }, self.rng.next());
        self.line(f, "response_item", &format!("{{\"type\":\"function_call\",\"name\":\"spawn_agent\",\"namespace\":\"collaboration\",\"arguments\":\"{{\\\"task_name\\\":\\\"{name}\\\",\\\"fork_turns\\\":\\\"{turns}\\\",\\\"message\\\":\\\"gAAAAB{secret}\\\"}}\",\"call_id\":\"{call_id}\"}}"))?;
        if !unlinked && !lost_parent {
            self.tick(5, 100);
            if place.paginated {
                self.line(f, "event_msg", &format!("{{\"type\":\"item_completed\",\"thread_id\":\"{}\",\"turn_id\":\"{turn_id}\",\"item\":{{\"type\":\"SubAgentActivity\",\"id\":\"{call_id}\",\"agent_path\":\"{path}\",\"agent_thread_id\":\"{id}\",\"kind\":\"started\"}}}}", place.id))?;
            } else {
                self.line(f, "event_msg", &format!("{{\"type\":\"sub_agent_activity\",\"event_id\":\"{call_id}\",\"agent_thread_id\":\"{id}\",\"agent_path\":\"{path}\",\"kind\":\"started\"}}"))?;
            }
        }
        self.tokens(f)?;
        let leaf = unlinked || lost_parent;
        let child =
            Place { id: id.clone(), path: path.clone(), depth: place.depth + 1, paginated: place.paginated, leaf };
        let reply = self.child(f, &child, &place.id, fork, unlinked, lost_parent)?;
        self.tick(5, 100);
        self.line(f, "response_item", &format!("{{\"type\":\"function_call_output\",\"call_id\":\"{call_id}\",\"output\":\"{{\\\"task_name\\\":\\\"{path}\\\"}}\"}}"))?;
        if let Some(reply) = reply {
            // What the parent received differs from the child's own last reply, now and then.
            let received = if self.rng.chance(self.opts.fault_rate) {
                self.out.stats.expect("subagent-reply-differs");
                format!("{reply} (edited)")
            } else {
                reply
            };
            if self.rng.chance(0.25) {
                f.pending.push((path, received));
            } else {
                self.final_answer(f, &child.path, &received)?;
            }
        }
        Ok(())
    }

    /// A child's rollout; its last reply, when its parent will hear of it.
    fn child(
        &mut self,
        parent: &mut File,
        place: &Place,
        parent_id: &str,
        fork: bool,
        unlinked: bool,
        lost: bool,
    ) -> io::Result<Option<String>> {
        self.tick(5, 100);
        let mut f = self.open(&place.id, place.paginated)?;
        self.out.stats.runs += 1;
        if !place.leaf {
            self.out.stats.max_depth = self.out.stats.max_depth.max(place.depth);
        }
        let named = if lost { format!("019lost-{}", self.threads) } else { parent_id.to_owned() };
        let nickname = WORDS[self.rng.below(WORDS.len() as u64) as usize];
        let source = if unlinked {
            "{\"subagent\":\"other\"}".to_owned()
        } else {
            format!("{{\"subagent\":{{\"thread_spawn\":{{\"parent_thread_id\":\"{named}\",\"depth\":{},\"agent_path\":\"{}\",\"agent_nickname\":\"{nickname}\",\"agent_role\":null}}}}}}", place.depth, place.path)
        };
        if unlinked {
            self.out.stats.expect("subagent-link-inferred");
        }
        if lost {
            self.out.stats.expect("missing-parent-session");
        }
        let history_start = if fork && place.paginated {
            format!(",\"subagent_history_start_ordinal\":{}", parent.turn_lines.len() + 2)
        } else {
            String::new()
        };
        let forked = if fork { format!(",\"forked_from_id\":\"{parent_id}\"") } else { String::new() };
        let meta = format!(
            "{{\"id\":\"{}\",\"session_id\":\"root\",\"timestamp\":\"{}\",\"cwd\":\"/work/demo\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.147.0\",\"source\":{source},\"thread_source\":\"subagent\",\"history_mode\":\"{}\",\"multi_agent_version\":\"v2\"{forked}{history_start}}}",
            place.id,
            iso(self.clock),
            if place.paginated { "paginated" } else { "legacy" }
        );
        f.meta = meta.clone();
        self.line(&mut f, "session_meta", &meta)?;
        if fork {
            // The parent's history, re-stamped to the fork instant: its session_meta, then its
            // current turn up to the spawn.
            self.out.stats.expect("replayed-history");
            let copied: Vec<String> = std::iter::once(parent.meta.clone())
                .map(|m| format!("{{\"type\":\"session_meta\",\"payload\":{m}}}"))
                .chain(parent.turn_lines.iter().cloned())
                .collect();
            let (date, time) = stamp(self.clock);
            for l in copied {
                let body = l.split_once("\"type\":").map_or(l.as_str(), |(_, b)| b);
                let body = strip_ordinal(body);
                let ordinal = if f.paginated { format!(",\"ordinal\":{}", f.ordinal) } else { String::new() };
                f.ordinal += 1;
                let line = format!("{{\"timestamp\":\"{date}T{time}Z\"{ordinal},\"type\":{body}");
                self.raw(&mut f, &line)?;
                self.out.stats.records += 1;
            }
            self.tick(1000, 2000);
        }
        let turns = self.rng.range(4, 12);
        let mut reply = String::new();
        for t in 0..turns {
            reply = self.turn(&mut f, place, t, turns, None)?;
        }
        self.deliver(&mut f)?;
        self.close(f)?;
        Ok((!unlinked && !lost).then_some(reply))
    }

    /// A review sub-agent: the parent enters review mode, the review rollout starts within a
    /// second (with no parent id), and the parent leaves review mode.
    fn review(&mut self, f: &mut File, place: &Place) -> io::Result<()> {
        // Windows of different rollouts never overlap: the clock jumps past any earlier one.
        self.tick(1500, 2000);
        self.line(f, "event_msg", "{\"type\":\"entered_review_mode\",\"target\":{\"type\":\"uncommittedChanges\"},\"user_facing_hint\":\"current changes\"}")?;
        let id = self.thread_id();
        let late = self.rng.chance(self.opts.fault_rate);
        if late {
            self.tick(1500, 2500);
            self.out.stats.expect("subagent-link-inferred");
        } else {
            self.tick(20, 600);
        }
        let mut r = self.open(&id, false)?;
        self.out.stats.runs += 1;
        if !late {
            self.out.stats.max_depth = self.out.stats.max_depth.max(place.depth + 1);
            self.out.windows += 1;
        }
        let meta = format!("{{\"id\":\"{id}\",\"timestamp\":\"{}\",\"cwd\":\"/work/demo\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.77.0\",\"source\":{{\"subagent\":\"review\"}}}}", iso(self.clock));
        self.line(&mut r, "session_meta", &meta)?;
        let child =
            Place { id, path: format!("{}/review", place.path), depth: place.depth + 1, paginated: false, leaf: true };
        self.turn(&mut r, &child, 0, 1, None)?;
        self.close(r)?;
        self.tick(100, 500);
        self.line(f, "event_msg", "{\"type\":\"exited_review_mode\",\"review_output\":null}")
    }
}

/// A copied line's envelope without its `ordinal` (the copy is numbered afresh).
fn strip_ordinal(body: &str) -> String {
    match body.find(",\"ordinal\":") {
        Some(i) => {
            let rest = &body[i + 11..];
            let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            format!("{}{}", &body[..i], &rest[end..])
        }
        None => body.to_owned(),
    }
}

pub(crate) fn iso(ms: u64) -> String {
    let (d, t) = stamp(ms);
    format!("{d}T{t}Z")
}

/// `("YYYY-MM-DD", "HH:MM:SS.mmm")` of epoch milliseconds (UTC).
fn stamp(ms: u64) -> (String, String) {
    let secs = ms / 1000;
    let sod = secs % 86_400;
    let (y, m, d) = crate::civil_from_days((secs / 86_400) as i64);
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!("{:02}:{:02}:{:02}.{:03}", sod / 3600, sod / 60 % 60, sod % 60, ms % 1000),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_civil_dates() {
        assert_eq!(iso(1_789_171_200_000), "2026-09-12T00:00:00.000Z");
        assert_eq!(iso(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(strip_ordinal(r#""event_msg","ordinal":12,"payload":{}}"#), r#""event_msg","payload":{}}"#);
    }
}
