//! `follow-bench ARBOR [BIG_LOG]`: what following costs (SPEC 5 Follow; BENCHMARKS.md).
//!
//! 1. Latency: writes a Copilot log at 1,000 lines a second for 10 s while `ARBOR watch --json`
//!    follows it; every 50th line is broken (a `malformed-line` finding at its line), and the time
//!    from each such line's write to its finding on watch's output is a latency sample. Prints
//!    p50, p95, max.
//! 2. Idle: the CPU time `arbor watch` uses over 5 s while nothing is written.
//! 3. With BIG_LOG (a large log): reads it to follow, appends 10 MB of its own lines to a copy,
//!    and times the update (what was appended is read) against analyzing 10 MB alone, and the
//!    snapshot after it.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn line(i: u64, broken: bool) -> String {
    if broken {
        return format!("{{\"type\":\"assistant.message\",\"data\":{{\"content\":\"cut {i}\"\n");
    }
    format!(
        "{{\"type\":\"assistant.message\",\"data\":{{\"content\":\"line {i} of a running agent\"}},\"id\":\"e{i}\",\"timestamp\":\"2026-10-01T10:{:02}:{:02}Z\"}}\n",
        (i / 60) % 60,
        i % 60
    )
}

fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of /proc/PID/stat (11 and 12 after the name).
    (ticks(11) + ticks(12)) / 100.0
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted.get(((sorted.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN)
}

fn latency(arbor: &Path) {
    let dir = std::env::temp_dir().join(format!("follow-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("events.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(b"{\"type\":\"session.start\",\"data\":{\"sessionId\":\"bench\"},\"id\":\"e0\",\"timestamp\":\"2026-10-01T10:00:00Z\"}\n").unwrap();
    let mut child = Command::new(arbor)
        .args(["watch", "--json", "--fail-on", "never"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let seen: Arc<Mutex<Vec<(u64, Instant)>>> = Arc::default();
    let reader = {
        let seen = seen.clone();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(out).lines() {
                let Ok(l) = l else { break };
                let v: serde_json::Value = serde_json::from_str(&l).unwrap_or_default();
                if v["event"] == "finding" && v["code"] == "malformed-line" {
                    seen.lock().unwrap().push((v["at"]["line"].as_u64().unwrap_or(0), Instant::now()));
                }
            }
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    let mut written: Vec<(u64, Instant)> = Vec::new();
    let start = Instant::now();
    for i in 1..=10_000u64 {
        let broken = i % 50 == 0;
        f.write_all(line(i, broken).as_bytes()).unwrap();
        f.flush().unwrap();
        if broken {
            // Line numbers are 1-based and line 1 is the session start.
            written.push((i + 1, Instant::now()));
        }
        let due = start + Duration::from_micros(i * 1000);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    let pid = child.id();
    let before = cpu_seconds(pid);
    std::thread::sleep(Duration::from_secs(5));
    let idle = cpu_seconds(pid) - before;
    let _ = Command::new("kill").arg("-INT").arg(pid.to_string()).status();
    let _ = child.wait();
    let _ = reader.join();
    let seen = seen.lock().unwrap();
    let mut lat: Vec<f64> = written
        .iter()
        .filter_map(|(line, at)| {
            seen.iter().find(|(l, _)| l == line).map(|(_, t)| t.duration_since(*at).as_secs_f64() * 1000.0)
        })
        .collect();
    lat.sort_by(f64::total_cmp);
    println!(
        "follow latency (write -> arbor watch output), 1000 lines/s for 10 s: {} of {} findings seen; p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        lat.len(),
        written.len(),
        pct(&lat, 0.5),
        pct(&lat, 0.95),
        lat.last().copied().unwrap_or(f64::NAN)
    );
    println!("idle: arbor watch used {:.3} s of CPU in 5 s with nothing written", idle);
    let _ = std::fs::remove_dir_all(&dir);
}

fn big(log: &Path) {
    let dir = std::env::temp_dir().join(format!("follow-bench-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join(log.file_name().unwrap());
    std::fs::copy(log, &copy).unwrap();
    // 10 MB of the log's own lines, from its start (the same shapes, later ids are reused).
    let text = std::fs::read(log).unwrap();
    let mut cut = (10 << 20).min(text.len());
    while cut < text.len() && text[cut - 1] != b'\n' {
        cut += 1;
    }
    let piece = &text[..cut];
    let small = dir.join("piece.jsonl");
    std::fs::write(&small, piece).unwrap();
    let t = Instant::now();
    let a = arbor_core::analyze(std::slice::from_ref(&small), &mut ());
    let alone = t.elapsed();
    drop(a);
    let t = Instant::now();
    let mut live = arbor_core::live::Live::open(std::slice::from_ref(&copy), &mut ());
    let open = t.elapsed();
    std::fs::OpenOptions::new().append(true).open(&copy).unwrap().write_all(piece).unwrap();
    let t = Instant::now();
    let change = live.update(&mut ());
    let update = t.elapsed();
    let t = Instant::now();
    let snap = live.snapshot();
    let snapshot = t.elapsed();
    drop(snap);
    println!(
        "{}: open {:.2} s; 10 MB appended: update {:.3} s ({} bytes read), against analyzing those 10 MB alone {:.3} s; a snapshot after it {:.3} s",
        log.display(),
        open.as_secs_f64(),
        update.as_secs_f64(),
        change.bytes,
        alone.as_secs_f64(),
        snapshot.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let Some(arbor) = args.first() else {
        eprintln!("usage: follow-bench ARBOR [BIG_LOG]");
        std::process::exit(2);
    };
    latency(arbor);
    if let Some(log) = args.get(1) {
        big(log);
    }
}
