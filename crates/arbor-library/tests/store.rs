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

/// A Claude Code project with one session `S` that spawned sub-agent `a1` (2.1's layout: its
/// file and sidecar under `S/subagents/`), its result not yet logged; every file's time well in
/// the past, the parent's after its sub-agent's.
fn spawning_project(dir: &Path) -> (PathBuf, PathBuf) {
    let subs = dir.join("S/subagents");
    fs::create_dir_all(&subs).unwrap();
    let parent = dir.join("S.jsonl");
    let t = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
    let lines = [
        format!(
            r#"{{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"S","cwd":"/work/demo","timestamp":"{}","message":{{"role":"user","content":"go"}}}}"#,
            t(0)
        ),
        format!(
            r#"{{"type":"assistant","uuid":"u2","parentUuid":"u1","sessionId":"S","timestamp":"{}","message":{{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"tool_use","id":"toolu_1","name":"Agent","input":{{"description":"d","prompt":"Say hi","subagent_type":"general-purpose"}}}}],"stop_reason":"tool_use","usage":{{"input_tokens":10,"output_tokens":5}}}}}}"#,
            t(1)
        ),
    ];
    fs::write(&parent, lines.join("\n") + "\n").unwrap();
    let child = subs.join("agent-a1.jsonl");
    fs::write(&child, child_line(1) + "\n").unwrap();
    fs::write(
        subs.join("agent-a1.meta.json"),
        r#"{"agentType":"general-purpose","description":"d","toolUseId":"toolu_1","spawnDepth":1}"#,
    )
    .unwrap();
    for (p, age) in
        [(&child, 900), (&subs.join("agent-a1.meta.json"), 900), (&subs, 900), (&dir.join("S"), 900), (&parent, 800)]
    {
        set_age(p, age);
    }
    (parent, child)
}

/// The sub-agent's `n`-th line: its prompt, then its replies.
fn child_line(n: u32) -> String {
    if n == 1 {
        return r#"{"type":"user","uuid":"c1","parentUuid":null,"isSidechain":true,"agentId":"a1","sessionId":"S","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"Say hi"}}"#.to_owned();
    }
    format!(
        r#"{{"type":"assistant","uuid":"c{n}","parentUuid":"c{}","isSidechain":true,"agentId":"a1","sessionId":"S","timestamp":"2026-01-01T00:00:{:02}.000Z","message":{{"id":"m{n}x","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"hi number {n}"}}],"stop_reason":"end_turn","usage":{{"input_tokens":100,"output_tokens":7}}}}}}"#,
        n - 1,
        n + 2
    )
}

/// The parent's line that logs the sub-agent's result.
fn result_line() -> String {
    r#"{"type":"user","uuid":"u3","parentUuid":"u2","sessionId":"S","timestamp":"2026-01-01T00:00:40.000Z","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":[{"type":"text","text":"hi"}]}]},"toolUseResult":{"status":"completed","agentId":"a1","content":[{"type":"text","text":"hi"}]}}"#.to_owned()
}

fn append(path: &Path, line: &str) {
    use std::io::Write;
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

/// Sets a file's or folder's modification time to `secs` seconds ago.
fn set_age(path: &Path, secs: u64) {
    let t = std::time::SystemTime::now() - std::time::Duration::from_secs(secs);
    fs::File::open(path).unwrap().set_modified(t).unwrap();
}

/// What the library keeps to check an entry: its `quick` stamps' names, none when it has none.
fn quick_names(db: &Path, path: &Path) -> Option<Vec<String>> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let quick: Option<String> = conn
        .query_row("SELECT quick FROM entries WHERE path = ?1", [arbor_core::reader::path_text(path)], |r| r.get(0))
        .unwrap();
    let stamps: Vec<(String, u64, i128, u64)> = serde_json::from_str(&quick?).unwrap();
    Some(stamps.into_iter().map(|s| s.0).collect())
}

