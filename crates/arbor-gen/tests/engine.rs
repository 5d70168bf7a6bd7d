//! The generated logs, read by the engine: counts and findings must be what the generator says
//! it wrote. The generator's expectations come from the spec, so this tests both.

use arbor_core::report::{Report, Severity};
use arbor_gen::{generate, generate_dsh_session_folder, Format, GenOptions, GenStats};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn write(opts: &GenOptions, dir: &Path) -> (PathBuf, GenStats) {
    let path = dir.join(format!("{}-{}.jsonl", opts.format.id(), opts.seed));
    let mut f = std::fs::File::create(&path).unwrap();
    let stats = generate(opts, &mut f).unwrap();
    (path, stats)
}

fn analyze(path: &Path) -> Report {
    arbor_core::analyze(&[path.to_path_buf()], &mut ()).report()
}

fn codes(r: &Report) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for d in &r.diagnostics {
        *m.entry(d.code.to_string()).or_default() += 1;
    }
    m
}

fn expected(s: &GenStats) -> BTreeMap<String, u64> {
    s.findings.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// Everything the generator promises about a log, checked against the engine's report.
fn check(opts: &GenOptions, path: &Path, stats: &GenStats, report: &Report) {
    let what = format!("{} seed {} faults {}", opts.format.id(), opts.seed, opts.fault_rate);
    assert_eq!(report.inputs.len(), 1, "{what}");
    let input = &report.inputs[0];
    assert_eq!(input.format, opts.format.id(), "{what}: detected format");
    assert_eq!(input.records, stats.records, "{what}: records");
    assert_eq!(input.bad_lines, stats.malformed, "{what}: bad lines");
    assert_eq!(std::fs::metadata(path).unwrap().len(), stats.bytes, "{what}: bytes");
    assert_eq!(report.sessions.len() as u64, stats.sessions, "{what}: sessions");
    let runs: u64 = report.sessions.iter().map(|s| s.runs.len() as u64).sum();
    assert_eq!(runs, stats.runs, "{what}: runs");
    // dsh-session logs have no waits: those come from recordings.
    let waits = if opts.format == Format::DshSession { 0 } else { stats.root_turns };
    assert_eq!(report.waits.len() as u64, waits, "{what}: waits");
    assert_eq!(report.turns.len() as u64, stats.turns, "{what}: turns");
    let depth = report.sessions.iter().filter_map(|s| s.depth).max().unwrap_or(0);
    // A reused child id takes its old subtree along to its new place, which may be deeper.
    if stats.findings.contains_key("child-id-reused") {
        assert!(depth >= stats.max_depth, "{what}: depth");
    } else {
        assert_eq!(depth, stats.max_depth, "{what}: depth");
    }
    assert_eq!(codes(report), expected(stats), "{what}: findings");
}

fn opts(format: Format, seed: u64, fault_rate: f64) -> GenOptions {
    GenOptions { format, target_bytes: 600 << 10, depth: 3, fanout: 3, seed, fault_rate }
}

#[test]
fn clean_logs_have_no_error_findings_and_the_expected_counts() {
    let dir = tempfile::tempdir().unwrap();
    for format in Format::ALL {
        for seed in [1, 2] {
            let o = opts(format, seed, 0.0);
            let (path, stats) = write(&o, dir.path());
            assert!(stats.findings.is_empty());
            let report = analyze(&path);
            check(&o, &path, &stats, &report);
            assert!(report.diagnostics.iter().all(|d| d.severity != Severity::Error), "{format:?}");
            assert!(report.diagnostics.is_empty(), "{format:?}: {:?}", codes(&report));
        }
    }
}

#[test]
fn injected_faults_are_the_findings_the_engine_reports() {
    let dir = tempfile::tempdir().unwrap();
    for format in Format::ALL {
        for seed in [3, 4, 5] {
            let o = opts(format, seed, 0.15);
            let (path, stats) = write(&o, dir.path());
            assert!(stats.malformed > 0, "{format:?}: the rate makes some malformed lines");
            assert!(stats.findings.len() >= 2, "{format:?}: {:?}", stats.findings);
            check(&o, &path, &stats, &analyze(&path));
        }
    }
}

#[test]
fn every_fault_kind_shows_up_at_a_high_rate() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = BTreeMap::new();
    for format in Format::ALL {
        let o = GenOptions { target_bytes: 2 << 20, ..opts(format, 9, 0.3) };
        let (path, stats) = write(&o, dir.path());
        check(&o, &path, &stats, &analyze(&path));
        seen.extend(stats.findings);
    }
    for code in [
        "malformed-line",
        "child-id-reused",
        "stale-run-settled",
        "turn-end-with-open-step",
        "step-number-skipped",
        "seq-not-increasing",
        "unknown-event-type",
        "boundary-mirror-event",
        "tool-result-without-call",
        "event-outside-step",
        "boundary-mismatch",
        "child-idle-would-resolve-wait",
        "child-error-would-fail-wait",
        "child-reply-would-replace-root-reply",
    ] {
        assert!(seen.contains_key(code), "{code} never injected: {seen:?}");
    }
}

