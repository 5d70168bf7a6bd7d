//! Generated OpenCode stores, read by the engine: records, sessions, runs, depth, turns, tokens
//! and findings must be what the generator says it wrote (SPEC 2.7).

use arbor_core::report::{Link, Report};
use arbor_gen::opencode::{generate_opencode, OpenCodeStore, Store};
use arbor_gen::GenOptions;
use std::collections::BTreeMap;

fn run(seed: u64, fault_rate: f64) -> (OpenCodeStore, Report, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let opts = GenOptions { target_bytes: 1 << 20, depth: 3, fanout: 2, seed, fault_rate, ..GenOptions::default() };
    let store = generate_opencode(&opts, Store::Database, &db).unwrap();
    let report = arbor_core::analyze(&[db], &mut ()).report();
    (store, report, dir)
}

fn check(seed: u64, fault_rate: f64) {
    let (store, r, _dir) = run(seed, fault_rate);
    let s = &store.stats;
    let what = format!("opencode seed {seed} faults {fault_rate}");
    assert_eq!(r.inputs.len(), 1, "{what}: one store");
    assert_eq!(r.inputs[0].format, "opencode", "{what}: format");
    assert_eq!(r.inputs[0].records, s.records, "{what}: records (a row each, and the header)");
    assert_eq!(r.inputs[0].bad_lines, 0, "{what}: bad lines");
    assert_eq!(r.sessions.len() as u64, s.sessions, "{what}: sessions");
    assert_eq!(r.sessions.iter().map(|x| x.runs.len() as u64).sum::<u64>(), s.runs, "{what}: runs");
    assert!(r.sessions.iter().flat_map(|x| &x.runs).all(|run| run.link == Link::ToolCall), "{what}: links");
    assert_eq!(r.turns.len() as u64, s.turns, "{what}: turns");
    assert_eq!(r.sessions.iter().filter_map(|x| x.depth).max().unwrap_or(0), s.max_depth, "{what}: depth");
    let total = r.usage.as_ref().map(|u| u.total.clone()).unwrap_or_default();
    assert_eq!(
        (total.input, total.output, total.cache_read, total.cache_write),
        (store.input, store.output, store.cache_read, store.cache_write),
        "{what}: tokens, per call from step-finish"
    );
    let mut codes: BTreeMap<String, u64> = BTreeMap::new();
    for d in &r.diagnostics {
        *codes.entry(d.code.clone()).or_default() += 1;
    }
    let want: BTreeMap<String, u64> = s.findings.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(codes, want, "{what}: findings");
}

#[test]
fn clean_stores_read_as_written() {
    for seed in 1..=3 {
        check(seed, 0.0);
    }
}

#[test]
fn faulty_stores_give_exactly_the_findings_written() {
    for seed in 1..=3 {
        check(seed, 0.05);
    }
}

#[test]
fn the_same_seed_writes_the_same_store() {
    let (a, _, _d1) = run(7, 0.02);
    let (b, _, _d2) = run(7, 0.02);
    assert_eq!(a, b);
}
