//! `arbor changes` (SPEC 6.5) on real logs: every Write, Edit and MultiEdit call of the Claude
//! Code corpus is an edit, with the session that made it and whether it applied; Codex's
//! apply_patch is an edit per file it names; `--session` keeps one subtree; `--patch` is a diff.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(rel)
}

fn arbor(args: &[&str], path: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arbor")).args(args).arg(path).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn edits(args: &[&str], path: &Path) -> Vec<serde_json::Value> {
    let (code, out) = arbor(&[&["changes", "--json"], args].concat(), path);
    assert_eq!(code, 0, "{out}");
    out.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn every_write_and_edit_of_the_claude_code_corpus_is_listed_with_its_outcome() {
    let dir = corpus("claude-code");
    let all = edits(&[], &dir);
    // As many as the corpus has calls of these tools (grep '"name":"Write"' and the others).
    let count = |tool: &str| all.iter().filter(|e| e["tool"] == tool).count();
    assert_eq!((count("Write"), count("Edit"), count("MultiEdit")), (35, 9, 4));
    // The call the tool refused ("File has not been read yet") did not apply.
    let refused = all
        .iter()
        .find(|e| {
            e["at"]["line"] == 77
                && e["at"]["file"].as_str().unwrap().ends_with("fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl")
        })
        .expect("the Edit at line 77");
    assert_eq!((refused["tool"].as_str(), refused["applied"].as_bool()), (Some("Edit"), Some(false)));
    assert!(all.iter().all(|e| e["diff"].as_str().unwrap().starts_with("--- a/")));
    // One sub-agent alone: only its edits.
    let one = edits(&["--session", "sidechain-6690d10e-f521-4ac0-800d-e5eb7a2d8072"], &dir);
    assert_eq!(one.len(), 5);
    assert!(one.iter().all(|e| e["session"] == "sidechain-6690d10e-f521-4ac0-800d-e5eb7a2d8072"));
    let (code, _) = arbor(&["changes", "--session", "nobody"], &dir);
    assert_eq!(code, 2);
}

#[test]
fn a_codex_patch_is_an_edit_of_each_file_it_names_and_prints_as_a_diff() {
    let log = corpus("codex-cli/agtrace_codex_session.jsonl");
    let e = edits(&[], &log);
    assert_eq!(e.len(), 1);
    assert_eq!(
        (e[0]["path"].as_str(), e[0]["kind"].as_str(), e[0]["applied"].as_bool()),
        (Some("myapp/hoge.py"), Some("add"), Some(true))
    );
    let (_, patch) = arbor(&["changes", "--patch"], &log);
    assert!(patch.contains("--- a/myapp/hoge.py\n+++ b/myapp/hoge.py\n@@ -0,0 +1,1 @@\n+print(1 + 1)\n"), "{patch}");
    let (_, text) = arbor(&["changes"], &log);
    assert!(text.contains("myapp/hoge.py  +1 -0") && text.contains("apply_patch add +1 -0 (applied)"), "{text}");
}

#[test]
fn a_codex_patch_apply_end_says_whether_the_patch_applied() {
    // The corpus session with the `patch_apply_end` event Codex writes after applying a patch
    // (in rollouts that persist it), put after the call's output: it has the last word.
    let text = std::fs::read_to_string(corpus("codex-cli/agtrace_codex_session.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, success) in [("failed.jsonl", false), ("applied.jsonl", true)] {
        let mut out = String::new();
        for (i, line) in text.lines().enumerate() {
            out.push_str(line);
            out.push('\n');
            if i + 1 == 19 {
                out.push_str(&format!(
                    r#"{{"timestamp":"2025-12-09T19:55:35.300Z","type":"event_msg","payload":{{"type":"patch_apply_end","call_id":"call_pBXH93fl6ZXH2svDOFIlr8GA","stdout":"","stderr":"hoge.py: permission denied","success":{success}}}}}"#
                ));
                out.push('\n');
            }
        }
        let log = dir.path().join(name);
        std::fs::write(&log, out).unwrap();
        let e = edits(&[], &log);
        assert_eq!(e.len(), 1);
        assert_eq!(
            (e[0]["path"].as_str(), e[0]["applied"].as_bool()),
            (Some("myapp/hoge.py"), Some(success)),
            "{name}"
        );
    }
}

#[test]
fn the_dsh_editor_creates_replaces_and_inserts() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    let call = |seq: u32, id: &str, args: &str| {
        format!(
            r#"{{"type":"tool/call","seq":{seq},"time":{seq},"data":{{"turn":1,"step":1,"callId":"{id}","name":"str_replace_editor","arguments":{args}}}}}"#
        )
    };
    let lines = [
        r#"{"type":"session","version":0,"id":"s1"}"#.to_owned(),
        r#"{"type":"turn/start","seq":1,"time":1,"data":{"turn":1}}"#.to_owned(),
        r#"{"type":"step/start","seq":2,"time":2,"data":{"turn":1,"step":1}}"#.to_owned(),
        call(3, "c1", r#"{"command":"create","path":"/w/a.txt","file_text":"one\ntwo\n"}"#),
        call(4, "c2", r#"{"command":"str_replace","path":"/w/a.txt","old_str":"one","new_str":"uno"}"#),
        call(5, "c3", r#"{"command":"insert","path":"/w/a.txt","insert_line":2,"new_str":"three"}"#),
        call(6, "c4", r#"{"command":"view","path":"/w/a.txt"}"#),
        r#"{"type":"step/end","seq":7,"time":7,"data":{"turn":1,"step":1}}"#.to_owned(),
        r#"{"type":"turn/end","seq":8,"time":8,"data":{"turn":1,"reason":{"kind":"completed"}}}"#.to_owned(),
    ];
    std::fs::write(&log, lines.join("\n") + "\n").unwrap();
    let e = edits(&[], &log);
    let kinds: Vec<(&str, &str, u64)> = e
        .iter()
        .map(|e| (e["path"].as_str().unwrap(), e["kind"].as_str().unwrap(), e["added"].as_u64().unwrap()))
        .collect();
    assert_eq!(kinds, [("/w/a.txt", "write", 2), ("/w/a.txt", "edit", 1), ("/w/a.txt", "edit", 1)]);
    assert!(e[2]["diff"].as_str().unwrap().contains("(insert after line 2)"), "{}", e[2]["diff"]);
}

/// `arbor transcript DIR --session S` of a Claude Code project reads S's chain alone (its file,
/// its sub-agents, the sessions a resume replays), and says what reading the whole folder says.
#[test]
fn one_session_of_a_project_reads_as_the_whole_project_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    let gen = Path::new(env!("CARGO_BIN_EXE_arbor")).with_file_name("arbor-gen");
    let mut sessions = Vec::new();
    for seed in [1, 2, 3] {
        let out = Command::new(&gen)
            .args(["--format", "claude-code", "--size", "200K", "--depth", "2", "--seed", &seed.to_string(), "-o"])
            .arg(&project)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    for e in std::fs::read_dir(&project).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".jsonl").filter(|s| !s.starts_with("agent-")) {
            sessions.push(stem.to_owned());
        }
    }
    sessions.sort();
    assert!(sessions.len() >= 3, "{sessions:?}");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    for s in &sessions {
        let alone = Command::new(env!("CARGO_BIN_EXE_arbor"))
            .args(["transcript", "--json", "--session", s])
            .arg(&project)
            .output()
            .unwrap();
        // Two folders: nothing to narrow, the whole project read (its files named under `proj/`).
        let whole = Command::new(env!("CARGO_BIN_EXE_arbor"))
            .args(["transcript", "--json", "--session", s])
            .args([&project, &empty])
            .output()
            .unwrap();
        assert!(alone.status.success() && whole.status.success());
        let whole = String::from_utf8_lossy(&whole.stdout).replace("\"file\":\"proj/", "\"file\":\"");
        assert_eq!(String::from_utf8_lossy(&alone.stdout), whole, "session {s}");
    }
}