/// A session whose sub-agents have all returned is checked by its own file and its sub-agents'
/// folders: a sub-agent file added or removed is seen by its folder's time, one touched with the
/// same text is rightly left alone, and one that grows is read with its parent's next line
/// (Claude Code writes a sub-agent's file only between the parent's spawn call and its result).
/// One still running (no result logged) is checked file by file: its growth is seen at once.
#[test]
fn a_settled_claude_code_session_is_checked_by_its_own_file_and_its_sub_agents_folders() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-work-demo");
    let (parent, child) = spawning_project(&project);
    let db = home.path().join("library.sqlite3");
    let env = places::Env::new(Some(home.path().to_path_buf()), []);
    let update = |lib: &mut Library| {
        let entries = lib.entries_of_places(places::logs(&env)).unwrap();
        let u = lib.update(&entries, 2).unwrap();
        (u.read, u.kept, u.dropped)
    };
    let bytes = |lib: &Library| lib.summaries().unwrap()[0].bytes;
    let mut lib = Library::open(&db).unwrap();
    assert_eq!(update(&mut lib), (1, 0, 0));
    assert_eq!(lib.summaries().unwrap()[0].subagents, 1, "the sub-agent is linked");
    // Running: no result yet, so every file is checked, and the sub-agent's growth is seen.
    assert_eq!(quick_names(&db, &parent), None, "a sub-agent still running: every file checked");
    let before = bytes(&lib);
    append(&child, &child_line(2));
    set_age(&child, 700);
    assert_eq!(update(&mut lib), (1, 0, 0), "a running sub-agent's growth is seen");
    assert!(bytes(&lib) > before);
    assert_eq!(update(&mut lib), (0, 1, 0));

    // The parent logs the result: read again, and now settled.
    append(&parent, &result_line());
    set_age(&parent, 600);
    assert_eq!(update(&mut lib), (1, 0, 0));
    let text = |p: &Path| arbor_core::reader::path_text(p);
    let subs = project.join("S/subagents");
    assert_eq!(
        quick_names(&db, &parent),
        Some(vec![text(&parent), text(&subs)]),
        "its own file and its sub-agents' folder"
    );
    assert_eq!(update(&mut lib), (0, 1, 0), "nothing changed");

    // A sub-agent file touched, its text the same: rightly left alone.
    set_age(&child, 500);
    assert_eq!(update(&mut lib), (0, 1, 0), "touched, the same text");
    // A sub-agent's file that grows: read with its parent's next line.
    let before = bytes(&lib);
    append(&child, &child_line(3));
    set_age(&child, 450);
    assert_eq!(update(&mut lib), (0, 1, 0), "its parent has not written since");
    append(
        &parent,
        r#"{"type":"system","uuid":"u4","parentUuid":"u3","sessionId":"S","timestamp":"2026-01-01T00:00:50.000Z","content":"noted"}"#,
    );
    set_age(&parent, 400);
    assert_eq!(update(&mut lib), (1, 0, 0), "the parent wrote: read again");
    let grown = bytes(&lib);
    assert!(grown > before + child_line(3).len() as u64, "both files' growth read: {before} -> {grown}");

    // A sub-agent file added: its folder's time says so.
    assert!(quick_names(&db, &parent).is_some());
    let added = subs.join("agent-a2.jsonl");
    fs::copy(&child, &added).unwrap();
    set_age(&added, 450);
    assert_eq!(update(&mut lib), (1, 0, 0), "a file added is seen");
    assert!(bytes(&lib) > grown);
    // And removed again.
    set_age(&subs, 300);
    assert_eq!(update(&mut lib), (1, 0, 0), "the folder's time is its own stamp");
    fs::remove_file(&added).unwrap();
    assert_eq!(update(&mut lib), (1, 0, 0), "a file removed is seen");
    assert_eq!(bytes(&lib), grown);
    assert_eq!(update(&mut lib), (0, 1, 0));
    // Its sub-agents' folder gone: seen, and read without them.
    fs::remove_dir_all(&subs).unwrap();
    assert_eq!(update(&mut lib), (1, 0, 0), "the folder removed is seen");
    assert!(bytes(&lib) < grown);
}

