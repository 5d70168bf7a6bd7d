//! The Sessions… list: the recent session logs in the harnesses' places on this machine, for
//! the open menu. Finding them is `arbor_library::places`' (the same places `arbor sessions`
//! reads, each moved by its harness's variable); this module keeps the IPC's shape of a found
//! log and describes only the entries listed (at most `LIMIT`): their size and a title read from
//! the log's head, so a machine with thousands of sessions still lists them in milliseconds.

use arbor_library::places::{self, Env};
use std::time::UNIX_EPOCH;

use serde::Serialize;
use ts_rs::TS;

/// A session log (a file or a folder) found in a harness's default place.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct FoundLog {
    /// What to pass to `open_paths`.
    pub path: String,
    /// `copilot`, `dsh`, `claude-code`, `codex`, `gemini-cli` or `opencode`.
    #[ts(type = "\"copilot\" | \"dsh\" | \"claude-code\" | \"codex\" | \"gemini-cli\" | \"opencode\"")]
    pub harness: &'static str,
    /// The file or folder name, for the menu (a Claude Code session's with its project folder's).
    pub name: String,
    /// Last modification, epoch milliseconds, when the file system says.
    pub modified: Option<f64>,
    /// What the session is about, for the list: its title, summary or first prompt, one line.
    pub title: Option<String>,
    /// Bytes (a folder's: its files', one level down).
    #[ts(type = "number | null")]
    pub size: Option<u64>,
}

/// At most this many entries: the menu is for recent sessions, not an archive browser.
pub const LIMIT: usize = 50;

/// The newest `LIMIT` sessions of every place of `env`, described.
pub fn found_logs(env: &Env) -> Vec<FoundLog> {
    let mut found = places::logs(env);
    found.truncate(LIMIT);
    found
        .iter()
        .map(|f| FoundLog {
            path: f.path.to_string_lossy().into_owned(),
            harness: f.harness.as_str(),
            name: f.name.clone(),
            modified: f.modified.and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_millis() as f64),
            title: places::title(f),
            size: places::size(&f.path),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// The list keeps the newest `LIMIT`, each with its title and size (the finding itself is
    /// tested in `arbor-library`).
    #[test]
    fn lists_at_most_the_limit_each_described() {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join(".claude/projects/-p");
        fs::create_dir_all(&project).unwrap();
        for i in 0..LIMIT + 5 {
            fs::write(project.join(format!("s{i}.jsonl")), "{\"type\":\"summary\",\"summary\":\"Build fixed\"}\n")
                .unwrap();
        }
        let found = found_logs(&Env::new(Some(home.path().to_path_buf()), []));
        assert_eq!(found.len(), LIMIT);
        assert!(found.iter().all(|f| f.harness == "claude-code" && f.title.as_deref() == Some("Build fixed")));
        assert!(found.iter().all(|f| f.size == Some(43) && f.modified.is_some()));
    }

    /// Not a timed test: `cargo test --features custom-protocol --lib places -- --ignored
    /// --nocapture` prints how long listing 10,000 Claude Code session files (and their 10,000
    /// sub-agent files, which it passes over) takes, for BENCHMARKS.md.
    #[test]
    #[ignore = "a measurement, printed for BENCHMARKS.md"]
    fn measure_listing_ten_thousand_sessions() {
        let home = tempfile::tempdir().unwrap();
        for p in 0..100 {
            let project = home.path().join(format!(".claude/projects/-home-me-project-{p}"));
            fs::create_dir_all(&project).unwrap();
            for s in 0..100 {
                fs::write(project.join(format!("{p:04}{s:04}-0000-4000-8000-000000000000.jsonl")), "{}\n").unwrap();
                fs::write(project.join(format!("agent-a{p:04}{s:04}.jsonl")), "{}\n").unwrap();
            }
        }
        let day = home.path().join(".codex/sessions/2026/09/12");
        fs::create_dir_all(&day).unwrap();
        for r in 0..1000 {
            fs::write(day.join(format!("rollout-2026-09-12T10-00-00-{r:04}.jsonl")), "{}\n").unwrap();
        }
        let env = Env::new(Some(home.path().to_path_buf()), []);
        // Once to warm the directory cache, as a second opening of the menu finds it.
        found_logs(&env);
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let found = found_logs(&env);
            best = best.min(t.elapsed().as_secs_f64());
            assert_eq!(found.len(), LIMIT);
        }
        println!("listing 10,000 Claude Code sessions (beside 10,000 sub-agent files) and 1,000 Codex rollouts: {:.1} ms (best of 5)", best * 1000.0);
    }
}
