//! Times the library on a folder of session logs, for BENCHMARKS.md ("The library"): building
//! it (every session analysed, summarized and its transcript indexed), opening it from disk,
//! an update that finds nothing changed, one after one file grew, and full-text queries (p50,
//! p95). A measurement, never a test.
//!
//! usage: library-bench DIR LIBRARY [JOBS]   (DIR: a folder of session files, as a Claude Code
//! project; LIBRARY: a file to make, removed first)

use arbor_library::store::{Entry, Library};
use std::path::PathBuf;
use std::time::Instant;

fn cpu() -> f64 {
    // User and system time of this process, from /proc (Linux); 0 elsewhere.
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(&args[1]);
    let db = PathBuf::from(&args[2]);
    let jobs: usize = args.get(3).and_then(|j| j.parse().ok()).unwrap_or(2);
    let _ = std::fs::remove_file(&db);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    // What the library keeps of a Claude Code project: each resume with the chain it replays
    // (ARBOR_BENCH_EACH=1: each session file alone, as before schema 2).
    let entries: Vec<Entry> = if std::env::var_os("ARBOR_BENCH_EACH").is_some() {
        files.iter().map(|f| Entry::one(f.clone(), "bench".into())).collect()
    } else {
        Entry::claude_project(&dir, "bench")
    };

    let (t, c) = (Instant::now(), cpu());
    let mut lib = Library::open(&db).unwrap();
    let built = lib.update(&entries, jobs).unwrap();
    let (build_s, build_cpu) = (t.elapsed().as_secs_f64(), cpu() - c);
    let (t, c) = (Instant::now(), cpu());
    let mut lib = lib;
    let indexed = lib.index(jobs).unwrap();
    let (index_s, index_cpu) = (t.elapsed().as_secs_f64(), cpu() - c);
    // Every file read: the sessions' and their sub-agents'.
    let bytes: u64 = lib.summaries().unwrap().iter().map(|s| s.bytes).sum();
    drop(lib);
    let size = std::fs::metadata(&db).map_or(0, |m| m.len());
    println!(
        "build: {} entries, {:.1} MB read in {build_s:.2} s wall, {build_cpu:.2} s CPU: {:.1} MB/s",
        built.read,
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / build_s,
    );
    println!(
        "index: {indexed} entries in {index_s:.2} s wall, {index_cpu:.2} s CPU: {:.1} MB/s; library {:.1} MB",
        bytes as f64 / 1e6 / index_s,
        size as f64 / 1e6
    );

    let t = Instant::now();
    let mut lib = Library::open(&db).unwrap();
    let summaries = lib.summaries().unwrap();
    println!("open and read {} summaries: {:.1} ms", summaries.len(), t.elapsed().as_secs_f64() * 1e3);

    let (t, c) = (Instant::now(), cpu());
    let same = lib.update(&entries, jobs).unwrap();
    println!(
        "update, nothing changed ({} kept): {:.1} ms wall, {:.3} s CPU",
        same.kept,
        t.elapsed().as_secs_f64() * 1e3,
        cpu() - c
    );

    let grown = &files[files.len() / 2];
    let mut text = std::fs::read_to_string(grown).unwrap();
    let last = text.lines().last().unwrap().to_string();
    text.push_str(&last);
    text.push('\n');
    std::fs::write(grown, text).unwrap();
    let (t, c) = (Instant::now(), cpu());
    let one = lib.update(&entries, jobs).unwrap();
    let grow_cpu = cpu() - c;
    println!(
        "update, one file grew ({} read): {:.1} ms wall, {grow_cpu:.3} s CPU = {:.2} % of the build's CPU",
        one.read,
        t.elapsed().as_secs_f64() * 1e3,
        100.0 * grow_cpu / build_cpu.max(1e-9)
    );

    let words = [
        "error",
        "test",
        "function",
        "file",
        "the build",
        "agent",
        "result",
        "config",
        "parser",
        "timeout",
        "session",
        "delete",
        "write",
        "cargo",
        "fix",
        "json",
        "line",
        "read",
        "tool",
        "search",
    ];
    let mut times = Vec::new();
    let mut found = 0;
    for _ in 0..5 {
        for w in words {
            let t = Instant::now();
            found += lib.search(w, 50).unwrap().len();
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    times.sort_by(f64::total_cmp);
    let p = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "{} queries (50 hits at most, {found} hits in all): p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        times.len(),
        p(0.5),
        p(0.95),
        p(1.0)
    );
}
