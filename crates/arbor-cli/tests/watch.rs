//! `arbor watch` in a script, beside a log being written: it prints each finding once as it is
//! found, and new sessions, settled runs and ended turns with --json, and withdraws what a later
//! reading no longer finds; it exits when the logs stop growing for --idle with `arbor check`'s
//! status; what stands of what it printed is what `arbor check` finds in the finished files.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases").join(name).join("input")
}

/// (code, file, line) of each finding `arbor check --format json` reports.
fn checked(dir: &Path) -> BTreeSet<(String, String, u64)> {
    let out = Command::new(env!("CARGO_BIN_EXE_arbor")).args(["check", "--format", "json"]).arg(dir).output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["at"]["file"].as_str().unwrap().to_owned(),
                d["at"]["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn watch_prints_what_is_written_as_it_comes_and_exits_like_check() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let sample = case("builtin-sample");
    let files: Vec<(String, String)> = ["delegation.jsonl", "copilot-sdk.jsonl"]
        .iter()
        .map(|n| (n.to_string(), std::fs::read_to_string(sample.join(n)).unwrap()))
        .collect();
    // The first file's first lines are there when watching starts; the second appears later.
    let first: Vec<&str> = files[0].1.split_inclusive('\n').collect();
    std::fs::write(logs.join(&files[0].0), first[..5].concat()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["watch", "--json", "--idle", "1500ms"])
        .arg(&logs)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader =
        std::thread::spawn(move || std::io::BufReader::new(stdout).lines().map(Result::unwrap).collect::<Vec<_>>());
    std::thread::sleep(Duration::from_millis(300));
    let append = |name: &str, text: &str| {
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(logs.join(name)).unwrap();
        f.write_all(text.as_bytes()).unwrap();
    };
    for (i, line) in first[5..].iter().enumerate() {
        // Some lines in two pieces, as a writer may leave them.
        if i % 7 == 0 {
            let (a, b) = line.split_at(line.len() / 2);
            append(&files[0].0, a);
            std::thread::sleep(Duration::from_millis(5));
            append(&files[0].0, b);
        } else {
            append(&files[0].0, line);
        }
        if i % 10 == 0 {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    for line in files[1].1.split_inclusive('\n') {
        append(&files[1].0, line);
    }
    let status = child.wait().unwrap();
    let lines = reader.join().unwrap();
    let events: Vec<serde_json::Value> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    // What a consumer holds once it applied each withdrawal.
    let events = standing(&events);
    let kinds = |k: &str| events.iter().filter(|e| e["event"] == k).count();
    // Every session once, every run settled once, and each finding once.
    let report: serde_json::Value = serde_json::from_slice(
        &Command::new(env!("CARGO_BIN_EXE_arbor")).args(["analyze", "--json"]).arg(&logs).output().unwrap().stdout,
    )
    .unwrap();
    assert_eq!(kinds("session"), report["sessions"].as_array().unwrap().len(), "{lines:#?}");
    let settled = report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["runs"].as_array().unwrap())
        .filter(|r| r["outcome"] != "open")
        .count();
    assert_eq!(kinds("run"), settled);
    let watched: BTreeSet<(String, String, u64)> = events
        .iter()
        .filter(|e| e["event"] == "finding")
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["at"]["file"].as_str().unwrap().to_owned(),
                d["at"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(watched.len(), kinds("finding"), "each finding is printed once");
    assert_eq!(watched, checked(&logs), "what watch printed is what check finds");
    // The sample's findings are warnings and infos: check exits 0, and so does watch.
    let check_status = Command::new(env!("CARGO_BIN_EXE_arbor")).arg("check").arg(&logs).status().unwrap();
    assert_eq!(status.code(), check_status.code());
    assert!(kinds("turn") > 0);
}

#[test]
fn watch_fails_on_errors_as_check_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    std::fs::copy(case("dsh-rpc-bad-ancestry").join("run.jsonl"), &path).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_arbor")).args(["watch", "--idle", "200ms"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("ancestry-cycle"), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["watch", "--idle", "200ms", "--fail-on", "never"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// A watched file deleted and made again at its path is read again, its writes keep watch from
/// going idle, and watch exits as check does on the new file: it once printed `unreadable-input`
/// for good and exited 2.
#[test]
fn watch_reads_a_file_deleted_and_made_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("delegation.jsonl");
    let text = std::fs::read_to_string(case("builtin-sample").join("delegation.jsonl")).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    std::fs::write(&path, lines[..3].concat()).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["watch", "--json", "--idle", "1s"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    std::fs::remove_file(&path).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // Written in pieces more often than --idle: it must not go idle while they come.
    let mut f = std::fs::File::create(&path).unwrap();
    for chunk in lines.chunks(lines.len().div_ceil(4)) {
        f.write_all(chunk.concat().as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(600));
    }
    drop(f);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let events: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let report: serde_json::Value = serde_json::from_slice(
        &Command::new(env!("CARGO_BIN_EXE_arbor")).args(["analyze", "--json"]).arg(&path).output().unwrap().stdout,
    )
    .unwrap();
    let sessions = events.iter().filter(|e| e["event"] == "session").count();
    assert!(stderr.contains("was made again"), "{stderr}");
    assert!(sessions >= report["sessions"].as_array().unwrap().len(), "{events:#?}");
    // The input unreadable while it was made again was withdrawn once it was read again.
    let stand = standing(&events);
    assert!(!stand.iter().any(|e| e["event"] == "finding" && e["code"] == "unreadable-input"), "{events:#?}");
    // The new file's reading decides the status, not the unreadable input it was for a while.
    let check = Command::new(env!("CARGO_BIN_EXE_arbor")).arg("check").arg(&path).status().unwrap();
    assert_eq!(out.status.code(), check.code(), "{stderr}\n{events:#?}");
    assert_ne!(out.status.code(), Some(2), "{stderr}");
}

/// The events that stand once each `withdrawn` event has taken back the one it names.
fn standing(events: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let mut out: Vec<serde_json::Value> = Vec::new();
    for e in events {
        if e["event"] == "withdrawn" {
            let i = out.iter().position(|x| *x == e["withdrawn"]);
            assert!(i.is_some(), "a withdrawal of nothing printed: {e}");
            out.remove(i.unwrap());
        } else {
            out.push(e.clone());
        }
    }
    out
}

/// `arbor watch --json` on `path` while `write` writes it, then its events and exit status.
fn watched(path: &Path, idle: &str, write: impl FnOnce()) -> (Vec<serde_json::Value>, Option<i32>) {
    let child = Command::new(env!("CARGO_BIN_EXE_arbor"))
        .args(["watch", "--json", "--idle", idle])
        .arg(path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    write();
    let out = child.wait_with_output().unwrap();
    let events = String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (events, out.status.code())
}

/// A file truncated to nothing and written again (copytruncate rotation): while it was empty it
/// was in no known format, and that finding is withdrawn once it is read again, so that what
/// stands is what `arbor check` finds in the final file, and the exit status is check's. Once the
/// `unknown-format` warning stayed, printed as final.
#[test]
fn watch_withdraws_what_a_file_truncated_and_written_again_no_longer_has() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let text = std::fs::read_to_string(case("builtin-sample").join("delegation.jsonl")).unwrap();
    std::fs::write(&path, &text).unwrap();
    let (events, status) = watched(&path, "1s", || {
        std::fs::File::create(&path).unwrap();
        std::thread::sleep(Duration::from_millis(500));
        std::fs::write(&path, &text).unwrap();
    });
    let codes = |e: &[serde_json::Value]| -> BTreeSet<(String, String, u64)> {
        e.iter()
            .filter(|e| e["event"] == "finding")
            .map(|d| {
                let at = &d["at"];
                (
                    d["code"].as_str().unwrap().to_owned(),
                    at["file"].as_str().unwrap().to_owned(),
                    at["line"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let all = codes(&events);
    assert!(all.iter().any(|c| c.0 == "unknown-format"), "the empty file was seen: {events:#?}");
    let stand = standing(&events);
    let mut check: BTreeSet<(String, String, u64)> = checked(&path);
    // check names the file as given; watch as given too.
    check = check.into_iter().map(|(c, _, l)| (c, path.to_str().unwrap().to_owned(), l)).collect();
    // Beside what check finds, the info that the file was read again (it was, while followed).
    let stood: BTreeSet<_> = codes(&stand)
        .into_iter()
        .filter(|(c, ..)| c != "file-rewritten")
        .map(|(c, _, l)| (c, path.to_str().unwrap().to_owned(), l))
        .collect();
    assert_eq!(stood, check, "{events:#?}");
    let check_status = Command::new(env!("CARGO_BIN_EXE_arbor")).arg("check").arg(&path).status().unwrap();
    assert_eq!(status, check_status.code());
}

/// A turn whose end moves as its log grows (a Claude Code turn ends at its last line) is printed
/// once, when it can end no later: once each move printed it again as a new final turn.
#[test]
fn watch_prints_each_turn_once_when_its_end_is_settled() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s-u.jsonl");
    let text = std::fs::read_to_string(case("claude-code-turns-usage").join("s-u.jsonl")).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    std::fs::write(&path, lines[0]).unwrap();
    let (events, _) = watched(&path, "800ms", || {
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        for l in &lines[1..] {
            f.write_all(l.as_bytes()).unwrap();
            f.flush().unwrap();
            std::thread::sleep(Duration::from_millis(60));
        }
    });
    let report: serde_json::Value = serde_json::from_slice(
        &Command::new(env!("CARGO_BIN_EXE_arbor")).args(["analyze", "--json"]).arg(&path).output().unwrap().stdout,
    )
    .unwrap();
    let turns: Vec<&serde_json::Value> = events.iter().filter(|e| e["event"] == "turn").collect();
    let want: Vec<(String, serde_json::Value)> = report["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["turn"].to_string().trim_matches('"').to_owned(), t["end"]["line"].clone()))
        .collect();
    let got: Vec<(String, serde_json::Value)> =
        turns.iter().map(|t| (t["turn"].as_str().unwrap().to_owned(), t["end"]["line"].clone())).collect();
    assert_eq!(got, want, "{events:#?}");
    assert_eq!(standing(&events).len(), events.iter().filter(|e| e["event"] != "withdrawn").count());
}
