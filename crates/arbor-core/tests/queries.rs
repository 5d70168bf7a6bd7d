//! What the app asks of an analysis: deltas while it runs (first sessions early, cancel), and
//! record windows and search once it is done.

mod common;

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
