//! `subagent-reply-differs` for the formats whose producers wrap a sub-agent's reply in lines of
//! their own (SPEC 2.6, 2.7, compared as 2.4 says): Gemini CLI's call result and OpenCode's
//! `task` output. Each test reads a conformance case as it is, or with one text changed, and
//! asserts every such finding: where (the parent's call line), whom (the child) and which call;
//! and a Gemini CLI call whose sub-agent's file is not loaded (`subagent-transcript-missing`).
//! The conformance checker allows extra info findings, so the cases whose texts agree are
//! asserted to give none here.

use crate::common;

use arbor_core::report::Report;
use std::path::{Path, PathBuf};

fn case(name: &str) -> PathBuf {
    common::repo().join("tests/conformance/cases").join(name).join("input")
}

/// `subagent-reply-differs` findings as `file-name:line child`, and their messages.
fn differs(r: &Report) -> (Vec<String>, Vec<String>) {
    let found: Vec<_> = r.diagnostics.iter().filter(|d| d.code == "subagent-reply-differs").collect();
    let at = found
        .iter()
        .map(|d| {
            let file = Path::new(&d.at.file).file_name().unwrap().to_string_lossy().into_owned();
            format!("{file}:{} {}", d.at.line, d.session.as_deref().unwrap_or("-"))
        })
        .collect();
    (at, found.iter().map(|d| d.message.clone()).collect())
}

/// A copy of a case's input folder, to change a text in.
fn copy(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} holds {from:?}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// The database an OpenCode case's script makes, with `change` applied to the script.
fn store(name: &str, dir: &Path, change: Option<(&str, &str)>) -> PathBuf {
    let mut sql = std::fs::read_to_string(case(name).join("opencode.sql")).unwrap();
    if let Some((from, to)) = change {
        assert!(sql.contains(from), "{name} holds {from:?}");
        sql = sql.replacen(from, to, 1);
    }
    let db = dir.join("opencode.db");
    rusqlite::Connection::open(&db).unwrap().execute_batch(&sql).unwrap();
    db
}

const GEMINI_ROOT: &str = "session-2026-05-03T09-00-5e1f0a2b.jsonl";

#[test]
fn gemini_a_reply_that_says_more_than_the_parent_received_is_found_at_the_call() {
    let r = common::report(&[case("gemini-cli-reply-differs")]);
    let (at, messages) = differs(&r);
    // b111… submitted with complete_task what its parent received (an earlier message's text is
    // not its reply); b222…'s last message, in its last form, says more than `Note written.`.
    assert_eq!(at, [format!("{GEMINI_ROOT}:4 b2222222-2222-4222-8222-222222222222")]);
    assert!(
        messages[0].contains("`gen-1`") && messages[0].contains("`5e1f0a2b-1111-4aaa-8bbb-000000000001`"),
        "{messages:?}"
    );
}

/// A sub-agent whose file is not loaded is told by the call that ran it, its id and its tool.
#[test]
fn gemini_a_sub_agent_not_loaded_is_told_by_its_call_and_tool() {
    let r = common::report(&[case("gemini-cli-subagents")]);
    let missing: Vec<&str> =
        r.diagnostics.iter().filter(|d| d.code == "subagent-transcript-missing").map(|d| d.message.as_str()).collect();
    assert_eq!(
        missing,
        ["`a1111111-1111-4111-8111-111111111111` ran sub-agent `a4444444-4444-4444-8444-444444444444` (call `inv-4`, tool `codebase_investigator`), whose session file is not loaded"]
    );
}

#[test]
fn gemini_the_producers_lines_and_whitespace_alone_give_no_finding() {
    let r = common::report(&[case("gemini-cli-reply-wrapper")]);
    assert_eq!(differs(&r).0, Vec::<String>::new());
}