/// A log of many chunks (more than the parse threads work ahead of the router, and than the
/// reader queues) is routed in order: parsed out of order, lines would end turns that have not
/// started, and the counts and findings would not be the generator's.
#[test]
fn a_log_of_many_chunks_is_routed_in_wire_order() {
    let dir = tempfile::tempdir().unwrap();
    for format in [Format::CopilotEvents, Format::DshRpc] {
        let o = GenOptions { target_bytes: 24 << 20, ..opts(format, 11, 0.05) };
        let (path, stats) = write(&o, dir.path());
        check(&o, &path, &stats, &analyze(&path));
    }
}

/// A reply's text is read back from where routing saw it in its line (the string alone, not the
/// line parsed again): it must be the `data.content` of the line the reply points at, read here
/// with serde_json, in plain and zstd files, and for events nested in RPC lines.
#[test]
fn reply_texts_are_the_content_of_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    for format in [Format::CopilotEvents, Format::CopilotRpc] {
        let o = GenOptions { target_bytes: 3 << 20, ..opts(format, 12, 0.05) };
        let (path, _) = write(&o, dir.path());
        let bytes = std::fs::read(&path).unwrap();
        let zst = path.with_extension("jsonl.zst");
        std::fs::write(&zst, zstd::encode_all(bytes.as_slice(), 3).unwrap()).unwrap();
        // Some faults are lines that are not UTF-8; replies are never on those.
        let lines: Vec<String> =
            bytes.split(|&b| b == b'\n').map(|l| String::from_utf8_lossy(l).into_owned()).collect();
        for p in [&path, &zst] {
            let report = analyze(p);
            assert!(report.replies.len() > 100, "{format:?}");
            let mut escaped = 0;
            for r in &report.replies {
                let line = &lines[r.at.line as usize - 1];
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                let event = v.pointer("/params/event").unwrap_or(&v);
                let want = event.pointer("/data/content").and_then(|c| c.as_str()).unwrap_or_default();
                assert_eq!(r.text, want, "{format:?} {}:{}", p.display(), r.at.line);
                escaped += usize::from(line.contains("\\\""));
            }
            assert!(escaped > 10, "{format:?}: some texts have escapes");
        }
    }
}

#[test]
fn dsh_session_folders_hang_children_under_their_parents() {
    let dir = tempfile::tempdir().unwrap();
    for rate in [0.0, 0.15] {
        let o = GenOptions { format: Format::DshSession, ..opts(Format::DshSession, 7, rate) };
        let out = dir.path().join(format!("folder-{rate}"));
        let stats = generate_dsh_session_folder(&o, &out).unwrap();
        let files = std::fs::read_dir(&out).unwrap().count() as u64;
        assert_eq!(files, stats.files);
        assert!(stats.files > 10);
        let report = arbor_core::analyze(std::slice::from_ref(&out), &mut ()).report();
        assert!(report.inputs.iter().all(|i| i.format == "dsh-session"));
        assert_eq!(report.inputs.iter().map(|i| i.records).sum::<u64>(), stats.records);
        assert_eq!(report.sessions.len() as u64, stats.sessions);
        let runs: u64 = report.sessions.iter().map(|s| s.runs.len() as u64).sum();
        assert_eq!(runs, stats.runs);
        assert_eq!(report.turns.len() as u64, stats.turns);
        let depth = report.sessions.iter().filter_map(|s| s.depth).max().unwrap_or(0);
        assert_eq!(depth, stats.max_depth);
        assert!(report.sessions.iter().all(|s| s.root.is_some()), "every child reaches the root");
        assert_eq!(codes(&report), expected(&stats), "rate {rate}");
    }
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    for format in Format::ALL {
        let o = GenOptions { target_bytes: 300 << 10, ..opts(format, 11, 0.05) };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let sa = generate(&o, &mut a).unwrap();
        let sb = generate(&o, &mut b).unwrap();
        assert_eq!(sa, sb);
        assert!(a == b, "{format:?}: two runs differ");
        let mut c = Vec::new();
        generate(&GenOptions { seed: 12, ..o.clone() }, &mut c).unwrap();
        assert!(a != c, "{format:?}: another seed gives another log");
    }
}

#[test]
fn the_size_target_is_met_within_a_few_percent() {
    for format in Format::ALL {
        for target in [1u64 << 20, 4 << 20] {
            let o = GenOptions { target_bytes: target, depth: 4, fanout: 3, ..opts(format, 1, 0.0) };
            let mut out = Vec::new();
            let s = generate(&o, &mut out).unwrap();
            assert_eq!(s.bytes, out.len() as u64);
            let over = s.bytes as f64 / target as f64;
            assert!((1.0..1.05).contains(&over), "{format:?} {target}: {} bytes ({over:.3})", s.bytes);
        }
    }
}
