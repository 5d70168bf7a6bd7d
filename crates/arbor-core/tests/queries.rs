//! What the app asks of an analysis: deltas while it runs (first sessions early, cancel), and
//! record windows and search once it is done.

use crate::common;

use arbor_core::{Delta, Hit, Observer, Progress};
use std::fmt::Write;

fn sample() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let folder = arbor_core::sample::write_to(dir.path()).unwrap();
    (dir, folder)
}

#[derive(Default)]
struct Collect {
    deltas: Vec<Delta>,
    stop_after: Option<usize>,
}

impl Observer for Collect {
    fn delta(&mut self, d: Delta) -> bool {
        self.deltas.push(d);
        self.stop_after.is_none_or(|n| self.deltas.len() < n)
    }
}

#[test]
fn deltas_add_up_to_the_report() {
    let (_d, folder) = sample();
    let mut c = Collect::default();
    let a = arbor_core::analyze(std::slice::from_ref(&folder), &mut c);
    let r = a.report();
    let ids: Vec<String> = c.deltas.iter().flat_map(|d| d.sessions.iter().map(|s| s.id.clone())).collect();
    let mut want: Vec<String> = r.sessions.iter().map(|s| s.id.clone()).collect();
    let mut got = ids.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want, "every session exactly once");
    let findings: usize = c.deltas.iter().map(|d| d.findings.len()).sum();
    assert_eq!(findings, r.diagnostics.len());
    let edges: usize = c.deltas.iter().map(|d| d.edges.len()).sum();
    assert_eq!(edges, r.sessions.iter().map(|s| s.runs.len()).sum::<usize>());
    let last = c.deltas.last().unwrap();
    assert_eq!(last.progress.files_done, 2);
}

