//! `arbor-gen --live RATE` writes every format's log as a running agent does (issue #30): the
//! files under `-o` grow line by line, and end equal to the log the same options write at once.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Every file under `dir` (or `dir` itself), relative, with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                out.push((p.strip_prefix(dir).unwrap().to_path_buf(), bytes));
            }
        }
    }
    out.sort();
    out
}

fn lines(files: &[(PathBuf, Vec<u8>)]) -> usize {
    files.iter().map(|(_, b)| b.iter().filter(|&&c| c == b'\n').count()).sum()
}

fn gen(format: &str, out: &Path, live: Option<&str>) -> std::process::Child {
    let mut c = Command::new(env!("CARGO_BIN_EXE_arbor-gen"));
    c.args(["--format", format, "--size", "48K", "--seed", "3", "-o"]).arg(out);
    if let Some(rate) = live {
        c.args(["--live", rate]);
    }
    c.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("arbor-gen runs")
}

#[test]
fn every_format_grows_at_its_rate_and_ends_as_the_whole_log() {
    for format in ["claude-code", "claude-code-inline", "codex", "gemini-cli", "dsh-session-folder", "dsh-rpc"] {
        let tmp = tempfile::tempdir().unwrap();
        let whole = tmp.path().join("whole");
        let grown = tmp.path().join("grown");
        let out = gen(format, &whole, None).wait_with_output().unwrap();
        assert!(out.status.success(), "{format}: {}", String::from_utf8_lossy(&out.stderr));
        let want = if whole.is_dir() { files(&whole) } else { vec![(PathBuf::new(), std::fs::read(&whole).unwrap())] };
        let total = lines(&want);
        assert!(total > 20, "{format}: {total} lines");

        // Fast enough for a test, slow enough that the log is seen part written.
        let mut child = gen(format, &grown, Some("500"));
        let mut seen_part = false;
        while child.try_wait().unwrap().is_none() {
            let now = if grown.is_dir() {
                lines(&files(&grown))
            } else {
                std::fs::read(&grown).map_or(0, |b| lines(&[(PathBuf::new(), b)]))
            };
            seen_part |= now > 0 && now < total;
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{format}: {err}");
        // Only the live writer says so (a sidecar without a newline counts as a line).
        assert!(err.contains("arbor-gen: wrote "), "{format}: {err}");
        assert!(seen_part, "{format}: the log under -o was never seen part written");
        let got = if grown.is_dir() { files(&grown) } else { vec![(PathBuf::new(), std::fs::read(&grown).unwrap())] };
        assert_eq!(got, want, "{format}: the live log ends as the whole one");
    }
}
