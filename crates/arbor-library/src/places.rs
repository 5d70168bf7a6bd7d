//! The harnesses' places on this machine (SPEC 6.1): where Claude Code, Codex CLI, Copilot CLI,
//! deepseek-harness, Gemini CLI and OpenCode keep their session logs, each moved by its harness's own variable, and
//! the session logs found there. What is read from the process (the home folder, the variables)
//! is an `Env` value made once at the edge, so every place is tested on every OS with a fake home.
//!
//! Finding lists entries and their modification times only; a log's title and size are read
//! when asked (`title`, `size`), so that a machine with thousands of sessions lists them at once.
//! It does not read the logs: a session's summary is its analysis's (`summary`).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A harness whose places are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Harness {
    ClaudeCode,
    Codex,
    Copilot,
    Dsh,
    Gemini,
    /// OpenCode: one store for every session (`opencode.db`), or the older `storage/` tree.
    OpenCode,
}

impl Harness {
    pub const ALL: [Harness; 6] =
        [Harness::ClaudeCode, Harness::Codex, Harness::Copilot, Harness::Dsh, Harness::Gemini, Harness::OpenCode];

    /// The name the app and the CLI show: `claude-code`, `codex`, `copilot`, `dsh`, `gemini-cli`,
    /// `opencode`.
    pub fn as_str(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
            Harness::Copilot => "copilot",
            Harness::Dsh => "dsh",
            Harness::Gemini => "gemini-cli",
            Harness::OpenCode => "opencode",
        }
    }

    /// The variable that moves the harness's home, and the folder it replaces under `~`.
    fn home_var(self) -> (&'static str, &'static str) {
        match self {
            Harness::ClaudeCode => ("CLAUDE_CONFIG_DIR", ".claude"),
            Harness::Codex => ("CODEX_HOME", ".codex"),
            Harness::Copilot => ("COPILOT_HOME", ".copilot"),
            Harness::Dsh => ("DSH_HOME", ".dsh"),
            Harness::Gemini => ("GEMINI_CLI_HOME", ".gemini"),
            // OpenCode keeps its data where XDG says, on every OS: `$XDG_DATA_HOME/opencode`,
            // else `~/.local/share/opencode` (`harness_home`).
            Harness::OpenCode => ("XDG_DATA_HOME", ".local/share"),
        }
    }

    /// Where its sessions are under its home.
    fn sessions_under(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "projects",
            Harness::Codex => "sessions",
            Harness::Copilot => "session-state",
            Harness::Dsh => "sessions",
            // `tmp/<project hash or name>/chats/`.
            Harness::Gemini => "tmp",
            Harness::OpenCode => "",
        }
    }
}

/// What the places depend on: the user's home folder and the harnesses' variables.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub home: Option<PathBuf>,
    vars: HashMap<String, OsString>,
}

/// The variables `Env::from_process` reads.
pub const VARS: [&str; 7] =
    ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "DSH_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME", "OPENCODE_DB"];

impl Env {
    /// A home and variables given (tests, or a caller that knows better than the process).
    pub fn new(home: Option<PathBuf>, vars: impl IntoIterator<Item = (String, OsString)>) -> Env {
        Env { home, vars: vars.into_iter().collect() }
    }

    /// This process's: `HOME` (on Windows `USERPROFILE`, then `HOME`), and `VARS`.
    pub fn from_process() -> Env {
        let home_vars: &[&str] = if cfg!(windows) { &["USERPROFILE", "HOME"] } else { &["HOME"] };
        let home = home_vars.iter().find_map(|v| std::env::var_os(v).filter(|h| !h.is_empty())).map(PathBuf::from);
        Env::new(home, VARS.iter().filter_map(|v| std::env::var_os(v).map(|x| (v.to_string(), x))))
    }

    fn var(&self, name: &str) -> Option<PathBuf> {
        self.vars.get(name).filter(|v| !v.is_empty()).map(PathBuf::from)
    }

