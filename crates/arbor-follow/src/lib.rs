//! Following logs as they are written (SPEC 5 Follow): a file watcher over the engine's
//! `arbor_core::live::Live`, shared by `arbor watch` and the app.
//!
//! It owns the watching and nothing else: the engine reads what was appended (`Live::update`);
//! this waits, without polling, until the files it follows may have changed. It watches what is
//! open, not the world: a folder opened is watched with its sub-folders, and a file opened is
//! watched through its own folder (so a file that an editor or a rotation replaces is still
//! seen), not the folders around it. A burst of writes is one event: the debouncer gathers what
//! happened within a few milliseconds, and a file written without pause is reported once per
//! period.

use arbor_core::analysis::Observer;
use arbor_core::live::{Change, Live};
use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{new_debouncer, DebounceEventResult, Debouncer};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a burst of file events is gathered before the files are read: short, so a line shows
/// within a fraction of a second; long enough that a line written in pieces is mostly one event.
pub const GATHER: Duration = Duration::from_millis(15);

/// Logs followed as they grow.
pub struct Follower {
    live: Live,
    debouncer: Debouncer<RecommendedWatcher>,
    events: mpsc::Receiver<DebounceEventResult>,
    /// What is watched, and how.
    watching: Vec<(PathBuf, RecursiveMode)>,
    /// Watch errors since the last look (a folder that cannot be watched, too many watches).
    errors: Vec<String>,
}

/// What a `Follower` watches for `paths`: each folder with its sub-folders, and each file through
/// its own folder.
fn watch_set(paths: &[PathBuf]) -> Vec<(PathBuf, RecursiveMode)> {
    let mut out: Vec<(PathBuf, RecursiveMode)> = Vec::new();
    for p in paths {
        let entry = if p.is_dir() {
            (p.clone(), RecursiveMode::Recursive)
        } else {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            (dir.to_path_buf(), RecursiveMode::NonRecursive)
        };
        if !out.contains(&entry) {
            out.push(entry);
        }
    }
    out
}

impl Follower {
    /// Read `paths` and start watching them. `Err` when the watcher cannot start at all.
    pub fn open(paths: &[PathBuf], observer: &mut dyn Observer) -> Result<Follower, String> {
        let live = Live::open(paths, observer);
        let (tx, events) = mpsc::channel();
        let debouncer = new_debouncer(GATHER, move |r: DebounceEventResult| {
            let _ = tx.send(r);
        })
        .map_err(|e| format!("cannot watch files: {e}"))?;
        let mut f = Follower { live, debouncer, events, watching: Vec::new(), errors: Vec::new() };
        f.watch(paths);
        Ok(f)
    }

    fn watch(&mut self, paths: &[PathBuf]) {
        for (path, mode) in watch_set(paths) {
            if self.watching.iter().any(|(p, _)| p == &path) {
                continue;
            }
            match self.debouncer.watcher().watch(&path, mode) {
                Ok(()) => self.watching.push((path, mode)),
                Err(e) => self.errors.push(format!("cannot watch {}: {e}", path.display())),
            }
        }
    }

    pub fn live(&self) -> &Live {
        &self.live
    }

    pub fn into_live(self) -> Live {
        self.live
    }

    /// The folders watched (for a test, or a status line).
    pub fn watching(&self) -> impl Iterator<Item = &Path> {
        self.watching.iter().map(|(p, _)| p.as_path())
    }

    /// Watch errors since the last call.
    pub fn take_errors(&mut self) -> Vec<String> {
        std::mem::take(&mut self.errors)
    }

    /// Wait until the files followed may have changed, for at most `timeout`, then read what
    /// changed (`Live::update`). `None` when nothing happened in time; a change that read
    /// nothing (a file touched, another file of a watched folder) is not returned.
    pub fn next(&mut self, timeout: Duration, observer: &mut dyn Observer) -> Option<Change> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let first = match self.events.recv_timeout(left) {
                Ok(r) => r,
                Err(_) => return None,
            };
            // Whatever else has come in meanwhile is part of the same look.
            let mut results = vec![first];
            results.extend(self.events.try_iter());
            for r in results {
                if let Err(e) = r {
                    self.errors.push(e.to_string());
                }
            }
            let change = self.live.update(observer);
            if !change.is_empty() {
                return Some(change);
            }
            if Instant::now() >= deadline {
                return None;
            }
        }
    }

    /// Read what changed now, without waiting for an event (for a caller that knows).
    pub fn update(&mut self, observer: &mut dyn Observer) -> Change {
        self.live.update(observer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_watched_through_its_folder_and_a_folder_with_its_sub_folders() {
        let set = watch_set(&[PathBuf::from("a/b.jsonl"), PathBuf::from("a/c.jsonl"), PathBuf::from("d.jsonl")]);
        assert_eq!(
            set,
            [(PathBuf::from("a"), RecursiveMode::NonRecursive), (PathBuf::from("."), RecursiveMode::NonRecursive)]
        );
        let dir = tempfile::tempdir().unwrap();
        let set = watch_set(&[dir.path().to_path_buf()]);
        assert_eq!(set, [(dir.path().to_path_buf(), RecursiveMode::Recursive)]);
    }

    /// A line appended to a followed file is read within the gathering time, and nothing is read
    /// while nothing is written.
    #[test]
    fn an_appended_line_is_read_when_it_is_written_and_nothing_before() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let line = |i: u32| {
            format!(
                "{{\"type\":\"user.message\",\"data\":{{\"content\":\"hi {i}\"}},\"id\":\"e{i}\",\"timestamp\":\"2026-10-01T10:00:{:02}Z\"}}\n",
                i % 60
            )
        };
        let mut text = String::from(
            "{\"type\":\"session.start\",\"data\":{\"sessionId\":\"s\"},\"id\":\"e0\",\"timestamp\":\"2026-10-01T10:00:00Z\"}\n",
        );
        text.push_str(&line(1));
        std::fs::write(&path, &text).unwrap();
        let mut f = Follower::open(std::slice::from_ref(&path), &mut ()).unwrap();
        assert_eq!(f.next(Duration::from_millis(150), &mut ()), None, "nothing written, nothing read");
        use std::io::Write;
        let mut w = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        w.write_all(line(2).as_bytes()).unwrap();
        drop(w);
        let change = f.next(Duration::from_secs(5), &mut ()).expect("the line is seen");
        assert_eq!(change.grown, ["events.jsonl".to_owned()].map(|_| path.to_string_lossy().replace('\\', "/")));
        assert_eq!(f.live().snapshot().report().waits.len(), 2, "the new prompt is a wait");
    }
}
