//! `arbor diff` (SPEC 6.3) on real logs: a run compared with itself has no delta and no
//! divergence; a run against its own first half shows what the half lacks; a run against a copy
//! with known changes reports exactly those; a Claude Code run against a Codex run of the same task
//! aligns their roots and parts where they first act otherwise.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(rel)
}

fn diff(args: &[&str], a: &Path, b: &Path) -> (i32, Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arbor")).arg("diff").args(args).arg(a).arg(b).output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let json =
        if args.contains(&"--json") { serde_json::from_str(&stdout).unwrap_or(Value::Null) } else { Value::Null };
    (code, json, stdout + &String::from_utf8_lossy(&out.stderr))
}

/// Every count and amount of a delta unchanged.
fn no_change(d: &Value) -> bool {
    let counts = [&d["turns"], &d["steps"]]
        .into_iter()
        .chain(["input", "output", "cache_read", "cache_write"].iter().map(|k| &d["tokens"][k]))
        .chain(d["tool_calls"].as_object().unwrap().values())
        .chain(d["findings"].as_object().unwrap().values());
    let amounts = [&d["duration"], &d["cost"]];
    counts.clone().all(|c| c["change"] == 0 && c["a"] == c["b"])
        && amounts.iter().all(|a| a["a"] == a["b"])
        && d["outcome"]["a"] == d["outcome"]["b"]
        && d["differs"].as_array().unwrap().is_empty()
}

#[test]
fn a_run_compared_with_itself_has_no_delta_and_no_divergence() {
    let runs = [
        "claude-code/agtrace_claude_session.jsonl",
        "claude-code/agent-sessions",
        "claude-code/claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
        "codex-cli/agtrace_codex_session.jsonl",
        "codex-cli/agtrace_codex_parent_with_spawns.jsonl",
    ];
    for run in runs {
        let p = corpus(run);
        let (code, j, out) = diff(&["--json"], &p, &p);
        assert_eq!(code, 0, "{run}: {out}");
        assert_eq!(j["same"], true, "{run}");
        assert!(j["divergence"].is_null(), "{run}");
        let pairs = j["pairs"].as_array().unwrap();
        assert!(!pairs.is_empty());
        for p in pairs {
            assert_eq!(p["a"], p["b"], "{run}: every session pairs with itself");
            assert!(no_change(&p["delta"]), "{run}: {}", p["delta"]);
        }
        assert!(no_change(&j["totals"]), "{run}");
        let (code, _, text) = diff(&[], &p, &p);
        assert_eq!(code, 0);
        assert!(text.contains("the runs are the same by every measure"), "{text}");
    }
}

#[test]
fn a_run_against_its_own_first_half_shows_what_the_half_lacks() {
    let whole = corpus("claude-code/claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl");
    let text = std::fs::read_to_string(&whole).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let dir = tempfile::tempdir().unwrap();
    let half = dir.path().join("half.jsonl");
    std::fs::write(&half, lines[..lines.len() / 2].join("\n") + "\n").unwrap();

    let (code, j, out) = diff(&["--json"], &whole, &half);
    assert_eq!(code, 1, "{out}");
    assert_eq!(j["same"], false);
    let d = &j["divergence"];
    assert_eq!(d["what"], "ended", "{d}");
    assert!(d["b"].is_null() && d["a"]["at"]["line"].as_u64().unwrap() as usize > lines.len() / 2, "{d}");
    // The half's view of it starts after its last item, the whole's at the item the half lacks.
    assert_eq!(d["row_a"], d["a"]["row"]);
    assert!(d["row_b"].as_u64().unwrap() > 0);
    // The half has the whole's first items, and no more.
    let (_, half_self, _) = diff(&["--json"], &half, &half);
    let pairs = j["pairs"].as_array().unwrap();
    let root = &pairs[0];
    assert_eq!(root["a"], root["b"]);
    assert!(root["delta"]["steps"]["change"].as_i64().unwrap() < 0);
    // The sub-agents the half never spawned are only in A, none only in B.
    let only_a = pairs.iter().filter(|p| p["b"].is_null()).count();
    let only_b = pairs.iter().filter(|p| p["a"].is_null()).count();
    let in_half = half_self["pairs"].as_array().unwrap().len();
    assert_eq!(only_b, 0);
    assert_eq!(pairs.len() - only_a, in_half, "every session of the half pairs with the whole's");
    assert!(only_a > 0);
    assert!(j["totals"]["differs"].as_array().unwrap().iter().any(|m| m == "sessions"));
    let (_, _, text) = diff(&[], &whole, &half);
    assert!(text.contains("only in A") && text.contains("one conversation ends"), "{text}");
}