/// A Claude Code file's head is read again only when the file is not as it was (its size, time
/// and identity); a resume that joins a chain makes its entry again.
#[cfg(unix)]
#[test]
fn a_files_head_is_kept_by_its_stamp_and_a_resume_joining_a_chain_is_read() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-work-demo");
    let (parent, _) = spawning_project(&project);
    append(&parent, &result_line());
    set_age(&parent, 600);
    let db = home.path().join("library.sqlite3");
    let env = places::Env::new(Some(home.path().to_path_buf()), []);
    let mut lib = Library::open(&db).unwrap();
    let entries = lib.entries_of_places(places::logs(&env)).unwrap();
    assert_eq!(lib.update(&entries, 2).unwrap().read, 1);
    assert_eq!(lib.heads().unwrap().len(), 1);

    // T resumes S: it replays S's chain from its first line, under its own session id.
    let resume = project.join("T.jsonl");
    let text = fs::read_to_string(&parent).unwrap().replace(r#""sessionId":"S""#, r#""sessionId":"T""#);
    fs::write(&resume, &text).unwrap();
    set_age(&resume, 500);
    let entries = lib.entries_of_places(places::logs(&env)).unwrap();
    assert_eq!(entries.len(), 1, "one chain: {entries:?}");
    assert_eq!(entries[0].paths, vec![parent.clone(), resume.clone()]);
    let u = lib.update(&entries, 2).unwrap();
    assert_eq!((u.read, u.kept), (1, 0), "the entry's files changed: read again");
    assert_eq!(lib.summaries().unwrap().len(), 2, "the resume listed");
    assert_eq!(lib.heads().unwrap().len(), 2);

    // T's first uuid rewritten in place, its stamp put back: the kept head is used.
    let other = text.replacen(r#""uuid":"u1""#, r#""uuid":"x1""#, 1);
    let ino = |p: &Path| std::os::unix::fs::MetadataExt::ino(&fs::metadata(p).unwrap());
    let (was, time) = (ino(&resume), fs::metadata(&resume).unwrap().modified().unwrap());
    let mut f = fs::OpenOptions::new().write(true).open(&resume).unwrap();
    std::io::Write::write_all(&mut f, other.as_bytes()).unwrap();
    f.set_modified(time).unwrap();
    drop(f);
    assert_eq!(ino(&resume), was);
    let entries = lib.entries_of_places(places::logs(&env)).unwrap();
    assert_eq!(entries.len(), 1, "the head as the library kept it");
    // Its time changed: read again, T is a chain of its own.
    set_age(&resume, 400);
    let entries = lib.entries_of_places(places::logs(&env)).unwrap();
    assert_eq!(entries.len(), 2, "the head read again: {entries:?}");
    // And a file gone leaves the kept heads.
    fs::remove_file(&resume).unwrap();
    lib.entries_of_places(places::logs(&env)).unwrap();
    assert_eq!(lib.heads().unwrap().len(), 1);
}

/// The compaction agent (`agent-acompact-*`, no spawn call) settles its session once it has
/// stopped and its parent wrote after it; while it runs, every file is checked.
#[test]
fn a_compaction_agent_settles_its_session_once_it_stopped() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-work-demo");
    let (parent, _) = spawning_project(&project);
    append(&parent, &result_line());
    let compact = project.join("S/subagents/agent-acompact-0123456789abcdef.jsonl");
    fs::write(
        &compact,
        r#"{"type":"user","uuid":"k1","parentUuid":"u3","isSidechain":true,"agentId":"acompact-0123456789abcdef","sessionId":"S","timestamp":"2026-01-01T00:00:41.000Z","message":{"role":"user","content":"Summarize the conversation"}}"#.to_owned() + "\n",
    )
    .unwrap();
    set_age(&compact, 700);
    set_age(&parent, 690);
    let db = home.path().join("library.sqlite3");
    let env = places::Env::new(Some(home.path().to_path_buf()), []);
    let mut lib = Library::open(&db).unwrap();
    let update = |lib: &mut Library| {
        let entries = lib.entries_of_places(places::logs(&env)).unwrap();
        lib.update(&entries, 2).unwrap().read
    };
    assert_eq!(update(&mut lib), 1);
    assert_eq!(lib.summaries().unwrap()[0].subagents, 2, "the compaction agent is linked");
    assert_eq!(quick_names(&db, &parent), None, "compacting: every file checked");
    append(
        &compact,
        r#"{"type":"assistant","uuid":"k2","parentUuid":"k1","isSidechain":true,"agentId":"acompact-0123456789abcdef","sessionId":"S","timestamp":"2026-01-01T00:00:45.000Z","message":{"id":"mk","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"The summary."}],"stop_reason":"end_turn","usage":{"input_tokens":100,"output_tokens":7}}}"#,
    );
    set_age(&compact, 600);
    append(
        &parent,
        r#"{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"logicalParentUuid":"u3","sessionId":"S","timestamp":"2026-01-01T00:00:46.000Z","compactMetadata":{"trigger":"auto","preTokens":1000}}"#,
    );
    set_age(&parent, 500);
    assert_eq!(update(&mut lib), 1);
    assert!(quick_names(&db, &parent).is_some(), "compacted: settled");
}

