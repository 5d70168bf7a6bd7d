//! OpenCode's store read end to end (SPEC 2.7): a database being written followed by its WAL, a
//! transcript read back from rows, the edits its tools made, and a database that cannot be read
//! (corrupt, locked) reported as a finding, never a panic and never a write.

use crate::common;

use arbor_core::live::Live;
use arbor_core::transcript::PartKind;
use std::path::{Path, PathBuf};

/// The database a conformance case's SQL makes, in `dir`.
fn store(case: &str, dir: &Path) -> PathBuf {
    let sql = common::repo().join("tests/conformance/cases").join(case).join("input/opencode.sql");
    let db = dir.join("opencode.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(&std::fs::read_to_string(sql).unwrap()).unwrap();
    db
}

/// The rows of a user's prompt: message `msg` (`msg_…`) of `session` at `time` (ms), and its
/// text part (`prt_…`, the message's id's).
fn prompt_rows(msg: &str, session: &str, time: u64, text: &str) -> String {
    let part = msg.replacen("msg_", "prt_", 1);
    format!(
        r#"INSERT INTO message VALUES ('{msg}', '{session}', {time}, {time}, '{{"role":"user","time":{{"created":{time}}},"agent":"build","model":{{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}}}');
           INSERT INTO part VALUES ('{part}', '{msg}', '{session}', {time}, {time}, '{{"type":"text","text":"{text}"}}');"#
    )
}

fn json(a: &arbor_core::Analysis) -> serde_json::Value {
    serde_json::to_value(a.report()).unwrap()
}

/// A store that OpenCode is writing (WAL mode, its rows still in the `-wal`) is followed: each
/// change is read, and the snapshot is what a fresh reading of the store as it is now gives.
#[test]
fn a_store_being_written_is_followed_through_its_wal() {
    let dir = tempfile::tempdir().unwrap();
    let db = store("opencode-turns-usage", dir.path());
    let w = rusqlite::Connection::open(&db).unwrap();
    w.execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;").unwrap();
    let mut live = Live::open(std::slice::from_ref(&db), &mut ());
    assert_eq!(
        json(&live.snapshot())["turns"],
        json(&arbor_core::analyze(std::slice::from_ref(&db), &mut ()))["turns"]
    );
    // The assistant answers the last prompt: a message, its parts, and its part updated in place.
    w.execute_batch(
        r#"INSERT INTO message VALUES ('msg_09', 'ses_u', 4300, 4300, '{"role":"assistant","time":{"created":4300,"completed":4400},"parentID":"msg_07","modelID":"claude-sonnet-4-5","providerID":"anthropic","mode":"build","agent":"build","path":{"cwd":"/w","root":"/w"},"cost":0.02,"tokens":{"input":7,"output":3,"reasoning":0,"cache":{"read":0,"write":0}},"finish":"stop"}');
           INSERT INTO part VALUES ('prt_18', 'msg_09', 'ses_u', 4300, 4300, '{"type":"step-start"}');
           INSERT INTO part VALUES ('prt_19', 'msg_09', 'ses_u', 4350, 4350, '{"type":"text","text":"Continuing"}');
           INSERT INTO part VALUES ('prt_20', 'msg_09', 'ses_u', 4400, 4400, '{"type":"step-finish","reason":"stop","cost":0.02,"tokens":{"input":7,"output":3,"reasoning":0,"cache":{"read":0,"write":0}}}');
           UPDATE part SET data = '{"type":"text","text":"Continuing, done."}' WHERE id = 'prt_19';"#,
    )
    .unwrap();
    let change = live.update(&mut ());
    assert!(!change.is_empty(), "a write to the -wal is a change");
    let followed = json(&live.snapshot());
    let fresh = json(&arbor_core::analyze(std::slice::from_ref(&db), &mut ()));
    for key in ["sessions", "turns", "replies", "diagnostics"] {
        assert_eq!(followed[key], fresh[key], "{key}");
    }
    let last = followed["replies"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["text"], "Continuing, done.", "the part's latest state");
    assert_eq!(live.update(&mut ()), Default::default(), "nothing new: nothing read");
    drop(w);
}

/// A session's transcript is read back from its rows: the prompt (not the harness's synthetic
/// text), reasoning, a tool call with its result, the reply, each call's tokens on its
/// step-finish; a task call is a spawn with what its parent received.
#[test]
fn transcripts_are_read_back_from_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = store("opencode-turns-usage", dir.path());
    let a = arbor_core::analyze(&[db], &mut ());
    let index = a.transcript_index("ses_u").unwrap();
    let page = a.transcript_page(&index, 0, 100, 1000);
    let kinds: Vec<PartKind> = page.rows.iter().flat_map(|r| r.parts.iter().map(|p| p.kind)).collect();
    use PartKind::*;
    assert_eq!(
        kinds,
        [
            Prompt, Notice, Reasoning, ToolCall, ToolResult, Usage, Text, Usage, Prompt, ToolCall, ToolResult,
            Compaction, Text, Usage, Prompt
        ]
    );
    let usage: Vec<u64> =
        page.rows.iter().flat_map(|r| &r.parts).filter_map(|p| p.usage.as_ref().map(|u| u.input)).collect();
    assert_eq!(usage, [200, 300, 2000], "each call's own tokens");

    let dir = tempfile::tempdir().unwrap();
    let db = store("opencode-subagents", dir.path());
    let a = arbor_core::analyze(&[db], &mut ());
    let page = a.transcript_page(&a.transcript_index("ses_root").unwrap(), 0, 100, 1000);
    let spawned: Vec<(PartKind, Option<&str>, &str)> = page
        .rows
        .iter()
        .flat_map(|r| &r.parts)
        .filter(|p| matches!(p.kind, Spawn | Received))
        .map(|p| (p.kind, p.child.as_deref(), p.text.as_str()))
        .collect();
    assert_eq!(spawned.len(), 4, "two calls of ses_a, each a spawn and what came back: {spawned:?}");
    assert_eq!(spawned[1], (Received, Some("ses_a"), "test_x fails"));
    assert_eq!(spawned[3], (Received, Some("ses_a"), "because y"));
}

