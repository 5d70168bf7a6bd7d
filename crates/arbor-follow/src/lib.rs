//! Following logs as they are written (SPEC 5 Follow): a file watcher over the engine's
//! `arbor_core::live::Live`, shared by `arbor watch` and the app.
//!
//! It owns the watching and nothing else: the engine reads what was appended (`Live::update`);
//! this waits, without polling, until the files it follows may have changed. It watches what is
//! open, not the world: a folder opened is watched with its sub-folders, and a file opened is
//! watched through its own folder (so a file that an editor or a rotation replaces is still
//! seen), not the folders around it. A burst of writes is one look: what happens within a few
//! milliseconds of the first event is gathered, and a file written without pause is read once
//! per period. A file or folder opened or read is not a change: the engine opens the files it
//! follows when it looks at them, and were that an event, each look would cause the next one, for
//! ever (a followed log took a tenth of a core while nothing was written).

use arbor_core::analysis::Observer;
use arbor_core::live::{Change, Live};
use notify::event::{AccessKind, AccessMode};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a burst of file events is gathered before the files are read: short, so a line shows
/// within a fraction of a second; long enough that a line written in pieces is mostly one look.
pub const GATHER: Duration = Duration::from_millis(5);

/// Logs followed as they grow.
pub struct Follower {
    live: Live,
    watcher: RecommendedWatcher,
    signals: mpsc::Receiver<Signal>,
    /// What is watched, and how.
    watching: Vec<(PathBuf, RecursiveMode)>,
    /// Watch errors since the last look (a folder that cannot be watched, too many watches).
    errors: Vec<String>,
    /// How long the last `Live::update` took (for a caller's trace of where time goes).
    last_update: Duration,
    /// The watcher's channel, for a `Waker`.
    wake: mpsc::Sender<Signal>,
}

/// What the watcher (or a `Waker`) tells a waiting `Follower`.
enum Signal {
    /// Something was written, made, moved or removed where it watches.
    Changed,
    Failed(String),
    Woken,
}