/// A Codex home as the generator writes it (sub-agents by `thread_spawn`, by a parent's
/// `sub_agent_activity` only, and review sub-agents found by the time window; with faults, some
/// linked by nothing): each thread is one library session with its sub-agents' rollouts, and
/// the library's sessions are the roots `arbor analyze` finds reading the whole tree, with the
/// same sub-agents, turns and tokens.
#[test]
fn a_codex_sub_agents_rollout_is_read_with_its_parents() {
    for fault_rate in [0.0, 0.3] {
        let home = tempfile::tempdir().unwrap();
        let sessions = home.path().join(".codex/sessions");
        // The first seed whose tree has a review sub-agent (a root turn has one in 25).
        let seed = (1..60)
            .find(|&seed| {
                let _ = fs::remove_dir_all(&sessions);
                let opts = arbor_gen::GenOptions {
                    target_bytes: 600 << 10,
                    depth: 3,
                    fanout: 2,
                    seed,
                    fault_rate,
                    ..Default::default()
                };
                arbor_gen::generate_codex_tree(&opts, &sessions).unwrap().windows > 0
            })
            .expect("a tree with a review sub-agent");
        let env = places::Env::new(Some(home.path().to_path_buf()), []);
        let found = places::logs(&env);
        let mut lib = Library::in_memory().unwrap();
        let entries = lib.entries_of_places(found.clone()).unwrap();
        assert!(entries.len() < found.len(), "seed {seed}: {} entries of {} rollouts", entries.len(), found.len());
        lib.update(&entries, 2).unwrap();
        let summaries = lib.summaries().unwrap();

        let whole = arbor_core::analyze(std::slice::from_ref(&sessions), &mut ()).report();
        // A root, or a child whose parent was not written (it stands as its own).
        let known: std::collections::HashSet<&str> = whole.sessions.iter().map(|s| s.id.as_str()).collect();
        let roots: Vec<_> =
            whole.sessions.iter().filter(|s| s.parent.as_deref().is_none_or(|p| !known.contains(p))).collect();
        let mut ids: Vec<_> = summaries.iter().map(|s| s.session.clone().unwrap()).collect();
        let mut want: Vec<_> = roots.iter().map(|s| s.id.clone()).collect();
        ids.sort();
        want.sort();
        assert_eq!(ids, want, "seed {seed}: a library session per root of the whole tree");
        let sum: u64 = summaries.iter().map(|s| s.usage.tokens()).sum();
        assert_eq!(sum, whole.usage.as_ref().unwrap().total.tokens(), "seed {seed}: every token once");
        for s in &summaries {
            let root = s.session.as_deref().unwrap();
            let under = descendants(&whole, root);
            assert_eq!(s.subagents as usize, under, "seed {seed}: {root}'s sub-agents");
            // Opened as the library says, the session is the one summarized.
            let open: Vec<PathBuf> = if s.paths.is_empty() {
                vec![PathBuf::from(&s.path)]
            } else {
                s.paths.iter().map(PathBuf::from).collect()
            };
            assert_eq!(open[0], PathBuf::from(&s.path));
            let alone = arbor_core::analyze(&open, &mut ()).report();
            let mine = descendants(&alone, root);
            assert_eq!(mine, under, "seed {seed}: {root} opened from the library");
        }
        // Nothing changed: every rollout's links are kept, none read again.
        let heads = lib.heads().unwrap();
        assert_eq!(heads.len(), found.len());
        let again = lib.entries_of_places(places::logs(&env)).unwrap();
        assert_eq!(again, entries);
        assert_eq!(lib.update(&again, 2).unwrap().read, 0);
    }
}