/// OpenCode's `edit` and `write` calls are edits (SPEC 6.5): the applied edit's diff, the write
/// that failed not applied.
#[test]
fn edits_and_writes_are_changes() {
    let dir = tempfile::tempdir().unwrap();
    let db = store("opencode-turns-usage", dir.path());
    let a = arbor_core::analyze(&[db], &mut ());
    let edits = a.changes(None);
    let got: Vec<(&str, &str, Option<bool>)> = edits.iter().map(|e| (e.path.as_str(), e.kind, e.applied)).collect();
    assert_eq!(got, [("/w/a.rs", "edit", Some(true)), ("/w/t.rs", "write", Some(false))]);
    assert!(edits[0].diff.contains("-fn foo()") && edits[0].diff.contains("+fn bar()"), "{}", edits[0].diff);
}

/// A corrupt database and a locked one are findings at their line 1 (an error), never a panic;
/// nothing is written beside them.
#[test]
fn a_database_that_cannot_be_read_is_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("opencode.db");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0x5A, 8192));
    std::fs::write(&bad, &bytes).unwrap();
    let r = common::report(std::slice::from_ref(&bad));
    assert!(r.diagnostics.iter().any(|d| d.severity == arbor_core::report::Severity::Error), "{:?}", r.diagnostics);
    assert_eq!(std::fs::read(&bad).unwrap(), bytes, "the file is as it was");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing made beside it");

    // Locked: a writer holds an exclusive lock (rollback journal) for longer than a read waits.
    let dir = tempfile::tempdir().unwrap();
    let db = store("opencode-turns-usage", dir.path());
    let w = rusqlite::Connection::open(&db).unwrap();
    w.execute_batch(
        "PRAGMA journal_mode=DELETE; BEGIN EXCLUSIVE; INSERT INTO __drizzle_migrations VALUES (2, 'h2', 0);",
    )
    .unwrap();
    let r = common::report(std::slice::from_ref(&db));
    let errors: Vec<&str> = r
        .diagnostics
        .iter()
        .filter(|d| d.severity == arbor_core::report::Severity::Error)
        .map(|d| d.message.as_str())
        .collect();
    assert!(errors.iter().any(|m| m.contains("locked") || m.contains("busy")), "{:?}", r.diagnostics);
    w.execute_batch("ROLLBACK").unwrap();
}

/// The report without its places (a tree's rendering numbers its lines apart from the whole
/// store's).
fn placeless(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => m
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "at" | "file" | "line"))
            .map(|(k, v)| (k.clone(), placeless(v)))
            .collect(),
        serde_json::Value::Array(a) => a.iter().map(placeless).collect(),
        v => v.clone(),
    }
}

