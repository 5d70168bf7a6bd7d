//! Generated OpenCode stores, read by the engine: records, sessions, runs, depth, turns, tokens
//! and findings must be what the generator says it wrote (SPEC 2.7).

use arbor_core::report::{Link, Report};
use arbor_gen::opencode::{generate_opencode, OpenCodeStore, Store};
use arbor_gen::GenOptions;
use std::collections::BTreeMap;

fn run(store: Store, seed: u64, fault_rate: f64) -> (OpenCodeStore, Report, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let out = match store {
        Store::Database => dir.path().join("opencode.db"),
        Store::Tree => dir.path().join("storage"),
    };
    let size = if store == Store::Database { 1 << 20 } else { 256 << 10 };
    let opts = GenOptions { target_bytes: size, depth: 3, fanout: 2, seed, fault_rate, ..GenOptions::default() };
    let written = generate_opencode(&opts, store, &out).unwrap();
    let report = arbor_core::analyze(&[out], &mut ()).report();
    (written, report, dir)
}

fn check(store: Store, seed: u64, fault_rate: f64) -> BTreeMap<String, u64> {
    let (written, r, _dir) = run(store, seed, fault_rate);
    let s = &written.stats;
    let what = format!("opencode {store:?} seed {seed} faults {fault_rate}");
    // The database is one input of a row a record and its header; the tree a file a record,
    // each pretty-printed document one record at its line 1.
    assert_eq!(r.inputs.len() as u64, s.files, "{what}: inputs");
    assert!(r.inputs.iter().all(|i| i.format == "opencode"), "{what}: format");
    assert_eq!(r.inputs.iter().map(|i| i.records).sum::<u64>(), s.records, "{what}: records");
    assert_eq!(r.inputs.iter().map(|i| i.bad_lines).sum::<u64>(), 0, "{what}: bad lines");
    assert_eq!(r.sessions.len() as u64, s.sessions, "{what}: sessions");
    assert_eq!(r.sessions.iter().map(|x| x.runs.len() as u64).sum::<u64>(), s.runs, "{what}: runs");
    assert!(r.sessions.iter().flat_map(|x| &x.runs).all(|run| run.link == Link::ToolCall), "{what}: links");
    assert_eq!(r.turns.len() as u64, s.turns, "{what}: turns");
    assert_eq!(r.sessions.iter().filter_map(|x| x.depth).max().unwrap_or(0), s.max_depth, "{what}: depth");
    let total = r.usage.as_ref().map(|u| u.total.clone()).unwrap_or_default();
    assert_eq!(
        (total.input, total.output, total.cache_read, total.cache_write),
        (written.input, written.output, written.cache_read, written.cache_write),
        "{what}: tokens, per call from step-finish"
    );
    let mut codes: BTreeMap<String, u64> = BTreeMap::new();
    for d in &r.diagnostics {
        *codes.entry(d.code.clone()).or_default() += 1;
    }
    let want: BTreeMap<String, u64> = s.findings.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(codes, want, "{what}: findings");
    want
}

#[test]
fn clean_stores_read_as_written() {
    for seed in 1..=3 {
        check(Store::Database, seed, 0.0);
        check(Store::Tree, seed, 0.0);
    }
}

#[test]
fn faulty_stores_give_exactly_the_findings_written() {
    let mut seen = BTreeMap::new();
    for seed in 1..=3 {
        seen.extend(check(Store::Database, seed, 0.05));
        seen.extend(check(Store::Tree, seed, 0.05));
    }
    for code in ["subagent-transcript-missing", "subagent-links-disagree", "subagent-reply-differs"] {
        assert!(seen.contains_key(code), "{code} never injected: {seen:?}");
    }
}

#[test]
fn the_same_seed_writes_the_same_store() {
    let (a, _, _d1) = run(Store::Database, 7, 0.02);
    let (b, _, _d2) = run(Store::Database, 7, 0.02);
    assert_eq!(a, b);
}
