//! The library on disk: made, kept where nothing changed, brought up to date by reading only
//! what changed, rebuilt with a notice when corrupt or of another schema, and searched.

use arbor_library::places;
use arbor_library::store::{match_query, Entry, Library, SCHEMA};
use std::fs;
use std::path::{Path, PathBuf};

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(rel)
}

/// A folder holding copies of two corpus logs, as entries.
fn logs(dir: &Path) -> Vec<Entry> {
    let codex = dir.join("rollout-codex.jsonl");
    fs::copy(corpus("codex-cli/agtrace_codex_session.jsonl"), &codex).unwrap();
    let claude = dir.join("claude.jsonl");
    fs::copy(corpus("claude-code/agtrace_claude_session.jsonl"), &claude).unwrap();
    vec![Entry::one(codex, "logs".into()), Entry::one(claude, "logs".into())]
}

#[test]
fn an_update_reads_only_what_changed_and_drops_what_went() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("lib/library.sqlite3");
    let entries = logs(dir.path());
    let mut lib = Library::open(&db).unwrap();
    assert_eq!(lib.notice, None);
    let first = lib.update(&entries, 2).unwrap();
    assert_eq!((first.read, first.kept, first.dropped), (2, 0, 0));
    let before = lib.summaries().unwrap();
    drop(lib);

    // Opened again: nothing changed, nothing read.
    let mut lib = Library::open(&db).unwrap();
    assert_eq!(lib.notice, None);
    let again = lib.update(&entries, 2).unwrap();
    assert_eq!((again.read, again.kept, again.dropped), (0, 2, 0));
    assert_eq!(lib.summaries().unwrap(), before);

    // One file grows: only it is read again, and its summary says what was appended.
    let line = fs::read_to_string(&entries[0].path).unwrap().lines().last().unwrap().to_string();
    let mut text = fs::read_to_string(&entries[0].path).unwrap();
    text.push_str(&line.replace("2025-12-", "2026-01-"));
    text.push('\n');
    fs::write(&entries[0].path, text).unwrap();
    let grown = lib.update(&entries, 2).unwrap();
    assert_eq!((grown.read, grown.kept, grown.dropped), (1, 1, 0));
    let after = lib.summaries().unwrap();
    let codex = |v: &[arbor_library::summary::Summary]| {
        v.iter().find(|s| s.path.ends_with("rollout-codex.jsonl")).cloned().unwrap()
    };
    assert!(codex(&after).bytes > codex(&before).bytes);

    // Its text is found once indexed, and only then.
    let in_codex = |lib: &Library| {
        lib.search("hoge.py", 100).unwrap().iter().filter(|h| h.path.ends_with("rollout-codex.jsonl")).count()
    };
    assert_eq!(in_codex(&lib), 0, "nothing is indexed before index()");
    assert_eq!(lib.index(2).unwrap(), 2);
    assert!(in_codex(&lib) > 0);
    assert_eq!(lib.index(2).unwrap(), 0, "indexed once");
    // One goes away: dropped, and its text is no longer found.
    let gone = lib.update(&entries[1..], 2).unwrap();
    assert_eq!((gone.read, gone.kept, gone.dropped), (0, 1, 1));
    assert_eq!(in_codex(&lib), 0);
    assert_eq!(lib.summaries().unwrap().len(), 1);
}

#[test]
fn a_corrupt_or_older_library_is_rebuilt_with_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("library.sqlite3");
    fs::write(&db, b"this is not a database, it is a file someone overwrote\n".repeat(200)).unwrap();
    let mut lib = Library::open(&db).unwrap();
    let notice = lib.notice.clone().expect("a notice");
    assert!(notice.contains("could not be read") && notice.contains("rebuilt"), "{notice}");
    assert_eq!(lib.update(&logs(dir.path()), 1).unwrap().read, 2);
    drop(lib);

    // A library of an older schema is not trusted either.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", SCHEMA - 1).unwrap();
    drop(conn);
    let lib = Library::open(&db).unwrap();
    let notice = lib.notice.clone().expect("a notice");
    assert!(notice.contains(&format!("schema {}", SCHEMA - 1)), "{notice}");
    assert!(lib.summaries().unwrap().is_empty(), "what was in it is gone, to be read again");
}

#[test]
fn search_finds_transcript_text_ranked_with_its_session_item_and_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::in_memory().unwrap();
    let entries = logs(dir.path());
    lib.update(&entries, 2).unwrap();
    // A reply of the Codex session (SPEC 4's replies hold it too).
    lib.index(2).unwrap();
    let hits = lib.search("simple script", 10).unwrap();
    assert!(!hits.is_empty());
    let h = &hits[0];
    assert!(h.path.ends_with("rollout-codex.jsonl"), "{h:?}");
    assert_eq!(h.session, "019b04ae-b1c6-7c72-a134-a4c2de66058c");
    assert!(h.file.ends_with("rollout-codex.jsonl") && h.line > 1, "{h:?}");
    assert!(h.snippet.contains("[simple]") && h.snippet.contains("[script]"), "{}", h.snippet);
    assert!(hits.windows(2).all(|w| w[0].rank <= w[1].rank), "best first");
    // The line the hit names holds the words.
    let line = arbor_core::raw_line(Path::new(&h.file), h.line).unwrap();
    assert!(line.contains("simple script"), "{line}");
    // What a person types is never FTS5 syntax.
    assert_eq!(match_query("a \"b OR c"), "\"a\" \"\"\"b\" \"OR\" \"c\"");
    assert!(lib.search("\" OR NEAR(", 10).is_ok());
    assert!(lib.search("   ", 10).unwrap().is_empty());
}