fn of_sessions(v: &serde_json::Value, key: &str, ids: &[&str]) -> Vec<serde_json::Value> {
    v[key]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| ids.contains(&x["session"].as_str().or(x["id"].as_str()).unwrap_or("")))
        .map(placeless)
        .collect()
}

/// A path `<store>/<session id>` opens that session's whole delegation tree and nothing else of
/// the store: a grandchild's path opens its root's tree; what it reports of each of the tree's
/// sessions is what the whole store's reading reports; a transcript reads back from it; a
/// session the store does not have is a finding.
#[test]
fn a_session_of_a_store_opens_as_its_own_tree() {
    let dir = tempfile::tempdir().unwrap();
    let db = store("opencode-subagents", dir.path());
    let whole = arbor_core::analyze(std::slice::from_ref(&db), &mut ());
    let tree_path = db.join("ses_b");
    assert!(arbor_core::reader::exists(&tree_path));
    let tree = arbor_core::analyze(std::slice::from_ref(&tree_path), &mut ());
    let (w, t) = (json(&whole), json(&tree));
    let mut ids: Vec<&str> = t["sessions"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, ["ses_a", "ses_b", "ses_c", "ses_p", "ses_root"], "the tree of ses_b's root, not ses_orphan");
    for key in ["sessions", "turns", "replies", "diagnostics"] {
        assert_eq!(of_sessions(&t, key, &ids), of_sessions(&w, key, &ids), "{key}");
    }
    assert!(t["diagnostics"].as_array().unwrap().iter().all(|d| d["session"] != "ses_orphan"));
    let page = |a: &arbor_core::Analysis| {
        let p = a.transcript_page(&a.transcript_index("ses_a").unwrap(), 0, 100, 1000);
        p.rows.iter().flat_map(|r| &r.parts).map(|p| (p.kind, p.text.clone())).collect::<Vec<_>>()
    };
    assert!(!page(&tree).is_empty());
    assert_eq!(page(&tree), page(&whole), "read back from the tree's rendering");

    // Read back again after the store changed (a rollback-journal write that keeps its size):
    // the store as it is now, not the rendering kept from before.
    let mut rendered = String::new();
    std::io::Read::read_to_string(&mut arbor_core::reader::open(&tree_path).unwrap(), &mut rendered).unwrap();
    let line_of = |needle: &str| {
        let at = rendered.find(needle).unwrap();
        rendered[..at].rfind('\n').map_or(0, |i| i + 1) as u64
    };
    let at = line_of("test_x fails");
    let line = |p: &Path| String::from_utf8(arbor_core::reader::raw_line_at(p, at).unwrap()).unwrap();
    assert!(line(&tree_path).contains("test_x fails"));
    assert!(line(&tree_path).contains("test_x fails"), "read back again, from what was kept");
    let w = rusqlite::Connection::open(&db).unwrap();
    w.execute(
        "UPDATE part SET data = replace(data, 'test_x fails', 'test_x FAILS') WHERE data LIKE '%test_x fails%'",
        [],
    )
    .unwrap();
    drop(w);
    assert!(line(&tree_path).contains("test_x FAILS"), "the store changed: {}", line(&tree_path));

    let missing = common::report(&[db.join("ses_nope")]);
    assert!(
        missing.diagnostics.iter().any(|d| d.message.contains("no session")),
        "a session the store lacks: {:?}",
        missing.diagnostics
    );
    assert!(!arbor_core::reader::exists(&dir.path().join("elsewhere/ses_a")));
}

