//! Criterion benches of what the app's Transcript view asks of the engine on a long session (issue
//! 32's targets): a Claude Code session of at least 100,000 transcript items, generated once as
//! `arbor-gen --format claude-code --depth 0 --turns N` writes it (one root session, no
//! sub-agents; N found from a small sample so that the transcript has 100,000 rows), analysed
//! once (not timed). Then:
//! - `first-page`: selecting the session, as `transcript_page` does it: the session's row index
//!   (`Analysis::transcript_index`, a pass over the record index) and the first block the view
//!   asks for (100 rows, texts cut at 4,000 characters, read back from the file). Target: 100 ms.
//! - `find/…`: the find (`Analysis::transcript_find`, what `transcript_find` answers: every row
//!   whose text holds the words, each row's whole text read back), which the view waits for
//!   before it shows the first hit: a word that is in no row (the whole transcript read, the
//!   worst case), a word of many rows, and the tool name `Bash`; and `find/one-block`, the
//!   block of 2,000 rows the view reads first (it shows the first hit once its block is read).
//!   Target: 200 ms to the first hit.
//!
//! `cargo bench -p arbor-gen --bench transcript -- --warm-up-time 1 --measurement-time 5`
//! (the session is written once into the system temp folder and reused).

use arbor_core::transcript::Show;
use arbor_core::Analysis;
use arbor_gen::claude_code::{generate_session, Layout};
use arbor_gen::{Format, GenOptions};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::{Path, PathBuf};

/// The transcript's length the targets are stated for.
const ITEMS: u32 = 100_000;

fn options() -> GenOptions {
    GenOptions { format: Format::DshRpc, target_bytes: u64::MAX, depth: 0, fanout: 1, seed: 7, fault_rate: 0.0 }
}

/// The analysis of `dir` (a project folder of one session) and that session's id.
fn analyse(dir: &Path) -> (Analysis, String) {
    let analysis = arbor_core::analyze(&[dir.to_path_buf()], &mut ());
    let report = analysis.report();
    let id = report.sessions.iter().find(|s| s.parent.is_none()).expect("the generated session").id.clone();
    (analysis, id)
}

/// The rows of the one session of a folder.
fn rows(dir: &Path) -> u32 {
    let (a, id) = analyse(dir);
    a.transcript_index(&id).map_or(0, |i| i.len() as u32)
}

/// A folder holding one session of at least `ITEMS` transcript rows, written once.
fn session() -> PathBuf {
    let dir = std::env::temp_dir().join("arbor-bench-transcript-100k-s7");
    let done = dir.join(".done");
    if done.exists() {
        return dir;
    }
    // How many rows a turn makes, from 200 turns.
    let sample = std::env::temp_dir().join("arbor-bench-transcript-sample");
    let _ = std::fs::remove_dir_all(&sample);
    generate_session(&options(), Layout::Subagents, &sample, 200).unwrap();
    let per_turn = f64::from(rows(&sample).max(1)) / 200.0;
    let _ = std::fs::remove_dir_all(&sample);
    let turns = (f64::from(ITEMS) / per_turn * 1.02).ceil() as u64;
    let _ = std::fs::remove_dir_all(&dir);
    generate_session(&options(), Layout::Subagents, &dir, turns).unwrap();
    std::fs::write(&done, turns.to_string()).unwrap();
    dir
}

fn transcript(c: &mut Criterion) {
    let dir = session();
    let (analysis, id) = analyse(&dir);
    let index = analysis.transcript_index(&id).expect("its transcript");
    assert!(index.len() as u32 >= ITEMS, "{} rows", index.len());
    eprintln!("transcript: {} rows, session {id}", index.len());
    let mut g = c.benchmark_group("transcript-100k");
    g.sample_size(10);
    g.bench_function("first-page", |b| {
        b.iter(|| {
            let index = analysis.transcript_index(&id).expect("its transcript");
            black_box(analysis.transcript_page(&index, 0, 100, 4000))
        })
    });
    // What the view asks first: one block of 2,000 rows (the reader's), in which the first hit
    // at or after the reader is looked for.
    g.bench_function("find/one-block", |b| {
        b.iter(|| black_box(analysis.transcript_find_in(&index, "Bash", Show::All, 50_000, 2000)))
    });
    for (name, query) in [("find/nowhere", "zqxjkvw"), ("find/common-word", "the"), ("find/tool-name", "Bash")] {
        let hits = analysis.transcript_find(&index, query, Show::All).len();
        eprintln!("{name}: {hits} rows");
        g.bench_function(name, |b| b.iter(|| black_box(analysis.transcript_find(&index, query, Show::All))));
    }
    g.finish();
}

criterion_group!(benches, transcript);
criterion_main!(benches);
