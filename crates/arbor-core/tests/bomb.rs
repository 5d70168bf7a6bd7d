//! Memory under a zstd bomb, in a test binary of its own: peak RSS is per process, and cargo runs
//! test binaries one at a time, so no other test's memory is counted here.

/// The process's peak resident memory, in bytes (Linux).
#[cfg(target_os = "linux")]
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb * 1024
}

/// A 16 KB file that expands to 512 MB of one line with no newline (four times the cap). Lines longer than
/// `reader::MAX_LINE` are skipped without being held, so memory stays bounded and the line is a
/// finding, not lost.
#[cfg(target_os = "linux")]
#[test]
fn a_zstd_bomb_of_one_endless_line_loads_in_bounded_memory() {
    let frame = zstd::encode_all(&vec![b'a'; 64 << 20][..], 19).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bomb.jsonl.zst");
    // Eight concatenated frames decode as one stream: 512 MB of `a`, one line.
    std::fs::write(&p, frame.repeat(8)).unwrap();
    assert!(std::fs::metadata(&p).unwrap().len() < 64 << 10);
    let before = peak_rss();
    let a = arbor_core::analyze(std::slice::from_ref(&p), &mut ());
    let grew = peak_rss().saturating_sub(before);
    let r = a.report();
    assert_eq!(r.inputs[0].format, "unknown", "one skipped line is no known format");
    assert_eq!(r.inputs[0].bytes, 512 << 20, "the whole stream was read through");
    assert!(grew < 200 << 20, "loading a {} KB file took {} MB more memory", (frame.len() * 8) >> 10, grew >> 20);
}

/// Overlong lines inside a known format are malformed-line findings, and the lines around them load.
#[test]
fn an_overlong_line_between_records_is_a_finding_and_the_rest_loads() {
    let ev = r#"{"method":"session.status","params":{"sessionId":"s","status":"running"}}"#;
    let mut text = format!("{ev}\n");
    text.push_str(&"x".repeat(arbor_core::reader::MAX_LINE + 10));
    text.push('\n');
    text.push_str(ev);
    text.push('\n');
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("run.jsonl");
    std::fs::write(&p, text).unwrap();
    let r = arbor_core::analyze(std::slice::from_ref(&p), &mut ()).report();
    assert_eq!((r.inputs[0].records, r.inputs[0].bad_lines), (2, 1));
    let codes: Vec<_> = r.diagnostics.iter().map(|d| (d.code.as_str(), d.at.line)).collect();
    assert_eq!(codes, [("malformed-line", 2)]);
    assert!(r.diagnostics[0].message.contains("longer than"));
}