/// A session that only messages name (its `session` row missing) is a tree of the store too: its
/// path opens it, as the whole store's reading reports it (a session with no title or parent, and
/// the finding that says so), and the store's roots list it, so the Library indexes its text.
#[test]
fn a_session_only_messages_name_opens_as_its_own_tree() {
    let dir = tempfile::tempdir().unwrap();
    let db = store("opencode-subagents", dir.path());
    let w = rusqlite::Connection::open(&db).unwrap();
    w.execute_batch(&prompt_rows("msg_g1", "ses_ghost", 2500, "a row-less question")).unwrap();
    w.execute_batch(
        r#"INSERT INTO message VALUES ('msg_g2', 'ses_ghost', 2600, 2600, '{"role":"assistant","time":{"created":2600,"completed":2700},"parentID":"msg_g1","modelID":"claude-sonnet-4-5","providerID":"anthropic","agent":"build","finish":"stop","tokens":{"input":10,"output":5,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0}');
           INSERT INTO part VALUES ('prt_g2', 'msg_g2', 'ses_ghost', 2600, 2600, '{"type":"text","text":"a row-less answer"}');"#,
    )
    .unwrap();
    drop(w);
    assert!(arbor_core::bytes::rows::roots(&db).unwrap().contains(&"ses_ghost".to_string()));
    let whole = json(&arbor_core::analyze(std::slice::from_ref(&db), &mut ()));
    let tree = json(&arbor_core::analyze(&[db.join("ses_ghost")], &mut ()));
    let ids: Vec<&str> = tree["sessions"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["ses_ghost"]);
    for key in ["sessions", "turns", "replies"] {
        assert_eq!(of_sessions(&tree, key, &ids), of_sessions(&whole, key, &ids), "{key}");
    }
    assert_eq!(tree["replies"][0]["text"], "a row-less answer");
    assert!(
        tree["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "orphan-record"),
        "the messages name no loaded session: {}",
        tree["diagnostics"]
    );
}

/// A followed tree of a store that OpenCode writes reads the store's changes to it; a change
/// to another tree leaves its report as a fresh reading of it gives it.
#[test]
fn a_followed_tree_of_a_store_reads_its_own_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = store("opencode-subagents", dir.path());
    let w = rusqlite::Connection::open(&db).unwrap();
    w.execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;").unwrap();
    let tree = db.join("ses_root");
    let mut live = Live::open(std::slice::from_ref(&tree), &mut ());
    let sessions = |v: &serde_json::Value| v["sessions"].as_array().unwrap().len();
    let before = json(&live.snapshot());
    assert_eq!(sessions(&before), 5);
    let rows = [
        prompt_rows("msg_o9", "ses_orphan", 2100, "elsewhere"),
        prompt_rows("msg_r9", "ses_root", 2200, "one more thing"),
    ];
    w.execute_batch(&rows.concat()).unwrap();
    assert!(!live.update(&mut ()).is_empty(), "a write to the store's -wal is a change of the tree");
    let followed = json(&live.snapshot());
    let fresh = json(&arbor_core::analyze(std::slice::from_ref(&tree), &mut ()));
    for key in ["sessions", "turns", "replies", "diagnostics"] {
        assert_eq!(followed[key], fresh[key], "{key}");
    }
    assert_eq!(sessions(&followed), 5, "the other tree's rows are not read");
    let root_turns =
        |v: &serde_json::Value| v["turns"].as_array().unwrap().iter().filter(|t| t["session"] == "ses_root").count();
    assert_eq!(root_turns(&followed), root_turns(&before) + 1, "the root's new prompt is a turn");
    drop(w);
}

/// A step-finish part counts only as a part of its message: one whose message is not in the
/// store (an orphan part) counts no tokens, though its tokens are noted as it is read, and the
/// transcript shows each counted call's own.
#[test]
fn an_orphan_step_finish_counts_no_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let db = store("opencode-turns-usage", dir.path());
    let before = json(&arbor_core::analyze(std::slice::from_ref(&db), &mut ()));
    let w = rusqlite::Connection::open(&db).unwrap();
    w.execute_batch(
        r#"INSERT INTO part VALUES ('prt_x1', 'msg_gone', 'ses_u', 4600, 4600, '{"type":"step-finish","reason":"stop","cost":0.5,"tokens":{"input":70000,"output":3,"reasoning":0,"cache":{"read":0,"write":0}}}');"#,
    )
    .unwrap();
    drop(w);
    let a = arbor_core::analyze(std::slice::from_ref(&db), &mut ());
    let after = json(&a);
    assert_eq!(after["usage"], before["usage"], "the orphan's tokens are not counted");
    assert!(
        after["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "orphan-record"),
        "the orphan part is a finding"
    );
    let page = a.transcript_page(&a.transcript_index("ses_u").unwrap(), 0, 100, 1000);
    let usage: Vec<u64> =
        page.rows.iter().flat_map(|r| &r.parts).filter_map(|p| p.usage.as_ref().map(|u| u.input)).collect();
    assert_eq!(usage, [200, 300, 2000], "each counted call's own tokens, and none on the orphan");
}
