//! The Codex CLI reader (SPEC 2.5): every corpus rollout with its tree, turns and replies; bad
//! input (a rollout cut mid-line, a child whose parent is not loaded, a 100 MB message, a folder
//! of mixed formats); and the property that link precedence holds whatever the order of files
//! and lines.

use crate::common;

use arbor_core::report::{Link, Outcome, Report, Session};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn corpus(rel: &str) -> PathBuf {
    common::repo().join("tests/corpus/codex-cli").join(rel)
}

fn session<'r>(r: &'r Report, id: &str) -> &'r Session {
    r.sessions.iter().find(|s| s.id == id).unwrap_or_else(|| panic!("no session {id}:\n{}", common::tree(r)))
}

/// (parent, link) of a session's only run, or `None` when it has no run (a root).
fn link(r: &Report, id: &str) -> Option<(Option<String>, Link)> {
    let s = session(r, id);
    assert!(s.runs.len() <= 1, "{id} runs once:\n{}", common::tree(r));
    s.runs.first().map(|run| (run.parent.clone(), run.link))
}

fn replies(r: &Report, id: &str) -> Vec<String> {
    r.replies.iter().filter(|x| x.session == id).map(|x| x.text.clone()).collect()
}

#[test]
fn the_corpus_folder_is_two_review_trees_a_session_and_their_orphan() {
    let r = common::report(&[common::repo().join("tests/corpus/codex-cli")]);
    assert!(r.inputs.iter().all(|i| i.format == "codex" && i.bad_lines == 0), "{:?}", r.inputs);
    let tree = common::tree(&r);
    // agtrace's review fixtures: each sub-agent starts 25 ms after one entered_review_mode.
    for child in ["subagent-matched-001", "subagent-matched-002"] {
        assert_eq!(link(&r, child), Some((Some("parent-spawn-001".into()), Link::TimeWindow)), "{tree}");
        assert_eq!(session(&r, child).label.as_deref(), Some("review"));
    }
    let review = "019b88e5-a2e4-7b90-8953-38fce393c653";
    assert_eq!(link(&r, review), Some((Some("019b88e0-0b0f-7bb0-a9ba-5cc2d8dffde9".into()), Link::TimeWindow)));
    assert_eq!(session(&r, review).depth, Some(1));
    // 1.8 s after the first review started: outside every window.
    assert_eq!(link(&r, "subagent-orphan-001"), Some((None, Link::Inferred)), "{tree}");
    assert_eq!(common::findings(&r), ["subagent-link-inferred@1"]);
    assert_eq!(r.diagnostics[0].at.file, "agtrace_codex_subagent_unmatched.jsonl");
    for root in ["parent-spawn-001", "019b04ae-b1c6-7c72-a134-a4c2de66058c", "test-legacy-session"] {
        assert_eq!((link(&r, root), session(&r, root).depth), (None, Some(0)), "{tree}");
    }
    assert_eq!(r.sessions.len(), 9, "{tree}");
}

#[test]
fn a_review_sub_agent_opened_alone_stands_as_its_own_root() {
    let r = common::report(&[corpus("agtrace_codex_subagent_matched.jsonl")]);
    assert_eq!(link(&r, "subagent-matched-001"), Some((None, Link::Inferred)));
    assert_eq!(common::findings(&r), ["subagent-link-inferred@1"]);
    // Opened with its parent, the window links it.
    let r = common::report(&[
        corpus("agtrace_codex_subagent_matched.jsonl"),
        corpus("agtrace_codex_parent_with_spawns.jsonl"),
    ]);
    assert_eq!(link(&r, "subagent-matched-001"), Some((Some("parent-spawn-001".into()), Link::TimeWindow)));
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}

