//! The `arbor` binary as CI uses it: exit codes, the JSON report, and one-line errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn arbor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbor")).args(args).output().unwrap()
}

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases").join(name).join("input")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn analyze_json_prints_the_report_and_exits_zero_whatever_it_found() {
    let p = case("dsh-rpc-bad-ancestry").join("run.jsonl");
    let out = arbor(&["analyze", "--json", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["report_version"], 1);
    assert_eq!(r["inputs"][0]["format"], "dsh-rpc");
    assert!(r["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "ancestry-cycle"));
}

#[test]
fn check_exits_one_on_errors_and_zero_on_warnings_only() {
    let bad = case("dsh-rpc-bad-ancestry").join("run.jsonl");
    let out = arbor(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("run.jsonl:4  ancestry-cycle"), "{}", text(&out.stdout));
    let fine = case("copilot-events-saved").join("events.jsonl");
    let out = arbor(&["check", fine.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn check_exits_two_when_nothing_can_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("notes.jsonl");
    std::fs::write(&p, "{\"hello\":1}\n").unwrap();
    let out = arbor(&["check", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let out = arbor(&["check", "/definitely/not/here.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one line, no backtrace: {err}");
    assert!(err.contains("/definitely/not/here.jsonl"));
}

#[test]
fn argument_errors_are_short_and_exit_two() {
    for args in [&["frobnicate"][..], &["analyze"], &["analyze", "--bogus", "x"], &[]] {
        let out = arbor(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains("usage: arbor"), "{args:?}: {}", text(&out.stderr));
        assert!(!text(&out.stderr).contains("panicked"));
    }
}

#[test]
fn the_summary_shows_the_tree_the_root_reply_and_findings_by_severity() {
    let out = arbor(&["analyze", case("builtin-sample").to_str().unwrap()]);
    let s = text(&out.stdout);
    assert!(s.contains("        fact-checker \"Verify citations\"  [ok]"), "{s}");
    assert!(s.contains("worker-7 \"Re-check [4]\"  [error]  2 runs"), "{s}");
    assert!(s.contains("[idle]  \"Citations [1]-[3] hold."), "{s}");
    assert!(s.contains("a naive waiter would have ended [error]"), "{s}");
    let warn = s.find("Warnings (2)").unwrap();
    let info = s.find("Info (2)").unwrap();
    assert!(warn < info);
    assert!(s.contains("copilot-sdk.jsonl:10  child-error-would-fail-wait"));
}
