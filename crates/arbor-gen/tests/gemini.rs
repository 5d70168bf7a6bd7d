//! Generated Gemini CLI trees, read by the engine: files, records, the tree, links, turns,
//! tokens (each message once, in its last form) and findings must be what the generator says
//! it wrote (SPEC 2.6).

use arbor_core::report::{Link, Report};
use arbor_gen::{generate_gemini_tree, GeminiTree, GenOptions};
use std::collections::BTreeMap;

fn run(seed: u64, fault_rate: f64) -> (GeminiTree, Report, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let opts = GenOptions { target_bytes: 1 << 20, depth: 3, fanout: 3, seed, fault_rate, ..GenOptions::default() };
    let tree = generate_gemini_tree(&opts, dir.path()).unwrap();
    let report = arbor_core::analyze(&[dir.path().to_path_buf()], &mut ()).report();
    (tree, report, dir)
}

fn check(seed: u64, fault_rate: f64) -> BTreeMap<String, u64> {
    let (tree, r, _dir) = run(seed, fault_rate);
    let s = &tree.stats;
    let what = format!("gemini-cli seed {seed} faults {fault_rate}");
    assert_eq!(r.inputs.len() as u64, s.files, "{what}: files");
    assert!(r.inputs.iter().all(|i| i.format == "gemini-cli"), "{what}: formats");
    assert_eq!(r.inputs.iter().map(|i| i.records).sum::<u64>(), s.records, "{what}: records");
    assert_eq!(r.inputs.iter().map(|i| i.bad_lines).sum::<u64>(), s.malformed, "{what}: bad lines");
    assert_eq!(r.inputs.iter().map(|i| i.bytes).sum::<u64>(), s.bytes, "{what}: bytes");
    assert_eq!(r.sessions.len() as u64, s.sessions, "{what}: sessions");
    assert_eq!(r.sessions.iter().map(|x| x.runs.len() as u64).sum::<u64>(), s.runs, "{what}: runs");
    assert_eq!(r.turns.len() as u64, s.turns, "{what}: turns");
    let depth = r.sessions.iter().filter_map(|x| x.depth).max().unwrap_or(0);
    assert_eq!(depth, s.max_depth, "{what}: depth");
    assert!(r.sessions.iter().flat_map(|x| &x.runs).all(|run| run.link == Link::ToolCall || run.link == Link::Folder));
    let total = r.usage.as_ref().map(|u| u.total.clone()).unwrap_or_default();
    assert_eq!(
        (total.input, total.cache_read, total.output),
        (tree.input, tree.cache_read, tree.output),
        "{what}: tokens"
    );
    let mut codes: BTreeMap<String, u64> = BTreeMap::new();
    for d in &r.diagnostics {
        *codes.entry(d.code.clone()).or_default() += 1;
    }
    let want: BTreeMap<String, u64> = s.findings.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(codes, want, "{what}: findings");
    let received = r.sessions.iter().flat_map(|x| &x.runs).filter(|run| run.received.is_some()).count();
    assert!(received > 0, "{what}: received replies");
    want
}

#[test]
fn clean_trees_read_as_written() {
    for seed in 1..=3 {
        check(seed, 0.0);
    }
}

#[test]
fn faulty_trees_give_exactly_the_findings_written() {
    let mut seen = BTreeMap::new();
    for seed in 1..=3 {
        seen.extend(check(seed, 0.05));
    }
    for code in ["subagent-transcript-missing", "malformed-line", "subagent-reply-differs"] {
        assert!(seen.contains_key(code), "{code} never injected: {seen:?}");
    }
}

#[test]
fn trees_reach_depth_three() {
    let (tree, _, _d) = run(2, 0.0);
    assert_eq!(tree.stats.max_depth, 3);
}

#[test]
fn the_same_seed_writes_the_same_tree() {
    let (a, _, _d1) = run(7, 0.02);
    let (b, _, _d2) = run(7, 0.02);
    assert_eq!(a, b);
}
