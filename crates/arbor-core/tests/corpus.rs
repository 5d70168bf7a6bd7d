//! Every log of `tests/corpus` (real logs from public projects) loads without a panic, and each
//! test asserts something true of what it shows.

use crate::common;

use arbor_core::report::{Outcome, Report, Severity};
use std::path::PathBuf;

fn corpus(rel: &str) -> PathBuf {
    common::repo().join("tests/corpus").join(rel)
}

fn session<'r>(r: &'r Report, id: &str) -> &'r arbor_core::report::Session {
    r.sessions.iter().find(|s| s.id == id).unwrap_or_else(|| panic!("no session {id}:\n{}", common::tree(r)))
}

#[test]
fn every_corpus_file_loads_and_every_line_is_a_record_a_finding_or_blank() {
    let mut files = 0;
    for p in common::files_under(&[common::repo().join("tests/corpus")]) {
        if !p.extension().is_some_and(|x| x == "jsonl" || x == "json") {
            continue;
        }
        files += 1;
        let a = arbor_core::analyze(std::slice::from_ref(&p), &mut ());
        let r = a.report();
        let text = std::fs::read_to_string(&p).unwrap();
        let lines = text.lines().filter(|l| !l.trim().is_empty()).count() as u64;
        let input = &r.inputs[0];
        if input.format == "unknown" {
            assert!(r.diagnostics.iter().any(|d| d.code == "unknown-format"), "{}", p.display());
        } else {
            assert_eq!(input.records + input.bad_lines, lines, "{}: lines lost", p.display());
            // An opened session file may bring its own sub-agent files along (SPEC 2.4).
            let all: u64 = r.inputs.iter().map(|i| i.records).sum();
            assert_eq!(a.records().len() as u64, all, "{}", p.display());
        }
    }
    assert!(files >= 40, "corpus shrank: {files} files");
}

#[test]
fn depth_two_rejection_is_a_root_a_child_and_a_grandchild() {
    let r = common::report(&[corpus("deepseek-harness/examples_acp-agent__subagent-depth-two-rejection")]);
    let tree = common::tree(&r);
    let root = "11111111-1111-4111-8111-111111111111";
    assert_eq!(session(&r, root).depth, Some(0), "{tree}");
    let child = session(&r, "22222222-2222-4222-8222-222222222222");
    assert_eq!((child.parent.as_deref(), child.depth), (Some(root), Some(1)), "{tree}");
    let grand = session(&r, "33333333-3333-4333-8333-333333333333");
    assert_eq!(
        (grand.parent.as_deref(), grand.root.as_deref(), grand.depth),
        (Some("22222222-2222-4222-8222-222222222222"), Some(root), Some(2))
    );
    assert!(!r.diagnostics.iter().any(|d| d.code == "delegation-depth-mismatch"), "headers agree with the tree");
    assert!(r.replies.iter().any(|x| x.session == root && x.root), "the root has a reply");
}

#[test]
fn parallel_children_both_hang_under_the_root_and_settle_ok() {
    let r = common::report(&[corpus("deepseek-harness/examples_acp-agent__subagent-parallel")]);
    let root = "aaaaaaaa-0000-4000-8000-000000000001";
    let kids: Vec<_> = r.sessions.iter().filter(|s| s.parent.as_deref() == Some(root)).collect();
    assert_eq!(kids.len(), 2, "{}", common::tree(&r));
    assert!(kids.iter().all(|k| k.runs.len() == 1 && k.runs[0].outcome == Outcome::Ok));
}

#[test]
fn an_older_vocabulary_log_loads_with_its_placeholder_noted() {
    let r = common::report(&[corpus("deepseek-harness/apps_web__steering/session.jsonl")]);
    assert_eq!(r.inputs[0].format, "dsh-session");
    assert_eq!(r.inputs[0].bad_lines, 0);
    assert!(r.diagnostics.iter().any(|d| d.code == "placeholder-ids"));
    assert!(!r.diagnostics.iter().any(|d| d.severity == Severity::Error), "{:?}", common::findings(&r));
    assert!(!r.turns.is_empty());
}