#[test]
fn a_rollout_of_0_66_has_a_turn_per_user_message_with_its_reply_and_tokens_counted_once() {
    let r = common::report(&[corpus("agtrace_codex_session.jsonl")]);
    let id = "019b04ae-b1c6-7c72-a134-a4c2de66058c";
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let turns: Vec<(&serde_json::Value, u64, Option<u64>, u32)> = r
        .turns
        .iter()
        .map(|t| (&t.turn, t.start.as_ref().unwrap().line, t.end.as_ref().map(|e| e.line), t.steps))
        .collect();
    assert_eq!(turns, [(&1.into(), 4, Some(25), 3), (&2.into(), 26, Some(55), 4)]);
    assert_eq!(
        replies(&r, id),
        [
            "Added simple script in `myapp/hoge.py` that prints the result of `1 + 1`.",
            "Ran the script with `python3` (since `python` shim isn\u{2019}t available here). Output from `myapp/hoge.py`:\n- 2"
        ]
    );
    // Each token_count after a turn_context repeats the last one: counted once, the session's
    // tokens are the last cumulative total (26,740 in, 22,912 of them cached, 408 out).
    let u = session(&r, id).usage.clone().unwrap();
    assert_eq!((u.input, u.cache_read, u.output), (26_740 - 22_912, 22_912, 408));
    let models: Vec<&str> = r.usage.as_ref().unwrap().models.iter().map(|m| m.model.as_str()).collect();
    assert_eq!(models, ["gpt-5.1-codex-max"]);
}

#[test]
fn the_agent_sessions_rollouts_load_with_their_tokens() {
    let r = common::report(&[corpus("agent-sessions/codex_053_rate_limit.jsonl")]);
    let u = session(&r, "test-ratelimit-session").usage.clone().unwrap();
    assert_eq!((u.input, u.cache_read, u.output), (12_091 - 10_880, 10_880, 182));
    assert!(r.diagnostics.is_empty());
    // 0.50's counts are `{prompt, completion}`, which no later build writes: no tokens, no finding.
    let r = common::report(&[corpus("agent-sessions/codex_050_legacy.jsonl")]);
    assert_eq!((r.inputs[0].records, r.sessions.len()), (5, 1));
    assert!(r.usage.is_none() && r.diagnostics.is_empty());
}

