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
    let mut several = 0;
    for path in &entries {
        let analysis = arbor_core::analyze(std::slice::from_ref(path), &mut ());
        let all = summarize(path, "folder", &analysis);
        let mut json = Vec::new();
        analysis.write_report_json(&mut json).unwrap();
        let r: Value = serde_json::from_slice(&json).unwrap();
        let what = path.display();
        let sessions = r["sessions"].as_array().unwrap();
        let turns = r["turns"].as_array().unwrap();
        // One summary per root (a session whose root is itself, or which has none), each the
        // report's sessions under that root; together, every session once.
        let top = |s: &Value| s["root"].as_str().unwrap_or_else(|| s["id"].as_str().unwrap()).to_owned();
        let mut tops: Vec<String> = Vec::new();
        for s in sessions {
            if !tops.contains(&top(s)) {
                tops.push(top(s));
            }
        }
        assert_eq!(all.len(), tops.len().max(1), "{what}: a summary per root");
        several += usize::from(all.len() > 1);
        let mut covered: Vec<&str> = all.iter().flat_map(|s| s.sessions.iter().map(String::as_str)).collect();
        covered.sort_unstable();
        let mut ids: Vec<&str> = sessions.iter().map(|s| s["id"].as_str().unwrap()).collect();
        ids.sort_unstable();
        assert_eq!(covered, ids, "{what}: every session in one summary");
        let mut total = [0u64; 4];
        let mut found = (0, 0, 0);
        let keys: std::collections::HashSet<&str> = all.iter().map(|s| s.summary.key.as_str()).collect();
        assert_eq!(keys.len(), all.len(), "{what}: keys are distinct");
        for (summarized, root) in all.iter().zip(tops.iter().map(Some).chain(std::iter::repeat(None))) {
            let s = &summarized.summary;
            assert_eq!(s.session.as_ref(), root, "{what}: root");
            let group: Vec<&Value> = sessions.iter().filter(|x| Some(&top(x)) == root).collect();
            assert_eq!(summarized.sessions.len(), group.len(), "{what}: the root's sessions");
            let root_turns = turns.iter().filter(|t| Some(&t["session"].as_str().unwrap().to_owned()) == root).count();
            assert_eq!(s.turns, root_turns as u64, "{what}: turns");
            assert_eq!(s.subagents, group.len().saturating_sub(1) as u64, "{what}: sub-agents");
            let depth = group.iter().map(|s| n(&s["depth"])).max().unwrap_or(0);
            assert_eq!(u64::from(s.depth), depth, "{what}: depth");
            // Its tokens are its root's subtree's, as the report counts them.
            if let Some(root) = group.iter().find(|x| x["id"].as_str() == root.map(String::as_str)) {
                let sub = &root["subtree_usage"];
                for (k, got) in [
                    ("input", s.usage.input),
                    ("output", s.usage.output),
                    ("cache_read", s.usage.cache_read),
                    ("cache_write", s.usage.cache_write),
                ] {
                    assert_eq!(got, n(&sub[k]), "{what}: {k} of {root:?}");
                }
                if let (Some(a), Some(b)) = (s.usage.cost, sub["cost"].as_f64()) {
                    assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{what}: cost {a} vs {b}");
                }
            }
            for (t, v) in total.iter_mut().zip([s.usage.input, s.usage.output, s.usage.cache_read, s.usage.cache_write])
            {
                *t += v;
            }
            found = (found.0 + s.findings.error, found.1 + s.findings.warning, found.2 + s.findings.info);
            with_tokens += usize::from(s.usage.tokens() > 0);
            assert!(s.files <= r["inputs"].as_array().unwrap().len() as u64, "{what}: files");
            assert_eq!(
                s.harness.as_deref().is_some(),
                r["inputs"].as_array().unwrap().iter().any(|i| i["format"].as_str().is_some_and(|f| f != "unknown")),
                "{what}: harness"
            );
            // Every time the report carries of its sessions is within its start and end.
            let mut times = Vec::new();
            for t in turns.iter().filter(|t| summarized.sessions.iter().any(|x| t["session"] == x.as_str())) {
                times.extend([t["start_time"].as_f64(), t["end_time"].as_f64()].into_iter().flatten());
            }
            if s.clock == Clock::Log {
                let (start, end) = (s.start.unwrap(), s.end.unwrap());
                assert!(times.iter().all(|&t| start <= t && t <= end), "{what}: {start}..{end} holds {times:?}");
                assert_eq!(s.duration, Some(end - start));
            } else {
                assert!(times.is_empty(), "{what}: a report with times has a clock");
            }
        }
        // Together they are the report: its tokens and its findings, each counted once.
        let t = &r["usage"]["total"];
        assert_eq!(
            total,
            [n(&t["input"]), n(&t["output"]), n(&t["cache_read"]), n(&t["cache_write"])],
            "{what}: tokens"
        );
        let sev = |x: &str| r["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == x).count() as u64;
        assert_eq!(found, (sev("error"), sev("warning"), sev("info")), "{what}: findings");
        if all.len() == 1 {
            let s = &all[0].summary;
            assert_eq!(s.usage.cost, t["cost"].as_f64(), "{what}: cost");
            assert_eq!(s.usage.unpriced.as_ref().map(|u| u.tokens), t["unpriced"]["tokens"].as_u64(), "{what}");
            assert_eq!(s.files, r["inputs"].as_array().unwrap().len() as u64, "{what}: files");
        }
    }
    assert!(with_tokens >= 5, "the corpus has sessions with tokens: {with_tokens}");
    assert!(several >= 2, "the corpus has logs of several roots: {several}");
}

/// A Gemini CLI session's project is the folder the CLI wrote in `tmp/<project>/.project_root`,
/// else the `<project>` folder's name; never `chats`, the folder every session file is in.
#[test]
fn a_gemini_session_is_in_its_project() {
    let case =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases/gemini-cli-session-context/input");
    let tmp = tempfile::tempdir().unwrap();
    let chats = tmp.path().join("tmp/shop/chats");
    std::fs::create_dir_all(&chats).unwrap();
    for f in std::fs::read_dir(&case).unwrap().flatten() {
        std::fs::copy(f.path(), chats.join(f.file_name())).unwrap();
    }
    let summary = |path: &Path| {
        let analysis = arbor_core::analyze(&[path.to_path_buf()], &mut ());
        let all = summarize(path, "chats", &analysis);
        assert_eq!(all.len(), 1);
        let s = &all[0].summary;
        assert_eq!(s.turns, 1, "the session's context is not a turn");
        (s.project.clone(), s.project_from.clone())
    };
    assert_eq!(summary(&chats), ("shop".to_string(), "folder".to_string()));
    std::fs::write(tmp.path().join("tmp/shop/.project_root"), "/home/dev/shop\n").unwrap();
    assert_eq!(summary(&chats), ("/home/dev/shop".to_string(), "cwd".to_string()));
}
