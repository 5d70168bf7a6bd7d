//! The harnesses' default places on this machine: where Copilot CLI, deepseek-harness, Claude Code
//! and Codex CLI keep their session logs (SPEC.md section 5). It lists candidates for the open
//! menu, newest first, from the file system's entries and their times; only the entries listed
//! (at most `LIMIT`) are then described: their size, and a title read from the first 64 KiB of
//! the log (a dsh `session/title`, Claude Code's summary, Copilot's workspace summary, else the
//! first prompt), so a machine with thousands of sessions still lists them in milliseconds.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::Serialize;
use ts_rs::TS;

/// A session log (a file or a folder) found in a harness's default place.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct FoundLog {
    /// What to pass to `open_paths`.
    pub path: String,
    /// `copilot`, `dsh`, `claude-code` or `codex`.
    #[ts(type = "\"copilot\" | \"dsh\" | \"claude-code\" | \"codex\"")]
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

/// Sessions under `~/.copilot/session-state/<id>/`, `$DSH_HOME/sessions` (else `~/.dsh/sessions`),
/// `~/.claude/projects/<project>/<session>.jsonl` and `~/.codex/sessions/**/rollout-*.jsonl`,
/// newest first.
pub fn found_logs(home: &Path, dsh_home: Option<&Path>) -> Vec<FoundLog> {
    let dsh_sessions = dsh_home.map_or_else(|| home.join(".dsh/sessions"), |d| d.join("sessions"));
    let mut found = Vec::new();
    collect(&home.join(".copilot/session-state"), "copilot", true, &mut found);
    collect(&dsh_sessions, "dsh", false, &mut found);
    collect_claude(&home.join(".claude/projects"), &mut found);
    collect_codex(&home.join(".codex/sessions"), &mut found);
    found.sort_by(|a, b| {
        b.modified.partial_cmp(&a.modified).unwrap_or(std::cmp::Ordering::Equal).then(a.path.cmp(&b.path))
    });
    found.truncate(LIMIT);
    for f in &mut found {
        describe(f);
    }
    found
}

/// Fills in a listed log's size and title.
fn describe(found: &mut FoundLog) {
    let path = Path::new(&found.path);
    let Ok(meta) = std::fs::metadata(path) else { return };
    let log = if meta.is_dir() {
        found.size = Some(
            std::fs::read_dir(path)
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| e.metadata().ok().filter(|m| m.is_file()).map(|m| m.len()))
                .sum(),
        );
        if found.harness == "copilot" {
            found.title = workspace_summary(&path.join("workspace.yaml"));
        }
        ["events.jsonl", "session.jsonl"].iter().map(|n| path.join(n)).find(|p| p.is_file())
    } else {
        found.size = Some(meta.len());
        Some(path.to_path_buf())
    };
    if found.title.is_none() {
        found.title = log.as_deref().and_then(|l| arbor_core::formats::about_file(l, None));
    }
}

/// Copilot CLI's `summary:` line in a session folder's `workspace.yaml`.
fn workspace_summary(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find_map(|l| l.strip_prefix("summary:"))?;
    arbor_core::formats::about_line(line.trim().trim_matches(['"', '\'']))
}

fn modified(meta: &std::fs::Metadata) -> Option<f64> {
    meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_millis() as f64)
}

/// Claude Code sessions: each project folder's `<sessionId>.jsonl` (a sub-agent's transcript,
/// `agent-*.jsonl` beside them or in `<sessionId>/subagents/`, is not a session of its own: the
/// engine reads it with its session).
fn collect_claude(projects: &Path, out: &mut Vec<FoundLog>) {
    let Ok(folders) = std::fs::read_dir(projects) else { return };
    for folder in folders.flatten() {
        if !folder.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(folder.path()) else { continue };
        let project = folder.file_name().to_string_lossy().into_owned();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".jsonl") || name.starts_with("agent-") {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            out.push(FoundLog {
                path: entry.path().to_string_lossy().into_owned(),
                harness: "claude-code",
                name: format!("{project}/{name}"),
                modified: modified(&meta),
                title: None,
                size: None,
            });
        }
    }
}

