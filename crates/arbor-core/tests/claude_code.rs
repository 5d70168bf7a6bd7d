//! The Claude Code reader (SPEC 2.4): every corpus transcript loads with its tree asserted; the
//! reply of a message split over lines; settling again; bad input (a transcript cut mid-line, a
//! sidecar that is not JSON, a sub-agent whose session is not loaded, a cycle of
//! `parentAgentId`s, a 100 MB message, a folder of mixed formats), each a report with findings
//! and every line accounted for; and, as properties, link precedence whatever the order of files
//! and lines.

use crate::common;

use arbor_core::report::{Link, Outcome, Report, Session};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn corpus(rel: &str) -> PathBuf {
    common::repo().join("tests/corpus/claude-code").join(rel)
}

fn session<'r>(r: &'r Report, id: &str) -> &'r Session {
    r.sessions.iter().find(|s| s.id == id).unwrap_or_else(|| panic!("no session {id}:\n{}", common::tree(r)))
}

fn codes(r: &Report) -> Vec<String> {
    common::findings(r)
}

/// Every non-blank line of every input is a record or a bad line, and the index holds them all.
fn assert_every_line_counted(a: &arbor_core::Analysis) {
    let r = a.report();
    for (info, input) in a.files.iter().zip(&r.inputs) {
        if input.format == "unknown" {
            continue;
        }
        let bytes = std::fs::read(&info.path).unwrap();
        let lines = bytes.split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)).count() as u64;
        assert_eq!(input.records + input.bad_lines, lines, "{}: lines lost", input.file);
    }
    assert_eq!(a.records().len() as u64, r.inputs.iter().map(|i| i.records).sum::<u64>());
}

fn analyze(paths: &[PathBuf]) -> (arbor_core::Analysis, Report) {
    let a = arbor_core::analyze(paths, &mut ());
    common::streamed_as_owned(&a);
    let r = a.report();
    (a, r)
}

/// One line of a transcript, from a JSON value.
fn line(v: Value) -> String {
    serde_json::to_string(&v).unwrap() + "\n"
}