/// Whether a watcher's event may have changed what is followed: not an open, a read or a close
/// after reading (a close after writing may end a write whose modifications came before).
fn changes(event: &Event) -> bool {
    match event.kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// What the signals of one look said.
#[derive(Default)]
struct Look {
    changed: bool,
    woken: bool,
}

impl Look {
    fn note(&mut self, s: Signal, errors: &mut Vec<String>) {
        match s {
            Signal::Changed => self.changed = true,
            Signal::Failed(e) => errors.push(e),
            Signal::Woken => self.woken = true,
        }
    }
}

/// Wakes a `Follower` waiting in `next` (a caller that wants it to stop), from any thread.
#[derive(Clone)]
pub struct Waker(mpsc::Sender<Signal>);

impl Waker {
    pub fn wake(&self) {
        let _ = self.0.send(Signal::Woken);
    }
}

/// What a `Follower` watches for `paths`: each folder with its sub-folders, and each file through
/// its own folder.
fn watch_set(paths: &[PathBuf]) -> Vec<(PathBuf, RecursiveMode)> {
    let mut out: Vec<(PathBuf, RecursiveMode)> = Vec::new();
    for p in paths {
        let entry = if p.is_dir() {
            (p.clone(), RecursiveMode::Recursive)
        } else {
            // One tree of a store (`<store>/<session id>`): the store, and its `-wal` beside it.
            let p = arbor_core::bytes::rows::file_of(p);
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
        Follower::continuing(Live::open(paths, observer))
    }

    /// Start watching the paths of a `Live` read before (the app keeps the one its load read),
    /// going on from where it read to: nothing is read again. `Err` when the watcher cannot start.
    pub fn continuing(live: Live) -> Result<Follower, String> {
        let paths = live.paths().to_vec();
        let (tx, signals) = mpsc::channel();
        let wake = tx.clone();
        let watcher = notify::recommended_watcher(move |r: notify::Result<Event>| {
            let signal = match r {
                Ok(e) if !changes(&e) => return,
                Ok(_) => Signal::Changed,
                Err(e) => Signal::Failed(e.to_string()),
            };
            let _ = tx.send(signal);
        })
        .map_err(|e| format!("cannot watch files: {e}"))?;
        let mut f = Follower {
            live,
            watcher,
            signals,
            watching: Vec::new(),
            errors: Vec::new(),
            last_update: Duration::ZERO,
            wake,
        };
        f.watch(&paths);
        Ok(f)
    }

    fn watch(&mut self, paths: &[PathBuf]) {
        for (path, mode) in watch_set(paths) {
            if self.watching.iter().any(|(p, _)| p == &path) {
                continue;
            }
            match self.watcher.watch(&path, mode) {
                Ok(()) => self.watching.push((path, mode)),
                Err(e) => self.errors.push(format!("cannot watch {}: {e}", path.display())),
            }
        }
    }

    /// What wakes `next` before its time (it then returns `None` unless the files changed too).
    pub fn waker(&self) -> Waker {
        Waker(self.wake.clone())
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
    /// changed (`Live::update`). `None` when nothing happened in time, or when a `Waker` woke it;
    /// a change that read nothing (a file touched, another file of a watched folder) is not
    /// returned.
    pub fn next(&mut self, timeout: Duration, observer: &mut dyn Observer) -> Option<Change> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(first) = self.signals.recv_timeout(left) else { return None };
            let mut look = Look::default();
            look.note(first, &mut self.errors);
            // What else comes within the gathering time is part of the same look (a burst of
            // writes, a line written in pieces).
            if look.changed && !look.woken {
                let until = Instant::now() + GATHER;
                while let Ok(s) = self.signals.recv_timeout(until.saturating_duration_since(Instant::now())) {
                    look.note(s, &mut self.errors);
                }
            }
            for s in self.signals.try_iter() {
                look.note(s, &mut self.errors);
            }
            let Look { changed, woken } = look;
            if changed {
                let change = self.timed_update(observer);
                if !change.is_empty() {
                    return Some(change);
                }
            }
            if woken || Instant::now() >= deadline {
                return None;
            }
        }
    }

    /// Read what changed now, without waiting for an event (for a caller that knows).
    pub fn update(&mut self, observer: &mut dyn Observer) -> Change {
        self.timed_update(observer)
    }

    fn timed_update(&mut self, observer: &mut dyn Observer) -> Change {
        let began = Instant::now();
        let change = self.live.update(observer);
        self.last_update = began.elapsed();
        change
    }

    /// How long the last reading of what changed took.
    pub fn last_update(&self) -> Duration {
        self.last_update
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

    /// A Copilot `events.jsonl` in `dir` holding one `session.start`.
    fn session_start_log(dir: &std::path::Path) -> std::path::PathBuf {
        let path = dir.join("events.jsonl");
        std::fs::write(
            &path,
            "{\"type\":\"session.start\",\"data\":{\"sessionId\":\"s\"},\"id\":\"e0\",\"timestamp\":\"2026-10-01T10:00:00Z\"}\n",
        )
        .unwrap();
        path
    }

    /// Opening and reading a followed file, or listing its folder, is not a change: nothing is
    /// looked at (the engine's own reading would otherwise cause the next look, for ever).
    #[test]
    fn reading_a_followed_file_is_not_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = session_start_log(dir.path());
        let mut f = Follower::open(std::slice::from_ref(&path), &mut ()).unwrap();
        for _ in 0..3 {
            std::fs::read(&path).unwrap();
            std::fs::read_dir(dir.path()).unwrap().for_each(drop);
        }
        assert_eq!(f.next(Duration::from_millis(300), &mut ()), None);
        assert_eq!(f.last_update(), Duration::ZERO, "no look was taken");
        // A write is.
        std::fs::write(dir.path().join("other.txt"), b"x").unwrap();
        assert_eq!(f.next(Duration::from_millis(300), &mut ()), None, "another file read nothing");
        assert!(f.last_update() > Duration::ZERO, "but it was looked at");
    }

    /// A waker ends a wait at once, from another thread, and the next wait waits again; a
    /// follower made from a `Live` read before goes on from it.
    #[test]
    fn a_waker_ends_a_wait_and_a_live_read_before_is_gone_on_from() {
        let dir = tempfile::tempdir().unwrap();
        let path = session_start_log(dir.path());
        let live = Live::open(std::slice::from_ref(&path), &mut ());
        let read = live.files()[0].bytes;
        let mut f = Follower::continuing(live).unwrap();
        assert_eq!(f.live().files()[0].bytes, read);
        let waker = f.waker();
        let began = Instant::now();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            waker.wake();
        });
        assert_eq!(f.next(Duration::from_secs(30), &mut ()), None, "woken, nothing read");
        assert!(began.elapsed() < Duration::from_secs(10), "woken before its time: {:?}", began.elapsed());
        t.join().unwrap();
        let again = Instant::now();
        assert_eq!(f.next(Duration::from_millis(100), &mut ()), None);
        assert!(again.elapsed() >= Duration::from_millis(100), "a wait after it waits its time");
    }

    /// A followed file deleted and made again at its path is read again, and so are its writes
    /// after: it was once left unreadable for good (an `unreadable-input` that stayed, writes
    /// that read nothing).
    #[test]
    fn a_file_deleted_and_made_again_is_read_again_and_followed_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = session_start_log(dir.path());
        let mut f = Follower::open(std::slice::from_ref(&path), &mut ()).unwrap();
        let codes = |f: &Follower| {
            let r = f.live().snapshot().report();
            (r.inputs[0].records, r.diagnostics.iter().map(|d| d.code.to_string()).collect::<Vec<_>>())
        };
        std::fs::remove_file(&path).unwrap();
        let gone = f.next(Duration::from_secs(5), &mut ()).expect("the removal is seen");
        assert!(gone.rewritten, "{gone:?}");
        assert_eq!(codes(&f), (0, vec!["unreadable-input".to_owned(), "file-rewritten".to_owned()]));
        let prompt = |i: u32| {
            format!(
                "{{\"type\":\"user.message\",\"data\":{{\"content\":\"hi {i}\"}},\"id\":\"e{i}\",\"timestamp\":\"2026-10-01T10:00:0{i}Z\"}}\n"
            )
        };
        session_start_log(dir.path());
        use std::io::Write;
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(prompt(1).as_bytes()).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while codes(&f).0 < 2 && Instant::now() < deadline {
            f.next(Duration::from_millis(200), &mut ());
        }
        let (records, found) = codes(&f);
        assert_eq!(records, 2, "the new file is read: {found:?}");
        assert!(!found.iter().any(|c| c == "unreadable-input"), "{found:?}");
        // And followed on from there.
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(prompt(2).as_bytes()).unwrap();
        let change = f.next(Duration::from_secs(5), &mut ()).expect("the write is seen");
        assert!(change.reread.is_none() && change.grown.len() == 1, "{change:?}");
        assert_eq!(codes(&f).0, 3);
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