/// How many sessions of `report` are under `id`, by their parents.
fn descendants(report: &arbor_core::Report, id: &str) -> usize {
    let mut count = 0;
    let mut next = vec![id.to_string()];
    while let Some(p) = next.pop() {
        for s in report.sessions.iter().filter(|s| s.parent.as_deref() == Some(p.as_str())) {
            count += 1;
            next.push(s.id.clone());
        }
    }
    count
}

/// The corpus's review sub-agent (no parent id; its parent entered review mode 24 ms before it
/// started) is one session with its parent in a Codex home, and a search hit in that session
/// opens both files.
#[test]
fn a_review_sub_agent_is_found_by_its_parents_window() {
    let home = tempfile::tempdir().unwrap();
    let day = home.path().join(".codex/sessions/2026/01/04");
    fs::create_dir_all(&day).unwrap();
    for name in ["agtrace_rollout-parent-019b88e0.jsonl", "agtrace_rollout-subagent-019b88e5.jsonl"] {
        let to = day.join(name.trim_start_matches("agtrace_"));
        fs::copy(corpus(&format!("codex-cli/{name}")), &to).unwrap();
    }
    let env = places::Env::new(Some(home.path().to_path_buf()), []);
    let mut lib = Library::in_memory().unwrap();
    let entries = lib.entries_of_places(places::logs(&env)).unwrap();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert!(entries[0].path.ends_with("rollout-parent-019b88e0.jsonl"));
    assert_eq!(entries[0].paths.len(), 2);
    lib.update(&entries, 2).unwrap();
    let summaries = lib.summaries().unwrap();
    assert_eq!(summaries.len(), 1);
    assert_eq!((summaries[0].subagents, summaries[0].depth), (1, 1));
    assert_eq!(summaries[0].paths.len(), 2);
    lib.index(2).unwrap();
    let hits = lib.search("entered review mode", 10).unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h.paths == summaries[0].paths), "{hits:?}");
}