fn write(dir: &Path, rel: &str, text: &str) -> PathBuf {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn user(uuid: &str, parent: Option<&str>, sid: &str, content: Value) -> Value {
    json!({"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": sid, "timestamp": "2026-09-12T10:00:00Z",
           "message": {"role": "user", "content": content}})
}

fn assistant(uuid: &str, parent: &str, sid: &str, id: &str, blocks: Value) -> Value {
    json!({"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": sid, "requestId": format!("req-{id}"),
           "timestamp": "2026-09-12T10:00:01Z",
           "message": {"id": id, "role": "assistant", "model": "claude-test", "content": blocks, "stop_reason": "end_turn",
                       "usage": {"input_tokens": 1, "output_tokens": 2}}})
}

fn agent_line(mut v: Value, agent: &str) -> Value {
    v["agentId"] = json!(agent);
    v["isSidechain"] = json!(true);
    v
}

mod corpus_trees {
    use super::*;

    #[test]
    fn a_two_one_session_with_its_subagents_folder_is_one_tree() {
        let (a, r) = analyze(&[corpus("agent-sessions")]);
        assert_every_line_counted(&a);
        let root = "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f";
        assert_eq!(session(&r, root).depth, Some(0));
        // The fixture's sub-agent lines carry `sessionId: agent-<id>`, not the root's: the
        // folder the transcript sits in names its session.
        let child = session(&r, "a0ad4f44468bdf20d");
        assert_eq!((child.parent.as_deref(), child.root.as_deref(), child.depth), (Some(root), Some(root), Some(1)));
        assert_eq!(child.runs[0].link, Link::Inferred, "its Task call has no id and no prompt");
        assert_eq!(child.runs[0].outcome, Outcome::Open);
        // Its Task call is answered by it, hung under the root by inference: no transcript is missing.
        assert_eq!(codes(&r), ["subagent-link-inferred@1"]);
        assert_eq!(r.turns.iter().filter(|t| t.session == root).count(), 1);
        let reply = r.replies.iter().find(|x| x.session == root).unwrap();
        assert_eq!(reply.text, "Spawning a subagent.");
    }

    #[test]
    fn opening_the_session_file_alone_reads_its_own_subagents() {
        let (a, r) = analyze(&[corpus("agent-sessions/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl")]);
        assert_every_line_counted(&a);
        let files: Vec<&str> = r.inputs.iter().map(|i| i.file.as_str()).collect();
        assert_eq!(files.len(), 2, "{files:?}");
        assert!(files[1].ends_with("0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f/subagents/agent-a0ad4f44468bdf20d.jsonl"));
        assert_eq!(session(&r, "a0ad4f44468bdf20d").depth, Some(1));
    }

    #[test]
    fn the_viewer_project_has_inline_sidechains_under_their_task_calls() {
        let (a, r) = analyze(&[corpus("claude-code-viewer")]);
        assert_every_line_counted(&a);
        assert!(r.inputs.iter().all(|i| i.format == "claude-code" && i.bad_lines == 0));
        let roots: Vec<&str> = r.sessions.iter().filter(|s| s.depth == Some(0)).map(|s| s.id.as_str()).collect();
        assert_eq!(
            roots,
            // In the order they were written (the plan reads a folder's sessions by time).
            [
                "1af7fc5e-8455-4414-9ccd-011d40f70b2a",
                "fe5e1c67-53e7-4862-81ae-d0e013e3270b",
                "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
            ]
        );
        let kids =
            |root: &str| -> Vec<&Session> { r.sessions.iter().filter(|s| s.parent.as_deref() == Some(root)).collect() };
        // fe5e1c67: five Task calls (three of them parallel), five sidechains, each linked by its
        // prompt and answered without error.
        let fe = kids("fe5e1c67-53e7-4862-81ae-d0e013e3270b");
        assert_eq!(fe.len(), 5, "{}", common::tree(&r));
        for k in &fe {
            assert!(k.id.starts_with("sidechain-"));
            assert_eq!((k.runs.len(), k.runs[0].link, k.runs[0].outcome), (1, Link::Prompt, Outcome::Ok), "{}", k.id);
            assert!(k.runs[0].received.as_ref().is_some_and(|x| !x.text.is_empty()));
            assert!(k.label.is_some());
        }
        let labels: Vec<&str> = fe.iter().filter_map(|k| k.label.as_deref()).collect();
        assert!(labels.contains(&"Build TODO components") && labels.contains(&"Setup Next.js project"), "{labels:?}");
        // 5c0375b4: one Task call failed validation (no prompt), two ran as sidechains, and the
        // agent file beside the sessions has no link at all.
        let c5 = kids("5c0375b4-57a5-4f26-b12d-d022ee4e51b7");
        let links: Vec<(&str, Link)> = c5.iter().map(|k| (k.id.as_str(), k.runs[0].link)).collect();
        assert_eq!(links.len(), 3, "{links:?}");
        assert_eq!(links.iter().filter(|(_, l)| *l == Link::Prompt).count(), 2);
        assert!(links.contains(&("test-hash-123", Link::Inferred)));
        assert_eq!(codes(&r), ["subagent-link-inferred@1"]);
        // Tokens: every root has some, and a sidechain's are its own, not its parent's.
        let fe_root = session(&r, "fe5e1c67-53e7-4862-81ae-d0e013e3270b");
        let own = fe_root.usage.clone().unwrap();
        let subtree = fe_root.subtree_usage.clone().unwrap();
        let kids_out: u64 = fe.iter().map(|k| k.usage.as_ref().unwrap().output).sum();
        assert_eq!(subtree.output, own.output + kids_out);
        assert!(r.usage.as_ref().unwrap().models.iter().any(|m| m.model == "claude-sonnet-4-20250514"));
        // Every turn's reply is read back from its line.
        assert!(r.replies.len() >= 10);
        assert!(r.replies.iter().any(|x| x.text.starts_with("## ✅ TODO App Creation Complete")));
    }

    #[test]
    fn the_agtrace_pair_is_a_session_and_its_warmup_agent() {
        let (a, r) = analyze(&[corpus("agtrace_claude_session.jsonl"), corpus("agtrace_claude_agent.jsonl")]);
        assert_every_line_counted(&a);
        let root = "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9";
        let agent = session(&r, "0c4c3cf8");
        assert_eq!((agent.parent.as_deref(), agent.depth), (Some(root), Some(1)));
        assert_eq!(agent.runs[0].link, Link::Inferred);
        let turns: Vec<_> = r.turns.iter().filter(|t| t.session == root).collect();
        assert!(turns.len() >= 2, "{turns:?}");
        // A split message's usage counts once: the session's output tokens are the largest
        // snapshot of each message, not the sum of its lines.
        let lines = std::fs::read_to_string(corpus("agtrace_claude_session.jsonl")).unwrap();
        let mut best: std::collections::BTreeMap<String, u64> = Default::default();
        for l in lines.lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            if v["type"] == "assistant" {
                let key = format!("{}|{}", v["message"]["id"], v["requestId"]);
                let out = v["message"]["usage"]["output_tokens"].as_u64().unwrap_or(0);
                let e = best.entry(key).or_default();
                *e = (*e).max(out);
            }
        }
        assert_eq!(session(&r, root).usage.as_ref().unwrap().output, best.values().sum::<u64>());
    }
}

