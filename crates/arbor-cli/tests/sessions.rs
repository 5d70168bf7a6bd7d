//! `arbor sessions` and `arbor usage` on a fake home holding copies of corpus logs in the
//! harnesses' places: the sessions found, their summaries equal to `arbor analyze --json` of
//! the same files, the library kept on disk and rebuilt when corrupt, full-text search to
//! file:line, filters and sorts, and usage by day in a time zone.

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(rel)
}

const CODEX: &str = "019b04ae-b1c6-7c72-a134-a4c2de66058c";
const CLAUDE: &str = "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9";

/// A home with a Claude Code project, a Codex rollout and a dsh session folder.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let h = dir.path();
        let project = h.join("home/.claude/projects/-Users-test-user-agent-sample");
        fs::create_dir_all(&project).unwrap();
        fs::copy(corpus("claude-code/agtrace_claude_session.jsonl"), project.join(format!("{CLAUDE}.jsonl"))).unwrap();
        let day = h.join("home/.codex/sessions/2025/12/09");
        fs::create_dir_all(&day).unwrap();
        fs::copy(
            corpus("codex-cli/agtrace_codex_session.jsonl"),
            day.join(format!("rollout-2025-12-09T19-55-16-{CODEX}.jsonl")),
        )
        .unwrap();
        let dsh = h.join("home/.dsh/sessions/multi");
        fs::create_dir_all(&dsh).unwrap();
        for f in ["session.jsonl", "session.1.jsonl", "session.2.jsonl"] {
            fs::copy(corpus("deepseek-harness/examples_acp-agent__subagent-multi").join(f), dsh.join(f)).unwrap();
        }
        Home { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn library(&self) -> PathBuf {
        self.dir.path().join("data/library.sqlite3")
    }

    fn run(&self, args: &[&str], vars: &[(&str, &Path)]) -> (i32, String, String) {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_arbor"));
        cmd.args(args).env("HOME", self.home()).env("USERPROFILE", self.home()).env("ARBOR_LIBRARY", self.library());
        for v in ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "DSH_HOME"] {
            cmd.env_remove(v);
        }
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
    }

    fn lines(&self, args: &[&str]) -> Vec<Value> {
        let (code, out, err) = self.run(args, &[]);
        assert_eq!(code, 0, "{out}{err}");
        out.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }
}

fn by_session<'a>(list: &'a [Value], id: &str) -> &'a Value {
    list.iter().find(|s| s["session"] == id).unwrap_or_else(|| panic!("{id} in {list:?}"))
}

