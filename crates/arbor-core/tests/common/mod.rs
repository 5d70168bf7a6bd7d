//! Test helpers shared by the engine's integration tests.
#![allow(dead_code)]

use arbor_core::report::Report;
use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Analyze paths into the JSON report, as `arbor analyze --json` prints it.
/// The folders of logs the project ships: the corpus, the conformance cases, the fuzz regressions
/// and the fuzz seeds.
pub fn shipped_log_dirs() -> Vec<PathBuf> {
    let repo = repo();
    vec![
        repo.join("tests/corpus"),
        repo.join("tests/conformance/cases"),
        repo.join("crates/arbor-core/tests/regressions"),
        repo.join("fuzz/seeds"),
    ]
}

/// Every file below `roots`, at any depth, in path order; a folder that cannot be read is skipped.
pub fn files_under(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut stack = roots.to_vec();
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for p in entries.flatten().map(|e| e.path()) {
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

pub fn report_json(paths: &[PathBuf]) -> serde_json::Value {
    let a = arbor_core::analyze(paths, &mut ());
    serde_json::from_slice(&streamed_as_owned(&a)).unwrap()
}

pub fn report(paths: &[PathBuf]) -> Report {
    let a = arbor_core::analyze(paths, &mut ());
    streamed_as_owned(&a);
    a.report()
}

/// The report as the CLI writes it, straight from the analysis, after checking that it is the
/// same bytes as serialising the owned `report()` (what the app sends).
pub fn streamed_as_owned(a: &arbor_core::Analysis) -> Vec<u8> {
    let mut streamed = Vec::new();
    a.write_report_json(&mut streamed).unwrap();
    let owned = serde_json::to_vec_pretty(&a.report()).unwrap();
    assert_eq!(String::from_utf8_lossy(&streamed), String::from_utf8_lossy(&owned));
    streamed
}

/// Write `text` to a file named `name` in a new temporary folder; returns the folder and path.
pub fn log(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// Codes and lines of the findings, as `code@line`, in report order.
pub fn findings(r: &Report) -> Vec<String> {
    r.diagnostics.iter().map(|d| format!("{}@{}", d.code, d.at.line)).collect()
}

/// The session tree as indented text: `id parent=… root=… depth=… runs=[outcome…]`.
pub fn tree(r: &Report) -> String {
    let mut out = String::new();
    for s in &r.sessions {
        let runs: Vec<String> = s
            .runs
            .iter()
            .map(|run| format!("{}:{:?}", run.parent.as_deref().unwrap_or("-"), run.outcome).to_lowercase())
            .collect();
        out.push_str(&format!(
            "{}{} root={} depth={} runs=[{}]\n",
            "  ".repeat(s.depth.unwrap_or(0) as usize),
            s.id,
            s.root.as_deref().unwrap_or("-"),
            s.depth.map_or("-".to_owned(), |d| d.to_string()),
            runs.join(" ")
        ));
    }
    out
}
