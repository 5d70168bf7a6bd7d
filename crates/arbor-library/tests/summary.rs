//! A summary is what `arbor analyze --json` says of the same files (SPEC 6.1): every entry of
//! the corpus (each file or folder under a harness's folder) is analysed, summarized, and its
//! summary's fields made again here from the report's JSON, the bytes `arbor analyze --json`
//! prints (`Analysis::write_report_json`), by reading that document alone.

use arbor_library::summary::{summarize, Clock};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The project's corpus, and the shared one beside the project where it is.
fn entries() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Vec::new();
    for corpus in [root.join("tests/corpus"), root.join("../shared/corpus")] {
        let Ok(harnesses) = std::fs::read_dir(&corpus) else { continue };
        for h in harnesses.flatten().filter(|h| h.path().is_dir()) {
            for e in std::fs::read_dir(h.path()).unwrap().flatten() {
                let p = e.path();
                let log = p.extension().is_some_and(|x| x == "jsonl" || x == "json");
                if p.is_dir() || log {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

#[test]
fn every_corpus_summary_equals_what_the_report_says() {
    let entries = entries();
    assert!(entries.len() > 20, "the corpus is there: {} entries", entries.len());
    let mut with_tokens = 0;
    for path in &entries {
        let analysis = arbor_core::analyze(std::slice::from_ref(path), &mut ());
        let s = summarize(path, "folder", &analysis).summary;
        let mut json = Vec::new();
        analysis.write_report_json(&mut json).unwrap();
        let r: Value = serde_json::from_slice(&json).unwrap();
        let what = path.display();
        let sessions = r["sessions"].as_array().unwrap();
        let roots: Vec<&str> =
            sessions.iter().filter(|s| s["parent"].is_null()).map(|s| s["id"].as_str().unwrap()).collect();
        assert_eq!(s.session.as_deref(), roots.first().copied(), "{what}: root");
        let turns = r["turns"].as_array().unwrap();
        let root_turns = turns.iter().filter(|t| roots.contains(&t["session"].as_str().unwrap())).count();
        assert_eq!(s.turns, root_turns as u64, "{what}: turns");
        assert_eq!(s.subagents, (sessions.len() - roots.len()) as u64, "{what}: sub-agents");
        let depth = sessions.iter().map(|s| n(&s["depth"])).max().unwrap_or(0);
        assert_eq!(u64::from(s.depth), depth, "{what}: depth");
        let total = &r["usage"]["total"];
        for (k, got) in [
            ("input", s.usage.input),
            ("output", s.usage.output),
            ("cache_read", s.usage.cache_read),
            ("cache_write", s.usage.cache_write),
        ] {
            assert_eq!(got, n(&total[k]), "{what}: {k}");
        }
        assert_eq!(s.usage.cost, total["cost"].as_f64(), "{what}: cost");
        assert_eq!(s.usage.unpriced.as_ref().map(|u| u.tokens), total["unpriced"]["tokens"].as_u64(), "{what}");
        with_tokens += usize::from(s.usage.tokens() > 0);
        let sev = |x: &str| r["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == x).count() as u64;
        assert_eq!(
            (s.findings.error, s.findings.warning, s.findings.info),
            (sev("error"), sev("warning"), sev("info"))
        );
        assert_eq!(s.files, r["inputs"].as_array().unwrap().len() as u64, "{what}: files");
        assert_eq!(
            s.harness.as_deref(),
            r["inputs"].as_array().unwrap().iter().filter_map(|i| i["format"].as_str()).find(|f| *f != "unknown"),
            "{what}: harness"
        );
        // Every time the report carries is within the session's start and end.
        let mut times = Vec::new();
        for t in turns {
            times.extend([t["start_time"].as_f64(), t["end_time"].as_f64()].into_iter().flatten());
        }
        for d in r["diagnostics"].as_array().unwrap() {
            times.extend(d["time"].as_f64());
        }
        if s.clock == Clock::Log {
            let (start, end) = (s.start.unwrap(), s.end.unwrap());
            assert!(times.iter().all(|&t| start <= t && t <= end), "{what}: {start}..{end} holds {times:?}");
            assert_eq!(s.duration, Some(end - start));
        } else {
            assert!(times.is_empty(), "{what}: a report with times has a clock");
        }
    }
    assert!(with_tokens >= 5, "the corpus has sessions with tokens: {with_tokens}");
}