#[test]
fn gemini_a_changed_reply_or_an_unreplayed_rewind_is_found() {
    let root = "6f2a1b3c-2222-4aaa-8bbb-000000000002";
    let child = "c1111111-1111-4111-8111-111111111111";
    let at = [format!("session-2026-05-04T08-00-6f2a1b3c.jsonl:3 {child}")];
    // The sub-agent's last message says otherwise.
    let dir = tempfile::tempdir().unwrap();
    copy(&case("gemini-cli-reply-wrapper"), dir.path());
    let file = dir.path().join(format!("chats/{root}/{child}.jsonl"));
    edit(&file, r#"Three tests fail:\n- a\n- b\n- c"#, r#"Three tests fail:\n- a\n- b\n- d"#);
    assert_eq!(differs(&common::report(&[dir.path().to_path_buf()])).0, at);
    // Without the rewind, the message it cut is the last reply.
    let dir = tempfile::tempdir().unwrap();
    copy(&case("gemini-cli-reply-wrapper"), dir.path());
    let file = dir.path().join(format!("chats/{root}/{child}.jsonl"));
    edit(&file, "{\"$rewindTo\":\"c1b\"}\n", "");
    assert_eq!(differs(&common::report(&[dir.path().to_path_buf()])).0, at);
    // A complete_task that submitted another text.
    let dir = tempfile::tempdir().unwrap();
    copy(&case("gemini-cli-reply-differs"), dir.path());
    let file = dir.path().join("chats/5e1f0a2b-1111-4aaa-8bbb-000000000001/b1111111-1111-4111-8111-111111111111.jsonl");
    edit(&file, r#""result":"parse() drops the last line when"#, r#""result":"parse() keeps the last line when"#);
    let (at, _) = differs(&common::report(&[dir.path().to_path_buf()]));
    assert_eq!(
        at,
        [
            format!("{GEMINI_ROOT}:3 b1111111-1111-4111-8111-111111111111"),
            format!("{GEMINI_ROOT}:4 b2222222-2222-4222-8222-222222222222")
        ]
    );
}

#[test]
fn opencode_a_resumed_task_is_compared_with_the_reply_of_each_run() {
    let dir = tempfile::tempdir().unwrap();
    let r = common::report(&[store("opencode-reply-differs", dir.path(), None)]);
    let (at, messages) = differs(&r);
    // The first call received what the child said then, though the child's last reply is
    // another; the second received `because of y` where the child said `because of x`.
    assert_eq!(at, ["opencode.db:17 ses_a"]);
    assert!(messages[0].contains("`call_t2`") && messages[0].contains("`ses_root`"), "{messages:?}");
}

#[test]
fn opencode_the_wrapper_and_whitespace_alone_give_no_finding() {
    let dir = tempfile::tempdir().unwrap();
    let r = common::report(&[store("opencode-reply-wrapper", dir.path(), None)]);
    assert_eq!(differs(&r).0, Vec::<String>::new());
}

#[test]
fn opencode_a_changed_text_inside_either_wrapper_is_found() {
    // The newer wrapper: the child's last text part says otherwise.
    let dir = tempfile::tempdir().unwrap();
    let db = store("opencode-reply-wrapper", dir.path(), Some((r#"All   tests\npass."#, r#"All tests pass but one."#)));
    assert_eq!(differs(&common::report(&[db])).0, ["opencode.db:14 ses_b"]);
    // The older wrapper: text outside the tags is the parent's too.
    let dir = tempfile::tempdir().unwrap();
    let db = store(
        "opencode-reply-wrapper",
        dir.path(),
        Some((r#"changed\n</task_result>"#, r#"changed\n</task_result>\nand more"#)),
    );
    assert_eq!(differs(&common::report(&[db])).0, ["opencode.db:20 ses_c"]);
    // A background call's notice is never compared, whatever the child says.
    let dir = tempfile::tempdir().unwrap();
    let db = store("opencode-reply-wrapper", dir.path(), Some(("No lint errors.", "Two lint errors.")));
    assert_eq!(differs(&common::report(&[db])).0, Vec::<String>::new());
}

/// What a run shows as received is the text that was compared: the reply inside the wrapper
/// (text outside the tags included), and nothing for a background call whose output is the
/// harness's notice that the child runs on.
#[test]
fn opencode_what_a_run_received_is_what_was_compared() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(
        "opencode-reply-wrapper",
        dir.path(),
        Some((r#"changed\n</task_result>"#, r#"changed\n</task_result>\nand more"#)),
    );
    let r = common::report(&[db]);
    let received = |id: &str| {
        let s = r.sessions.iter().find(|s| s.id == id).unwrap();
        assert_eq!(s.runs.len(), 1, "{id}");
        s.runs[0].received.as_ref().map(|x| x.text.clone())
    };
    assert_eq!(received("ses_d"), None, "a running background task's notice is not the child's reply");
    let c = received("ses_c").unwrap();
    assert!(c.starts_with("<task_result>") && c.ends_with("and more"), "{c:?}");
    assert_eq!(received("ses_b").as_deref().map(|t| t.contains("<task")), Some(false));
}