mod semantics {
    use super::*;

    /// The reply of a message split over lines (one content block a line, sharing `message.id`)
    /// is read back from the message's last line with text: real transcripts never split a
    /// message's text over two lines (none of the corpus does), and a record names one line.
    #[test]
    fn a_split_messages_reply_is_its_last_text_line() {
        let dir = tempfile::tempdir().unwrap();
        let s = "s1";
        let mut text = line(user("u1", None, s, json!("hi")));
        text += &line(assistant("a1", "u1", s, "m1", json!([{"type": "thinking", "thinking": "…"}])));
        text += &line(assistant("a2", "a1", s, "m1", json!([{"type": "text", "text": "Hello \"you\"."}])));
        text += &line(assistant(
            "a3",
            "a2",
            s,
            "m1",
            json!([{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]),
        ));
        let p = write(dir.path(), "s1.jsonl", &text);
        let (_, r) = analyze(std::slice::from_ref(&p));
        let reply = &r.replies[0];
        assert_eq!((reply.text.as_str(), reply.at.line), ("Hello \"you\".", 3));
        assert_eq!(r.turns[0].steps, 1);
        // A last message with no text at all has an empty reply, at its last line.
        text += &line(user("r1", Some("a3"), s, json!([{"type": "tool_result", "tool_use_id": "t", "content": "ok"}])));
        text += &line(assistant(
            "a4",
            "r1",
            s,
            "m2",
            json!([{"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}]),
        ));
        std::fs::write(&p, &text).unwrap();
        let (_, r) = analyze(&[p]);
        assert_eq!((r.replies[0].text.as_str(), r.replies[0].at.line, r.turns[0].steps), ("", 6, 2));
    }

    /// `subagent-transcript-missing` is for a call no loaded sub-agent answers by any evidence,
    /// `inferred` included (SPEC 2.4 Missing transcripts): of two Task calls no evidence pairs
    /// with a file, one is answered by the sub-agent hung under the root by inference, the other
    /// has no transcript; a call the weaker of two disagreeing links names is answered too.
    #[test]
    fn a_transcript_is_missing_only_for_a_call_no_loaded_subagent_answers() {
        let dir = tempfile::tempdir().unwrap();
        let s = "root";
        let call = |uuid: &str, parent: &str, id: &str, tool: &str, prompt: &str| {
            line(assistant(
                uuid,
                parent,
                s,
                id,
                json!([{"type": "tool_use", "id": tool, "name": "Task", "input": {"prompt": prompt}}]),
            ))
        };
        let mut text = line(user("u1", None, s, json!("go")));
        text += &call("a1", "u1", "m1", "toolu_1", "first task");
        text += &call("a2", "a1", "m2", "toolu_2", "second task");
        let root = write(dir.path(), "root.jsonl", &text);
        // The child's prompt matches neither call, and nothing else names it.
        let child = line(agent_line(user("c1", None, s, json!("something else")), "c1"))
            + &line(agent_line(assistant("c2", "c1", s, "mc", json!([{"type": "text", "text": "done"}])), "c1"));
        write(dir.path(), "root/subagents/agent-c1.jsonl", &child);
        let (_, r) = analyze(std::slice::from_ref(&root));
        assert_eq!(session(&r, "c1").runs[0].link, Link::Inferred);
        assert_eq!(codes(&r), ["subagent-transcript-missing@3", "subagent-link-inferred@1"], "{}", common::tree(&r));
        // Matched by its prompt, the child answers the second call; the first has no transcript.
        let child = line(agent_line(user("c1", None, s, json!("second task")), "c1"))
            + &line(agent_line(assistant("c2", "c1", s, "mc", json!([{"type": "text", "text": "done"}])), "c1"));
        write(dir.path(), "root/subagents/agent-c1.jsonl", &child);
        let (_, r) = analyze(&[root]);
        assert_eq!(session(&r, "c1").runs[0].link, Link::Prompt);
        assert_eq!(codes(&r), ["subagent-transcript-missing@2"], "{}", common::tree(&r));
    }

    /// Settling keeps its evidence: run again (as following a live log will), it writes the same
    /// tree, findings and received texts, not a second copy of them.
    #[test]
    fn settling_again_gives_the_same_report() {
        for case in ["claude-code-subagents-meta", "claude-code-links-disagree", "claude-code-outcomes"] {
            let input = common::repo().join("tests/conformance/cases").join(case).join("input");
            let mut a = arbor_core::analyze(&[input], &mut ());
            let once = serde_json::to_string(&a.report()).unwrap();
            let format = arbor_core::formats::by_id("claude-code").unwrap();
            format.reader.settle(&mut a.cx);
            format.reader.settle(&mut a.cx);
            assert_eq!(serde_json::to_string(&a.report()).unwrap(), once, "{case}");
        }
    }

    /// A 2.0 session opened alone brings the `agent-*.jsonl` beside it that name it as their
    /// session, and not those of the other sessions of the folder.
    #[test]
    fn an_opened_two_zero_session_brings_only_its_own_agent_files() {
        let dir = tempfile::tempdir().unwrap();
        let mine = write(dir.path(), "s1.jsonl", &line(user("u1", None, "s1", json!("hi"))));
        write(dir.path(), "agent-a1.jsonl", &line(agent_line(user("c1", None, "s1", json!("task")), "a1")));
        write(dir.path(), "agent-b1.jsonl", &line(agent_line(user("d1", None, "s2", json!("task")), "b1")));
        write(dir.path(), "s2.jsonl", &line(user("v1", None, "s2", json!("hi"))));
        let (a, r) = analyze(&[mine]);
        assert_every_line_counted(&a);
        let files: Vec<&str> = r.inputs.iter().map(|i| i.file.rsplit('/').next().unwrap()).collect();
        assert_eq!(files, ["s1.jsonl", "agent-a1.jsonl"]);
        assert_eq!(session(&r, "a1").parent.as_deref(), Some("s1"));
    }

    /// A compaction boundary is a mark on its session's timeline (a `compaction` record).
    #[test]
    fn a_compact_boundary_is_a_compaction_record() {
        let input = common::repo().join("tests/conformance/cases/claude-code-compaction/input");
        let a = arbor_core::analyze(&[input], &mut ());
        let marks: Vec<_> =
            (0..a.records().len()).filter_map(|i| a.record_view(i)).filter(|r| r.kind == "compaction").collect();
        assert_eq!(marks.len(), 1);
        assert_eq!((marks[0].line, marks[0].session.as_deref()), (3, Some("s-c")));
    }
}

mod hostile {
    use super::*;

    fn meta_case(dir: &Path) -> PathBuf {
        let s = "s1";
        let mut root = line(user("u1", None, s, json!("go")));
        root += &line(assistant(
            "a1",
            "u1",
            s,
            "m1",
            json!([{"type": "tool_use", "id": "toolu_1", "name": "Agent", "input": {"prompt": "do it", "description": "job"}}]),
        ));
        root += &line(json!({"type": "user", "uuid": "r1", "parentUuid": "a1", "sessionId": s,
            "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "done"}]},
            "toolUseResult": {"agentId": "x1", "status": "completed"}}));
        write(dir, "s1.jsonl", &root);
        let mut child = line(agent_line(user("c1", None, s, json!("do it")), "x1"));
        child += &line(agent_line(assistant("c2", "c1", s, "mc", json!([{"type": "text", "text": "done"}])), "x1"));
        write(dir, "s1/subagents/agent-x1.jsonl", &child);
        dir.to_path_buf()
    }

    /// Opening a session file reads its own `<session>/subagents` folder, but not through a
    /// symbolic link to a folder elsewhere (SECURITY.md row 7): once it read what the link
    /// pointed at, a file the user never opened.
    #[cfg(unix)]
    #[test]
    fn a_session_file_does_not_read_a_subagents_folder_linked_from_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let opened = meta_case(dir.path()).join("s1.jsonl");
        let (_, r) = analyze(std::slice::from_ref(&opened));
        assert_eq!(r.inputs.len(), 2, "its own folder is read");
        std::fs::rename(dir.path().join("s1/subagents"), elsewhere.path().join("subagents")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path().join("subagents"), dir.path().join("s1/subagents")).unwrap();
        let (_, r) = analyze(std::slice::from_ref(&opened));
        let files: Vec<&str> = r.inputs.iter().map(|i| i.file.as_str()).collect();
        assert_eq!(files.len(), 1, "{files:?}");
        // Nor through a link at the session's folder itself.
        std::fs::remove_file(dir.path().join("s1/subagents")).unwrap();
        std::fs::remove_dir(dir.path().join("s1")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("s1")).unwrap();
        let (_, r) = analyze(std::slice::from_ref(&opened));
        assert_eq!(r.inputs.len(), 1, "{:?}", r.inputs);
    }

    #[test]
    fn a_transcript_cut_mid_line_ends_in_a_truncated_final_line() {
        let dir = tempfile::tempdir().unwrap();
        let folder = meta_case(dir.path());
        let p = folder.join("s1/subagents/agent-x1.jsonl");
        let mut text = std::fs::read_to_string(&p).unwrap();
        let cut = line(agent_line(assistant("c3", "c2", "s1", "mc2", json!([{"type": "text", "text": "more"}])), "x1"));
        text += &cut[..cut.len() / 2];
        std::fs::write(&p, text).unwrap();
        let (a, r) = analyze(&[folder]);
        assert_every_line_counted(&a);
        assert_eq!(codes(&r), ["truncated-final-line@3"]);
        let x1 = session(&r, "x1");
        assert_eq!((x1.runs[0].link, x1.runs[0].end.as_ref().unwrap().line), (Link::ToolResult, 2));
    }

    #[test]
    fn a_sidecar_that_is_not_json_is_a_malformed_line_and_the_next_link_stands() {
        let dir = tempfile::tempdir().unwrap();
        let folder = meta_case(dir.path());
        for (text, code) in [
            ("{\"agentType\":\"general-purpose\",\"toolUse", "truncated-final-line@1"),
            ("\u{0}\u{1}binary\n", "malformed-line@1"),
            ("[1,2,3]\n", "malformed-line@1"),
        ] {
            write(&folder, "s1/subagents/agent-x1.meta.json", text);
            let (a, r) = analyze(std::slice::from_ref(&folder));
            assert_every_line_counted(&a);
            let sidecar = r.inputs.iter().find(|i| i.file.ends_with(".meta.json")).unwrap();
            assert_eq!((sidecar.format.as_str(), sidecar.bad_lines), ("claude-code", 1), "{text:?}");
            assert_eq!(codes(&r), [code], "{text:?}");
            assert_eq!(session(&r, "x1").runs[0].link, Link::ToolResult);
        }
        // A sidecar alone in a folder, with no transcript beside it, is read only if it is one.
        let lone = tempfile::tempdir().unwrap();
        write(lone.path(), "agent-q.meta.json", "not json\n");
        write(lone.path(), "ok/agent-r.meta.json", "{\"agentType\":\"Explore\",\"toolUseId\":\"toolu_9\"}");
        let (_, r) = analyze(&[lone.path().to_path_buf()]);
        let formats: Vec<&str> = r.inputs.iter().map(|i| i.format.as_str()).collect();
        assert_eq!(formats, ["unknown", "claude-code"]);
        assert!(r.sessions.is_empty(), "a sidecar makes no session");
    }

    #[test]
    fn a_subagent_whose_session_is_not_loaded_keeps_its_parent_without_a_root() {
        let dir = tempfile::tempdir().unwrap();
        let folder = meta_case(dir.path());
        let (a, r) = analyze(&[folder.join("s1/subagents/agent-x1.jsonl")]);
        assert_every_line_counted(&a);
        let x1 = session(&r, "x1");
        assert_eq!((x1.parent.as_deref(), x1.root.as_deref(), x1.depth), (Some("s1"), None, None));
        assert_eq!(codes(&r), ["missing-parent-session@1"]);
    }

    #[test]
    fn a_cycle_of_parent_agent_ids_is_reported_and_the_report_is_made() {
        let dir = tempfile::tempdir().unwrap();
        let s = "s1";
        write(dir.path(), "s1.jsonl", &line(user("u1", None, s, json!("go"))));
        let ids = ["c1", "c2", "c3"];
        for (i, id) in ids.iter().enumerate() {
            let parent = ids[(i + 1) % ids.len()];
            let t = line(agent_line(user(&format!("{id}-u"), None, s, json!("loop")), id));
            write(dir.path(), &format!("s1/subagents/agent-{id}.jsonl"), &t);
            let meta =
                json!({"agentType": "x", "toolUseId": format!("gone-{id}"), "spawnDepth": 2, "parentAgentId": parent});
            write(dir.path(), &format!("s1/subagents/agent-{id}.meta.json"), &serde_json::to_string(&meta).unwrap());
        }
        let (a, r) = analyze(&[dir.path().to_path_buf()]);
        assert_every_line_counted(&a);
        for id in ids {
            let c = session(&r, id);
            assert_eq!((c.root.as_deref(), c.depth), (None, None), "{id}");
        }
        assert_eq!(codes(&r).iter().filter(|c| c.starts_with("ancestry-cycle")).count(), 1, "{:?}", codes(&r));
    }

    /// A single message of 100 MB (a text block, and a prompt of the same size) is read in
    /// place: its turn, reply and link come out right. Its memory is measured in bench/run,
    /// not here.
    #[test]
    fn a_hundred_megabyte_message_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let folder = meta_case(dir.path());
        // 100 MB as written (`word \n` is 7 bytes), 90 MB of text once decoded.
        let big = "word \\n".repeat(100_000_000 / 7);
        let p = folder.join("s1/subagents/agent-x1.jsonl");
        let mut text = std::fs::read_to_string(&p).unwrap();
        text += &format!(
            "{{\"type\":\"assistant\",\"uuid\":\"c9\",\"parentUuid\":\"c2\",\"sessionId\":\"s1\",\"agentId\":\"x1\",\"isSidechain\":true,\"message\":{{\"id\":\"mbig\",\"content\":[{{\"type\":\"text\",\"text\":\"{big}\"}}],\"stop_reason\":\"end_turn\"}}}}\n"
        );
        text += &format!(
            "{{\"type\":\"user\",\"uuid\":\"c10\",\"parentUuid\":\"c9\",\"sessionId\":\"s1\",\"agentId\":\"x1\",\"isSidechain\":true,\"message\":{{\"content\":\"{big}\"}}}}\n"
        );
        std::fs::write(&p, text).unwrap();
        let (a, r) = analyze(&[folder]);
        assert_every_line_counted(&a);
        let x1 = session(&r, "x1");
        assert_eq!(x1.runs[0].link, Link::ToolResult);
        let turns: Vec<_> = r.turns.iter().filter(|t| t.session == "x1").collect();
        assert_eq!(turns.len(), 2, "the big prompt opens a turn");
        let reply = r.replies.iter().find(|x| x.session == "x1" && x.turn == json!(1)).unwrap();
        assert_eq!(reply.text.len(), 100_000_000 / 7 * 6);
        assert_eq!(codes(&r), ["subagent-reply-differs@3"], "the parent received `done`, the child said more");
    }

    #[test]
    fn a_folder_of_mixed_formats_reads_each_file_in_its_own() {
        let dir = tempfile::tempdir().unwrap();
        meta_case(dir.path());
        let dsh = r#"{"method":"session.event","params":{"sessionId":"d1","event":{"type":"session/title","seq":0,"time":1,"data":{}}}}"#;
        write(dir.path(), "dsh/run.jsonl", &format!("{dsh}\n"));
        let cop = r#"{"type":"user.message","data":{"content":"hi"},"id":"e1","timestamp":"2026-09-12T00:00:05Z","parentId":null}"#;
        write(dir.path(), "copilot/events.jsonl", &format!("{cop}\n"));
        write(dir.path(), "notes.json", "{\"hello\": 1}\n");
        let (a, r) = analyze(&[dir.path().to_path_buf()]);
        assert_every_line_counted(&a);
        let mut formats: Vec<(String, &str)> =
            r.inputs.iter().map(|i| (i.file.rsplit('/').next().unwrap().to_owned(), i.format.as_str())).collect();
        formats.sort();
        assert_eq!(
            formats,
            [
                ("agent-x1.jsonl".to_owned(), "claude-code"),
                ("events.jsonl".to_owned(), "copilot-events"),
                ("notes.json".to_owned(), "unknown"),
                ("run.jsonl".to_owned(), "dsh-rpc"),
                ("s1.jsonl".to_owned(), "claude-code"),
            ]
        );
        assert_eq!(codes(&r), ["unknown-format@1"]);
        assert_eq!(session(&r, "x1").parent.as_deref(), Some("s1"));
    }
}

/// Link precedence as a property: a sub-agent with any set of evidence kinds, each naming a
/// different spawn call (or, for `parent-uuid`, another session), is linked by the strongest
/// present, whatever the order of the files given and of the result lines in its parent; every
/// weaker kind is a disagreement.
mod precedence {
    use super::*;

    const KINDS: [Link; 5] = [Link::Meta, Link::ToolResult, Link::ResultText, Link::ParentUuid, Link::Prompt];

    /// Writes the scenario and returns the paths, in `order`.
    fn scenario(dir: &Path, present: &[bool; 5], result_order: &[usize], order: &[usize]) -> Vec<PathBuf> {
        let (r, q, child) = ("root", "other", "kid");
        let prompt = "the kid's task";
        let calls = ["t_meta", "t_tr", "t_rt", "t_none", "t_pr"];
        let mut root = line(user("r-u", None, r, json!("go")));
        let mut prev = "r-u".to_owned();
        for (i, c) in calls.iter().enumerate() {
            let p = if i == 4 && present[4] { prompt.to_owned() } else { format!("another task {i}") };
            let uuid = format!("r-a{i}");
            root += &line(assistant(
                &uuid,
                &prev,
                r,
                "m-calls",
                json!([{"type": "tool_use", "id": c, "name": "Agent", "input": {"prompt": p}}]),
            ));
            prev = uuid;
        }
        for &i in result_order {
            let call = calls[i];
            let mut v = json!({"type": "user", "uuid": format!("r-r{i}"), "parentUuid": prev, "sessionId": r,
                "message": {"content": [{"type": "tool_result", "tool_use_id": call, "content": "ok"}]}});
            if i == 1 && present[1] {
                v["toolUseResult"] = json!({"agentId": child, "status": "completed"});
            }
            if i == 2 && present[2] {
                v["message"]["content"][0]["content"] = json!(format!("ok\nagentId: {child} (use SendMessage)"));
            }
            root += &line(v);
        }
        let other = line(user("q-u", None, q, json!("elsewhere")));
        let first_parent = if present[3] { Some("q-u") } else { None };
        let mut kid = line(agent_line(user("k-u", first_parent, r, json!(prompt)), child));
        kid += &line(agent_line(assistant("k-a", "k-u", r, "m-kid", json!([{"type": "text", "text": "ok"}])), child));
        let mut files = vec![
            write(dir, "root.jsonl", &root),
            write(dir, "other.jsonl", &other),
            write(dir, "root/subagents/agent-kid.jsonl", &kid),
        ];
        if present[0] {
            let meta = json!({"agentType": "general-purpose", "toolUseId": "t_meta", "spawnDepth": 1});
            files.push(write(dir, "root/subagents/agent-kid.meta.json", &serde_json::to_string(&meta).unwrap()));
        }
        let n = files.len();
        order
            .iter()
            .map(|&i| files[i % n].clone())
            .fold(Vec::new(), |mut v, p| {
                if !v.contains(&p) {
                    v.push(p);
                }
                v
            })
            .into_iter()
            .chain(files)
            .fold(Vec::new(), |mut v, p| {
                if !v.contains(&p) {
                    v.push(p);
                }
                v
            })
    }

    proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 96, failure_persistence: None, ..Default::default() })]

        #[test]
        fn the_strongest_evidence_wins_whatever_the_order(
            present in proptest::array::uniform5(any::<bool>()),
            result_order in Just((0..5usize).collect::<Vec<_>>()).prop_shuffle(),
            order in proptest::collection::vec(0..4usize, 0..6),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let paths = scenario(dir.path(), &present, &result_order, &order);
            let a = arbor_core::analyze(&paths, &mut ());
            let r = a.report();
            let kid = session(&r, "kid");
            let run = &kid.runs[0];
            let strongest = KINDS.iter().zip(present).find(|(_, p)| *p).map(|(k, _)| *k);
            match strongest {
                Some(Link::ParentUuid) => {
                    prop_assert_eq!(run.link, Link::ParentUuid);
                    prop_assert_eq!(kid.parent.as_deref(), Some("other"));
                }
                Some(link) => {
                    prop_assert_eq!(run.link, link);
                    prop_assert_eq!(kid.parent.as_deref(), Some("root"));
                    // The call each kind names has its own result line: what the kid's parent
                    // received is that call's.
                    let call = ["t_meta", "t_tr", "t_rt", "", "t_pr"][KINDS.iter().position(|k| *k == link).unwrap()];
                    let want = format!("r-r{}", ["t_meta", "t_tr", "t_rt", "t_none", "t_pr"].iter().position(|c| *c == call).unwrap());
                    let at = run.received.as_ref().map(|x| x.at.line).unwrap();
                    let raw = a.raw_line(&run.received.as_ref().unwrap().at.file, at).unwrap();
                    prop_assert!(raw.contains(&format!("\"uuid\":\"{want}\"")), "{}", raw);
                }
                None => {
                    prop_assert_eq!(run.link, Link::Inferred);
                    prop_assert_eq!(kid.parent.as_deref(), Some("root"));
                }
            }
            let disagree = r.diagnostics.iter().filter(|d| d.code == "subagent-links-disagree").count();
            let kinds = present.iter().filter(|p| **p).count();
            prop_assert_eq!(disagree, kinds.saturating_sub(1), "{:?}", common::findings(&r));
        }
    }
}

