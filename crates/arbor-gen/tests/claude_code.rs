//! Generated Claude Code project folders, read by the engine: every count, link kind, token
//! total and finding must be what the generator says it wrote (its expectations come from
//! SPEC 2.4, not from the engine).

use arbor_core::report::{Report, Severity};
use arbor_gen::claude_code::{generate_project, generate_session, ClaudeStats, Layout};
use arbor_gen::GenOptions;
use std::collections::BTreeMap;
use std::path::Path;

fn opts(seed: u64, faults: f64, size: u64) -> GenOptions {
    GenOptions { target_bytes: size, depth: 3, fanout: 3, seed, fault_rate: faults, ..GenOptions::default() }
}

fn analyze(dir: &Path) -> (arbor_core::Analysis, Report) {
    let a = arbor_core::analyze(&[dir.to_path_buf()], &mut ());
    let r = a.report();
    (a, r)
}

fn check(what: &str, s: &ClaudeStats, dir: &Path) -> Report {
    let (a, r) = analyze(dir);
    let g = &s.gen;
    assert!(
        r.inputs.iter().all(|i| i.format == "claude-code"),
        "{what}: {:?}",
        r.inputs.iter().find(|i| i.format != "claude-code")
    );
    assert_eq!(r.inputs.len() as u64, g.files, "{what}: files");
    assert_eq!(r.inputs.iter().map(|i| i.records).sum::<u64>(), g.records, "{what}: records");
    assert_eq!(r.inputs.iter().map(|i| i.bad_lines).sum::<u64>(), g.malformed, "{what}: bad lines");
    assert_eq!(r.inputs.iter().map(|i| i.bytes).sum::<u64>(), g.bytes, "{what}: bytes");
    assert_eq!(a.records().len() as u64, g.records, "{what}: record index");
    assert_eq!(r.sessions.len() as u64, g.sessions, "{what}: sessions");
    assert_eq!(r.sessions.iter().map(|x| x.runs.len() as u64).sum::<u64>(), g.runs, "{what}: runs");
    assert_eq!(r.turns.len() as u64, g.turns, "{what}: turns");
    assert_eq!(r.sessions.iter().filter_map(|x| x.depth).max().unwrap_or(0), g.max_depth, "{what}: depth");
    assert!(r.sessions.iter().all(|x| x.root.is_some()), "{what}: every sub-agent reaches its root");
    let mut links: BTreeMap<String, u64> = BTreeMap::new();
    for x in &r.sessions {
        for run in &x.runs {
            *links.entry(run.link.as_str().to_owned()).or_default() += 1;
        }
    }
    let want: BTreeMap<String, u64> = s.links.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(links, want, "{what}: links");
    assert_eq!(r.usage.as_ref().map_or(0, |u| u.total.output), s.output_tokens, "{what}: output tokens");
    let mut codes: BTreeMap<String, u64> = BTreeMap::new();
    for d in &r.diagnostics {
        *codes.entry(d.code.clone()).or_default() += 1;
    }
    let want: BTreeMap<String, u64> = g.findings.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(codes, want, "{what}: findings");
    r
}

#[test]
fn clean_projects_of_every_layout_read_as_written() {
    let dir = tempfile::tempdir().unwrap();
    for layout in Layout::ALL {
        for seed in [1, 2] {
            let out = dir.path().join(format!("{}-{seed}", layout.id()));
            let s = generate_project(&opts(seed, 0.0, 800 << 10), layout, &out).unwrap();
            assert!(s.gen.max_depth == 3 && s.gen.runs > 8, "{layout:?}: {s:?}");
            let r = check(&format!("{layout:?} seed {seed}"), &s, &out);
            assert!(r.diagnostics.iter().all(|d| d.severity == Severity::Info), "{layout:?}: {:?}", r.diagnostics);
        }
    }
}

#[test]
fn injected_faults_are_the_findings_the_engine_reports() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = BTreeMap::new();
    for layout in Layout::ALL {
        for seed in [3, 4, 5] {
            let out = dir.path().join(format!("{}-{seed}", layout.id()));
            let s = generate_project(&opts(seed, 0.2, 1 << 20), layout, &out).unwrap();
            check(&format!("{layout:?} seed {seed} with faults"), &s, &out);
            seen.extend(s.gen.findings.clone());
        }
    }
    for code in [
        "malformed-line",
        "truncated-final-line",
        "dangling-parent-uuid",
        "replayed-history",
        "subagent-transcript-missing",
        "subagent-link-inferred",
        "subagent-links-disagree",
        "subagent-reply-differs",
    ] {
        assert!(seen.contains_key(code), "{code} never injected: {seen:?}");
    }
}

#[test]
fn background_spawns_compactions_resumptions_and_forks_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p");
    let s = generate_project(&opts(11, 0.0, 6 << 20), Layout::Subagents, &out).unwrap();
    assert!(s.background > 0 && s.compactions > 0 && s.resumed > 0 && s.forks > 0, "{s:?}");
    let r = check("a 6 MiB 2.1 project", &s, &out);
    // A background child's run ends at its notification in the parent's file.
    let ended_in_parent = r
        .sessions
        .iter()
        .filter(|x| x.depth == Some(1))
        .filter(|x| x.runs[0].end.as_ref().is_some_and(|e| !e.file.contains("subagents/")))
        .count();
    assert!(ended_in_parent > 0);
}

/// `--turns N`: one root session of N prompts, whatever the size, read as written.
#[test]
fn a_session_of_n_turns_is_one_root_with_n_prompts() {
    let dir = tempfile::tempdir().unwrap();
    let o = GenOptions { depth: 0, ..opts(5, 0.0, 1) };
    let s = generate_session(&o, Layout::Subagents, dir.path(), 40).unwrap();
    let r = check("40 turns", &s, dir.path());
    let roots: Vec<_> = r.sessions.iter().filter(|x| x.parent.is_none()).collect();
    assert_eq!(roots.len(), 1, "one root");
    let prompts = r.turns.iter().filter(|t| t.session == roots[0].id).count();
    assert_eq!(prompts, 40, "its 40 turns, though the size budget (1 byte) was spent at once");
}

#[test]
fn the_same_seed_gives_the_same_folder() {
    let dir = tempfile::tempdir().unwrap();
    let read = |p: &Path| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = walk(p)
            .into_iter()
            .map(|f| {
                let rel = f.strip_prefix(p).unwrap().to_string_lossy().into_owned();
                (rel, std::fs::read(&f).unwrap())
            })
            .collect();
        files.sort();
        files
    };
    let (a, b, c) = (dir.path().join("a"), dir.path().join("b"), dir.path().join("c"));
    let o = opts(11, 0.05, 300 << 10);
    assert_eq!(
        generate_project(&o, Layout::Subagents, &a).unwrap(),
        generate_project(&o, Layout::Subagents, &b).unwrap()
    );
    assert!(read(&a) == read(&b));
    generate_project(&GenOptions { seed: 12, ..o }, Layout::Subagents, &c).unwrap();
    assert!(read(&a) != read(&c));
}

fn walk(p: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(p).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}