    /// The harness's home: its variable's folder, else its folder under the user's home.
    pub fn harness_home(&self, harness: Harness) -> Option<PathBuf> {
        let (var, dot) = harness.home_var();
        let home = match self.var(var) {
            // Gemini CLI's variable moves the user's home: its folder is `.gemini` under it
            // (the producer's `homedir()`). A folder that is itself the CLI's (a `tmp/` in it and
            // no `.gemini`) is read as it is.
            Some(h) if harness == Harness::Gemini && (h.join(dot).is_dir() || !h.join("tmp").is_dir()) => {
                Some(h.join(dot))
            }
            Some(h) => Some(h),
            None => self.home.as_ref().map(|h| h.join(dot)),
        };
        // XDG_DATA_HOME is the data folder of every program: OpenCode's is `opencode` in it.
        match harness {
            Harness::OpenCode => home.map(|h| h.join("opencode")),
            _ => home,
        }
    }

    /// OpenCode's store: `$OPENCODE_DB` (a path, or a name in its data folder), else
    /// `opencode.db` in its data folder.
    pub fn opencode_db(&self) -> Option<PathBuf> {
        let data = self.harness_home(Harness::OpenCode);
        match self.var("OPENCODE_DB") {
            Some(p) if p.is_absolute() => Some(p),
            Some(p) => data.map(|d| d.join(p)),
            None => data.map(|d| d.join("opencode.db")),
        }
    }

    /// The folder the harness keeps its sessions in.
    pub fn sessions_place(&self, harness: Harness) -> Option<PathBuf> {
        self.harness_home(harness).map(|h| h.join(harness.sessions_under()))
    }
}

/// A session log (a file or a folder) found in a harness's place.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// What to open: a Claude Code session file (its sub-agents come along), a Codex rollout, a
    /// Copilot session folder, a dsh session file or folder.
    pub path: PathBuf,
    pub harness: Harness,
    /// The file or folder name (a Claude Code session's with its project folder's).
    pub name: String,
    /// The folder it was found in, for a session whose log names no working folder.
    pub folder: String,
    pub modified: Option<SystemTime>,
    /// A file's size, modification time (ns) and identity as finding it stated them (Claude
    /// Code's session files: the library's grouping takes them rather than stating each again).
    pub stamp: Option<(u64, i128, u64)>,
}

/// Every session log in every place of `env`, newest first (then by path).
pub fn logs(env: &Env) -> Vec<Found> {
    let mut found = Vec::new();
    for h in Harness::ALL {
        let Some(dir) = env.sessions_place(h) else { continue };
        match h {
            Harness::ClaudeCode => collect_claude(&dir, &mut found),
            Harness::Codex => collect_codex(&dir, &mut found),
            Harness::Copilot => collect(&dir, h, true, &mut found),
            Harness::Dsh => collect(&dir, h, false, &mut found),
            Harness::Gemini => collect_gemini(&dir, &mut found),
            Harness::OpenCode => collect_opencode(env, &dir, &mut found),
        }
    }
    found.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.path.cmp(&b.path)));
    found
}

/// What the session is about, for a list: Copilot's workspace summary, else what its log's
/// format reads in the file's head (a title, summary or first prompt), one line.
pub fn title(found: &Found) -> Option<String> {
    if found.harness == Harness::OpenCode && !found.path.is_dir() {
        return opencode_title(&found.path);
    }
    if found.path.is_dir() {
        if found.harness == Harness::Copilot {
            if let Some(t) = workspace_summary(&found.path.join("workspace.yaml")) {
                return Some(t);
            }
        }
        let log = ["events.jsonl", "session.jsonl"].iter().map(|n| found.path.join(n)).find(|p| p.is_file())?;
        return arbor_core::formats::about_file(&log, None);
    }
    arbor_core::formats::about_file(&found.path, None)
}

/// An OpenCode store's title: how many sessions it holds, and its latest root session's title
/// (read-only, as the engine opens it).
fn opencode_title(db: &Path) -> Option<String> {
    let c = arbor_core::bytes::rows::connect(db).ok()?;
    let roots: i64 = c.query_row("SELECT count(*) FROM session WHERE parent_id IS NULL", [], |r| r.get(0)).ok()?;
    let latest: Option<(String, Option<String>)> = c
        .query_row(
            "SELECT id, title FROM session WHERE parent_id IS NULL ORDER BY time_updated DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok();
    // A title OpenCode never generated is its placeholder: the first prompt says more.
    let latest = latest
        .and_then(|(id, t)| crate::summary::store_title(&c, &id, t))
        .and_then(|t| arbor_core::formats::about_line(&t));
    Some(match latest {
        Some(t) => format!("{roots} sessions, latest: {t}"),
        None => format!("{roots} sessions"),
    })
}

/// Bytes: a file's, a folder's files' one level down.
pub fn size(path: &Path) -> Option<u64> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_dir() {
        return Some(meta.len());
    }
    Some(
        std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.metadata().ok().filter(|m| m.is_file()).map(|m| m.len()))
            .sum(),
    )
}