#[test]
fn a_large_log_shows_its_first_sessions_before_it_ends_and_can_be_cancelled() {
    // ~40 MB: many roots, each with a child.
    let mut log = String::new();
    let mut i = 0;
    while log.len() < 40 << 20 {
        writeln!(log, r#"{{"method":"session.status","params":{{"sessionId":"r{i}","status":"running"}}}}"#).unwrap();
        writeln!(
            log,
            r#"{{"method":"subagent.started","params":{{"parentSessionId":"r{i}","childSessionId":"k{i}"}}}}"#
        )
        .unwrap();
        writeln!(log, r#"{{"method":"session.status","params":{{"sessionId":"r{i}","status":"idle"}}}}"#).unwrap();
        i += 1;
    }
    let (_d, p) = common::log("big.jsonl", &log);
    let mut c = Collect { stop_after: Some(2), ..Collect::default() };
    let a = arbor_core::analyze(std::slice::from_ref(&p), &mut c);
    assert!(a.cancelled);
    let first = &c.deltas[0];
    assert!(!first.sessions.is_empty(), "the first delta already has sessions");
    assert!(first.progress.bytes_read < first.progress.bytes_total / 4, "{:?}", first.progress);
    assert!(a.records().len() < i * 3, "cancelled before the end");
}

#[test]
fn progress_closures_still_observe_and_cancel() {
    let (_d, folder) = sample();
    let mut calls = 0;
    let mut f = |_: &Progress| {
        calls += 1;
        true
    };
    let a = arbor_core::analyze(&[folder], &mut f);
    assert!(!a.cancelled);
    assert!(calls >= 2);
}

/// The inspector's neighbours of a file's first line are not the last lines of the file read
/// before it: `session.jsonl:1` of a dsh-session folder has none before it.
#[test]
fn a_records_neighbours_stay_in_its_file() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/deepseek-harness/examples_acp-agent__subagent-multi");
    let a = arbor_core::analyze(&[folder], &mut ());
    for file in ["session.jsonl", "session.1.jsonl", "session.2.jsonl"] {
        let ix = a.find_record(file, 1).unwrap();
        let around = a.records_around(ix, 3, 3);
        assert!(
            around.iter().all(|r| r.file == file),
            "{file}: {:?}",
            around.iter().map(|r| (&r.file, r.line)).collect::<Vec<_>>()
        );
        assert_eq!(around.iter().map(|r| r.line).collect::<Vec<_>>(), [1, 2, 3, 4], "{file}");
    }
}

#[test]
fn records_are_found_by_place_with_their_neighbours() {
    let (_d, folder) = sample();
    let a = arbor_core::analyze(&[folder], &mut ());
    let ix = a.find_record("delegation.jsonl", 10).unwrap();
    let around = a.records_around(ix, 2, 2);
    let lines: Vec<u64> = around.iter().map(|r| r.line).collect();
    assert_eq!(lines, [8, 9, 10, 11, 12]);
    assert!(around.iter().all(|r| r.file == "delegation.jsonl"));
    let r = &around[2];
    assert_eq!(r.index, ix);
    assert!(r.time.is_some(), "dsh events carry time");
    assert!(a.find_record("delegation.jsonl", 9999).is_none());
    assert!(a.find_record("nope.jsonl", 1).is_none());
    let raw = a.raw_line("delegation.jsonl", 10).unwrap();
    assert!(raw.starts_with('{') && raw.contains("\"sessionId\""), "{raw}");
}

#[test]
fn search_finds_sessions_by_label_and_records_by_text() {
    let (_d, folder) = sample();
    let a = arbor_core::analyze(&[folder], &mut ());
    let hits = a.search("verify", 10);
    assert!(matches!(&hits[0], Hit::Session { id, .. } if id == "fact-checker"), "{hits:?}");
    let hits = a.search("retracted paper", 50);
    let texts: Vec<_> = hits
        .iter()
        .filter_map(|h| match h {
            Hit::Record { record, text } => Some((record.file.clone(), record.line, text.clone())),
            _ => None,
        })
        .collect();
    assert!(texts.len() >= 3, "{texts:?}");
    assert!(texts.iter().all(|(f, _, t)| f == "delegation.jsonl" && t.to_lowercase().contains("retracted paper")));
    assert_eq!(a.search("retracted paper", 2).len(), 2, "the limit holds");
    assert!(a.search("", 10).is_empty());
}

/// `kind@line session` for each record of a page.
fn rows(page: &arbor_core::RecordPage) -> Vec<String> {
    page.records.iter().map(|r| format!("{}@{} {}", r.kind, r.line, r.session.as_deref().unwrap_or("-"))).collect()
}

#[test]
fn naive_dropped_lists_what_a_direct_parent_filter_loses_from_a_root_turn() {
    // root → kid → grand (SPEC 2.1): the naive reader keeps root's own notifications and the
    // lifecycle whose parent is root (lines 2–6, 23–30), and drops everything from kid and grand,
    // including grand's lifecycle, which names kid as its parent (lines 7–22).
    let case = common::repo().join("tests/conformance/cases/dsh-rpc-two-level/input/run.jsonl");
    let a = arbor_core::analyze(std::slice::from_ref(&case), &mut ());
    let r = a.report();
    let w = &r.waits[0];
    let start = w.start.as_ref().unwrap();
    let all = a.naive_dropped("root", &start.file, start.line, 0, 100).unwrap();
    assert_eq!(all.total as u64, w.notifications.unwrap() - w.naive.notifications.unwrap());
    let lines: Vec<u64> = all.records.iter().map(|r| r.line).collect();
    assert_eq!(lines, (7..=22).collect::<Vec<u64>>());
    let got = rows(&all);
    assert_eq!(got[0], "turn/start@7 kid");
    assert_eq!(got[3], "subagent.started@10 kid", "grand's start edge is attributed through kid");
    assert_eq!(got[10], "subagent.finished@17 kid");
    assert_eq!(got[15], "status@22 kid");
    assert!(got.iter().all(|g| !g.ends_with(" root")), "{got:#?}");

    // Paged: a window of the same list, with the same total.
    let page = a.naive_dropped("root", &start.file, start.line, 5, 4).unwrap();
    assert_eq!((page.total, page.offset), (16, 5));
    assert_eq!(page.records, all.records[5..9]);
    let tail = a.naive_dropped("root", &start.file, start.line, 14, 10).unwrap();
    assert_eq!(tail.records, all.records[14..]);
    assert!(a.naive_dropped("root", &start.file, start.line, 16, 10).unwrap().records.is_empty());
    // Named by root and start place: another root or place is no turn.
    assert!(a.naive_dropped("kid", &start.file, start.line, 0, 10).is_none());
    assert!(a.naive_dropped("root", &start.file, start.line + 1, 0, 10).is_none());
}

#[test]
fn naive_dropped_keeps_interleaved_roots_apart() {
    // Two roots whose turns overlap: each turn's dropped list has only its own descendants.
    let n =
        |s: &str, t: &str| format!(r#"{{"method":"session.status","params":{{"sessionId":"{s}","status":"{t}"}}}}"#);
    let e = |p: &str, c: &str| {
        format!(r#"{{"method":"subagent.started","params":{{"parentSessionId":"{p}","childSessionId":"{c}"}}}}"#)
    };
    let log = [
        n("a", "running"),  // 1: a's turn starts
        n("b", "running"),  // 2: b's turn starts
        e("a", "a1"),       // 3
        e("b", "b1"),       // 4
        n("a1", "running"), // 5: dropped from a's turn
        n("b1", "running"), // 6: dropped from b's turn
        e("a1", "a2"),      // 7: dropped from a's turn (a grandchild's start edge)
        n("a2", "idle"),    // 8: dropped from a's turn
        n("b1", "idle"),    // 9: dropped from b's turn
        n("a", "idle"),     // 10: a's turn ends
        n("a1", "idle"),    // 11: a1 outlives it and opens a's next turn
        n("b", "idle"),     // 12: b's turn ends
    ]
    .join("\n");
    let (_d, p) = common::log("two-roots.jsonl", &format!("{log}\n"));
    let a = arbor_core::analyze(std::slice::from_ref(&p), &mut ());
    let r = a.report();
    let file = &r.inputs[0].file;
    let turn = |root: &str, line: u64| {
        let page = a.naive_dropped(root, file, line, 0, 50).unwrap();
        page.records.iter().map(|r| r.line).collect::<Vec<_>>()
    };
    assert_eq!(turn("a", 1), [5, 7, 8]);
    assert_eq!(turn("b", 2), [6, 9]);
    assert_eq!(turn("a", 11), [11], "a descendant that outlives a turn opens the root's next one");
    for w in &r.waits {
        let s = w.start.as_ref().unwrap();
        let total = a.naive_dropped(&w.root, &s.file, s.line, 0, 0).unwrap().total as u64;
        assert_eq!(total, w.notifications.unwrap() - w.naive.notifications.unwrap(), "{w:?}");
    }
}

#[test]
fn naive_dropped_adds_up_to_the_reports_counts_in_every_dsh_rpc_case() {
    let cases = common::repo().join("tests/conformance/cases");
    let (_d, sample) = sample();
    let inputs =
        ["dsh-rpc-two-level", "dsh-rpc-reused-child-id", "dsh-rpc-bad-ancestry"].map(|c| cases.join(c).join("input"));
    for input in inputs.iter().chain([&sample]) {
        let a = arbor_core::analyze(std::slice::from_ref(input), &mut ());
        for w in a.report().waits {
            let s = w.start.as_ref().unwrap();
            let page = a.naive_dropped(&w.root, &s.file, s.line, 0, usize::MAX).unwrap();
            let want = w.notifications.map_or(0, |n| n - w.naive.notifications.unwrap());
            assert_eq!((page.total as u64, page.records.len() as u64), (want, want), "{} {w:?}", input.display());
            assert!(page.records.iter().all(|r| r.session.as_deref() != Some(w.root.as_str())), "{page:?}");
        }
    }
}

#[test]
fn an_index_list_gives_back_what_was_pushed() {
    let want = [0, 1, 2, 129, 130, 300, 70_000, 70_127, 4_000_000_000, u32::MAX];
    let mut list = arbor_core::ctx::IndexList::default();
    want.iter().for_each(|&i| list.push(i));
    assert_eq!(list.iter().collect::<Vec<u32>>(), want);
    assert_eq!(list.len(), want.len());
    let mut dense = arbor_core::ctx::IndexList::default();
    (5..10_005).step_by(3).for_each(|i| dense.push(i));
    assert_eq!(dense.iter().collect::<Vec<u32>>(), (5..10_005).step_by(3).collect::<Vec<u32>>());
    assert!(arbor_core::ctx::IndexList::default().iter().next().is_none());
}

/// An observer that panics stops the analysis with that panic instead of leaving it waiting for
/// its parse threads (which wait for the routing thread to close the flow it left).
#[test]
fn a_panicking_observer_does_not_hang_the_analysis() {
    // ~4 MB, a few chunks: the parse threads are running when the observer first hears.
    let mut text = String::new();
    for i in 0..40_000 {
        writeln!(text, r#"{{"method":"session.status","params":{{"sessionId":"r{i}","status":"running"}}}}"#).unwrap();
    }
    let (_dir, path) = common::log("big.jsonl", &text);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(|| {
            // It panics once reading has begun, inside the routing loop.
            arbor_core::analyze(&[path], &mut |p: &arbor_core::Progress| -> bool {
                assert!(p.bytes_read == 0, "observer");
                true
            })
        });
        let _ = tx.send(outcome.is_err());
    });
    // Not a timing: the analysis takes milliseconds; without the fix it never ends.
    let panicked = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the analysis ended");
    assert!(panicked, "the observer's panic reaches the caller");
}

/// Lines left out of the records (blank, broken, not an object) shift every record after them:
/// each record is still found at its own line, from the first line to the last, and a line that
/// is not a record finds nothing.
#[test]
fn records_are_found_at_their_lines_past_lines_that_are_not_records() {
    let event = |n: u32| {
        format!(
            r#"{{"type":"assistant.turn_start","data":{{"turnId":"{n}"}},"id":"e{n}","timestamp":"2026-01-01T00:00:{:02}Z","parentId":null}}"#,
            n % 60
        )
    };
    let mut text = String::from("\n");
    let mut records = Vec::new();
    for n in 0..40u32 {
        match n % 7 {
            3 => text.push('\n'),
            5 => text.push_str("{broken\n"),
            6 => text.push_str("[1]\n"),
            _ => {
                text.push_str(&event(n));
                text.push('\n');
                records.push(n as u64 + 2);
            }
        }
    }
    let (_d, path) = common::log("events.jsonl", &text);
    let a = arbor_core::analyze(&[path], &mut ());
    let file = a.record_view(0).unwrap().file;
    for (i, &line) in records.iter().enumerate() {
        let ix = a.find_record(&file, line).unwrap_or_else(|| panic!("line {line}"));
        assert_eq!((ix, a.record_view(ix).unwrap().line), (i, line));
    }
    for line in (0..45).filter(|l| !records.contains(l)) {
        assert_eq!(a.find_record(&file, line), None, "line {line}");
    }
}