#[test]
fn a_run_against_a_copy_with_known_changes_reports_exactly_those() {
    let a = corpus("claude-code/agtrace_claude_session.jsonl");
    let text = std::fs::read_to_string(&a).unwrap();
    let line = 1 + text.lines().position(|l| l.contains(r#""command":"cd myapp && python hoge.py""#)).unwrap();
    let changed = text
        .replace(r#""command":"cd myapp && python hoge.py""#, r#""command":"cd myapp && python -u hoge.py""#)
        .replace(r#""output_tokens":436"#, r#""output_tokens":536"#);
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("b.jsonl");
    std::fs::write(&b, changed).unwrap();

    let (code, j, out) = diff(&["--json"], &a, &b);
    assert_eq!(code, 1, "{out}");
    let root = &j["pairs"][0];
    assert_eq!(root["delta"]["differs"], serde_json::json!(["tokens", "cost", "conversation"]));
    assert_eq!(root["delta"]["tokens"]["output"]["change"], 100);
    for k in ["input", "cache_read", "cache_write"] {
        assert_eq!(root["delta"]["tokens"][k]["change"], 0);
    }
    assert!(root["delta"]["tool_calls"].as_object().unwrap().values().all(|c| c["change"] == 0));
    let d = &j["divergence"];
    assert_eq!((d["what"].as_str(), d["pair"].as_u64()), (Some("arguments"), Some(0)), "{d}");
    for side in ["a", "b"] {
        assert_eq!(d[side]["at"]["line"], line as u64);
        assert_eq!(d[side]["tool"], "Bash");
    }
    assert!(d["b"]["text"].as_str().unwrap().contains("python -u hoge.py"));

    // Left out, the changed measures no longer make the runs differ.
    let (code, j, _) = diff(&["--json", "--ignore", "tokens", "--ignore", "cost", "--ignore", "conversation"], &a, &b);
    assert_eq!((code, &j["same"]), (0, &Value::Bool(true)));
    assert_eq!(j["ignored"], serde_json::json!(["tokens", "cost", "conversation"]));
}

#[test]
fn a_claude_code_run_and_a_codex_run_of_one_task_align_and_part_where_they_act_otherwise() {
    let a = corpus("claude-code/agtrace_claude_session.jsonl");
    let b = corpus("codex-cli/agtrace_codex_session.jsonl");
    let (code, j, out) = diff(&["--json"], &a, &b);
    assert_eq!(code, 1, "{out}");
    assert_eq!((j["a"]["format"].as_str(), j["b"]["format"].as_str()), (Some("claude-code"), Some("codex")));
    let d = &j["divergence"];
    // Both were given the same prompt; Claude Code answers first in words, Codex runs a command.
    assert_eq!(d["same_before"], 1, "{d}");
    assert_eq!((d["a"]["kind"].as_str(), d["b"]["kind"].as_str()), (Some("text"), Some("tool-call")));
}

#[test]
fn a_path_of_several_roots_needs_one_named() {
    let dir = corpus("claude-code/claude-code-viewer");
    let (code, _, out) = diff(&[], &dir, &dir);
    assert_eq!(code, 2);
    assert!(out.contains("--session-a"), "{out}");
    let one = "fe5e1c67-53e7-4862-81ae-d0e013e3270b";
    let other = "1af7fc5e-8455-4414-9ccd-011d40f70b2a";
    let (code, j, _) = diff(&["--json", "--session-a", one, "--session-b", one], &dir, &dir);
    assert_eq!((code, &j["same"]), (0, &Value::Bool(true)));
    let (code, j, _) = diff(&["--json", "--session-a", one, "--session-b", other], &dir, &dir);
    assert_eq!((code, j["pairs"][0]["b"].as_str()), (1, Some(other)));
    let (code, _, out) = diff(&["--session-a", "nobody", "--session-b", one], &dir, &dir);
    assert_eq!(code, 2, "{out}");
    let (code, _, _) = diff(&[], &dir, Path::new("/no/such/log"));
    assert_eq!(code, 2);
}

/// The harness family's conversations are fingerprinted from a borrowed reading of their lines
/// (`wire_transcript::compared`), and a path given twice is read once: a Copilot log against
/// itself, against its copy, against a copy written otherwise but saying the same (keys in
/// another order, whitespace), and against one with a changed reply.
#[test]
fn a_copilot_run_parts_where_its_reply_changed_and_nowhere_else() {
    let a = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/conformance/cases/copilot-events-saved/input/events.jsonl");
    let text = std::fs::read_to_string(&a).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name).join("events.jsonl");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    };
    let without_files = |mut j: Value| {
        for side in ["a", "b"] {
            j[side]["files"] = Value::Null;
        }
        j
    };
    let (code, itself, out) = diff(&["--json"], &a, &a);
    assert_eq!((code, &itself["same"]), (0, &Value::Bool(true)), "{out}");
    assert!(itself["divergence"].is_null());
    // Read once or twice, the comparison is the same.
    let copy = write("copy", &text);
    let (code, j, _) = diff(&["--json"], &a, &copy);
    assert_eq!(code, 0);
    assert_eq!(without_files(j), without_files(itself.clone()));
    // Written otherwise, saying the same.
    let respelled = text
        .replace(r#""arguments":{"prompt":"check"}"#, r#""arguments":{ "prompt" : "check" }"#)
        .replace(r#"{"content":"A progress"}"#, r#"{"content":"A  progress\n"}"#)
        .replace(
            r#"{"toolCallId":"t-b","toolName":"task","arguments""#,
            r#"{"toolName":"task","toolCallId":"t-b","arguments""#,
        );
    assert_ne!(respelled, text);
    let (code, j, out) = diff(&["--json"], &a, &write("respelled", &respelled));
    assert_eq!(code, 0, "{out}");
    assert_eq!(without_files(j), without_files(itself));
    // A reply changed: that reply, on that line, and nothing else.
    let line = 1 + text.lines().position(|l| l.contains(r#""Root summary.""#)).unwrap();
    let changed = text.replace(r#""Root summary.""#, r#""Root summary, changed.""#);
    let (code, j, out) = diff(&["--json"], &a, &write("changed", &changed));
    assert_eq!(code, 1, "{out}");
    let d = &j["divergence"];
    assert_eq!((d["what"].as_str(), d["pair"].as_u64()), (Some("reply"), Some(0)), "{d}");
    assert_eq!((&d["a"]["at"]["line"], &d["b"]["at"]["line"]), (&Value::from(line), &Value::from(line)));
    assert_eq!(
        (d["a"]["text"].as_str(), d["b"]["text"].as_str()),
        (Some("Root summary."), Some("Root summary, changed."))
    );
    let pairs = j["pairs"].as_array().unwrap();
    assert!(pairs.len() > 1 && pairs[1..].iter().all(|p| p["divergence"].is_null() && p["a"] == p["b"]));
    assert_eq!(j["totals"]["differs"], serde_json::json!(["conversation"]));
}
