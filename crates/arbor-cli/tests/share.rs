//! `arbor export --markdown/--html` (SPEC 6.4) on a real Claude Code project: the session named
//! (or the log's only root) written to a file or stdout, with what it says on stderr; several
//! roots and no `--session` refused with the roots named; `--subagents files` to stdout and an
//! unknown session refused; the export to a file appears whole, with its sub-agents' files.

use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = "fe5e1c67-53e7-4862-81ae-d0e013e3270b";

fn viewer() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/claude-code/claude-code-viewer")
}

fn arbor(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arbor")).args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

#[test]
fn a_session_goes_to_stdout_or_a_file_as_markdown_or_html() {
    let dir = viewer();
    let path = dir.to_str().unwrap();
    let (code, md, err) = arbor(&["export", "--markdown", "-", "--session", ROOT, path]);
    assert_eq!(code, 0, "{err}");
    assert!(md.starts_with("# Empty Repo Setup: CLAUDE.md Foundation Created\n"), "{}", &md[..200.min(md.len())]);
    assert_eq!(md.matches("> **Sub-agent** ").count(), 5, "summarized by default");
    assert_eq!(err.trim(), "arbor export: 1 session and 32 items to stdout");

    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("share.html");
    let (code, _, err) =
        arbor(&["export", "--html", file.to_str().unwrap(), "--subagents", "files", "--session", ROOT, path]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("6 sessions") && err.ends_with("and 5 sub-agent files beside it\n"), "{err}");
    let html = std::fs::read_to_string(&file).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("Content-Security-Policy"));
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 6);
}

#[test]
fn what_cannot_be_shared_says_why_with_exit_2() {
    let dir = viewer();
    let path = dir.to_str().unwrap();
    // Three roots in the folder: each is named.
    let (code, out, err) = arbor(&["export", "--markdown", "-", path]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("3 root sessions") && err.contains(ROOT), "{err}");
    let (code, _, err) = arbor(&["export", "--html", "-", "--subagents", "files", "--session", ROOT, path]);
    assert_eq!(code, 2);
    assert!(err.contains("give a FILE"), "{err}");
    let (code, _, err) = arbor(&["export", "--markdown", "-", "--session", "nobody", path]);
    assert_eq!(code, 2);
    assert!(err.contains("no session `nobody`"), "{err}");
    // One destination at a time.
    let (code, _, _) = arbor(&["export", "--markdown", "-", "--otlp-json", "-", path]);
    assert_eq!(code, 2);
    // A log with one root needs no --session.
    let one = dir.join("1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl");
    let (code, md, err) = arbor(&["export", "--markdown", "-", one.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(md.contains("1af7fc5e-8455-4414-9ccd-011d40f70b2a"));
}
