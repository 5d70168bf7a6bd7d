//! Hostile and broken inputs: each gives findings or a clear error, never a panic, and the rest of
//! the input still loads.

mod common;

use arbor_core::report::Outcome;
use std::fmt::Write;

const EV: &str = r#"{"method":"session.event","params":{"sessionId":"s","event":{"type":"session/title","seq":0,"time":1,"data":{}}}}"#;

#[test]
fn empty_and_binary_files_are_findings_not_failures() {
    let (_d, empty) = common::log("empty.jsonl", "");
    let r = common::report(&[empty]);
    assert_eq!(r.inputs[0].format, "unknown");
    assert_eq!(common::findings(&r), ["unknown-format@1"]);
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("blob.jsonl");
    std::fs::write(&bin, (0..=255u8).cycle().take(70_000).collect::<Vec<u8>>()).unwrap();
    let r = common::report(&[bin]);
    assert_eq!(common::findings(&r), ["unknown-format@1"]);
}

#[test]
fn invalid_utf8_and_garbage_lines_are_malformed_and_loading_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("run.jsonl");
    let mut bytes = format!("{EV}\n").into_bytes();
    bytes.extend_from_slice(b"{\"method\":\"session.status\",\"params\":{\"sessionId\":\"\xff\xfe\"}}\n");
    bytes.extend_from_slice(b"[1,2,3]\n\n   \n");
    bytes.extend_from_slice(format!("{}\n", EV.replace("\"seq\":0", "\"seq\":1")).as_bytes());
    std::fs::write(&p, bytes).unwrap();
    let r = common::report(&[p]);
    assert_eq!(common::findings(&r), ["malformed-line@2", "malformed-line@3"]);
    assert_eq!((r.inputs[0].records, r.inputs[0].bad_lines), (2, 2));
    assert!(r.diagnostics[0].message.contains("UTF-8"), "{}", r.diagnostics[0].message);
}

#[test]
fn a_file_cut_mid_line_ends_in_a_truncated_final_line() {
    let (_d, p) = common::log("run.jsonl", &format!("{EV}\n{}", &EV[..40]));
    let r = common::report(&[p]);
    assert_eq!(common::findings(&r), ["truncated-final-line@2"]);
    // A final line without newline that does parse is a record like any other.
    let (_d, p) = common::log("run.jsonl", &format!("{EV}\n{}", EV.replace("\"seq\":0", "\"seq\":1")));
    let r = common::report(&[p]);
    assert_eq!((r.inputs[0].records, r.diagnostics.len()), (2, 0));
}

#[test]
fn a_hundred_thousand_nested_sessions_do_not_overflow_the_stack() {
    let n = 100_000;
    let mut log = String::with_capacity(n * 120);
    log.push_str("{\"method\":\"session.status\",\"params\":{\"sessionId\":\"s0\",\"status\":\"running\"}}\n");
    for i in 1..n {
        writeln!(log, "{{\"method\":\"subagent.started\",\"params\":{{\"parentSessionId\":\"s{}\",\"childSessionId\":\"s{i}\"}}}}", i - 1).unwrap();
    }
    writeln!(log, "{{\"method\":\"session.status\",\"params\":{{\"sessionId\":\"s{}\",\"status\":\"idle\"}}}}", n - 1)
        .unwrap();
    log.push_str("{\"method\":\"session.status\",\"params\":{\"sessionId\":\"s0\",\"status\":\"idle\"}}\n");
    let (_d, p) = common::log("deep.jsonl", &log);
    let r = common::report(&[p]);
    assert_eq!(r.sessions.len(), n);
    let last = r.sessions.iter().find(|s| s.id == format!("s{}", n - 1)).unwrap();
    assert_eq!((last.root.as_deref(), last.depth), (Some("s0"), Some(n as u32 - 1)));
    assert_eq!(r.waits.len(), 1);
    assert_eq!(r.waits[0].notifications, Some(n as u64 + 2), "running, n-1 start edges, two idles");
    assert_eq!(
        r.waits[0].naive.notifications,
        Some(3),
        "a naive reader sees only the root's own and its direct child's start"
    );
}

#[test]
fn a_ten_thousand_long_cycle_is_reported_once_and_its_members_have_no_root() {
    let n = 10_000;
    let mut log = String::new();
    for i in 1..n {
        writeln!(log, "{{\"method\":\"subagent.started\",\"params\":{{\"parentSessionId\":\"c{}\",\"childSessionId\":\"c{i}\"}}}}", i - 1).unwrap();
    }
    writeln!(
        log,
        "{{\"method\":\"subagent.started\",\"params\":{{\"parentSessionId\":\"c{}\",\"childSessionId\":\"c0\"}}}}",
        n - 1
    )
    .unwrap();
    writeln!(log, "{{\"method\":\"session.status\",\"params\":{{\"sessionId\":\"c5000\",\"status\":\"idle\"}}}}")
        .unwrap();
    let (_d, p) = common::log("cycle.jsonl", &log);
    let r = common::report(&[p]);
    let codes: Vec<_> = r.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes.iter().filter(|c| **c == "ancestry-cycle").count(), 1);
    assert_eq!(codes.iter().filter(|c| **c == "unattributed-notification").count(), 1);
    assert!(r.sessions.iter().all(|s| s.root.is_none() && s.depth.is_none()));
    assert_eq!(r.sessions.len(), n);
}