/// A uuid read in another file marks a replay only on the same line (SPEC 2.4 Chains): a copy of
/// a real session under another `sessionId` and `cwd` is its replay, read once; a copy whose
/// every message differs (a fixture folder that reuses ids) is a session of its own, with all
/// its events and tokens, and one `duplicate-uuid` with the count.
mod repeated_uuids {
    use super::*;

    /// The corpus session as another file: its `sessionId` and `cwd` changed in place (a resume
    /// writes the replayed lines as they were, its own fields aside), and with `change_text`,
    /// every message changed too.
    fn copy(sid: &str, change_text: bool) -> String {
        let text = std::fs::read_to_string(corpus("agtrace_claude_session.jsonl")).unwrap();
        let text = text
            .replace("7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9", sid)
            .replace(r#""cwd":"/Users/test_user"#, r#""cwd":"/elsewhere"#);
        match change_text {
            true => text.replace(r#""role":""#, r#""copied":true,"role":""#),
            false => text,
        }
    }

    #[test]
    fn the_same_line_is_a_replay_and_a_different_one_is_read_in_its_own_session() {
        let dir = tempfile::tempdir().unwrap();
        // Read in name order: the original first.
        let original = dir.path().join("a-original.jsonl");
        std::fs::copy(corpus("agtrace_claude_session.jsonl"), &original).unwrap();
        let alone = analyze(std::slice::from_ref(&original)).1;
        let sid = &alone.sessions[0].id;
        let events = alone.sessions[0].events;
        let tokens = alone.sessions[0].usage.clone().unwrap();
        assert!(events > 20 && tokens.output > 0, "{events} {tokens:?}");

        write(dir.path(), "b-resumed.jsonl", &copy("resumed", false));
        write(dir.path(), "c-fixture.jsonl", &copy("fixture", true));
        let (a, r) = analyze(&[dir.path().to_path_buf()]);
        assert_every_line_counted(&a);
        let own = session(&r, sid);
        assert_eq!((own.events, &own.usage), (events, &Some(tokens.clone())), "the original is read as alone");
        // The same lines: read once, the first time; nothing of them is the resume's own (its
        // four file-history-snapshot lines have no uuid: they are its own).
        let resumed = session(&r, "resumed");
        assert_eq!((resumed.events, &resumed.usage), (4, &None), "{resumed:?}");
        // Different lines that reuse the uuids (and message ids): a session of their own.
        let fixture = session(&r, "fixture");
        assert_eq!(fixture.events, events);
        assert_eq!(fixture.usage, Some(tokens), "tokens count once per session, so in each");
        let dup: Vec<_> = r.diagnostics.iter().filter(|d| d.code == "duplicate-uuid").collect();
        assert_eq!(dup.len(), 1, "{dup:?}");
        assert!(dup[0].at.file.ends_with("fixture.jsonl"), "{:?}", dup[0].at);
        assert!(dup[0].message.starts_with("22 lines"), "{}", dup[0].message);
        let replayed: Vec<_> = r.diagnostics.iter().filter(|d| d.code == "replayed-history").collect();
        assert_eq!(replayed.len(), 1, "{replayed:?}");
        assert!(replayed[0].at.file.ends_with("resumed.jsonl"));
        assert!(replayed[0].message.starts_with("22 lines"), "{}", replayed[0].message);
        assert_eq!(
            r.turns.iter().filter(|t| t.session == "fixture").count(),
            r.turns.iter().filter(|t| &t.session == sid).count()
        );
    }
}