fn analyze(path: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_arbor")).args(["analyze", "--json"]).arg(path).output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_machines_sessions_are_listed_with_what_their_analysis_says() {
    let home = Home::new();
    let list = home.lines(&["sessions", "--json"]);
    assert_eq!(list.len(), 3, "{list:?}");
    assert!(home.library().is_file(), "the library is kept on disk");

    let codex = by_session(&list, CODEX);
    assert_eq!(codex["harness"], "codex");
    assert_eq!(codex["project"], "/Users/test_user/agent-sample");
    assert_eq!(codex["project_from"], "cwd");
    assert_eq!(codex["start"], "2025-12-09T19:55:16.336Z");
    assert_eq!(codex["end"], "2025-12-09T19:56:06.181Z");
    assert_eq!(codex["clock"], "log");
    assert_eq!(codex["duration_ms"], 49845.0);
    assert_eq!(codex["turns"], 2);
    assert_eq!(codex["usage"]["tokens"], 27148);
    assert_eq!(codex["title"], "add myapp directory and create myapp/hoge.py which shows result of print(1+1).");

    let claude = by_session(&list, CLAUDE);
    assert_eq!((claude["harness"].as_str(), claude["turns"].as_u64()), (Some("claude-code"), Some(4)));
    assert_eq!(claude["usage"]["tokens"], 99629);
    assert_eq!(claude["start"], "2025-12-09T19:47:42.930Z");

    // The dsh session folder: its two children read with it; no clock, so the files' time.
    let dsh = list.iter().find(|s| s["harness"] == "dsh-session").unwrap();
    assert_eq!((dsh["subagents"].as_u64(), dsh["depth"].as_u64()), (Some(2), Some(1)), "{dsh}");
    assert_eq!(dsh["clock"], "mtime");
    assert_eq!(dsh["outcome"], "completed");

    // Each equals what `arbor analyze --json` says of the same file.
    for s in &list {
        let r = analyze(Path::new(s["path"].as_str().unwrap()));
        let total = &r["usage"]["total"];
        for k in ["input", "output", "cache_read", "cache_write", "cost"] {
            assert_eq!(s["usage"][k], total[k], "{k} of {}", s["path"]);
        }
        let subs = r["sessions"].as_array().unwrap().iter().filter(|x| !x["parent"].is_null()).count();
        assert_eq!(s["subagents"].as_u64(), Some(subs as u64));
        let errors = r["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == "error").count();
        assert_eq!(s["findings"]["error"].as_u64(), Some(errors as u64));
    }

    // Opened again from disk: the same.
    assert_eq!(home.lines(&["sessions", "--json"]), list);

    // Sorted by tokens, most first; filtered by project and by date.
    let sorted = home.lines(&["sessions", "--json", "--sort", "tokens"]);
    let tokens: Vec<u64> = sorted.iter().map(|s| s["usage"]["tokens"].as_u64().unwrap()).collect();
    assert_eq!(tokens, [99629, 27148, 15230]);
    let project = home.lines(&["sessions", "--json", "--project", "agent-sample"]);
    assert_eq!(project.len(), 2);
    let since = home.lines(&["sessions", "--json", "--since", "2025-12-09T19:50:00Z"]);
    // The Codex session ran after then, and the dsh files were copied now.
    assert_eq!(since.len(), 2, "{since:?}");
    assert!(since.iter().all(|s| s["session"] != CLAUDE));

    // For people: a table with a total.
    let (code, text, _) = home.run(&["sessions"], &[]);
    assert_eq!(code, 0);
    assert!(text.lines().last().unwrap().starts_with("3 sessions, 142.0K tokens, $0.07"), "{text}");
}

#[test]
fn search_finds_the_words_at_their_file_and_line() {
    let home = Home::new();
    let hits = home.lines(&["sessions", "--json", "--search", "hoge.py"]);
    assert!(hits.len() >= 4, "{hits:?}");
    for h in &hits {
        let file = h["file"].as_str().unwrap();
        let line = h["line"].as_u64().unwrap() as usize;
        let text = fs::read_to_string(file).unwrap();
        let raw = text.lines().nth(line - 1).unwrap();
        assert!(raw.contains("hoge"), "{file}:{line}: {raw}");
        assert!([CODEX, CLAUDE].contains(&h["session"].as_str().unwrap()));
        assert!(h["snippet"].as_str().unwrap().contains("[hoge"), "{h}");
    }
    // Only one project's, and a word no transcript holds.
    assert!(home.lines(&["sessions", "--json", "--search", "hoge.py", "--project", "nowhere"]).is_empty());
    assert!(home.lines(&["sessions", "--json", "--search", "zyzzyva"]).is_empty());
    let (code, text, err) = home.run(&["sessions", "--search", "subagent"], &[]);
    assert_eq!(code, 0);
    assert!(text.contains("session.jsonl:"), "the dsh prompt asks for the subagent tool: {text}");
    // Every item searched: nothing said about older ones. Items before the first: none.
    assert!(!err.contains("older"), "{err}");
    assert!(home.lines(&["sessions", "--json", "--search", "hoge.py", "--before", "1"]).is_empty());
    let (code, _, err) = home.run(&["sessions", "--before", "9"], &[]);
    assert_ne!(code, 0, "--before goes with --search: {err}");
}

#[test]
fn each_harness_variable_moves_its_place_and_a_corrupt_library_is_rebuilt() {
    let home = Home::new();
    let moved = home.dir.path().join("elsewhere");
    fs::create_dir_all(moved.join("projects/-p")).unwrap();
    fs::copy(corpus("claude-code/agtrace_claude_agent.jsonl"), moved.join("projects/-p/s.jsonl")).unwrap();
    let (code, out, err) = home.run(&["sessions", "--json"], &[("CLAUDE_CONFIG_DIR", &moved)]);
    assert_eq!(code, 0, "{err}");
    let list: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(list.len(), 3);
    assert!(list.iter().all(|s| s["session"] != CLAUDE), "~/.claude is not read when CLAUDE_CONFIG_DIR is set");
    assert!(list.iter().any(|s| s["path"].as_str().unwrap().ends_with("projects/-p/s.jsonl")));

    fs::write(home.library(), b"garbage, not SQLite\n".repeat(100)).unwrap();
    let (code, out, err) = home.run(&["sessions", "--json"], &[]);
    assert_eq!(code, 0);
    assert!(err.contains("could not be read") && err.contains("rebuilt"), "{err}");
    assert_eq!(out.lines().count(), 3);
    let (_, _, err) = home.run(&["sessions", "--json"], &[]);
    assert!(err.is_empty(), "rebuilt once: {err}");
}

#[test]
fn usage_by_day_in_a_time_zone_adds_up_to_the_sessions() {
    let home = Home::new();
    let days = home.lines(&["usage", "daily", "--json", "--timezone", "UTC"]);
    let total = days.last().unwrap()["total"].clone();
    assert_eq!(total["usage"]["tokens"], 99629 + 27148 + 15230);
    let dec9 = days.iter().find(|d| d["key"] == "2025-12-09").unwrap();
    assert_eq!((dec9["sessions"].as_u64(), dec9["usage"]["tokens"].as_u64()), (Some(2), Some(99629 + 27148)));
    // 19:47 UTC on 9 December is the 10th in Tokyo.
    let tokyo = home.lines(&["usage", "daily", "--json", "--timezone", "Asia/Tokyo"]);
    assert!(tokyo.iter().any(|d| d["key"] == "2025-12-10"));
    assert!(!tokyo.iter().any(|d| d["key"] == "2025-12-09"));
    for by in ["weekly", "monthly", "session", "model", "project"] {
        let lines = home.lines(&["usage", by, "--json", "--timezone", "UTC"]);
        let sum: u64 = lines.iter().filter_map(|l| l["usage"]["tokens"].as_u64()).sum();
        assert_eq!(sum, 99629 + 27148 + 15230, "{by}: the lines add up to the total");
    }
    let models = home.lines(&["usage", "model", "--json"]);
    assert!(models.iter().any(|m| m["key"] == "gpt-5.1-codex-max" && m["usage"]["tokens"] == 27148), "{models:?}");
    let (code, _, err) = home.run(&["usage", "daily", "--timezone", "Mars/Olympus"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("Mars/Olympus"), "{err}");
}

/// Rollouts given as paths are grouped as the machine's are: the corpus's review sub-agent with
/// the parent whose review window it started in, one session whose `paths` open both; a
/// rollout alone stays alone. Given in either order, the same.
#[test]
fn a_codex_sub_agent_given_with_its_parent_is_one_session() {
    let home = Home::new();
    let parent = corpus("codex-cli/agtrace_rollout-parent-019b88e0.jsonl");
    let child = corpus("codex-cli/agtrace_rollout-subagent-019b88e5.jsonl");
    let alone = corpus("codex-cli/agtrace_codex_session.jsonl");
    for order in [[&child, &parent, &alone], [&alone, &parent, &child]] {
        let args: Vec<&str> =
            ["sessions", "--json"].into_iter().chain(order.iter().map(|p| p.to_str().unwrap())).collect();
        let list = home.lines(&args);
        assert_eq!(list.len(), 2, "{list:?}");
        let thread = by_session(&list, "019b88e0-0b0f-7bb0-a9ba-5cc2d8dffde9");
        assert_eq!((thread["subagents"].as_u64(), thread["depth"].as_u64()), (Some(1), Some(1)));
        let paths: Vec<&str> = thread["paths"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert_eq!(paths, [parent.to_str().unwrap(), child.to_str().unwrap()]);
        assert!(by_session(&list, CODEX).get("paths").is_none());
    }
}
