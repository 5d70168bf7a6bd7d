//! `transcript-first-page FILE [SESSION] [RUNS]` (an example of arbor-core): how soon a selected
//! session's transcript can show its first page once the log's analysis is made. It analyses FILE
//! once (not timed), then for the median of RUNS (default 5) runs times what the app does when a
//! session is selected (`commands::transcript_page`): the session's row index
//! (`Analysis::transcript_index`, a pass over the record index) and the first block of rows the
//! Transcript view asks for (`transcript_page(index, 0, 100, 4000)`: 100 rows, texts cut at 4,000
//! characters), read back from the file. SESSION defaults to the first root of the report. The
//! app adds its IPC and the first paint on top; those are not measured here.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: transcript-first-page FILE [SESSION] [RUNS]");
        return ExitCode::from(2);
    };
    let session = args.next().filter(|s| !s.is_empty());
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
    let started = Instant::now();
    let analysis = arbor_core::analyze(&[PathBuf::from(&path)], &mut ());
    let analysed = started.elapsed();
    let session = match session {
        Some(s) => s,
        // The report's first session is a root (sessions come root first).
        None => match analysis.cx.graph.report_order().first() {
            Some(&s) => analysis.cx.ids.name(s).to_owned(),
            None => {
                eprintln!("transcript-first-page: {path}: no session");
                return ExitCode::from(1);
            }
        },
    };
    let mut seen: Vec<(Duration, Duration, usize, u32)> = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let Some(index) = analysis.transcript_index(&session) else {
            eprintln!("transcript-first-page: no session `{session}`");
            return ExitCode::from(1);
        };
        let indexed = t.elapsed();
        let page = analysis.transcript_page(&index, 0, 100, 4000);
        let paged = t.elapsed() - indexed;
        seen.push((indexed, paged, index.len(), page.rows.len() as u32));
    }
    seen.sort_by_key(|s| s.0 + s.1);
    let (indexed, paged, rows, shown) = seen[seen.len() / 2];
    println!(
        "{path}: analysed in {:.1} s; session `{session}` ({rows} transcript rows): index {:.1} ms, first page ({shown} rows) {:.1} ms, in all {:.1} ms (median of {runs})",
        analysed.as_secs_f64(),
        indexed.as_secs_f64() * 1e3,
        paged.as_secs_f64() * 1e3,
        (indexed + paged).as_secs_f64() * 1e3,
    );
    std::mem::forget(analysis);
    ExitCode::SUCCESS
}
