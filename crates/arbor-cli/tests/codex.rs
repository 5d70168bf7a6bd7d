//! `arbor analyze` and `arbor check` on Codex sessions trees and single rollouts (SPEC 2.5).

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
fn analyze_prints_a_sessions_tree_with_its_labels_and_the_json_report_its_links() {
    let tree = case("codex-thread-spawn");
    let out = arbor(&["analyze", tree.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let summary = text(&out.stdout);
    assert!(summary.contains("worker-id \"Nash\""), "{summary}");
    assert!(summary.contains("tally-id \"tally\""), "{summary}");
    assert!(summary.contains("No findings."), "{summary}");
    let out = arbor(&["analyze", "--json", tree.to_str().unwrap()]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(r["inputs"].as_array().unwrap().iter().all(|i| i["format"] == "codex"));
    let worker = r["sessions"].as_array().unwrap().iter().find(|s| s["id"] == "worker-id").unwrap();
    assert_eq!(worker["runs"][0]["link"], "thread-spawn");
    assert_eq!(worker["runs"][0]["received"]["text"], "forty  two");
    assert_eq!(r["usage"]["total"]["output"], 38);
}

#[test]
fn check_fails_on_disagreeing_links_and_passes_a_clean_tree() {
    let out = arbor(&["check", case("codex-links-disagree").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("p2.jsonl:3  subagent-links-disagree"), "{}", text(&out.stdout));
    let out = arbor(&["check", case("codex-thread-spawn").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // A review sub-agent opened alone is only a warning: it does not fail the check by default.
    let alone = case("codex-review-window").join("review-b.jsonl");
    let out = arbor(&["check", "--format", "json", alone.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("\"subagent-link-inferred\""), "{}", text(&out.stdout));
}
