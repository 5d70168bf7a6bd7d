//! Times full-text queries on a library already on disk, in one process, for BENCHMARKS.md ("The
//! library at 10,000 sessions"): the file opened once, each query of QUERIES run ROUNDS times
//! (its first run not counted: the pages it reads are then in the cache, as for a person typing),
//! and p50, p95 and the max printed per class. A measurement, never a test.
//!
//! usage: library-query LIBRARY QUERIES [ROUNDS] [LIMIT]
//!   QUERIES: a file of `class<TAB>text` lines (`rare`, `common`, `phrase`, …); ROUNDS default 3,
//!   LIMIT (hits asked for, as `arbor sessions --search` asks 4 × --limit) default 80.

use arbor_library::store::Library;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: library-query LIBRARY QUERIES [ROUNDS] [LIMIT]");
        std::process::exit(2);
    }
    let db = PathBuf::from(&args[1]);
    let queries = std::fs::read_to_string(&args[2]).expect("the queries file");
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(3);
    let limit: usize = args.get(4).and_then(|r| r.parse().ok()).unwrap_or(80);
    let t = Instant::now();
    let lib = Library::open(&db).expect("the library");
    let n = lib.summaries().expect("summaries").len();
    println!("open and read {n} summaries: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let mut by_class: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut all = Vec::new();
    let mut hits: BTreeMap<String, usize> = BTreeMap::new();
    for line in queries.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let (class, text) = line.split_once('\t').unwrap_or(("other", line));
        let got = lib.search(text, limit).expect("a search").len();
        *hits.entry(class.to_owned()).or_default() += got;
        for _ in 0..rounds {
            let t = Instant::now();
            lib.search(text, limit).expect("a search");
            let ms = t.elapsed().as_secs_f64() * 1e3;
            by_class.entry(class.to_owned()).or_default().push(ms);
            all.push(ms);
        }
    }
    let show = |name: &str, times: &mut Vec<f64>, hits: Option<usize>| {
        if times.is_empty() {
            return;
        }
        times.sort_by(f64::total_cmp);
        let p = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
        let hits = hits.map(|h| format!(", {h} hits in all")).unwrap_or_default();
        println!(
            "{name:>8}: {:>4} queries: p50 {:7.1} ms, p95 {:7.1} ms, max {:7.1} ms{hits}",
            times.len(),
            p(0.5),
            p(0.95),
            p(1.0)
        );
    };
    for (class, times) in &mut by_class {
        show(class, times, hits.get(class).copied());
    }
    show("all", &mut all, None);
}