/// Copilot CLI's `summary:` line in a session folder's `workspace.yaml`.
fn workspace_summary(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find_map(|l| l.strip_prefix("summary:"))?;
    arbor_core::formats::about_line(line.trim().trim_matches(['"', '\'']))
}

/// Claude Code sessions: each project folder's `<sessionId>.jsonl` (a sub-agent's transcript,
/// `agent-*.jsonl` beside them or in `<sessionId>/subagents/`, is not a session of its own: the
/// engine reads it with its session).
/// OpenCode's store: its database (and a release channel's, `opencode-<channel>.db`, beside
/// it), each one entry for all its sessions; else, before OpenCode had a database, its `storage/`
/// tree (OpenCode moves the tree into the database when it first opens one, and keeps it: with a
/// database present the tree is its copy, not listed again).
fn collect_opencode(env: &Env, data: &Path, out: &mut Vec<Found>) {
    let mut dbs: Vec<PathBuf> = env.opencode_db().filter(|p| p.is_file()).into_iter().collect();
    if let Ok(entries) = std::fs::read_dir(data) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().to_lowercase();
            let path = e.path();
            if name.starts_with("opencode-") && name.ends_with(".db") && path.is_file() && !dbs.contains(&path) {
                dbs.push(path);
            }
        }
    }
    let folder = arbor_core::reader::path_text(data);
    for db in &dbs {
        let modified = newest(&[db.clone(), arbor_core::bytes::rows::companions(db)[0].clone()]);
        let name = db.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        out.push(Found {
            path: db.clone(),
            harness: Harness::OpenCode,
            name,
            folder: folder.clone(),
            modified,
            stamp: None,
        });
    }
    let tree = data.join("storage");
    if dbs.is_empty() && tree.join("session").is_dir() {
        let modified = std::fs::metadata(tree.join("session")).and_then(|m| m.modified()).ok();
        out.push(Found {
            path: tree,
            harness: Harness::OpenCode,
            name: "storage".into(),
            folder,
            modified,
            stamp: None,
        });
    }
}

/// The latest modification time of the files that exist among `paths`.
fn newest(paths: &[PathBuf]) -> Option<SystemTime> {
    paths.iter().filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok()).max()
}

fn collect_claude(projects: &Path, out: &mut Vec<Found>) {
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
            out.push(Found {
                path: entry.path(),
                harness: Harness::ClaudeCode,
                name: format!("{project}/{name}"),
                folder: project.clone(),
                modified: meta.modified().ok(),
                stamp: Some(crate::store::stamp_parts(&meta)),
            });
        }
    }
}

/// Codex CLI rollouts: `rollout-*.jsonl` anywhere under `sessions/` (`YYYY/MM/DD/`), walked
/// without following folder links and no deeper than a date's folders need.
fn collect_codex(sessions: &Path, out: &mut Vec<Found>) {
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
                out.push(Found {
                    path: entry.path(),
                    harness: Harness::Codex,
                    folder: dir.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
                    name,
                    modified: meta.modified().ok(),
                    stamp: Some(crate::store::stamp_parts(&meta)),
                });
            }
        }
    }
}

/// Gemini CLI sessions: each project's `tmp/<project>/chats/session-*.jsonl` (and the older
/// `session-*.json`; one migrated to `.jsonl` keeps its old file, which is not listed again). A
/// sub-agent's file, `chats/<root session id>/<agentId>.jsonl`, is not a session of its own: the
/// engine reads it with its session (`formats::gemini_cli`'s plan).
fn collect_gemini(tmp: &Path, out: &mut Vec<Found>) {
    let Ok(projects) = std::fs::read_dir(tmp) else { return };
    for project in projects.flatten() {
        if !project.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let chats = project.path().join("chats");
        let Ok(entries) = std::fs::read_dir(&chats) else { continue };
        let folder = project.file_name().to_string_lossy().into_owned();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let json = name.ends_with(".json");
            if !name.starts_with("session-") || !(json || name.ends_with(".jsonl")) {
                continue;
            }
            if json && chats.join(format!("{name}l")).is_file() {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_file() {
                out.push(Found {
                    path: entry.path(),
                    harness: Harness::Gemini,
                    name: format!("{folder}/{name}"),
                    folder: folder.clone(),
                    modified: meta.modified().ok(),
                    stamp: None,
                });
            }
        }
    }
}