#[test]
fn the_placeholder_recording_is_read_as_dsh_rpc_with_its_root_reply() {
    let r =
        common::report(&[corpus("deepseek-harness/examples_jsonrpc-agent__text-turn/notifications.expected.jsonl")]);
    assert_eq!(r.inputs[0].format, "dsh-rpc");
    let w = &r.waits[0];
    assert_eq!(w.reply.as_deref(), Some("SDK snapshot OK"));
}

#[test]
fn claude_code_and_codex_corpus_files_are_read_as_their_formats() {
    for (dir, format) in [("claude-code", "claude-code"), ("codex-cli", "codex")] {
        let r = common::report(&[corpus(dir)]);
        for input in &r.inputs {
            assert_eq!(input.format, format, "{}", input.file);
        }
        assert!(!r.sessions.is_empty(), "{dir}");
    }
}

/// The hand-written OpenCode `storage/` trees read as OpenCode's: each tree's one session, its
/// turn and reply, its messages and parts in it, though their files do not repeat every id the
/// producer writes (a part under its message's folder names neither) and a tree keeps its parts
/// flat (SOURCE.txt says how they differ from the producer's).
#[test]
fn opencode_storage_trees_read_as_opencode() {
    for (dir, session, reply) in [
        ("opencode/agent-sessions/storage_v2", "s_stage0_small", "Found 2 files."),
        ("opencode/agent-sessions/storage_legacy", "s_stage0_drift", "Read README and extracted the title."),
    ] {
        let r = common::report(&[corpus(dir)]);
        let json: Vec<&str> =
            r.inputs.iter().filter(|i| i.file.ends_with(".json")).map(|i| i.format.as_str()).collect();
        assert!(!json.is_empty() && json.iter().all(|f| *f == "opencode"), "{dir}: {json:?}");
        assert_eq!(r.sessions.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), [session], "{dir}");
        assert_eq!(r.turns.len(), 1, "{dir}: turns");
        assert_eq!(r.replies.iter().map(|x| x.text.as_str()).collect::<Vec<_>>(), [reply], "{dir}: reply");
        let records: u64 = r.inputs.iter().filter(|i| i.format == "opencode").map(|i| i.records).sum();
        assert_eq!(
            records,
            r.inputs.iter().filter(|i| i.format == "opencode").count() as u64,
            "{dir}: a record a file"
        );
        assert!(
            r.diagnostics.iter().all(|d| d.severity != arbor_core::report::Severity::Error),
            "{dir}: {:?}",
            r.diagnostics
        );
    }
}

#[test]
fn a_max_tokens_child_run_is_ok_and_a_published_failure_is_not_ok() {
    let r = common::report(&[corpus("deepseek-harness/examples_acp-agent__subagent-max-tokens-partial")]);
    let child = r.sessions.iter().find(|s| s.depth == Some(1)).unwrap();
    assert_eq!(child.runs[0].outcome, Outcome::Ok, "{}", common::tree(&r));
    let r = common::report(&[corpus("deepseek-harness/examples_acp-agent__subagent-published-run-failure")]);
    let child = r.sessions.iter().find(|s| s.depth == Some(1)).unwrap();
    assert_eq!(child.runs[0].outcome, Outcome::Open, "a child log of two lines has no turn: its run is open");
}

#[test]
fn the_harness_golden_in_process_spawn_checks_clean_with_its_nested_child() {
    let r = common::report(&[corpus("deepseek-harness/examples_jsonrpc-agent__subagent-spawn-in-process")]);
    // `arbor check` fails on errors: the harness's own clean snapshot has none, nor warnings.
    let loud: Vec<_> =
        r.diagnostics.iter().filter(|d| d.severity != Severity::Info && d.code != "unknown-format").collect();
    assert!(loud.is_empty(), "{:?}", common::findings(&r));
    let child = r.sessions.iter().find(|s| s.id == "{{sessionId}}#1").unwrap_or_else(|| panic!("{}", common::tree(&r)));
    assert_eq!((child.parent.as_deref(), child.depth), (Some("{{sessionId}}"), Some(1)));
    assert_eq!(child.runs[0].outcome, Outcome::Ok);
    let w = r.waits.iter().find(|w| w.root == "{{sessionId}}").unwrap();
    assert_eq!(w.reply.as_deref(), Some("child answer 42."));
}