#[test]
fn every_corpus_rollout_loads_alone_and_every_line_is_a_record() {
    for p in common::files_under(&[common::repo().join("tests/corpus/codex-cli")]) {
        if p.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let a = arbor_core::analyze(std::slice::from_ref(&p), &mut ());
        let r = a.report();
        let lines = std::fs::read_to_string(&p).unwrap().lines().filter(|l| !l.trim().is_empty()).count() as u64;
        assert_eq!((r.inputs[0].format.as_str(), r.inputs[0].records), ("codex", lines), "{}", p.display());
        assert_eq!(r.sessions.len(), 1, "{}", p.display());
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input.

const META: &str =
    r#"{"timestamp":"2026-09-12T00:00:00.000Z","type":"session_meta","payload":{"id":"R","source":"cli"}}"#;
const START: &str =
    r#"{"timestamp":"2026-09-12T00:00:01.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t"}}"#;

#[test]
fn a_rollout_cut_mid_line_keeps_what_it_read_and_its_open_turn() {
    let text = format!("{META}\n{START}\n{}", &START[..50]);
    let (_d, p) = common::log("rollout.jsonl", &text);
    let r = common::report(&[p]);
    assert_eq!(common::findings(&r), ["unclosed-at-end@2", "truncated-final-line@3"]);
    assert_eq!((r.inputs[0].records, r.inputs[0].bad_lines), (2, 1));
    assert_eq!(r.turns.len(), 1);
}

#[test]
fn a_child_whose_parent_is_not_loaded_keeps_that_parent_and_says_so() {
    let child = r#"{"timestamp":"2026-09-12T00:00:00.000Z","type":"session_meta","payload":{"id":"C","session_id":"R","source":{"subagent":{"thread_spawn":{"parent_thread_id":"R","depth":1,"agent_path":"/root/c","agent_nickname":"Cee"}}}}}"#;
    let done = r#"{"type":"event_msg","payload":{"type":"task_complete","turn_id":"t","last_agent_message":"hi"}}"#;
    let (_d, p) = common::log("child.jsonl", &format!("{child}\n{START}\n{done}\n"));
    let r = common::report(&[p]);
    let c = session(&r, "C");
    assert_eq!((c.parent.as_deref(), c.root.as_deref(), c.depth), (Some("R"), None, None));
    assert_eq!(c.runs[0].link, Link::ThreadSpawn);
    assert_eq!(c.runs[0].outcome, Outcome::Ok);
    assert_eq!(common::findings(&r), ["missing-parent-session@1"]);
    assert_eq!(replies(&r, "C"), ["hi"]);
    assert!(!r.sessions.iter().any(|s| s.id == "R"), "the root's id in session_id makes no session");
}

/// 100 MB of text in one assistant message and again in the turn's last_agent_message: read, its
/// reply given back whole, the lines counted; nothing else of the file is lost.
#[test]
fn a_hundred_megabyte_message_is_a_reply_like_any_other() {
    let big = "x".repeat(100 << 20);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.jsonl");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        writeln!(f, "{META}\n{START}").unwrap();
        writeln!(f, r#"{{"type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"{big}"}}]}}}}"#).unwrap();
        writeln!(f, r#"{{"type":"event_msg","payload":{{"type":"task_complete","turn_id":"t","last_agent_message":"{big}\n"}}}}"#).unwrap();
    }
    drop(big);
    let a = arbor_core::analyze(&[p], &mut ());
    let r = a.report();
    assert_eq!((r.inputs[0].records, r.inputs[0].bad_lines), (4, 0));
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert_eq!(r.replies.len(), 1);
    assert_eq!(r.replies[0].text.len(), (100 << 20) + 1, "the task_complete's text is the reply");
}

#[test]
fn a_folder_of_mixed_formats_reads_each_file_in_its_own_and_accounts_for_every_line() {
    let dir = tempfile::tempdir().unwrap();
    let w = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    w("rollout.jsonl", &format!("{META}\n{START}\nnot json\n"));
    w(
        "rpc.jsonl",
        "{\"method\":\"session.event\",\"params\":{\"sessionId\":\"s\",\"event\":{\"type\":\"turn/start\",\"seq\":0,\"data\":{\"turn\":1}}}}\n",
    );
    w("events.jsonl", "{\"type\":\"session.start\",\"data\":{\"sessionId\":\"cp\"},\"id\":\"e1\",\"timestamp\":\"2026-09-12T00:00:00Z\"}\n");
    w("claude.jsonl", "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"cc\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n");
    w("notes.log", "just text\n");
    let r = common::report(&[dir.path().to_path_buf()]);
    let formats: Vec<(&str, &str)> = r.inputs.iter().map(|i| (i.file.as_str(), i.format.as_str())).collect();
    assert_eq!(
        formats[..3],
        [("claude.jsonl", formats[0].1), ("events.jsonl", "copilot-events"), ("notes.log", "unknown")]
    );
    assert_ne!(formats[0].1, "codex", "a Claude Code line is not a rollout's");
    assert_eq!(formats[3..], [("rollout.jsonl", "codex"), ("rpc.jsonl", "dsh-rpc")]);
    let rollout = &r.inputs[3];
    assert_eq!((rollout.records, rollout.bad_lines), (2, 1));
    assert!(r.diagnostics.iter().any(|d| d.code == "malformed-line" && d.at.file == "rollout.jsonl" && d.at.line == 3));
    assert!(r.diagnostics.iter().any(|d| d.code == "unknown-format" && d.at.file == "notes.log"));
    assert!(r.sessions.iter().any(|s| s.id == "R") && r.sessions.iter().any(|s| s.id == "s"));
}

#[test]
fn only_the_envelope_with_a_known_type_is_a_rollout() {
    let vote = |line: &str| arbor_core::formats::detect([line.as_bytes()]).map(|f| f.id);
    assert_eq!(vote(META), Some("codex"));
    assert_eq!(vote(r#"{"type":"turn_context","payload":{"model":"m"}}"#), Some("codex"));
    assert_eq!(vote(r#"{"type":"event_msg","payload":"x"}"#), None, "a payload that is no object");
    assert_eq!(vote(r#"{"type":"user_turn","payload":{}}"#), None, "an unknown envelope type");
    assert_eq!(vote(r#"{"type":"assistant.message","payload":{},"timestamp":"t","id":"e"}"#), Some("copilot-events"));
    assert_eq!(vote(r#"[{"type":"event_msg","payload":{}}]"#), None);
}

// ---------------------------------------------------------------------------------------------
// Link precedence, whatever the order of files and lines.

/// The evidence a generated child `K` has: its own thread-spawn parent, a parent's activity, a
/// review window; each naming one of three candidate parents.
#[derive(Debug, Clone)]
struct Case {
    spawn: Option<usize>,
    activity: Option<usize>,
    window: Option<usize>,
    /// Lines of no consequence in each parent, and where among them the evidence goes.
    noise: [usize; 3],
    at: [usize; 3],
    file_order: Vec<usize>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::option::of(0..3usize),
        proptest::option::of(0..3usize),
        proptest::option::of(0..3usize),
        [0..4usize, 0..4usize, 0..4usize],
        [0..5usize, 0..5usize, 0..5usize],
        Just((0..4).collect::<Vec<usize>>()).prop_shuffle(),
    )
        .prop_map(|(spawn, activity, window, noise, at, file_order)| Case {
            spawn,
            activity,
            window,
            noise,
            at,
            file_order,
        })
}

const PARENTS: [&str; 3] = ["P0", "P1", "P2"];

fn write_case(dir: &Path, c: &Case) -> Vec<PathBuf> {
    let ts = |s: u32, ms: u32| format!("2026-09-12T00:00:{s:02}.{ms:03}Z");
    let mut files = Vec::new();
    for (i, parent) in PARENTS.iter().enumerate() {
        let mut lines = vec![format!(
            r#"{{"timestamp":"{}","type":"session_meta","payload":{{"id":"{parent}","source":"cli"}}}}"#,
            ts(0, 0)
        )];
        let mut body: Vec<String> = (0..c.noise[i])
            .map(|n| {
                format!(
                    r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"agent_reasoning","text":"n{n}"}}}}"#,
                    ts(1, n as u32)
                )
            })
            .collect();
        let mut evidence = Vec::new();
        if c.activity == Some(i) {
            evidence.push(format!(r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"sub_agent_activity","event_id":"call","agent_thread_id":"K","agent_path":"/root/k","kind":"started"}}}}"#, ts(2, 0)));
        }
        if c.window == Some(i) {
            evidence.push(format!(r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"entered_review_mode","user_facing_hint":"x"}}}}"#, ts(5, 0)));
        }
        for (k, e) in evidence.into_iter().enumerate() {
            let at = (c.at[(i + k) % 3]).min(body.len());
            body.insert(at, e);
        }
        lines.extend(body);
        let path = dir.join(format!("{parent}.jsonl"));
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        files.push(path);
    }
    let source = match (c.spawn, c.window.is_some()) {
        (Some(p), _) => format!(
            r#"{{"subagent":{{"thread_spawn":{{"parent_thread_id":"{}","agent_path":"/root/k"}}}}}}"#,
            PARENTS[p]
        ),
        (None, true) => r#"{"subagent":"review"}"#.to_owned(),
        (None, false) => r#"{"subagent":"other"}"#.to_owned(),
    };
    let child =
        format!(r#"{{"timestamp":"{}","type":"session_meta","payload":{{"id":"K","source":{source}}}}}"#, ts(5, 300));
    let path = dir.join("K.jsonl");
    std::fs::write(&path, child + "\n").unwrap();
    files.push(path);
    c.file_order.iter().map(|&i| files[i].clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// The strongest evidence names the parent (thread-spawn, then activity, then a review window
    /// when the child is a review sub-agent); every weaker one that names another parent is a
    /// disagreement at its line; none at all is an inferred root.
    #[test]
    fn the_strongest_evidence_wins_whatever_the_order(c in case()) {
        let dir = tempfile::tempdir().unwrap();
        let paths = write_case(dir.path(), &c);
        let r = common::report(&paths);
        // The window counts only for a review sub-agent, which a thread-spawn child is not.
        let window = c.window.filter(|_| c.spawn.is_none());
        let want = c.spawn.map(|p| (p, Link::ThreadSpawn))
            .or(c.activity.map(|p| (p, Link::Activity)))
            .or(window.map(|p| (p, Link::TimeWindow)));
        let got = link(&r, "K");
        match want {
            Some((p, l)) => prop_assert_eq!(got, Some((Some(PARENTS[p].to_owned()), l))),
            None => prop_assert_eq!(got, Some((None, Link::Inferred))),
        }
        let mut disagree: Vec<String> = r.diagnostics.iter()
            .filter(|d| d.code == "subagent-links-disagree")
            .map(|d| Path::new(&d.at.file).file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        disagree.sort();
        let mut expected = Vec::new();
        if let Some((p, _)) = want {
            let weaker: Vec<Option<usize>> = match (c.spawn, c.activity) {
                (Some(_), a) => vec![a, window],
                (None, Some(_)) => vec![window],
                _ => vec![],
            };
            for q in weaker.into_iter().flatten() {
                if q != p {
                    expected.push(format!("{}.jsonl", PARENTS[q]));
                }
            }
        }
        expected.sort();
        prop_assert_eq!(disagree, expected);
        prop_assert_eq!(r.diagnostics.iter().any(|d| d.code == "subagent-link-inferred"), want.is_none());
    }
}