/// Adds the entries of `dir`: only folders when `folders_only` (a Copilot session is a folder),
/// else folders and `.jsonl` (or `.zst`) files (a dsh session is either).
fn collect(dir: &Path, harness: Harness, folders_only: bool, out: &mut Vec<Found>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let folder = dir.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = entry.metadata() else { continue };
        let is_log_file = meta.is_file() && path.extension().is_some_and(|e| e == "jsonl" || e == "zst");
        if !(meta.is_dir() || (!folders_only && is_log_file)) {
            continue;
        }
        out.push(Found {
            path,
            harness,
            name: entry.file_name().to_string_lossy().into_owned(),
            folder: if meta.is_dir() { entry.file_name().to_string_lossy().into_owned() } else { folder.clone() },
            modified: meta.modified().ok(),
            stamp: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::Duration;

    fn env(home: &Path, vars: &[(&str, &Path)]) -> Env {
        Env::new(Some(home.to_path_buf()), vars.iter().map(|(k, v)| (k.to_string(), v.as_os_str().to_owned())))
    }

    fn touch(path: &Path, secs: u64) {
        let f = fs::File::options().write(true).open(path).unwrap();
        f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs)).unwrap();
    }

    fn names(found: &[Found]) -> Vec<(&'static str, &str)> {
        found.iter().map(|f| (f.harness.as_str(), f.name.as_str())).collect()
    }

    /// OpenCode's store: `opencode.db` and a channel's database in its data folder (under
    /// `XDG_DATA_HOME`, else `~/.local/share`), `OPENCODE_DB` naming another; its `storage/` tree
    /// only where no database is. Titled by its sessions, read-only.
    #[test]
    fn opencode_stores_are_found_by_xdg_and_opencode_db() {
        let home = tempfile::tempdir().unwrap();
        let data = home.path().join(".local/share/opencode");
        fs::create_dir_all(data.join("storage/session/proj")).unwrap();
        let e = env(home.path(), &[]);
        assert_eq!(e.opencode_db(), Some(data.join("opencode.db")));
        assert_eq!(names(&logs(&e)), [("opencode", "storage")], "a tree alone is listed");
        let db = data.join("opencode.db");
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch(
            "CREATE TABLE session (id text, parent_id text, title text, time_updated integer);
             INSERT INTO session VALUES ('a', NULL, 'First', 1), ('b', NULL, 'Second  one', 2), ('c', 'b', 'child', 3);",
        )
        .unwrap();
        drop(c);
        fs::write(data.join("opencode-dev.db"), b"").unwrap();
        touch(&db, 20);
        touch(&data.join("opencode-dev.db"), 10);
        let found = logs(&e);
        assert_eq!(names(&found), [("opencode", "opencode.db"), ("opencode", "opencode-dev.db")]);
        assert_eq!(title(&found[0]).as_deref(), Some("2 sessions, latest: Second one"));
        // XDG_DATA_HOME moves the data folder; OPENCODE_DB names the database, as a path or a
        // name in that folder.
        let xdg = tempfile::tempdir().unwrap();
        let e = env(home.path(), &[("XDG_DATA_HOME", xdg.path())]);
        assert_eq!(e.opencode_db(), Some(xdg.path().join("opencode/opencode.db")));
        assert!(logs(&e).is_empty());
        let e = env(home.path(), &[("OPENCODE_DB", Path::new("other.db"))]);
        assert_eq!(e.opencode_db(), Some(data.join("other.db")));
        let e = env(home.path(), &[("OPENCODE_DB", &db)]);
        assert_eq!(e.opencode_db(), Some(db.clone()));
    }

    /// All four harnesses share one list, newest first by the files' times; Claude Code's
    /// sub-agent transcripts and what is not a session are left out; Codex rollouts are found at
    /// any date. Only files' times are set, so the test runs on every OS.
    #[test]
    fn every_harness_is_listed_newest_first_and_what_is_not_a_session_is_left_out() {
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
        let copilot = home.path().join(".copilot/session-state");
        fs::create_dir_all(copilot.join("c1")).unwrap();
        fs::write(copilot.join("stray.txt"), "x").unwrap();
        let dsh = home.path().join(".dsh/sessions");
        fs::create_dir_all(&dsh).unwrap();
        fs::write(dsh.join("d1.jsonl"), "{}\n").unwrap();
        fs::write(dsh.join("notes.md"), "x").unwrap();
        // Gemini CLI: a session, an older one migrated to `.jsonl` (its `.json` kept, not listed
        // again), a sub-agent's file under its root's folder (read with its session), a log.
        let chats = home.path().join(".gemini/tmp/0b7dfb12/chats");
        fs::create_dir_all(chats.join("9f1c2d3e-full-id")).unwrap();
        for f in ["session-2026-05-02T10-00-9f1c2d3e.jsonl", "session-2026-01-16T18-34-4d4d4d4d.json"] {
            fs::write(chats.join(f), "{}\n").unwrap();
        }
        for f in ["session-2026-01-01T00-00-11111111.json", "session-2026-01-01T00-00-11111111.jsonl"] {
            fs::write(chats.join(f), "{}\n").unwrap();
        }
        fs::write(chats.join("9f1c2d3e-full-id/a1111111.jsonl"), "{}\n").unwrap();
        fs::write(home.path().join(".gemini/tmp/0b7dfb12/logs.json"), "[]").unwrap();
        touch(&chats.join("session-2026-05-02T10-00-9f1c2d3e.jsonl"), 3_500);
        touch(&chats.join("session-2026-01-16T18-34-4d4d4d4d.json"), 500);
        touch(&chats.join("session-2026-01-01T00-00-11111111.jsonl"), 400);
        touch(&project.join("s1.jsonl"), 5_000);
        touch(&project.join("s2.jsonl"), 1_000);
        touch(&day.join("rollout-2026-09-12T10-00-00-abc.jsonl"), 4_000);
        touch(&dsh.join("d1.jsonl"), 3_000);
        let found = logs(&env(home.path(), &[]));
        let mut listed = names(&found);
        // The folder's time is the OS's (now), so newer than every file set in 1970.
        assert_eq!(listed.remove(0), ("copilot", "c1"));
        assert_eq!(
            listed,
            [
                ("claude-code", "-home-me-app/s1.jsonl"),
                ("codex", "rollout-2026-09-12T10-00-00-abc.jsonl"),
                ("gemini-cli", "0b7dfb12/session-2026-05-02T10-00-9f1c2d3e.jsonl"),
                ("dsh", "d1.jsonl"),
                ("claude-code", "-home-me-app/s2.jsonl"),
                ("gemini-cli", "0b7dfb12/session-2026-01-16T18-34-4d4d4d4d.json"),
                ("gemini-cli", "0b7dfb12/session-2026-01-01T00-00-11111111.jsonl"),
            ]
        );
        assert!(found[1].path.ends_with(Path::new(".claude/projects/-home-me-app/s1.jsonl")));
        assert_eq!(found[1].folder, "-home-me-app");
        assert_eq!(found[1].modified, Some(SystemTime::UNIX_EPOCH + Duration::from_secs(5_000)));
    }

    /// Each harness's variable replaces its folder under the home, and the home is not looked at
    /// for that harness; a missing place is empty, and so is a missing home.
    #[test]
    fn each_variable_moves_its_harness_and_missing_places_are_empty() {
        let home = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let o = other.path();
        for (dir, file) in [
            ("claude/projects/-p", "moved.jsonl"),
            ("codex/sessions/2026/01/02", "rollout-moved.jsonl"),
            ("dsh/sessions", "moved.jsonl"),
            ("gemini/tmp/p/chats", "session-moved.jsonl"),
        ] {
            fs::create_dir_all(o.join(dir)).unwrap();
            fs::write(o.join(dir).join(file), "{}\n").unwrap();
        }
        fs::create_dir_all(o.join("copilot/session-state/moved")).unwrap();
        for dir in [".claude/projects/-p", ".codex/sessions", ".dsh/sessions", ".copilot/session-state/ignored"] {
            fs::create_dir_all(home.path().join(dir)).unwrap();
        }
        fs::write(home.path().join(".claude/projects/-p/ignored.jsonl"), "{}\n").unwrap();
        fs::write(home.path().join(".dsh/sessions/ignored.jsonl"), "{}\n").unwrap();
        let vars = [
            ("CLAUDE_CONFIG_DIR", o.join("claude")),
            ("CODEX_HOME", o.join("codex")),
            ("COPILOT_HOME", o.join("copilot")),
            ("DSH_HOME", o.join("dsh")),
            ("GEMINI_CLI_HOME", o.join("gemini")),
        ];
        let vars: Vec<(&str, &Path)> = vars.iter().map(|(k, v)| (*k, v.as_path())).collect();
        let found = logs(&env(home.path(), &vars));
        let mut listed = names(&found);
        listed.sort();
        assert_eq!(
            listed,
            [
                ("claude-code", "-p/moved.jsonl"),
                ("codex", "rollout-moved.jsonl"),
                ("copilot", "moved"),
                ("dsh", "moved.jsonl"),
                ("gemini-cli", "p/session-moved.jsonl")
            ]
        );
        // Without the variables the home's places are read.
        assert_eq!(logs(&env(home.path(), &[])).len(), 3);
        // An empty variable is no variable.
        let empty = Env::new(Some(home.path().to_path_buf()), [("DSH_HOME".to_string(), OsString::new())]);
        assert_eq!(empty.sessions_place(Harness::Dsh), Some(home.path().join(".dsh/sessions")));
        assert!(logs(&env(&home.path().join("nowhere"), &[])).is_empty());
        assert!(logs(&Env::default()).is_empty());
    }

    /// Gemini CLI's variable moves the user's home, as the CLI reads it: its sessions are under
    /// `$GEMINI_CLI_HOME/.gemini/tmp/`; a folder given that is itself the CLI's folder still works.
    #[test]
    fn gemini_cli_home_is_a_home() {
        let home = tempfile::tempdir().unwrap();
        let moved = tempfile::tempdir().unwrap();
        let chats = moved.path().join(".gemini/tmp/shop/chats");
        fs::create_dir_all(&chats).unwrap();
        fs::write(chats.join("session-2026-07-30T09-15-4b7e21a0.jsonl"), "{}\n").unwrap();
        let found = logs(&env(home.path(), &[("GEMINI_CLI_HOME", moved.path())]));
        assert_eq!(names(&found), [("gemini-cli", "shop/session-2026-07-30T09-15-4b7e21a0.jsonl")]);
        assert_eq!(found[0].folder, "shop");
        let moved_env = env(home.path(), &[("GEMINI_CLI_HOME", moved.path())]);
        assert_eq!(moved_env.sessions_place(Harness::Gemini), Some(moved.path().join(".gemini/tmp")));
        // Set to the CLI's own folder (`tmp/` in it, no `.gemini`): read as it is.
        let own = moved.path().join(".gemini");
        assert_eq!(logs(&env(home.path(), &[("GEMINI_CLI_HOME", &own)])).len(), 1);
    }

    /// Each session says what it is about: a dsh title (over its first prompt), Claude Code's
    /// summary, Copilot's workspace summary, else the first prompt; and its size.
    #[test]
    fn found_sessions_have_a_title_and_a_size() {
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
        let found = logs(&env(home.path(), &[]));
        let title = |name: &str| found.iter().find(|f| f.name == name).and_then(title);
        assert_eq!(title("run-1").as_deref(), Some("Fix the parser"));
        assert_eq!(title("-p/s1.jsonl").as_deref(), Some("Explain the build please"));
        assert_eq!(title("-p/s2.jsonl").as_deref(), Some("Build fixed"));
        assert_eq!(title("c1").as_deref(), Some("Review the PR"));
        assert_eq!(size(&project.join("s2.jsonl")), Some(fs::metadata(project.join("s2.jsonl")).unwrap().len()));
        assert!(size(&copilot).unwrap() > 20, "a folder's size is its files'");
    }
}