#[test]
fn a_claude_code_project_is_read_whole_and_books_a_resume_once() {
    // A project whose sessions resume each other: each resumed file replays the chain before it.
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-work-demo");
    // The first seed whose project has a resumed session (the generator resumes three in ten).
    let resumed = (1..40).find(|&seed| {
        let _ = fs::remove_dir_all(&project);
        let opts = arbor_gen::GenOptions { target_bytes: 400 << 10, depth: 2, fanout: 2, seed, ..Default::default() };
        let stats =
            arbor_gen::claude_code::generate_project(&opts, arbor_gen::claude_code::Layout::Subagents, &project);
        stats.unwrap().resumed > 0
    });
    assert!(resumed.is_some(), "the generator resumed a session");
    let env = places::Env::new(Some(home.path().to_path_buf()), []);
    let found = places::logs(&env);
    assert!(found.len() > 1, "a session file each: {}", found.len());
    let entries = Entry::of_places(found.clone());
    // A resume is one entry with the chain it replays; the other sessions stay apart.
    assert!(entries.len() < found.len(), "{} entries of {} sessions", entries.len(), found.len());
    assert!(entries.iter().any(|e| e.paths.len() > 1));
    let mut lib = Library::in_memory().unwrap();
    lib.update(&entries, 2).unwrap();
    let summaries = lib.summaries().unwrap();
    // A summary per root session, each opening its own file, which brings its sub-agents.
    assert_eq!(summaries.len(), found.len());
    for s in &summaries {
        assert_eq!(s.key, s.path);
        assert!(found.iter().any(|f| arbor_core::reader::path_text(&f.path) == s.path), "{}", s.path);
    }
    // Together they are the project's analysis: every token once, the replays where first written.
    let project_report = arbor_core::analyze(std::slice::from_ref(&project), &mut ()).report();
    let total = project_report.usage.unwrap().total;
    let sum: u64 = summaries.iter().map(|s| s.usage.tokens()).sum();
    assert_eq!(sum, total.tokens());
    // Each session's files read alone count its replayed chain again: what the library does not do.
    let alone: u64 = found
        .iter()
        .map(|f| {
            arbor_core::analyze(std::slice::from_ref(&f.path), &mut ()).report().usage.map_or(0, |u| u.total.tokens())
        })
        .sum();
    assert!(alone > total.tokens(), "read alone, a resume counts its replay twice: {alone} > {}", total.tokens());
    // A hit in a sub-agent's transcript opens its root's file.
    let subs: Vec<_> = project_report.sessions.iter().filter(|s| s.parent.is_some()).collect();
    assert!(!subs.is_empty());
    lib.index(2).unwrap();
    let hits = lib.search("the", 500).unwrap();
    let sub_hit = hits.iter().find(|h| subs.iter().any(|s| s.id == h.session)).expect("a hit in a sub-agent");
    let root = subs.iter().find(|s| s.id == sub_hit.session).unwrap().root.clone().unwrap();
    assert!(sub_hit.path.ends_with(&format!("{root}.jsonl")), "{} opens {root}'s file", sub_hit.path);
}

/// A common word's hits: every match when fewer than the ranked set (best first, each once); of
/// more, the best of the ones indexed last, as many as asked and all of them real matches.
#[test]
fn a_common_word_is_ranked_among_the_newest_matches_only_when_it_has_more() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-work-demo");
    let opts = arbor_gen::GenOptions { target_bytes: 300 << 10, depth: 1, fanout: 2, seed: 3, ..Default::default() };
    arbor_gen::claude_code::generate_project(&opts, arbor_gen::claude_code::Layout::Subagents, &project).unwrap();
    let entries = Entry::of_places(places::logs(&places::Env::new(Some(home.path().to_path_buf()), [])));
    let mut lib = Library::in_memory().unwrap();
    lib.update(&entries, 2).unwrap();
    lib.index(2).unwrap();
    let all = lib.search("the", 1_000_000).unwrap();
    assert!(all.len() > 20 && all.len() < arbor_library::store::RANKED, "{} hits", all.len());
    assert!(all.windows(2).all(|w| w[0].rank <= w[1].rank), "best first");
    let key = |h: &arbor_library::store::Hit| (h.session.clone(), h.item, h.kind.clone(), h.line, h.snippet.clone());
    let distinct: std::collections::HashSet<_> = all.iter().map(key).collect();
    assert_eq!(distinct.len(), all.len(), "each match once");
    for h in &all {
        assert!(h.snippet.to_lowercase().contains("[the]"), "{}", h.snippet);
    }
    // Every match ranked: the same ten as the whole list's first ten.
    let ten = lib.search_ranking("the", 10, all.len()).unwrap();
    assert_eq!(ten.iter().map(key).collect::<Vec<_>>(), all[..10].iter().map(key).collect::<Vec<_>>());
    // Fewer ranked: as many hits as asked, real ones, best first, and not the whole list's best.
    for ranked in [1, 7, all.len() / 3] {
        let some = lib.search_ranking("the", 10, ranked).unwrap();
        assert_eq!(some.len(), ranked.min(10), "{ranked} ranked");
        assert!(some.windows(2).all(|w| w[0].rank <= w[1].rank));
        assert!(some.iter().all(|h| distinct.contains(&key(h))), "{ranked} ranked: real matches");
    }
    let third = lib.search_ranking("the", all.len(), all.len() / 3).unwrap();
    assert_eq!(third.len(), all.len() / 3, "the ranked set is all a large limit gets");
}