#[test]
fn a_golden_child_log_alone_has_an_unknown_parent_and_no_depth_finding() {
    let r =
        common::report(&[corpus("deepseek-harness/examples_headless-agent__subagent-settlement/child.expected.jsonl")]);
    let s = &r.sessions[0];
    assert_eq!((s.id.as_str(), s.parent.as_deref(), s.root.as_deref(), s.depth), ("{{sessionId}}", None, None, None));
    assert!(!r.diagnostics.iter().any(|d| d.code == "delegation-depth-mismatch" || d.code == "ancestry-cycle"));
    assert!(r.replies.iter().all(|rep| !rep.root), "a child's reply is never a root's");
}

/// A folder's report as read with the read-ahead threads (`Threads::PerCore`) and as read on the
/// calling thread alone (`Threads::Caller`, which reads nothing ahead).
fn both_ways(paths: &[PathBuf]) -> (String, String) {
    let json = |threads| {
        let a = arbor_core::analyze_with(paths, &mut (), threads);
        let mut out = Vec::new();
        a.write_report_json(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    };
    (json(arbor_core::Threads::PerCore), json(arbor_core::Threads::Caller))
}

#[test]
fn a_folder_read_ahead_reads_as_one_read_file_by_file() {
    // The corpus folders as they are: Claude Code projects with sub-agent files and sidecars,
    // Codex trees, dsh session folders.
    for rel in ["", "claude-code", "codex-cli", "deepseek-harness"] {
        let (ahead, alone) = both_ways(&[corpus(rel)]);
        assert_eq!(ahead, alone, "tests/corpus/{rel}");
    }
    // And a folder of what the read-ahead threads hand back to be read on the calling thread:
    // a file larger than a small one (and one of several blocks that is not), a compressed one, one in no known format, an empty one,
    // one cut mid-line, besides small ones.
    let dir = tempfile::tempdir().unwrap();
    let small: Vec<PathBuf> = common::files_under(&[corpus("codex-cli")])
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert!(small.len() >= 2);
    let first = std::fs::read(&small[0]).unwrap();
    let mut big = Vec::new();
    while big.len() <= 5 << 20 {
        big.extend_from_slice(&first);
    }
    std::fs::write(dir.path().join("a-big.jsonl"), &big).unwrap();
    // Small, but of more than one block (a block holds a megabyte).
    std::fs::write(dir.path().join("a-mid.jsonl"), &big[..big.len() / 2]).unwrap();
    std::fs::write(dir.path().join("b-small.jsonl.zst"), zstd::encode_all(&first[..], 3).unwrap()).unwrap();
    std::fs::write(dir.path().join("c-notes.jsonl"), "not a log\n{\"x\":1}\n").unwrap();
    std::fs::write(dir.path().join("d-empty.jsonl"), "").unwrap();
    std::fs::write(dir.path().join("e-cut.jsonl"), &first[..first.len() / 2]).unwrap();
    for (i, p) in small.iter().enumerate() {
        std::fs::copy(p, dir.path().join(format!("f-{i}.jsonl"))).unwrap();
    }
    let (ahead, alone) = both_ways(&[dir.path().to_path_buf()]);
    assert_eq!(ahead, alone);
    assert!(ahead.contains("unknown-format") && ahead.contains("a-big.jsonl"), "{ahead}");
}

#[test]
fn a_folder_read_ahead_stops_when_the_reading_is_cancelled() {
    struct StopAtOnce;
    impl arbor_core::Observer for StopAtOnce {
        fn progress(&mut self, _p: &arbor_core::Progress) -> bool {
            false
        }
    }
    // The read-ahead threads end with the reading (the test would hang otherwise).
    let a = arbor_core::analyze(&[corpus("claude-code")], &mut StopAtOnce);
    assert!(a.cancelled);
    assert!(a.files.len() < common::files_under(&[corpus("claude-code")]).len());
}