#[test]
fn duplicate_start_edges_and_duplicate_finishes_settle_each_run_once() {
    let log = [
        r#"{"method":"subagent.started","params":{"parentSessionId":"p","childSessionId":"c"}}"#,
        r#"{"method":"subagent.started","params":{"parentSessionId":"p","childSessionId":"c"}}"#,
        r#"{"method":"subagent.finished","params":{"parentSessionId":"p","childSessionId":"c","status":"ok"}}"#,
        r#"{"method":"subagent.finished","params":{"parentSessionId":"p","childSessionId":"c","status":"error","stopReason":"aborted"}}"#,
        r#"{"method":"subagent.finished","params":{"parentSessionId":"p","childSessionId":"c","status":"ok"}}"#,
    ]
    .join("\n");
    let (_d, p) = common::log("dup.jsonl", &log);
    let r = common::report(&[p]);
    let c = r.sessions.iter().find(|s| s.id == "c").unwrap();
    let outcomes: Vec<_> = c.runs.iter().map(|r| (r.outcome, r.end.as_ref().map(|e| e.line))).collect();
    assert_eq!(outcomes, [(Outcome::Ok, Some(3)), (Outcome::Cancelled, Some(4))]);
    assert_eq!(common::findings(&r), ["child-id-reused@2", "stale-run-settled@3", "finished-without-start@5"]);
}

#[test]
fn a_folder_with_an_unreadable_file_still_loads_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.jsonl"), format!("{EV}\n")).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "ignored: not a log name").unwrap();
    // A dangling symlink stands for a file that cannot be opened, for root as for anyone.
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("missing"), dir.path().join("b.jsonl")).unwrap();
    let r = common::report(&[dir.path().to_path_buf()]);
    assert_eq!(r.inputs.iter().filter(|i| i.format == "dsh-rpc").count(), 1);
    assert_eq!(r.sessions.len(), 1);
    #[cfg(unix)]
    assert!(
        r.diagnostics.iter().any(|d| d.code == "unreadable-input" && d.at.file == "b.jsonl"),
        "{:?}",
        common::findings(&r)
    );
}

#[test]
fn a_missing_path_is_a_load_error_with_its_name() {
    let err = arbor_core::analyze_paths(&["/no/such/arbor/path.jsonl".into()]).unwrap_err();
    assert!(err.message.contains("/no/such/arbor/path.jsonl"), "{err}");
}

#[test]
fn zstd_logs_read_like_plain_ones_and_a_corrupt_one_is_a_finding() {
    let text = format!("{EV}\n{}\n", EV.replace("\"seq\":0", "\"seq\":1"));
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("run.jsonl.zst");
    std::fs::write(&good, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
    let r = common::report(&[good]);
    assert_eq!((r.inputs[0].format.as_str(), r.inputs[0].records), ("dsh-rpc", 2));
    // Corrupt the frame after its header: what was read stays, the rest is a finding.
    let mut big = String::new();
    for i in 0..20_000 {
        writeln!(big, "{}", EV.replace("\"seq\":0", &format!("\"seq\":{i}"))).unwrap();
    }
    let mut bytes = zstd::encode_all(big.as_bytes(), 1).unwrap();
    let mid = bytes.len() / 2;
    for b in &mut bytes[mid..mid + 64] {
        *b ^= 0x5a;
    }
    let bad = dir.path().join("bad.jsonl.zst");
    std::fs::write(&bad, bytes).unwrap();
    let r = common::report(&[bad]);
    assert!(
        r.diagnostics.iter().any(|d| d.code == "unreadable-input" || d.code == "malformed-line"),
        "{:?}",
        common::findings(&r)
    );
}

#[test]
fn log_text_with_markup_and_escapes_is_kept_verbatim_as_data() {
    let text = "<script>alert(1)</script><img src=x onerror=alert(2)> \u{1b}[31m [x](javascript:alert(3))";
    let msg = serde_json::json!({"method":"session.event","params":{"sessionId":"s","event":{"type":"assistant/message","seq":0,"data":{"turn":1,"step":1,"message":{"content":[{"type":"text","text":text}]}}}}});
    let start = r#"{"method":"session.event","params":{"sessionId":"s","event":{"type":"turn/start","seq":-2,"data":{"turn":1}}}}"#;
    let step = r#"{"method":"session.event","params":{"sessionId":"s","event":{"type":"step/start","seq":-1,"data":{"turn":1,"step":1}}}}"#;
    let (_d, p) = common::log("x.jsonl", &format!("{start}\n{step}\n{msg}\n"));
    let r = common::report(&[p]);
    assert_eq!(r.replies[0].text, text);
}
