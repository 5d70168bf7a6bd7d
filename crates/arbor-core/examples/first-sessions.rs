//! `first-sessions FILE [RUNS]` (an example of arbor-core; `bench/run` builds and runs it): how soon a viewer can show a log's first sessions. It
//! starts the engine's analysis as the app does (`arbor_core::analyze` with an observer), stops
//! at the first delta that names a session, and serialises that delta to JSON (what the app sends
//! over its IPC channel). Prints, for the median of RUNS (default 5) runs: milliseconds to that
//! delta, milliseconds including the JSON, the sessions and findings in it, and the bytes read.
//! The app adds its IPC and the first paint of the tree on top; those are not measured here.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use arbor_core::{Delta, Observer, Progress};

struct FirstSessions {
    start: Instant,
    found: Option<(Duration, Duration, usize, usize, u64, usize)>,
}

impl Observer for FirstSessions {
    fn progress(&mut self, _p: &Progress) -> bool {
        self.found.is_none()
    }

    fn delta(&mut self, d: Delta) -> bool {
        if d.sessions.is_empty() {
            return true;
        }
        let at = self.start.elapsed();
        let json = serde_json::to_vec(&d).expect("a delta serialises");
        let sent = self.start.elapsed();
        self.found = Some((at, sent, d.sessions.len(), d.findings.len(), d.progress.bytes_read, json.len()));
        false
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: first-sessions FILE [RUNS]");
        return ExitCode::from(2);
    };
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5).max(1);
    let mut seen = Vec::new();
    for _ in 0..runs {
        let mut observer = FirstSessions { start: Instant::now(), found: None };
        let _ = arbor_core::analyze(&[PathBuf::from(&path)], &mut observer);
        match observer.found {
            Some(found) => seen.push(found),
            None => {
                eprintln!("first-sessions: {path}: no session found");
                return ExitCode::from(1);
            }
        }
    }
    seen.sort_by_key(|f| f.1);
    let (at, sent, sessions, findings, bytes, json) = seen[seen.len() / 2];
    println!(
        "first sessions after {:.1} ms ({:.1} ms with the JSON): {sessions} sessions, {findings} findings, {json} bytes of JSON, {:.1} MB read",
        at.as_secs_f64() * 1e3,
        sent.as_secs_f64() * 1e3,
        bytes as f64 / 1e6
    );
    ExitCode::SUCCESS
}
