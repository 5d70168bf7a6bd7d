//! Routing, waits and boundaries on small inline logs: one helper, an input and what it must give.

use crate::common;

fn ev(s: &str, t: &str, seq: i64, data: &str) -> String {
    format!(
        r#"{{"method":"session.event","params":{{"sessionId":"{s}","event":{{"type":"{t}","seq":{seq},"time":{},"data":{data}}}}}}}"#,
        1000 + seq
    )
}

fn session_log(lines: &[(&str, &str)]) -> String {
    let mut out = String::from("{\"type\":\"session\",\"version\":0,\"id\":\"s\",\"delegationDepth\":0}\n");
    for (i, (t, data)) in lines.iter().enumerate() {
        out.push_str(&format!("{{\"type\":\"{t}\",\"seq\":{},\"data\":{data}}}\n", (i + 1) * 10));
    }
    out
}

fn check_session(lines: &[(&str, &str)], want: &[&str]) {
    let (_d, p) = common::log("s.jsonl", &session_log(lines));
    let r = common::report(&[p]);
    assert_eq!(common::findings(&r), want);
}

#[test]
fn a_balanced_session_has_no_findings_and_counts_its_steps() {
    let lines = [
        ("turn/start", r#"{"turn":1}"#),
        ("step/start", r#"{"turn":1,"step":1}"#),
        ("tool/call", r#"{"turn":1,"step":1,"callId":"a"}"#),
        ("tool/result", r#"{"turn":1,"step":1,"message":{"source":{"callId":"a"},"content":[]}}"#),
        ("step/end", r#"{"turn":1,"step":1}"#),
        ("step/start", r#"{"turn":1,"step":2}"#),
        ("text-chunks", r#"{"turn":1,"step":2,"index":0,"dt":[1,2,3],"texts":["a","b","c"]}"#),
        ("step/end", r#"{"turn":1,"step":2}"#),
        ("turn/end", r#"{"turn":1,"reason":{"kind":"completed"}}"#),
    ];
    let (_d, p) = common::log("s.jsonl", &session_log(&lines));
    let r = common::report(&[p]);
    assert_eq!(common::findings(&r), Vec::<String>::new());
    assert_eq!((r.turns[0].steps, r.turns[0].step_spans.len()), (2, 2));
}

#[test]
fn each_boundary_violation_is_reported_once_and_taken_as_the_new_truth() {
    check_session(
        &[
            ("step/start", r#"{"turn":1,"step":1}"#),                     // outside a turn
            ("turn/start", r#"{"turn":1}"#),                              // fine: closes the stray step
            ("step/start", r#"{"turn":1,"step":2}"#),                     // numbering
            ("step/start", r#"{"turn":1,"step":3}"#),                     // while open
            ("assistant/message", r#"{"turn":1,"step":9,"message":{}}"#), // names another step
            ("step/end", r#"{"turn":1,"step":4}"#),                       // mismatch
            ("turn/start", r#"{"turn":2}"#),                              // while open
            ("step/start", r#"{"turn":2,"step":1}"#),
            ("turn/end", r#"{"turn":2,"reason":{"kind":"completed"}}"#), // open step
            ("turn/end", r#"{"turn":2,"reason":{"kind":"completed"}}"#), // no turn open
            ("tool/result", r#"{"turn":2,"step":1,"message":{}}"#),      // no call
            ("agent/step-start", r#"{"turn":2,"step":1}"#),              // mirror
            ("weird/type", r#"{}"#),                                     // unknown
            ("weird/type", r#"{}"#),
        ],
        &[
            "step-outside-turn@2",
            "step-number-skipped@4",
            "step-start-while-open@5",
            "event-outside-step@6",
            "boundary-mismatch@7",
            "turn-start-while-open@8",
            "turn-end-with-open-step@10",
            "boundary-mismatch@11",
            "tool-result-without-call@12",
            "boundary-mirror-event@13",
            "unknown-event-type@14",
            "unknown-event-type@15",
        ],
    );
}

#[test]
fn packed_rows_advance_seq_by_the_events_they_stand_for() {
    let log = [
        "{\"type\":\"session\",\"version\":0,\"id\":\"s\"}".to_owned(),
        r#"{"type":"turn/start","seq":0,"data":{"turn":1}}"#.to_owned(),
        r#"{"type":"step/start","seq":1,"data":{"turn":1,"step":1}}"#.to_owned(),
        r#"{"type":"text-chunks","seq0":2,"time0":5,"data":{"turn":1,"step":1,"index":0,"dt":[0,1,1],"texts":["a","b","c"]}}"#.to_owned(),
        r#"{"type":"step/end","seq":4,"data":{"turn":1,"step":1}}"#.to_owned(),
        r#"{"type":"turn/end","seq":5,"data":{"turn":1,"reason":{"kind":"completed"}}}"#.to_owned(),
    ]
    .join("\n");
    let (_d, p) = common::log("s.jsonl", &log);
    assert_eq!(common::findings(&common::report(&[p])), ["seq-not-increasing@5"]);
}

#[test]
fn ancestry_survives_root_turns_and_resets_at_initialize() {
    let log = [
        r#"{"method":"subagent.started","params":{"parentSessionId":"r","childSessionId":"k"}}"#.to_owned(),
        r#"{"method":"session.status","params":{"sessionId":"r","status":"idle"}}"#.to_owned(),
        // A later root turn: k still belongs to r.
        ev("k", "session/title", 0, "{}"),
        r#"{"method":"session.status","params":{"sessionId":"r","status":"idle"}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#.to_owned(),
        // A new runtime: k is its own root now.
        ev("k", "session/title", 1, "{}"),
    ]
    .join("\n");
    let (_d, p) = common::log("run.jsonl", &log);
    let r = common::report(&[p]);
    let waits: Vec<_> =
        r.waits.iter().map(|w| (w.root.as_str(), w.start.as_ref().unwrap().line, w.notifications)).collect();
    assert_eq!(waits, [("r", 1, Some(2)), ("r", 3, Some(2)), ("k", 6, Some(1))]);
    assert_eq!(
        r.sessions.iter().find(|s| s.id == "k").unwrap().parent.as_deref(),
        Some("r"),
        "the report keeps the last parent"
    );
}

#[test]
fn a_root_that_gets_a_start_edge_ends_its_turn_open() {
    let log = [
        r#"{"method":"session.status","params":{"sessionId":"a","status":"running"}}"#,
        r#"{"method":"subagent.started","params":{"parentSessionId":"p","childSessionId":"a"}}"#,
        r#"{"method":"session.status","params":{"sessionId":"p","status":"idle"}}"#,
    ]
    .join("\n");
    let (_d, p) = common::log("run.jsonl", &log);
    let r = common::report(&[p]);
    let a = r.waits.iter().find(|w| w.root == "a").unwrap();
    assert_eq!((a.outcome, a.end.is_none()), (arbor_core::report::WaitOutcome::Open, true));
    assert_eq!(common::findings(&r), ["event-before-start-edge@1"]);
}

#[test]
fn a_child_reply_never_becomes_the_root_response() {
    let msg = |s: &str, text: &str, seq: i64| {
        ev(s, "assistant/message", seq, &format!(r#"{{"message":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#))
    };
    let log = [
        r#"{"method":"subagent.started","params":{"parentSessionId":"r","childSessionId":"k"}}"#.to_owned(),
        msg("r", "root says", 0),
        msg("k", "child says", 0),
        r#"{"method":"session.status","params":{"sessionId":"r","status":"idle"}}"#.to_owned(),
    ]
    .join("\n");
    let (_d, p) = common::log("run.jsonl", &log);
    let r = common::report(&[p]);
    assert_eq!(r.waits[0].reply.as_deref(), Some("root says"));
    assert_eq!(
        (r.waits[0].events, r.waits[0].notifications, r.waits[0].naive.notifications),
        (Some(1), Some(4), Some(3))
    );
}

#[test]
fn copilot_waits_without_idle_are_inferred_and_with_idle_stay_open() {
    let e = |t: &str, agent: Option<&str>, data: &str, n: u32| {
        let agent = agent.map_or(String::new(), |a| format!(r#","agentId":"{a}""#));
        format!(
            r#"{{"type":"{t}","data":{data},"id":"e{n}","timestamp":"2026-01-01T00:00:{n:02}Z","parentId":null{agent}}}"#
        )
    };
    let saved = [
        e("user.message", None, r#"{"content":"go"}"#, 1),
        e("assistant.message", None, r#"{"content":"root"}"#, 2),
        e("assistant.message", Some("x"), r#"{"content":"stray"}"#, 3),
    ]
    .join("\n");
    let (_d, p) = common::log("events.jsonl", &saved);
    let r = common::report(&[p]);
    let w = &r.waits[0];
    assert_eq!(
        (w.outcome, w.end.as_ref().map(|p| p.line), w.reply.as_deref()),
        (arbor_core::report::WaitOutcome::Inferred, Some(2), Some("root"))
    );
    assert_eq!(common::findings(&r), ["stamped-event-before-any-subagent@3", "child-reply-would-replace-root-reply@3"]);
    let live = [saved.clone(), e("session.idle", Some("x"), "{}", 4)].join("\n");
    let (_d, p) = common::log("events.jsonl", &live);
    let r = common::report(&[p]);
    assert_eq!(r.waits[0].outcome, arbor_core::report::WaitOutcome::Open);
    assert_eq!(r.waits[0].naive.outcome, Some(arbor_core::report::WaitOutcome::Idle));
}

/// SPEC 1.1: `placeholder-ids` says sessions cannot be told apart only when one placeholder
/// stands for several of them.
#[test]
fn the_placeholder_finding_claims_shared_ids_only_where_one_placeholder_stands_for_several() {
    let message = |text: &str| {
        let (_d, p) = common::log("run.jsonl", text);
        let r = common::report(&[p]);
        let d: Vec<_> = r.diagnostics.iter().filter(|d| d.code == "placeholder-ids").collect();
        assert_eq!(d.len(), 1, "{:?}", common::findings(&r));
        d[0].message.clone()
    };
    let edge = |p: &str, c: &str| {
        format!(r#"{{"method":"subagent.started","params":{{"parentSessionId":"{p}","childSessionId":"{c}"}}}}"#)
    };
    let distinct =
        [ev("{{session:1}}", "turn/start", 0, r#"{"turn":1}"#), edge("{{session:1}}", "{{child-2}}")].join("\n");
    let m = message(&distinct);
    assert!(!m.contains("cannot tell apart") && m.contains("{{session:1}}"), "{m}");
    let nested =
        [ev("{{sessionId}}", "turn/start", 0, r#"{"turn":1}"#), edge("{{sessionId}}", "{{sessionId}}")].join("\n");
    assert!(message(&nested).contains("cannot tell apart"));
}

/// SPEC 1.1: a self-named child's parent is the one other session of its folder with that
/// placeholder one delegationDepth above; two such candidates name none.
#[test]
fn a_placeholder_child_with_two_candidate_parents_has_an_unknown_parent() {
    let d = tempfile::tempdir().unwrap();
    let head = |depth: i64, own: bool| {
        let parent = if own { r#","parentSession":"{{sessionId}}""# } else { "" };
        format!(
            "{{\"type\":\"session\",\"version\":0,\"id\":\"{{{{sessionId}}}}\"{parent},\"delegationDepth\":{depth}}}\n"
        )
    };
    std::fs::write(d.path().join("a.jsonl"), head(0, false)).unwrap();
    std::fs::write(d.path().join("b.jsonl"), head(0, false)).unwrap();
    std::fs::write(d.path().join("child.jsonl"), head(1, true)).unwrap();
    let r = common::report(&[d.path().to_path_buf()]);
    let ids: Vec<&str> = r.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids.len(), 3, "each file is its own session: {ids:?}");
    let child = r.sessions.iter().find(|s| s.id == "{{sessionId}}@child.jsonl").unwrap();
    assert_eq!((child.parent.as_deref(), child.depth), (None, None));
    // With one of them gone, the other is the parent.
    std::fs::remove_file(d.path().join("b.jsonl")).unwrap();
    let r = common::report(&[d.path().to_path_buf()]);
    let child = r.sessions.iter().find(|s| s.id == "{{sessionId}}@child.jsonl").unwrap();
    assert_eq!((child.parent.as_deref(), child.depth), (Some("{{sessionId}}@a.jsonl"), Some(1)));
}
