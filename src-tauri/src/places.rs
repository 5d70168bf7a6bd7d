//! The harnesses' default places on this machine: where Copilot CLI and deepseek-harness keep their
//! session logs (SPEC.md section 5). It lists candidates for the open menu, newest first; it reads
//! no log content (the engine does, when one is opened).

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::Serialize;
use ts_rs::TS;

/// A session log (a file or a folder) found in a harness's default place.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct FoundLog {
    /// What to pass to `open_paths`.
    pub path: String,
    /// `copilot` or `dsh`.
    #[ts(type = "\"copilot\" | \"dsh\"")]
    pub harness: &'static str,
    /// The file or folder name, for the menu.
    pub name: String,
    /// Last modification, epoch milliseconds, when the file system says.
    pub modified: Option<f64>,
}

/// At most this many entries: the menu is for recent sessions, not an archive browser.
pub const LIMIT: usize = 50;

/// Sessions under `~/.copilot/session-state/<id>/` and `$DSH_HOME/sessions` (else
/// `~/.dsh/sessions`), newest first.
pub fn found_logs(home: &Path, dsh_home: Option<&Path>) -> Vec<FoundLog> {
    let dsh_sessions = dsh_home.map_or_else(|| home.join(".dsh/sessions"), |d| d.join("sessions"));
    let mut found = Vec::new();
    collect(&home.join(".copilot/session-state"), "copilot", true, &mut found);
    collect(&dsh_sessions, "dsh", false, &mut found);
    found.sort_by(|a, b| {
        b.modified.partial_cmp(&a.modified).unwrap_or(std::cmp::Ordering::Equal).then(a.path.cmp(&b.path))
    });
    found.truncate(LIMIT);
    found
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
        let modified =
            meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_millis() as f64);
        out.push(FoundLog {
            path: path.to_string_lossy().into_owned(),
            harness,
            name: entry.file_name().to_string_lossy().into_owned(),
            modified,
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
}
