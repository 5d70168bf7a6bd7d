//! Token usage (SPEC 4 `usage`) counted by hand on small logs of the harness family: each
//! message's tokens once, in its turn and session, summed up the tree, per model; a recording's
//! tokens give way to a durable log of the same session; Copilot's per-message output tokens,
//! and its shutdown metrics across resumed runtimes, never counted twice (a property test).

use arbor_core::report::{Report, Usage};
use proptest::prelude::*;
use std::path::Path;

fn write(dir: &Path, name: &str, lines: &[&str]) {
    std::fs::write(dir.join(name), lines.join("\n") + "\n").unwrap();
}

fn report(dir: &Path) -> Report {
    arbor_core::analyze(&[dir.to_path_buf()], &mut ()).report()
}

fn counts(u: &Option<Usage>) -> Option<(u64, u64, u64, u64)> {
    u.as_ref().map(|u| (u.input, u.output, u.cache_read, u.cache_write))
}

const ROOT: &str = r#"{"type":"session","version":0,"id":"r"}"#;
const CHILD: &str = r#"{"type":"session","version":0,"id":"c","parentSession":"r","delegationDepth":1}"#;

fn turn(n: u32, input: u32, output: u32, cache: u32) -> Vec<String> {
    vec![
        format!(r#"{{"type":"turn/start","data":{{"turn":{n}}}}}"#),
        format!(r#"{{"type":"step/start","data":{{"turn":{n},"step":1}}}}"#),
        format!(
            r#"{{"type":"assistant/message","data":{{"turn":{n},"step":1,"message":{{"role":"assistant","content":[{{"type":"text","text":"t{n}"}}],"source":{{"kind":"model","model":"deepseek-chat"}}}},"usage":{{"inputTokens":{input},"outputTokens":{output},"cacheReadTokens":{cache}}}}}}}"#
        ),
        format!(r#"{{"type":"step/end","data":{{"turn":{n},"step":1}}}}"#),
        format!(r#"{{"type":"turn/end","data":{{"turn":{n},"reason":{{"kind":"completed"}}}}}}"#),
    ]
}

#[test]
fn dsh_messages_count_once_per_turn_and_session_and_up_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let mut root: Vec<String> = vec![ROOT.into()];
    root.extend(turn(1, 100, 10, 50));
    root.extend(turn(2, 200, 20, 0));
    let mut child: Vec<String> = vec![CHILD.into()];
    child.extend(turn(1, 7, 3, 1));
    write(dir.path(), "root.jsonl", &root.iter().map(String::as_str).collect::<Vec<_>>());
    write(dir.path(), "child.jsonl", &child.iter().map(String::as_str).collect::<Vec<_>>());
    let r = report(dir.path());
    let s = |id: &str| r.sessions.iter().find(|s| s.id == id).unwrap().clone();
    assert_eq!(counts(&s("r").usage), Some((300, 30, 50, 0)));
    assert_eq!(counts(&s("c").usage), Some((7, 3, 1, 0)));
    assert_eq!(counts(&s("r").subtree_usage), Some((307, 33, 51, 0)));
    let t = |sess: &str, n: i64| r.turns.iter().find(|t| t.session == sess && t.turn == n).unwrap().usage.clone();
    assert_eq!(counts(&t("r", 1)), Some((100, 10, 50, 0)));
    assert_eq!(counts(&t("r", 2)), Some((200, 20, 0, 0)));
    let summary = r.usage.unwrap();
    assert_eq!(summary.models.len(), 1);
    assert_eq!(summary.models[0].model, "deepseek-chat");
    assert_eq!(counts(&Some(summary.total.clone())), Some((307, 33, 51, 0)));
    assert!(summary.total.cost.is_some(), "deepseek-chat has a price");
}

#[test]
fn a_recordings_tokens_give_way_to_the_durable_log_of_the_same_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut durable: Vec<String> = vec![ROOT.into()];
    durable.extend(turn(1, 100, 10, 0));
    write(dir.path(), "r.jsonl", &durable.iter().map(String::as_str).collect::<Vec<_>>());
    let mut rpc: Vec<String> = turn(1, 100, 10, 0)
        .into_iter()
        .map(|e| format!(r#"{{"method":"session.event","params":{{"sessionId":"r","event":{e}}}}}"#))
        .collect();
    rpc.push(r#"{"method":"session.status","params":{"sessionId":"r","status":"idle"}}"#.into());
    write(dir.path(), "recording.jsonl", &rpc.iter().map(String::as_str).collect::<Vec<_>>());
    let r = report(dir.path());
    let s = r.sessions.iter().find(|s| s.id == "r").unwrap();
    assert_eq!(counts(&s.usage), Some((100, 10, 0, 0)), "counted once, not once per log");
    // The recording alone counts its own.
    let alone = tempfile::tempdir().unwrap();
    write(alone.path(), "recording.jsonl", &rpc.iter().map(String::as_str).collect::<Vec<_>>());
    let r = report(alone.path());
    assert_eq!(counts(&r.sessions.iter().find(|s| s.id == "r").unwrap().usage), Some((100, 10, 0, 0)));
}

#[test]
fn copilot_messages_count_their_output_tokens_per_agent_with_the_sessions_model() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "events.jsonl",
        &[
            r#"{"type":"session.start","data":{"sessionId":"m","selectedModel":"claude-sonnet-4.5"},"id":"e0","timestamp":"2026-10-01T10:00:00Z"}"#,
            r#"{"type":"user.message","data":{"content":"go"},"id":"e1","timestamp":"2026-10-01T10:00:01Z"}"#,
            r#"{"type":"assistant.turn_start","data":{"turnId":"0"},"id":"e2","timestamp":"2026-10-01T10:00:02Z"}"#,
            r#"{"type":"tool.execution_start","data":{"toolCallId":"t","toolName":"task"},"id":"e3","timestamp":"2026-10-01T10:00:03Z"}"#,
            r#"{"type":"subagent.started","data":{"toolCallId":"t","agentName":"w"},"id":"e4","timestamp":"2026-10-01T10:00:04Z","agentId":"a"}"#,
            r#"{"type":"assistant.message","data":{"content":"child","outputTokens":40},"id":"e5","timestamp":"2026-10-01T10:00:05Z","agentId":"a"}"#,
            r#"{"type":"subagent.completed","data":{"toolCallId":"t"},"id":"e6","timestamp":"2026-10-01T10:00:06Z","agentId":"a"}"#,
            r#"{"type":"session.model_change","data":{"newModel":"gpt-5"},"id":"e7","timestamp":"2026-10-01T10:00:07Z"}"#,
            r#"{"type":"assistant.message","data":{"content":"root","outputTokens":12},"id":"e8","timestamp":"2026-10-01T10:00:08Z"}"#,
            r#"{"type":"assistant.turn_end","data":{"turnId":"0"},"id":"e9","timestamp":"2026-10-01T10:00:09Z"}"#,
        ],
    );
    let r = report(dir.path());
    let s = |id: &str| r.sessions.iter().find(|s| s.id == id).unwrap().clone();
    assert_eq!(counts(&s("a").usage), Some((0, 40, 0, 0)));
    assert_eq!(counts(&s("m").usage), Some((0, 12, 0, 0)));
    assert_eq!(counts(&s("m").subtree_usage), Some((0, 52, 0, 0)));
    let models: Vec<(String, u64)> = r.usage.unwrap().models.into_iter().map(|m| (m.model, m.usage.output)).collect();
    assert_eq!(models, [("claude-sonnet-4.5".to_owned(), 40), ("gpt-5".to_owned(), 12)]);
    let turn = r.turns.iter().find(|t| t.session == "m").unwrap();
    assert_eq!(counts(&turn.usage), Some((0, 12, 0, 0)));
}

/// One runtime of a generated Copilot session: its messages' `outputTokens`, what only the
/// shutdown's metrics know (input, cache reads and writes, output no message carried), and
/// whether it ended in a shutdown (else it died: a crash, `/new`).
#[derive(Debug, Clone)]
struct Runtime {
    messages: Vec<u64>,
    input: u64,
    cache_read: u64,
    cache_write: u64,
    unseen_output: u64,
    shutdown: bool,
}

fn runtime() -> impl Strategy<Value = Runtime> {
    (prop::collection::vec(0u64..50, 0..4), 0u64..500, 0u64..500, 0u64..100, 0u64..30, prop::bool::weighted(0.8))
        .prop_map(|(messages, input, cache_read, cache_write, unseen_output, shutdown)| Runtime {
            messages,
            input,
            cache_read,
            cache_write,
            unseen_output,
            shutdown,
        })
}

/// The events of a session of `runtimes`, its shutdowns' metrics each runtime's own (`running`
/// false: CLIs that reset them on resume) or the session's running total (`running`), and the
/// tokens it really used.
fn copilot_log(runtimes: &[Runtime], running: bool) -> (Vec<String>, Usage) {
    let mut lines =
        vec![r#"{"type":"session.start","data":{"sessionId":"p","selectedModel":"gpt-5"},"id":"s"}"#.to_owned()];
    let (mut truth, mut total) = (Usage::default(), Usage::default());
    for (k, r) in runtimes.iter().enumerate() {
        if k > 0 {
            lines.push(format!(r#"{{"type":"session.resume","data":{{}},"id":"r{k}"}}"#));
        }
        lines.push(format!(r#"{{"type":"user.message","data":{{"content":"go {k}"}},"id":"u{k}"}}"#));
        lines.push(format!(r#"{{"type":"assistant.turn_start","data":{{"turnId":"{k}"}},"id":"ts{k}"}}"#));
        for (i, n) in r.messages.iter().enumerate() {
            lines.push(format!(
                r#"{{"type":"assistant.message","data":{{"content":"m","outputTokens":{n}}},"id":"m{k}-{i}"}}"#
            ));
        }
        lines.push(format!(r#"{{"type":"assistant.turn_end","data":{{"turnId":"{k}"}},"id":"te{k}"}}"#));
        let own = Usage {
            input: r.input,
            output: r.messages.iter().sum::<u64>() + r.unseen_output,
            cache_read: r.cache_read,
            cache_write: r.cache_write,
            cost: None,
            unpriced: None,
        };
        truth.add(&own);
        total.add(&own);
        if r.shutdown {
            let m = if running { total.clone() } else { own };
            let raw = m.input + m.cache_read + m.cache_write;
            lines.push(format!(
                r#"{{"type":"session.shutdown","data":{{"shutdownType":"routine","modelMetrics":{{"gpt-5":{{"requests":{{"count":1,"cost":1}},"usage":{{"inputTokens":{raw},"outputTokens":{},"cacheReadTokens":{},"cacheWriteTokens":{}}}}}}}}},"id":"x{k}"}}"#,
                m.output, m.cache_read, m.cache_write
            ));
        }
    }
    (lines, truth)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]

    /// Across resumed runtimes, shutdowns with metrics (running totals or each runtime's own),
    /// runtimes that died without one: no count is ever above what the session used, the
    /// messages' outputs always count, and a session whose every runtime shut down with running
    /// totals counts exactly what it used.
    #[test]
    fn copilot_tokens_never_count_twice_across_resumes(runtimes in prop::collection::vec(runtime(), 1..5), running in any::<bool>()) {
        let (lines, truth) = copilot_log(&runtimes, running);
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "events.jsonl", &lines.iter().map(String::as_str).collect::<Vec<_>>());
        let r = report(dir.path());
        let root = r.sessions.iter().find(|s| s.id == "p").unwrap();
        let got = root.subtree_usage.clone().unwrap_or_default();
        prop_assert!(got.input <= truth.input && got.output <= truth.output, "{got:?} over {truth:?}");
        prop_assert!(got.cache_read <= truth.cache_read && got.cache_write <= truth.cache_write, "{got:?} over {truth:?}");
        let said: u64 = runtimes.iter().flat_map(|r| &r.messages).sum();
        prop_assert!(got.output >= said, "the messages' {said} outputs are counted, got {got:?}");
        let turns: u64 = r.turns.iter().filter_map(|t| t.usage.as_ref()).map(|u| u.output).sum();
        prop_assert_eq!(turns, said, "turns hold the messages' outputs, the metrics' share is in none");
        if running && runtimes.iter().all(|r| r.shutdown) {
            prop_assert_eq!(counts(&Some(got.clone())), counts(&Some(truth.clone())));
        }
    }
}

/// A Codex `token_count` belongs to the model it names, else to the latest `turn_context`'s: a
/// turn that switches models books each call to its own model (SPEC 2.5 Usage).
#[test]
fn a_codex_count_books_to_the_model_it_names_else_the_turn_contexts() {
    let dir = tempfile::tempdir().unwrap();
    let count = |model: Option<&str>, input: u32, total: u32| {
        let named = model.map_or(String::new(), |m| format!(r#""model":"{m}","#));
        format!(
            r#"{{"timestamp":"2026-09-12T00:00:02.000Z","type":"event_msg","payload":{{"type":"token_count","info":{{{named}"last_token_usage":{{"input_tokens":{input},"cached_input_tokens":0,"output_tokens":1,"total_tokens":{}}},"total_token_usage":{{"input_tokens":{total},"cached_input_tokens":0,"output_tokens":0,"total_tokens":{total}}}}}}}}}"#,
            input + 1
        )
    };
    let lines = [
        r#"{"timestamp":"2026-09-12T00:00:00.000Z","type":"session_meta","payload":{"id":"M","source":"cli"}}"#.to_owned(),
        r#"{"timestamp":"2026-09-12T00:00:01.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t"}}"#.to_owned(),
        r#"{"timestamp":"2026-09-12T00:00:01.100Z","type":"turn_context","payload":{"model":"gpt-5","cwd":"/w"}}"#.to_owned(),
        count(None, 100, 101),
        count(Some("gpt-5-mini"), 20, 122),
        r#"{"timestamp":"2026-09-12T00:00:03.000Z","type":"turn_context","payload":{"model":"gpt-5-nano","cwd":"/w"}}"#.to_owned(),
        count(None, 3, 126),
        r#"{"timestamp":"2026-09-12T00:00:04.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t","last_agent_message":"ok"}}"#.to_owned(),
    ];
    write(dir.path(), "rollout.jsonl", &lines.iter().map(String::as_str).collect::<Vec<_>>());
    let r = report(dir.path());
    let summary = r.usage.unwrap();
    let of = |m: &str| summary.models.iter().find(|u| u.model == m).map(|u| u.usage.input);
    assert_eq!(of("gpt-5"), Some(100));
    assert_eq!(of("gpt-5-mini"), Some(20), "the count names its model");
    assert_eq!(of("gpt-5-nano"), Some(3), "the latest turn_context's model");
    assert_eq!(summary.models.len(), 3);
    assert_eq!(counts(&r.turns[0].usage), Some((123, 3, 0, 0)));
}