/// Codex CLI rollouts: `rollout-*.jsonl` anywhere under `sessions/` (`YYYY/MM/DD/`), walked
/// without following folder links and no deeper than a date's folders need.
fn collect_codex(sessions: &Path, out: &mut Vec<FoundLog>) {
    let mut stack = vec![(sessions.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                if depth < 4 {
                    stack.push((entry.path(), depth + 1));
                }
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if !(name.starts_with("rollout-") && name.ends_with(".jsonl")) {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_file() {
                out.push(FoundLog {
                    path: entry.path().to_string_lossy().into_owned(),
                    harness: "codex",
                    name,
                    modified: modified(&meta),
                    title: None,
                    size: None,
                });
            }
        }
    }
}

/// Adds the entries of `dir`: only folders when `folders_only` (a Copilot session is a folder),
/// else folders and `.jsonl` files (a dsh session is either).
fn collect(dir: &Path, harness: &'static str, folders_only: bool, out: &mut Vec<FoundLog>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path: PathBuf = entry.path();
        let Ok(meta) = entry.metadata() else { continue };
        let is_log_file = meta.is_file() && path.extension().is_some_and(|e| e == "jsonl" || e == "zst");
        if !(meta.is_dir() || (!folders_only && is_log_file)) {
            continue;
        }
        out.push(FoundLog {
            path: path.to_string_lossy().into_owned(),
            harness,
            name: entry.file_name().to_string_lossy().into_owned(),
            modified: modified(&meta),
            title: None,
            size: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::{Duration, SystemTime};

    #[cfg(unix)]
    fn touch(path: &Path, secs: u64) {
        let f = fs::File::options().write(true).open(path).or_else(|_| fs::File::open(path)).unwrap();
        f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs)).unwrap();
    }

    // Setting a folder's modification time needs a directory handle, which Windows opens differently.
    #[cfg(unix)]
    #[test]
    fn lists_both_harnesses_newest_first_and_skips_what_is_not_a_session() {
        let home = tempfile::tempdir().unwrap();
        let copilot = home.path().join(".copilot/session-state");
        let dsh = home.path().join(".dsh/sessions");
        fs::create_dir_all(copilot.join("old-id")).unwrap();
        fs::create_dir_all(copilot.join("new-id")).unwrap();
        fs::write(copilot.join("stray.txt"), "x").unwrap();
        fs::create_dir_all(&dsh).unwrap();
        fs::write(dsh.join("s1.jsonl"), "{}\n").unwrap();
        fs::write(dsh.join("notes.md"), "x").unwrap();
        touch(&copilot.join("old-id"), 1_000);
        touch(&copilot.join("new-id"), 3_000);
        touch(&dsh.join("s1.jsonl"), 2_000);

        let found = found_logs(home.path(), None);
        let names: Vec<(&str, &str)> = found.iter().map(|f| (f.harness, f.name.as_str())).collect();
        assert_eq!(names, [("copilot", "new-id"), ("dsh", "s1.jsonl"), ("copilot", "old-id")]);
        assert_eq!(found[0].modified, Some(3_000_000.0));
    }

    /// Claude Code sessions are the project folders' session files, not their sub-agents'
    /// transcripts; Codex rollouts are found at any date; all four harnesses share one list.
    #[cfg(unix)]
    #[test]
    fn claude_code_sessions_and_codex_rollouts_are_listed_with_the_others_newest_first() {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join(".claude/projects/-home-me-app");
        fs::create_dir_all(project.join("s1/subagents")).unwrap();
        for f in ["s1.jsonl", "s2.jsonl", "agent-a1.jsonl", "s1/subagents/agent-b2.jsonl", "notes.txt"] {
            fs::write(project.join(f), "{}\n").unwrap();
        }
        let day = home.path().join(".codex/sessions/2026/09/12");
        fs::create_dir_all(&day).unwrap();
        fs::write(day.join("rollout-2026-09-12T10-00-00-abc.jsonl"), "{}\n").unwrap();
        fs::write(day.join("history.jsonl"), "{}\n").unwrap();
        let copilot = home.path().join(".copilot/session-state/c1");
        fs::create_dir_all(&copilot).unwrap();
        touch(&project.join("s1.jsonl"), 4_000);
        touch(&project.join("s2.jsonl"), 1_000);
        touch(&day.join("rollout-2026-09-12T10-00-00-abc.jsonl"), 3_000);
        touch(&copilot, 2_000);
        let found = found_logs(home.path(), None);
        let names: Vec<(&str, &str)> = found.iter().map(|f| (f.harness, f.name.as_str())).collect();
        assert_eq!(
            names,
            [
                ("claude-code", "-home-me-app/s1.jsonl"),
                ("codex", "rollout-2026-09-12T10-00-00-abc.jsonl"),
                ("copilot", "c1"),
                ("claude-code", "-home-me-app/s2.jsonl"),
            ]
        );
        assert!(found[0].path.ends_with(".claude/projects/-home-me-app/s1.jsonl"));
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
        // Once to warm the directory cache, as a second opening of the menu finds it.
        found_logs(home.path(), None);
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let found = found_logs(home.path(), None);
            best = best.min(t.elapsed().as_secs_f64());
            assert_eq!(found.len(), LIMIT);
        }
        println!("listing 10,000 Claude Code sessions (beside 10,000 sub-agent files) and 1,000 Codex rollouts: {:.1} ms (best of 5)", best * 1000.0);
    }

    #[test]
    fn dsh_home_replaces_the_default_dsh_place_and_missing_places_are_empty() {
        let home = tempfile::tempdir().unwrap();
        let custom = tempfile::tempdir().unwrap();
        fs::create_dir_all(custom.path().join("sessions/run-folder")).unwrap();
        fs::create_dir_all(home.path().join(".dsh/sessions/ignored")).unwrap();
        let found = found_logs(home.path(), Some(custom.path()));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "run-folder");
        assert!(found_logs(&home.path().join("nowhere"), None).is_empty());
    }

    /// Each listed session says what it is about: a dsh title (over its first prompt), Claude
    /// Code's summary, Copilot's workspace summary, else the first prompt; and its size.
    #[test]
    fn listed_sessions_carry_a_title_and_a_size() {
        let home = tempfile::tempdir().unwrap();
        let dsh = home.path().join(".dsh/sessions/run-1");
        fs::create_dir_all(&dsh).unwrap();
        fs::write(
            dsh.join("session.jsonl"),
            "{\"type\":\"user/message\",\"data\":{\"text\":\"first prompt\"}}\n{\"type\":\"session/title\",\"data\":{\"title\":\"Fix the  parser\"}}\n",
        )
        .unwrap();
        let project = home.path().join(".claude/projects/-p");
        fs::create_dir_all(&project).unwrap();
        fs::write(project.join("s1.jsonl"), "{\"type\":\"user\",\"message\":{\"content\":\"<command>x</command>\"}}\n{\"type\":\"user\",\"message\":{\"content\":\"Explain the build\\nplease\"}}\n").unwrap();
        fs::write(project.join("s2.jsonl"), "{\"type\":\"summary\",\"summary\":\"Build fixed\"}\n").unwrap();
        let copilot = home.path().join(".copilot/session-state/c1");
        fs::create_dir_all(&copilot).unwrap();
        fs::write(copilot.join("workspace.yaml"), "id: c1\nsummary: Review the PR\n").unwrap();
        fs::write(copilot.join("events.jsonl"), "{\"type\":\"user.message\",\"data\":{\"content\":\"hello\"}}\n")
            .unwrap();
        let found = found_logs(home.path(), None);
        let title = |name: &str| found.iter().find(|f| f.name == name).and_then(|f| f.title.clone());
        assert_eq!(title("run-1").as_deref(), Some("Fix the parser"));
        assert_eq!(title("-p/s1.jsonl").as_deref(), Some("Explain the build please"));
        assert_eq!(title("-p/s2.jsonl").as_deref(), Some("Build fixed"));
        assert_eq!(title("c1").as_deref(), Some("Review the PR"));
        let s2 = found.iter().find(|f| f.name == "-p/s2.jsonl").unwrap();
        assert_eq!(s2.size, Some(fs::metadata(project.join("s2.jsonl")).unwrap().len()));
        let c1 = found.iter().find(|f| f.name == "c1").unwrap();
        assert!(c1.size.unwrap() > 20, "a folder's size is its files'");
    }
}
