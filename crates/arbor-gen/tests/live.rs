//! Following a log as it is written (SPEC 5 Follow) gives what a fresh read gives: for generated
//! logs of every format, and folders of several files, cut at random byte offsets (mid-line
//! included) and appended in pieces, in a random order of files, with files appearing as they go,
//! the followed analysis's report equals the one-shot report of the same files, byte for byte, at
//! every step (a snapshot) and at the end; and the view grown from one snapshot to the next
//! (`View::grow`) answers as the view made afresh of each.

use arbor_core::live::Live;
use arbor_core::view::{same_views, Grown, Timeline, View};
use arbor_gen::claude_code::{generate_project, Layout};
use arbor_gen::{generate, generate_codex_tree, generate_dsh_session_folder, generate_gemini_tree, Format, GenOptions};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn json(a: &arbor_core::Analysis) -> String {
    let mut out = Vec::new();
    a.write_report_json(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn one_shot(paths: &[PathBuf]) -> String {
    json(&arbor_core::analyze(paths, &mut ()))
}

/// The files of a folder, relative to it, with their bytes, in name order.
fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// What a followed log is generated as.
#[derive(Clone, Copy, Debug)]
enum Src {
    /// A log (or dsh-session folder) of this format.
    Gen(Format),
    /// A Codex sessions tree of rollouts.
    Codex,
    /// A Gemini CLI `tmp/<project>/chats` tree.
    Gemini,
    /// A Claude Code project folder in this layout.
    Claude(Layout),
}

impl Src {
    fn name(self) -> String {
        match self {
            Src::Gen(f) => f.id().to_owned(),
            Src::Codex => "codex".to_owned(),
            Src::Gemini => "gemini-cli".to_owned(),
            Src::Claude(l) => format!("claude-code {l:?}"),
        }
    }
}

/// The files of a log: (name, bytes).
fn log_of(src: Src, seed: u64, faults: f64, size: u64) -> Vec<(String, Vec<u8>)> {
    let opts = GenOptions { format: Format::DshRpc, target_bytes: size, depth: 3, fanout: 2, seed, fault_rate: faults };
    let dir = tempfile::tempdir().unwrap();
    match src {
        Src::Gen(format) => return log(format, seed, faults, size),
        Src::Codex => drop(generate_codex_tree(&opts, dir.path()).unwrap()),
        Src::Gemini => drop(generate_gemini_tree(&opts, dir.path()).unwrap()),
        Src::Claude(layout) => drop(generate_project(&opts, layout, dir.path()).unwrap()),
    }
    files_under(dir.path())
}

/// The files of a log: (name, bytes).
fn log(format: Format, seed: u64, faults: f64, size: u64) -> Vec<(String, Vec<u8>)> {
    let opts = GenOptions { format, target_bytes: size, depth: 3, fanout: 2, seed, fault_rate: faults };
    if format == Format::DshSession {
        let dir = tempfile::tempdir().unwrap();
        generate_dsh_session_folder(&opts, dir.path()).unwrap();
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
            .collect();
        files.sort();
        return files;
    }
    let mut bytes = Vec::new();
    generate(&opts, &mut bytes).unwrap();
    vec![(format!("{}.jsonl", format.id()), bytes)]
}

fn append(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

/// Follow `files` written in `steps` pieces: each step appends the next piece of one file (chosen
/// by `order`), a file appearing with its first piece; every few steps the snapshot is compared
/// with a fresh read; at the end the finished analysis is.
/// Returns how many updates read on incrementally (not again from the start).
fn follow(files: &[(String, Vec<u8>)], cuts: &[Vec<usize>], order: &[usize], snapshot_every: usize) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("logs");
    std::fs::create_dir(&root).unwrap();
    let paths = vec![root.clone()];
    // Each file's pieces, from its cut points.
    let mut pieces: Vec<std::collections::VecDeque<&[u8]>> = files
        .iter()
        .zip(cuts)
        .map(|((_, bytes), cut)| {
            let mut at: Vec<usize> = cut.iter().map(|c| c % (bytes.len() + 1)).collect();
            at.push(0);
            at.push(bytes.len());
            at.sort_unstable();
            at.dedup();
            at.windows(2).map(|w| &bytes[w[0]..w[1]]).collect()
        })
        .collect();
    // The first piece of the first file is there before following starts.
    if let Some(first) = pieces[0].pop_front() {
        append(&root.join(&files[0].0), first);
    }
    // Read as the app reads a log it may follow: the analysis of what is there, and the `Live`
    // that goes on from it.
    let (first, live) = Live::analyze(&paths, &mut ());
    assert_eq!(json(&first), one_shot(&paths), "the analysis read to follow");
    let mut live = live.expect("not stopped");
    // The view as the app keeps it, grown at each snapshot.
    let mut view = View::of_analysis(&first, 1, &|| true).unwrap();
    let mut before = first;
    // Whether files appeared or everything was read again since the last snapshot: the view is
    // then made again, else it grows.
    let mut made_again = false;
    let mut step = 0;
    let mut incremental = 0;
    let mut turn = order.iter().cycle();
    while pieces.iter().any(|p| !p.is_empty()) {
        let i = loop {
            let i = turn.next().unwrap() % files.len();
            if !pieces[i].is_empty() {
                break i;
            }
            if let Some(j) = pieces.iter().position(|p| !p.is_empty()) {
                break j;
            }
        };
        append(&root.join(&files[i].0), pieces[i].pop_front().unwrap());
        let change = live.update(&mut ());
        assert!(!change.rewritten, "nothing was rewritten: {change:?}");
        incremental += usize::from(change.reread.is_none() && !change.is_empty());
        made_again |= change.reread.is_some() || !change.appeared.is_empty();
        step += 1;
        if step % snapshot_every == 0 {
            let snapshot = live.snapshot();
            assert_eq!(json(&snapshot), one_shot(&paths), "snapshot at step {step}");
            let revision = step as u64 + 1;
            let grown = view.grow(&before, &snapshot, revision, &|| true).expect("never stopped");
            if !made_again {
                assert!(matches!(grown, Grown::Grew { .. }), "a view of the same `Live` grows: {grown:?}");
            }
            made_again = false;
            let mut made = View::of_analysis_with(&snapshot, revision, &|| true, Timeline::WhenAsked).unwrap();
            if let Err(e) = same_views(&mut view, &mut made) {
                panic!("the view grown at step {step} ({grown:?}) is not the view made afresh: {e}");
            }
            before = snapshot;
        }
    }
    let want = one_shot(&paths);
    assert_eq!(json(&live.snapshot()), want, "the last snapshot");
    assert_eq!(json(&live.finish()), want, "the finished analysis");
    incremental
}

const FORMATS: [Src; 9] = [
    Src::Gen(Format::DshRpc),
    Src::Gen(Format::DshSession),
    Src::Gen(Format::CopilotEvents),
    Src::Gen(Format::CopilotRpc),
    Src::Codex,
    Src::Gemini,
    Src::Claude(Layout::Subagents),
    Src::Claude(Layout::Flat),
    Src::Claude(Layout::Inline),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn a_log_followed_in_pieces_reads_as_the_whole(
        format in 0..FORMATS.len(),
        seed in 0u64..1000,
        faults in prop_oneof![Just(0.0), Just(0.02)],
        cuts in prop::collection::vec(prop::collection::vec(any::<usize>(), 1..12), 12),
        order in prop::collection::vec(any::<usize>(), 1..40),
    ) {
        let files = log_of(FORMATS[format], seed, faults, 24 << 10);
        let cuts: Vec<Vec<usize>> = (0..files.len()).map(|i| cuts[i % cuts.len()].clone()).collect();
        follow(&files, &cuts, &order, 3);
    }
}

/// Cut points moved to the ends of their lines.
fn at_line_ends(bytes: &[u8], cuts: &[usize]) -> Vec<usize> {
    let end = |c: usize| bytes[c..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| c + p + 1);
    cuts.iter().map(|c| end(c % (bytes.len() + 1))).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Appended in whole lines, a snapshot is made with no line unfinished: each machine says
    /// what its end adds without being copied (`Machine::finish_copy`), with turns, steps and
    /// waits open at every step.
    #[test]
    fn a_log_followed_in_whole_lines_reads_as_the_whole_at_every_step(
        format in 0..FORMATS.len(),
        seed in 0u64..1000,
        faults in prop_oneof![Just(0.0), Just(0.02)],
        cuts in prop::collection::vec(any::<usize>(), 1..12),
        order in prop::collection::vec(any::<usize>(), 1..40),
    ) {
        let files = log_of(FORMATS[format], seed, faults, 24 << 10);
        let cuts: Vec<Vec<usize>> = files.iter().map(|(_, bytes)| at_line_ends(bytes, &cuts)).collect();
        follow(&files, &cuts, &order, 1);
    }
}

/// Once its first lines are read, a growing log is read on from where it stopped, in every
/// format, a folder's files in turn.
#[test]
fn a_growing_log_is_read_on_not_again() {
    for format in FORMATS {
        let files = log_of(format, 11, 0.01, 256 << 10);
        // The first 210 lines of each file first (detection has read its lines), then a piece
        // every 997 bytes.
        let cuts: Vec<Vec<usize>> = files
            .iter()
            .map(|(_, b)| {
                let head = b.iter().enumerate().filter(|(_, &c)| c == b'\n').nth(209).map_or(b.len(), |(i, _)| i + 1);
                std::iter::once(head).chain((head..b.len()).step_by(997).skip(1)).collect()
            })
            .collect();
        let order: Vec<usize> = (0..files.len()).collect();
        let steps: usize = cuts.iter().map(Vec::len).sum();
        let incremental = follow(&files, &cuts, &order, 7);
        let name = format.name();
        assert!(incremental * 10 >= steps * 8, "{name}: {incremental} of {steps} updates read on");
    }
}

/// A line written in several pieces is routed once, when its newline comes.
#[test]
fn a_line_written_in_pieces_waits_for_its_newline() {
    let files = log(Format::CopilotEvents, 7, 0.0, 128 << 10);
    let bytes = &files[0].1;
    // Every byte a piece of its own for the first few lines.
    let head = bytes.iter().enumerate().filter(|(_, &c)| c == b'\n').nth(209).map_or(bytes.len(), |(i, _)| i + 1);
    let cut: Vec<usize> = std::iter::once(head).chain(head + 1..head + 900).collect();
    let incremental = follow(&files, &[cut], &[0], 50);
    assert!(incremental > 800, "{incremental}");
}

/// A file truncated or replaced while followed is read again from the start, with a finding.
#[test]
fn a_rewritten_file_is_read_again_with_a_finding() {
    let files = log(Format::DshRpc, 3, 0.0, 16 << 10);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    std::fs::write(&path, &files[0].1).unwrap();
    let paths = vec![path.clone()];
    let mut live = Live::open(&paths, &mut ());
    let half = &files[0].1[..files[0].1.len() / 2];
    let cut = half.iter().rposition(|&b| b == b'\n').unwrap() + 1;
    std::fs::write(&path, &half[..cut]).unwrap();
    let change = live.update(&mut ());
    assert!(change.reread.as_deref().is_some_and(|w| w.contains("truncated or replaced")), "{change:?}");
    let report = live.snapshot().report();
    assert!(report.diagnostics.iter().any(|d| d.code == "file-rewritten"), "a finding says so");
    // Apart from that finding, it is the fresh read of the shorter file.
    let mut fresh = arbor_core::analyze(&paths, &mut ()).report();
    let mut got = report;
    got.diagnostics.retain(|d| d.code != "file-rewritten");
    fresh.diagnostics.retain(|d| d.code != "file-rewritten");
    assert_eq!(got, fresh);
}

/// Nothing appended: an update reads nothing.
#[test]
fn an_update_with_nothing_new_reads_nothing() {
    let files = log(Format::CopilotRpc, 5, 0.0, 16 << 10);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rec.jsonl");
    std::fs::write(&path, &files[0].1).unwrap();
    let mut live = Live::open(&[path], &mut ());
    let change = live.update(&mut ());
    assert!(change.is_empty(), "{change:?}");
    assert_eq!(change.bytes, 0);
}

/// Every log of the corpus (real logs from public projects), written in pieces of whole lines
/// and followed: the view grown at each piece answers as the view made afresh.
#[test]
fn every_corpus_log_followed_in_pieces_grows_the_view_it_would_make() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut logs: Vec<PathBuf> = Vec::new();
    let mut stack = vec![corpus];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                logs.push(p);
            }
        }
    }
    logs.sort();
    assert!(logs.len() >= 20, "the corpus has its logs: {}", logs.len());
    let mut grew = 0;
    for log in &logs {
        let bytes = std::fs::read(log).unwrap();
        let ends: Vec<usize> = bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1).collect();
        // Up to six pieces, cut where lines end.
        let cuts: Vec<usize> = (1..6).filter_map(|k| ends.get(ends.len() * k / 6).copied()).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(log.file_name().unwrap());
        let first = cuts.first().copied().unwrap_or(bytes.len());
        std::fs::write(&path, &bytes[..first]).unwrap();
        let (analysis, live) = Live::analyze(std::slice::from_ref(&path), &mut ());
        let mut live = live.expect("not stopped");
        let mut view = View::of_analysis(&analysis, 1, &|| true).unwrap();
        let mut before = analysis;
        let mut at = first;
        for (k, &cut) in cuts.iter().skip(1).chain([bytes.len()].iter()).enumerate() {
            if cut <= at {
                continue;
            }
            append(&path, &bytes[at..cut]);
            at = cut;
            let change = live.update(&mut ());
            let snapshot = live.snapshot();
            let revision = k as u64 + 2;
            let grown = view.grow(&before, &snapshot, revision, &|| true).unwrap();
            grew += usize::from(matches!(grown, Grown::Grew { .. }));
            let mut made = View::of_analysis_with(&snapshot, revision, &|| true, Timeline::WhenAsked).unwrap();
            if let Err(e) = same_views(&mut view, &mut made) {
                panic!(
                    "{}: the view grown at piece {k} ({grown:?}, {change:?}) is not made afresh: {e}",
                    log.display()
                );
            }
            before = snapshot;
        }
    }
    assert!(grew > logs.len(), "views grew rather than being made again: {grew}");
}