/// A sub-agent whose first line names no parent, started by a parent's `sub_agent_activity`
/// (`activity`), is read with that parent; one that nothing links stays a session of its own.
#[test]
fn a_sub_agent_started_by_an_activity_is_read_with_its_parent() {
    let home = tempfile::tempdir().unwrap();
    let day = home.path().join(".codex/sessions/2026/02/01");
    fs::create_dir_all(&day).unwrap();
    let meta = |id: &str, t: &str, source: &str| {
        format!(
            r#"{{"timestamp":"2026-02-01T10:00:{t}.000Z","type":"session_meta","payload":{{"id":"{id}","timestamp":"2026-02-01T10:00:{t}.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.80.0","source":{source}}}}}"#
        )
    };
    let user = |t: &str, text: &str| {
        format!(
            r#"{{"timestamp":"2026-02-01T10:00:{t}.000Z","type":"event_msg","payload":{{"type":"user_message","message":"{text}","images":[]}}}}"#
        )
    };
    let parent = [
        meta("p-1", "00", r#""cli""#),
        user("01", "split the work"),
        r#"{"timestamp":"2026-02-01T10:00:02.000Z","type":"event_msg","payload":{"type":"sub_agent_activity","event_id":"call_1","agent_thread_id":"c-1","agent_path":"/root/worker","kind":"started"}}"#.to_string(),
    ];
    fs::write(day.join("rollout-2026-02-01T10-00-00-p-1.jsonl"), parent.join("\n") + "\n").unwrap();
    let child = [meta("c-1", "03", r#"{"subagent":"other"}"#), user("04", "do half")];
    fs::write(day.join("rollout-2026-02-01T10-00-03-c-1.jsonl"), child.join("\n") + "\n").unwrap();
    let orphan = [meta("o-1", "05", r#"{"subagent":"other"}"#), user("06", "nobody asked")];
    fs::write(day.join("rollout-2026-02-01T10-00-05-o-1.jsonl"), orphan.join("\n") + "\n").unwrap();

    let env = places::Env::new(Some(home.path().to_path_buf()), []);
    let mut lib = Library::in_memory().unwrap();
    let entries = lib.entries_of_places(places::logs(&env)).unwrap();
    let mut shapes: Vec<(String, usize)> =
        entries.iter().map(|e| (e.path.file_name().unwrap().to_string_lossy().into_owned(), e.paths.len())).collect();
    shapes.sort();
    assert_eq!(
        shapes,
        [
            ("rollout-2026-02-01T10-00-00-p-1.jsonl".to_string(), 2),
            ("rollout-2026-02-01T10-00-05-o-1.jsonl".to_string(), 1)
        ]
    );
    lib.update(&entries, 2).unwrap();
    let summaries = lib.summaries().unwrap();
    let of = |id: &str| summaries.iter().find(|s| s.session.as_deref() == Some(id)).unwrap().clone();
    assert_eq!(of("p-1").subagents, 1);
    assert_eq!(of("o-1").subagents, 0);
    assert!(of("o-1").paths.is_empty());
    // As `arbor analyze` of the three files says: c-1 under p-1 by its activity, o-1 alone.
    let report = arbor_core::analyze(std::slice::from_ref(&home.path().join(".codex/sessions")), &mut ()).report();
    let c1 = report.sessions.iter().find(|s| s.id == "c-1").unwrap();
    assert_eq!(c1.parent.as_deref(), Some("p-1"));
    assert_eq!(report.sessions.iter().find(|s| s.id == "o-1").unwrap().parent, None);
}

/// A store made from a conformance case's `opencode.sql`, in `dir`, and a connection to it.
fn opencode_store(case: &str, dir: &Path) -> (PathBuf, rusqlite::Connection) {
    let sql = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/conformance/cases")
        .join(case)
        .join("input/opencode.sql");
    let db = dir.join("opencode.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(&fs::read_to_string(sql).unwrap()).unwrap();
    (db, c)
}

/// An OpenCode session whose title is still the placeholder OpenCode gives until a model names
/// it (seen in a real store: a provider that made no title) is listed by its first prompt; a
/// session with a title keeps it.
#[test]
fn an_opencode_placeholder_title_gives_way_to_the_first_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let (db, c) = opencode_store("opencode-turns-usage", dir.path());
    let title =
        |lib: &Library| lib.summaries().unwrap().into_iter().map(|s| s.title.unwrap_or_default()).collect::<Vec<_>>();
    let mut lib = Library::in_memory().unwrap();
    lib.update(&[Entry::one(db.clone(), "opencode".into())], 1).unwrap();
    assert_eq!(title(&lib), ["Rename foo"]);
    c.execute("UPDATE session SET title = 'New session - 2026-07-30T14:04:55.689Z'", []).unwrap();
    drop(c);
    let mut lib = Library::in_memory().unwrap();
    lib.update(&[Entry::one(db, "opencode".into())], 1).unwrap();
    assert_eq!(title(&lib), ["Rename foo to bar"], "the first text the user typed, not a synthetic part");
}

/// A session of an OpenCode store opens as its own tree (`<store>/<root id>`), not the whole
/// store: its summary's paths say so, and reading them reads that tree only. A search hit in it
/// opens the tree too, at the hit's place there.
#[test]
fn an_opencode_store_session_opens_as_its_own_tree() {
    let dir = tempfile::tempdir().unwrap();
    let (db, c) = opencode_store("opencode-subagents", dir.path());
    drop(c);
    let mut lib = Library::in_memory().unwrap();
    lib.update(&[Entry::one(db.clone(), "opencode".into())], 1).unwrap();
    let mut got: Vec<(Option<String>, Vec<String>)> =
        lib.summaries().unwrap().into_iter().map(|s| (s.session, s.paths)).collect();
    got.sort();
    let tree = |id: &str| arbor_core::reader::path_text(&db.join(id));
    assert_eq!(
        got,
        [(Some("ses_orphan".into()), vec![tree("ses_orphan")]), (Some("ses_root".into()), vec![tree("ses_root")])]
    );
    let a = arbor_core::analyze(&[PathBuf::from(tree("ses_root"))], &mut ());
    let report = a.report();
    let ids: Vec<&str> = report.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids.len(), 5, "{ids:?}");
    assert!(!ids.contains(&"ses_orphan"));
    lib.index(1).unwrap();
    let hits = lib.search("deepest", 50).unwrap();
    assert!(!hits.is_empty());
    // A hit opens the tree, at its place there: the same text at the same line of the tree's
    // reading as in the store's.
    let opened = arbor_core::analyze(&[PathBuf::from(tree("ses_root"))], &mut ());
    for h in hits {
        assert_eq!(h.paths, [tree("ses_root")], "a hit opens its session's tree");
        assert_eq!(h.file, tree("ses_root"));
        let index = opened.transcript_index(&h.session).unwrap();
        let page = opened.transcript_page(&index, h.item, 1, 10_000);
        let row = &page.rows[0];
        assert_eq!((row.at.file.as_str(), row.at.line), (h.file.as_str(), h.line), "the item's place in the tree");
        assert!(row.parts.iter().any(|p| p.text.contains("deepest")), "{:?}", row.parts);
    }
}

/// A store's session that only messages name (no `session` row) is listed, opens as its own tree
/// and has its text indexed, as every other session of the store.
#[test]
fn an_opencode_session_only_messages_name_is_listed_opened_and_searched() {
    let dir = tempfile::tempdir().unwrap();
    let (db, c) = opencode_store("opencode-subagents", dir.path());
    c.execute_batch(
        r#"INSERT INTO message VALUES ('msg_g1', 'ses_ghost', 2500, 2500, '{"role":"user","time":{"created":2500},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
           INSERT INTO part VALUES ('prt_g1', 'msg_g1', 'ses_ghost', 2500, 2500, '{"type":"text","text":"where is the quokka config"}');"#,
    )
    .unwrap();
    drop(c);
    let mut lib = Library::in_memory().unwrap();
    lib.update(&[Entry::one(db.clone(), "opencode".into())], 1).unwrap();
    let tree = arbor_core::reader::path_text(&db.join("ses_ghost"));
    let ghost = lib.summaries().unwrap().into_iter().find(|s| s.session.as_deref() == Some("ses_ghost"));
    assert_eq!(ghost.map(|s| s.paths), Some(vec![tree.clone()]), "listed, opened as its tree");
    let opened = arbor_core::analyze(&[PathBuf::from(&tree)], &mut ());
    assert!(opened.report().sessions.iter().any(|s| s.id == "ses_ghost"));
    lib.index(1).unwrap();
    let hits = lib.search("quokka", 50).unwrap();
    assert_eq!(hits.len(), 1, "its text is indexed");
    assert_eq!((hits[0].session.as_str(), hits[0].paths.clone()), ("ses_ghost", vec![tree]));
}

/// An OpenCode `storage/` tree's session is titled and placed by its own session file, as a
/// store's session is by its row.
#[test]
fn an_opencode_tree_session_is_titled_by_its_session_file() {
    let home = tempfile::tempdir().unwrap();
    let storage = home.path().join(".local/share/opencode/storage");
    let from = corpus("opencode/agent-sessions/storage_v2");
    for e in walk(&from) {
        let to = storage.join(e.strip_prefix(&from).unwrap());
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(&e, &to).unwrap();
    }
    let env = places::Env::new(Some(home.path().to_path_buf()), []);
    let mut lib = Library::in_memory().unwrap();
    let entries = lib.entries_of_places(places::logs(&env)).unwrap();
    lib.update(&entries, 1).unwrap();
    let s = lib.summaries().unwrap();
    assert_eq!(s.len(), 1);
    assert_eq!(
        (s[0].title.as_deref(), s[0].project.as_str(), s[0].project_from.as_str()),
        (Some("OpenCode Small"), "/tmp/repo", "cwd")
    );
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A Gemini CLI session whose sub-agents all returned is checked by its own file and its
/// `chats/<root session>/` folder, not file by file: a sub-agent file that grows alone is read
/// with its parent's next line, one added is seen by the folder's time.
#[test]
fn a_settled_gemini_session_is_checked_by_its_own_file_and_its_sub_agents_folder() {
    let home = tempfile::tempdir().unwrap();
    let gemini = home.path().join(".gemini");
    let opts = arbor_gen::GenOptions { target_bytes: 200 << 10, depth: 2, fanout: 2, seed: 4, ..Default::default() };
    arbor_gen::generate_gemini_tree(&opts, &gemini).unwrap();
    let db = home.path().join("library.sqlite3");
    let env = places::Env::new(Some(home.path().to_path_buf()), []);
    let update = |lib: &mut Library| {
        let entries = lib.entries_of_places(places::logs(&env)).unwrap();
        let u = lib.update(&entries, 2).unwrap();
        (u.read, u.kept)
    };
    // Every file a few minutes old, each session file newer than its sub-agents' (as the CLI
    // leaves them: the parent writes the call's result after its sub-agent's last line).
    let chats = places::logs(&env)[0].path.parent().unwrap().to_path_buf();
    for e in fs::read_dir(&chats).unwrap().flatten() {
        if e.path().is_dir() {
            for f in fs::read_dir(e.path()).unwrap().flatten() {
                set_age(&f.path(), 900);
            }
            set_age(&e.path(), 900);
        } else {
            set_age(&e.path(), 800);
        }
    }
    let mut lib = Library::open(&db).unwrap();
    let (read, _) = update(&mut lib);
    let summaries = lib.summaries().unwrap();
    let n = summaries.len();
    assert_eq!(read, n);
    let s = summaries.iter().find(|s| s.subagents > 1).expect("a session with sub-agents");
    let parent = PathBuf::from(&s.path);
    let folder = chats.join(s.session.as_deref().unwrap());
    let text = |p: &Path| arbor_core::reader::path_text(p);
    assert_eq!(
        quick_names(&db, &parent),
        Some(vec![text(&parent), text(&folder)]),
        "its file and its sub-agents' folder"
    );
    assert_eq!(update(&mut lib), (0, n), "nothing changed");
    let child = fs::read_dir(&folder).unwrap().flatten().map(|e| e.path()).find(|p| p.is_file()).unwrap();
    set_age(&child, 880);
    assert_eq!(update(&mut lib), (0, n), "a sub-agent's file touched, the same text");
    let set = r#"{"$set":{"lastUpdated":"2026-05-02T09:00:00.000Z"}}"#;
    append(&child, set);
    set_age(&child, 850);
    assert_eq!(update(&mut lib), (0, n), "a sub-agent's file grew, its parent has not written since");
    append(&parent, set);
    set_age(&parent, 700);
    assert_eq!(update(&mut lib), (1, n - 1), "the parent wrote: read again");
    assert!(quick_names(&db, &parent).is_some(), "still settled");
    // A file added to the folder: the folder's time says so.
    fs::copy(&child, folder.join("added-agent.jsonl")).unwrap();
    assert_eq!(update(&mut lib), (1, n - 1), "a file added is seen");
}
