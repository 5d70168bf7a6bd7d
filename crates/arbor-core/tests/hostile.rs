//! Hostile and broken inputs: each gives findings or a clear error, never a panic, and the rest of
//! the input still loads.

use crate::common;

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
fn an_object_the_shapes_refuse_says_why_not_that_it_is_no_object() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("run.jsonl");
    let lines = [
        EV.to_owned(),
        r#"{"method":"session.status","method":"x"}"#.to_owned(),
        r#"{"method":"session.status","params":{"sessionId":"s1"},"seq":1e400}"#.to_owned(),
        "[1]".to_owned(),
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let r = common::report(&[p]);
    assert_eq!(common::findings(&r), ["malformed-line@2", "malformed-line@3", "malformed-line@4"]);
    let m: Vec<&str> = r.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(m[0].starts_with("the line is a JSON object that cannot be read: duplicate field `method`"), "{}", m[0]);
    assert!(m[1].starts_with("the line is a JSON object that cannot be read: number out of range"), "{}", m[1]);
    assert_eq!(m[2], "the line is JSON but not an object");
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

// ---------------------------------------------------------------------------------------------
// Sizes, nesting, encodings and folder shapes (issue 7). Each input also passes `nothing_lost`.
// ---------------------------------------------------------------------------------------------

/// The decompressed bytes of a file, plain or zstd.
fn contents(path: &std::path::Path) -> Vec<u8> {
    let raw = std::fs::read(path).unwrap();
    if raw.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
        zstd::decode_all(&raw[..]).unwrap_or_default()
    } else {
        raw
    }
}

/// "Nothing is lost": every non-blank line of a file in a known format is a record or a bad line,
/// and the record index holds exactly the records the inputs count.
fn nothing_lost(paths: &[std::path::PathBuf]) -> arbor_core::report::Report {
    let a = arbor_core::analyze(paths, &mut ());
    let r = a.report();
    for (input, file) in r.inputs.iter().zip(&a.files) {
        if input.format == "unknown" {
            continue;
        }
        let lines = fuzz_targets::record_count(&contents(&file.path));
        fuzz_targets::lines_kept(&input.format, input.records + input.bad_lines, lines, &input.file);
        let bad = r
            .diagnostics
            .iter()
            .filter(|d| d.at.file == input.file && (d.code == "malformed-line" || d.code == "truncated-final-line"))
            .count() as u64;
        assert_eq!(bad, input.bad_lines, "{}: bad lines and their findings disagree", input.file);
    }
    assert_eq!(a.records().len() as u64, r.inputs.iter().map(|i| i.records).sum::<u64>());
    r
}

#[test]
fn a_hundred_megabyte_line_is_one_record() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.jsonl");
    let filler = "x".repeat(100 << 20);
    let big = format!(
        r#"{{"method":"session.event","params":{{"sessionId":"s","event":{{"type":"session/title","seq":1,"time":2,"data":{{"title":"{filler}"}}}}}}}}"#
    );
    drop(filler);
    std::fs::write(&p, format!("{EV}\n{big}\n")).unwrap();
    drop(big);
    let r = nothing_lost(std::slice::from_ref(&p));
    assert_eq!((r.inputs[0].records, r.inputs[0].bad_lines), (2, 0));
    assert!(r.diagnostics.is_empty(), "{:?}", common::findings(&r));
    // The same size of garbage is one malformed line, and the line after it still loads.
    let garbage = "{".to_owned() + &"y".repeat(100 << 20);
    std::fs::write(&p, format!("{EV}\n{garbage}\n{}\n", EV.replace("\"seq\":0", "\"seq\":2"))).unwrap();
    drop(garbage);
    let r = nothing_lost(&[p]);
    assert_eq!(common::findings(&r), ["malformed-line@2"]);
    assert_eq!(r.inputs[0].records, 2);
}

#[test]
fn a_zstd_log_a_hundred_times_smaller_than_its_text_loads_whole() {
    let n = 300_000;
    let line = "{\"method\":\"session.status\",\"params\":{\"sessionId\":\"s\",\"status\":\"running\"}}\n";
    let text = line.repeat(n);
    let packed = zstd::encode_all(text.as_bytes(), 19).unwrap();
    assert!(packed.len() * 100 <= text.len(), "{} -> {}: not a 100x expansion", text.len(), packed.len());
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bomb.jsonl.zst");
    std::fs::write(&p, &packed).unwrap();
    let r = nothing_lost(&[p]);
    assert_eq!((r.inputs[0].records, r.inputs[0].bytes), (n as u64, text.len() as u64));
    assert_eq!(r.waits.len(), 1);
    assert_eq!(r.waits[0].notifications, Some(n as u64));
}

#[test]
fn duplicate_session_ids_across_dsh_session_files_load_as_one_session() {
    let dir = tempfile::tempdir().unwrap();
    let root = r#"{"type":"session","version":0,"id":"r"}
{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}
{"type":"turn/end","seq":1,"time":2,"data":{"turn":1,"reason":{"kind":"completed"}}}
"#;
    let child = |n: u32| {
        format!(
            r#"{{"type":"session","version":0,"id":"c","parentSession":"r","origin":"subagent","delegationDepth":1}}
{{"type":"turn/start","seq":0,"time":{n},"data":{{"turn":1}}}}
{{"type":"turn/end","seq":1,"time":{n},"data":{{"turn":1,"reason":{{"kind":"completed"}}}}}}
"#
        )
    };
    std::fs::write(dir.path().join("root.jsonl"), root).unwrap();
    std::fs::write(dir.path().join("c-one.jsonl"), child(10)).unwrap();
    std::fs::write(dir.path().join("c-two.jsonl"), child(20)).unwrap();
    let r = nothing_lost(&[dir.path().to_path_buf()]);
    assert_eq!(r.inputs.iter().filter(|i| i.format == "dsh-session").count(), 3);
    let ids: Vec<&str> = r.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids.iter().filter(|i| **i == "c").count(), 1, "one session per id: {ids:?}");
    let c = r.sessions.iter().find(|s| s.id == "c").unwrap();
    assert_eq!((c.parent.as_deref(), c.root.as_deref(), c.depth), (Some("r"), Some("r"), Some(1)));
    // Both files' turns are kept, each at its own file.
    let files: Vec<&str> =
        r.turns.iter().filter(|t| t.session == "c").map(|t| t.start.as_ref().unwrap().file.as_str()).collect();
    assert_eq!(files, ["c-one.jsonl", "c-two.jsonl"]);
}

#[cfg(unix)]
#[test]
fn a_folder_with_symlink_loops_is_walked_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("sub")).unwrap();
    std::fs::write(d.join("a.jsonl"), format!("{EV}\n")).unwrap();
    std::fs::write(d.join("sub/b.jsonl"), format!("{}\n", EV.replace("\"s\"", "\"t\""))).unwrap();
    // A link back up, a link to itself named like a folder, one named like a log, and a file link
    // that points at itself (ELOOP when opened).
    std::os::unix::fs::symlink(d, d.join("sub/up")).unwrap();
    std::os::unix::fs::symlink(d.join("sub"), d.join("sub/again.jsonl")).unwrap();
    std::os::unix::fs::symlink("loop", d.join("sub/loop")).unwrap();
    std::os::unix::fs::symlink("self.jsonl", d.join("self.jsonl")).unwrap();
    let r = nothing_lost(&[d.to_path_buf()]);
    let loaded: Vec<&str> = r.inputs.iter().filter(|i| i.format == "dsh-rpc").map(|i| i.file.as_str()).collect();
    assert_eq!(loaded, ["a.jsonl", "sub/b.jsonl"]);
    assert!(
        r.diagnostics.iter().any(|d| d.code == "unreadable-input" && d.at.file == "self.jsonl"),
        "{:?}",
        r.diagnostics
    );
    assert_eq!(r.sessions.len(), 2);
}

#[test]
fn an_events_jsonl_full_of_nul_bytes_is_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("events.jsonl");
    std::fs::write(&p, vec![0u8; 1 << 20]).unwrap();
    let r = nothing_lost(std::slice::from_ref(&p));
    assert_eq!(r.inputs[0].format, "unknown");
    assert_eq!(common::findings(&r), ["unknown-format@1"]);
    // After a decisive line, NUL lines are malformed lines and loading goes on.
    let user = r#"{"type":"user.message","data":{"content":"hi"},"id":"e1","timestamp":"2026-09-12T00:00:01Z","parentId":null}"#;
    let reply = r#"{"type":"assistant.message","data":{"content":"yo"},"id":"e2","timestamp":"2026-09-12T00:00:02Z","parentId":"e1"}"#;
    let mut bytes = format!("{user}\n").into_bytes();
    bytes.extend_from_slice(&[0u8; 4096]);
    bytes.extend_from_slice(b"\n\0\n");
    bytes.extend_from_slice(format!("{reply}\n").as_bytes());
    std::fs::write(&p, bytes).unwrap();
    let r = nothing_lost(&[p]);
    assert_eq!(r.inputs[0].format, "copilot-events");
    assert_eq!(common::findings(&r), ["malformed-line@2", "malformed-line@3"]);
    assert_eq!(r.waits[0].reply.as_deref(), Some("yo"));
}

#[test]
fn crlf_line_endings_read_like_lf() {
    let dir = common::repo().join("tests/conformance/cases/dsh-rpc-reused-child-id/input");
    let lf = std::fs::read_to_string(dir.join("run.jsonl")).unwrap().replace("\r\n", "\n");
    // Opened as folders, both files are named `run.jsonl` in the reports.
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(a.path().join("run.jsonl"), &lf).unwrap();
    std::fs::write(b.path().join("run.jsonl"), lf.replace('\n', "\r\n")).unwrap();
    let (ra, rb) = (nothing_lost(&[a.path().to_path_buf()]), nothing_lost(&[b.path().to_path_buf()]));
    assert!(ra.inputs[0].records > 0);
    assert_eq!(ra.sessions, rb.sessions);
    assert_eq!(ra.turns, rb.turns);
    assert_eq!(ra.waits, rb.waits);
    assert_eq!(ra.replies, rb.replies);
    assert_eq!(common::findings(&ra), common::findings(&rb));
    assert_eq!(ra.inputs[0].records, rb.inputs[0].records);
}

/// serde_json skips values it does not keep (unknown fields, `RawValue`s, lenient fields) without
/// recursion, and stops at depth 128 where it does recurse: a balanced object nested 100k deep is
/// an object like any other (a record), an unbalanced one is a malformed line, and neither
/// overflows the stack.
#[test]
fn deeply_nested_json_is_a_record_or_a_malformed_line_not_a_stack_overflow() {
    let deep = 100_000;
    let arrays = "[".repeat(deep);
    let closed = "]".repeat(deep);
    let objects = "{\"a\":".repeat(deep);
    let braces = "}".repeat(deep);
    let lines = [
        EV.to_owned(),
        // Unbalanced: malformed.
        format!("{{\"a\":{arrays}"),
        // Balanced, at the top level, in arrays and in objects: records.
        format!("{{\"a\":{arrays}{closed}}}"),
        format!("{objects}1{braces}"),
        // Balanced, inside the payloads the format modules read.
        format!(
            r#"{{"method":"session.event","params":{{"sessionId":"s","event":{{"type":"session/title","seq":5,"data":{{"x":{arrays}{closed}}}}}}}}}"#
        ),
        format!(r#"{{"method":"session.status","params":{{"sessionId":"s","status":{objects}1{braces}}}}}"#),
        format!(
            r#"{{"method":"session.event","params":{{"sessionId":"s","event":{{"type":"assistant/message","seq":6,"data":{{"message":{{"content":[{{"type":"text","text":{arrays}{closed}}}]}}}}}}}}}}"#
        ),
        // Not an object at all: malformed.
        arrays.clone(),
        // Unbalanced inside a payload: the line is not JSON.
        format!(r#"{{"method":"session.event","params":{{"sessionId":"s","event":{{"type":"x/y","data":{arrays}"#),
        EV.replace("\"seq\":0", "\"seq\":9"),
    ];
    let (_d, p) = common::log("deep.jsonl", &(lines.join("\n") + "\n"));
    let r = nothing_lost(&[p]);
    assert_eq!(r.inputs[0].format, "dsh-rpc");
    let malformed: Vec<String> = common::findings(&r).into_iter().filter(|f| f.starts_with("malformed-line")).collect();
    assert_eq!(malformed, ["malformed-line@2", "malformed-line@8", "malformed-line@9"]);
    assert_eq!(r.inputs[0].records, 7);
}

/// Every log the project ships (corpus, conformance inputs, fuzz regressions), plain and
/// recompressed as zstd: nothing is lost.
#[test]
fn nothing_is_lost_in_any_shipped_log_plain_or_zstd() {
    let tmp = tempfile::tempdir().unwrap();
    let mut files = 0;
    for p in common::files_under(&common::shipped_log_dirs()) {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name == "expected.json" || name.ends_with(".md") {
            continue;
        }
        files += 1;
        nothing_lost(std::slice::from_ref(&p));
        let z = tmp.path().join(format!("{files}-{name}.zst"));
        std::fs::write(&z, zstd::encode_all(&contents(&p)[..], 3).unwrap()).unwrap();
        let (plain, packed) = (nothing_lost(std::slice::from_ref(&p)), nothing_lost(&[z]));
        assert_eq!(
            (plain.inputs[0].records, plain.inputs[0].bad_lines, &plain.inputs[0].format),
            (packed.inputs[0].records, packed.inputs[0].bad_lines, &packed.inputs[0].format),
            "{}",
            p.display()
        );
    }
    assert!(files >= 50, "only {files} files");
}

/// The fuzz targets' bodies (`fuzz/targets.rs`), so that kept crashes and seeds replay here.
#[path = "../../../fuzz/targets.rs"]
mod fuzz_targets;

/// `data` through every fuzz target, as the fuzzer runs them (each panics on a broken promise).
fn replay_fuzz_targets(data: &[u8], scratch: &std::path::Path) {
    fuzz_targets::detect(data);
    fuzz_targets::parse_line(data);
    fuzz_targets::json_text(data);
    fuzz_targets::analyze_jsonl(data, &scratch.join("input.jsonl"));
    fuzz_targets::analyze_zst(data, &scratch.join("input.jsonl.zst"));
    fuzz_targets::analyze_codex(data, &scratch.join("codex"));
    fuzz_targets::analyze_gemini(data, &scratch.join("gemini"));
    fuzz_targets::analyze_claude_project(data, &scratch.join("claude-project"));
    fuzz_targets::analyze_opencode(data, &scratch.join("opencode.db"));
    fuzz_targets::follow(data, &scratch.join("follow"));
}

/// Inputs the fuzz targets once failed on (`tests/regressions/`, see its README): each goes
/// through every fuzz target (`detect`, `parse_line`, `analyze_jsonl`, `analyze_zst`, `analyze_codex`: a crash
/// file is the fuzzer's input, whichever target found it), and loads as a file, plain and as zstd,
/// with nothing lost.
#[test]
fn every_fuzz_regression_loads() {
    let dir = common::repo().join("crates/arbor-core/tests/regressions");
    let tmp = tempfile::tempdir().unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "md") {
            continue;
        }
        n += 1;
        replay_fuzz_targets(&std::fs::read(&p).unwrap(), tmp.path());
        nothing_lost(std::slice::from_ref(&p));
        let z = tmp.path().join(format!("{n}.jsonl.zst"));
        std::fs::write(&z, zstd::encode_all(&contents(&p)[..], 3).unwrap()).unwrap();
        nothing_lost(&[z]);
    }
    assert!(n >= 1);
}

/// The seeds `fuzz/run` gives every fuzz target (the same folders and extensions: corpus,
/// conformance inputs, regressions), each through every target. A crash the fuzzer would hit
/// before mutating anything fails here, on stable, without cargo-fuzz.
#[test]
fn every_fuzz_seed_passes_every_fuzz_target() {
    let tmp = tempfile::tempdir().unwrap();
    let mut seeds = 0;
    for p in common::files_under(&common::shipped_log_dirs()) {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let seeded = [".jsonl", ".json", ".zst", ".bin"].iter().any(|x| name.ends_with(x));
        if !seeded || name == "expected.json" {
            continue;
        }
        seeds += 1;
        replay_fuzz_targets(&std::fs::read(&p).unwrap(), tmp.path());
    }
    assert!(seeds >= 50, "only {seeds} seeds");
}

/// Each `dsh-session` file of a child is one run, from its header to its last `turn/end` (SPEC
/// 2.3), even when two files carry the same id (the second file's header, end and outcome once
/// overwrote the first's, so both runs claimed `c-two.jsonl`).
#[test]
fn duplicate_session_ids_across_dsh_session_files_keep_each_files_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("root.jsonl"),
        "{\"type\":\"session\",\"version\":0,\"id\":\"r\"}\n{\"type\":\"session/title\",\"seq\":0,\"data\":{}}\n",
    )
    .unwrap();
    let child = |parent: &str, reason: &str| {
        format!(
            "{{\"type\":\"session\",\"version\":0,\"id\":\"c\",\"parentSession\":\"{parent}\",\"delegationDepth\":1}}\n\
             {{\"type\":\"turn/start\",\"seq\":0,\"data\":{{\"turn\":1}}}}\n\
             {{\"type\":\"turn/end\",\"seq\":1,\"data\":{{\"turn\":1,\"reason\":{{\"kind\":\"{reason}\"}}}}}}\n\
             {{\"type\":\"session/title\",\"seq\":2,\"data\":{{}}}}\n"
        )
    };
    std::fs::write(d.join("c-one.jsonl"), child("r", "completed")).unwrap();
    std::fs::write(d.join("c-two.jsonl"), child("r", "error")).unwrap();
    let r = nothing_lost(&[d.to_path_buf()]);
    let c = r.sessions.iter().find(|s| s.id == "c").unwrap();
    let runs: Vec<(String, u64, Option<u64>, Outcome)> = c
        .runs
        .iter()
        .map(|run| {
            let start = run.start.as_ref().unwrap();
            (start.file.clone(), start.line, run.end.as_ref().map(|e| e.line), run.outcome)
        })
        .collect();
    assert_eq!(
        runs,
        [("c-one.jsonl".to_owned(), 1, Some(3), Outcome::Ok), ("c-two.jsonl".to_owned(), 1, Some(3), Outcome::Error)]
    );
}

/// The reader hands lines to the parser in chunks of about a megabyte, parsed on two threads and
/// routed in order. A log of several chunks, with a garbage line every 997 lines and blank lines
/// between, gives each finding at its exact line, plain and as zstd, and the same report twice.
#[test]
fn chunk_boundaries_shift_no_line_and_lose_nothing() {
    let n = 40_000;
    let mut text = String::new();
    let mut bad = Vec::new();
    for i in 1..=n {
        if i % 997 == 0 {
            text.push_str("{\"broken\":\n");
            bad.push(format!("malformed-line@{i}"));
        } else if i % 101 == 0 {
            text.push_str("   \n");
        } else {
            writeln!(
                text,
                r#"{{"method":"session.event","params":{{"sessionId":"s","event":{{"type":"session/title","seq":{i},"time":{i},"data":{{"title":"line {i} padded to make the file span several chunks of a megabyte"}}}}}}}}"#
            )
            .unwrap();
        }
    }
    assert!(text.len() > 4 << 20, "{} bytes: fewer than four chunks", text.len());
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("run.jsonl");
    std::fs::write(&plain, &text).unwrap();
    let packed = dir.path().join("run.jsonl.zst");
    std::fs::write(&packed, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
    let first = nothing_lost(std::slice::from_ref(&plain));
    assert_eq!(common::findings(&first), bad);
    assert_eq!(first, nothing_lost(std::slice::from_ref(&plain)), "the same input gives the same report");
    let z = nothing_lost(&[packed]);
    assert_eq!(common::findings(&z), bad);
    assert_eq!(z.sessions, first.sessions);
    let waits = |r: &arbor_core::report::Report| -> Vec<_> {
        r.waits.iter().map(|w| (w.start.as_ref().map(|p| p.line), w.outcome, w.notifications, w.events)).collect()
    };
    assert_eq!(waits(&z), waits(&first));
}

// ---------------------------------------------------------------------------------------------
// The queries the app sends over IPC take numbers and text from the web view: hostile values.
// ---------------------------------------------------------------------------------------------

fn sample_analysis() -> (tempfile::TempDir, arbor_core::Analysis) {
    let dir = tempfile::tempdir().unwrap();
    let folder = arbor_core::sample::write_to(dir.path()).unwrap();
    let a = arbor_core::analyze(&[folder], &mut ());
    (dir, a)
}

#[test]
fn record_queries_with_out_of_range_numbers_answer_nothing() {
    let (_d, a) = sample_analysis();
    let n = a.records().len();
    assert!(n > 10);
    assert_eq!(a.record_view(n), None);
    assert_eq!(a.record_view(usize::MAX), None);
    assert!(a.records_around(n + 5, 10, 0).is_empty(), "a record past the last has no neighbours");
    assert_eq!(a.find_record("no/such/file.jsonl", 1), None);
    assert_eq!(a.find_record(&a.record_view(0).unwrap().file, u64::MAX), None);
    assert_eq!(a.raw_line("no/such/file.jsonl", 1), None);
}

/// `records_around(index, before, after)` computes `index + after + 1`: an `after` near
/// `usize::MAX` (a number the web view could send once the app exposes record windows) overflows,
/// which panics in a debug build and wraps to an empty window in release. A saturating add answers
/// the window up to the last record.
#[test]
fn a_huge_window_is_clipped_not_overflowed() {
    let (_d, a) = sample_analysis();
    let n = a.records().len();
    // Clipped to the record's file (neighbours stay in one file): the first file's, the last's.
    let in_file = |i: usize| {
        let file = a.record_view(i).unwrap().file;
        (0..n).filter(|&k| a.record_view(k).unwrap().file == file).count()
    };
    assert_eq!(a.records_around(0, 0, usize::MAX).len(), in_file(0));
    assert_eq!(a.records_around(n - 1, usize::MAX, usize::MAX).len(), in_file(n - 1));
    assert!(a.records_around(usize::MAX, 3, 0).is_empty());
}

#[test]
fn search_takes_any_text_as_text() {
    let (_d, a) = sample_analysis();
    for q in ["", ".*", "(", "\\", "%s%n", "\u{0}", "\u{202e}", "🙂", &"x".repeat(100_000)] {
        let hits = a.search(q, 50);
        assert!(hits.len() <= 50, "{q:?}");
    }
    assert!(a.search("session", 0).is_empty());
    let all = a.search("e", usize::MAX);
    assert!(!all.is_empty());
}

/// A search hit's snippet shows the match. The snippet's start is counted in characters of the
/// lowercased line, but taken from the original, and lowercasing can add characters (`İ` becomes
/// `i̇`, two): before enough of them the snippet starts past the match, or past the end.
#[test]
fn a_search_snippet_contains_its_match() {
    let text = "İ".repeat(300) + "needle";
    let line = serde_json::json!({"method":"session.event","params":{"sessionId":"s","event":{"type":"session/title","seq":0,"data":{"title": text}}}});
    let (_d, p) = common::log("run.jsonl", &format!("{line}\n"));
    let a = arbor_core::analyze(&[p], &mut ());
    let hits = a.search("needle", 10);
    let texts: Vec<String> = hits
        .iter()
        .filter_map(|h| match h {
            arbor_core::Hit::Record { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(texts.len(), 1);
    assert!(texts[0].to_lowercase().contains("needle"), "snippet: {:?}", texts[0]);
}

// ---------------------------------------------------------------------------------------------
// Hash flooding (threat 6): ids crafted to collide cannot make the engine's id maps quadratic,
// because every map is keyed with fresh random keys (`intern::HashMap`, ahash with `runtime-rng`).
// ---------------------------------------------------------------------------------------------

/// The engine's maps and sets are ahash's `RandomState`, and each one gets its own keys: two maps
/// built one after the other hash the same id differently. A fixed-seed hasher (FxHash, SipHash
/// with zero keys, `ahash::RandomState::with_seeds`) would hash it alike and fail here.
#[test]
fn each_engine_map_hashes_an_id_with_its_own_keys() {
    let map: arbor_core::intern::HashMap<Box<str>, u32> = Default::default();
    let set: arbor_core::intern::HashSet<Box<str>> = Default::default();
    let again: arbor_core::intern::HashMap<Box<str>, u32> = Default::default();
    // This stops compiling if the aliases stop naming ahash's randomly keyed state.
    let hashers: [&ahash::RandomState; 3] = [map.hasher(), set.hasher(), again.hasher()];
    for id in ["s", "session-1", "0196a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"] {
        let [a, b, c] = hashers.map(|h| h.hash_one(id));
        assert!(a != b && b != c && a != c, "{id}: {a:x} {b:x} {c:x}");
    }
}

/// Each map's keys are derived from process-wide keys that ahash's `runtime-rng` feature reads from
/// the operating system once per run. Without it (`compile-time-rng`, `no-rng`, or default
/// features off) those keys are constants in the binary, the same in every run, and a log could be
/// crafted against them. `RandomState::with_seed(0)` depends on those keys alone, so this test runs
/// its own binary again and checks that the two runs hash an id differently.
#[test]
fn the_process_wide_hash_keys_differ_between_runs_of_the_same_binary() {
    // The test's full name in the binary: its module path without the crate, then its own name.
    let module = module_path!().split_once("::").map_or("", |(_, rest)| rest);
    let name = format!("{module}::the_process_wide_hash_keys_differ_between_runs_of_the_same_binary");
    let probe = ahash::RandomState::with_seed(0).hash_one("session-1");
    if std::env::var_os("ARBOR_HASH_PROBE").is_some() {
        println!("\nprobe={probe}");
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &name, "--nocapture", "--test-threads=1"])
        .env("ARBOR_HASH_PROBE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let other: u64 = stdout
        .split_once("probe=")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .expect(&stdout)
        .parse()
        .unwrap();
    assert_ne!(other, probe, "ahash's keys are fixed at compile time: enable its runtime-rng feature");
}

/// FxHash as rustc-hash 1.x hashes a `str` (the hasher rustc uses, and a tempting choice for id
/// maps): the bytes in 8-, 4-, 2- and 1-byte little-endian words, then a 0xff. No keys at all.
fn fx_hash(s: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let step = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let (mut h, mut b) = (0, s.as_bytes());
    while let Some((w, rest)) = b.split_first_chunk::<8>() {
        (h, b) = (step(h, u64::from_le_bytes(*w)), rest);
    }
    if let Some((w, rest)) = b.split_first_chunk::<4>() {
        (h, b) = (step(h, u32::from_le_bytes(*w).into()), rest);
    }
    if let Some((w, rest)) = b.split_first_chunk::<2>() {
        (h, b) = (step(h, u16::from_le_bytes(*w).into()), rest);
    }
    if let Some(&w) = b.first() {
        h = step(h, w.into());
    }
    step(h, 0xff)
}

/// `2^blocks` distinct ids that all have one FxHash: `session-`, then `blocks` pieces of 16
/// characters from `[0-9A-Za-z_-]`, each piece one of a pair that takes the hash from the same
/// state to the same state (a Joux multicollision). FxHash's step `(rotl(h, 5) ^ w) * K` is
/// invertible, so words `a1 a2` and `b1 b2` collide when `a2 ^ b2 == rotl(step(h, a1), 5) ^
/// rotl(step(h, b1), 5)`: random `a1`, `b1` until that difference is spelled by two id characters
/// in every byte (a few hundred tries a piece).
fn fx_colliding_ids(blocks: usize) -> Vec<String> {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    const ID: &[u8; 64] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-";
    let step = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let mut word = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        std::array::from_fn::<u8, 8, _>(|i| ID[(rng >> (6 * i)) as usize & 63])
    };
    let mut h = step(0, u64::from_le_bytes(*b"session-"));
    let mut pairs: Vec<(String, String)> = Vec::new();
    while pairs.len() < blocks {
        let (a1, b1) = (word(), word());
        let (pa, pb) = [a1, b1].map(|w| step(h, u64::from_le_bytes(w)).rotate_left(5)).into();
        let d = (pa ^ pb).to_le_bytes();
        // Each byte of a2 is the first id character whose partner (itself xor d) is one too.
        let spell = |x: u8| ID.iter().copied().find(|c| ID.contains(&(c ^ x)));
        let Some(a2) = d.iter().map(|&x| spell(x)).collect::<Option<Vec<u8>>>() else { continue };
        let a2: [u8; 8] = a2.try_into().unwrap();
        let b2: [u8; 8] = std::array::from_fn(|i| a2[i] ^ d[i]);
        if (a1, a2) == (b1, b2) {
            continue;
        }
        h = (pa ^ u64::from_le_bytes(a2)).wrapping_mul(K);
        let text = |w1: [u8; 8], w2: [u8; 8]| String::from_utf8([w1, w2].concat()).unwrap();
        pairs.push((text(a1, a2), text(b1, b2)));
    }
    (0..1u32 << blocks)
        .map(|bits| {
            let pieces = pairs.iter().enumerate().map(|(i, (a, b))| if bits >> i & 1 == 0 { a } else { b });
            pieces.fold("session-".to_owned(), |id, piece| id + piece)
        })
        .collect()
}

/// A log built to flood a naive id map: 16,384 sub-agents whose ids all share one FxHash (checked
/// here), and 2,048 whose ids share a 600-character prefix (for hashers that read only the start).
/// Under a keyless hasher every lookup would walk every colliding id; with the engine's randomly
/// keyed maps the test finishes like any other (no timer: finishing is the proof), and the analysis
/// is complete: every sub-agent is a session with one run under the root, settled ok, nothing lost.
#[test]
fn sixteen_thousand_ids_that_collide_under_fxhash_are_all_analyzed() {
    let colliding = fx_colliding_ids(14);
    let fx = fx_hash(&colliding[0]);
    assert!(colliding.iter().all(|id| fx_hash(id) == fx), "the ids must collide under FxHash");
    let prefix = "p".repeat(600);
    let ids: Vec<String> = colliding.into_iter().chain((0..2048).map(|i| format!("{prefix}{i}"))).collect();
    let distinct: std::collections::BTreeSet<&str> = ids.iter().map(|s| s.as_str()).collect();
    assert_eq!(distinct.len(), ids.len());

    let mut log = String::with_capacity(ids.len() * 2 * 330);
    log.push_str("{\"method\":\"session.status\",\"params\":{\"sessionId\":\"r\",\"status\":\"running\"}}\n");
    for id in &ids {
        writeln!(
            log,
            "{{\"method\":\"subagent.started\",\"params\":{{\"parentSessionId\":\"r\",\"childSessionId\":\"{id}\"}}}}"
        )
        .unwrap();
    }
    for id in &ids {
        writeln!(log, "{{\"method\":\"subagent.finished\",\"params\":{{\"parentSessionId\":\"r\",\"childSessionId\":\"{id}\",\"status\":\"ok\"}}}}").unwrap();
    }
    log.push_str("{\"method\":\"session.status\",\"params\":{\"sessionId\":\"r\",\"status\":\"idle\"}}\n");
    let (_d, p) = common::log("flood.jsonl", &log);
    let r = nothing_lost(&[p]);

    assert_eq!(r.inputs[0].records, 2 * ids.len() as u64 + 2);
    assert_eq!(common::findings(&r), Vec::<String>::new());
    assert_eq!(r.sessions.len(), ids.len() + 1);
    let mut seen = std::collections::BTreeSet::new();
    for s in r.sessions.iter().filter(|s| s.id != "r") {
        let runs: Vec<_> = s.runs.iter().map(|run| (run.parent.as_deref(), run.outcome)).collect();
        assert_eq!(runs, [(Some("r"), Outcome::Ok)], "{}", s.id);
        assert_eq!((s.root.as_deref(), s.depth), (Some("r"), Some(1)), "{}", s.id);
        seen.insert(s.id.as_str());
    }
    assert_eq!(seen, distinct);
}

/// One small log of every format, as written (LF), with CRLF endings and with a UTF-8 byte-order
/// mark before its first line: the three reports are the same but for the files' sizes. A BOM
/// once made line 1 a malformed line, and a Codex rollout lost its session id with it.
#[test]
fn every_format_reads_crlf_and_a_byte_order_mark_like_lf() {
    let cases = common::repo().join("tests/conformance/cases");
    let logs = [
        ("dsh-rpc", "dsh-rpc-two-level/input/run.jsonl"),
        ("dsh-session", "dsh-session-boundary-faults/input/session.jsonl"),
        ("copilot-events", "copilot-events-saved/input/events.jsonl"),
        ("copilot-rpc", "copilot-rpc-resumed/input/sdk-recording.jsonl"),
        ("codex", "codex-turns-usage/input/rollout.jsonl"),
        ("claude-code", "claude-code-turns-usage/input/s-u.jsonl"),
    ];
    let without_sizes = |mut r: serde_json::Value| {
        for input in r["inputs"].as_array_mut().unwrap() {
            input["bytes"] = 0.into();
        }
        r
    };
    for (format, rel) in logs {
        let lf = std::fs::read_to_string(cases.join(rel)).unwrap().replace("\r\n", "\n");
        let name = std::path::Path::new(rel).file_name().unwrap().to_str().unwrap();
        let crlf = lf.replace('\n', "\r\n");
        let bom = format!("\u{feff}{lf}");
        let bom_crlf = format!("\u{feff}{crlf}");
        let reports: Vec<serde_json::Value> = [&lf, &crlf, &bom, &bom_crlf]
            .iter()
            .map(|text| {
                // Opened as a folder, every copy is named `name` in its report.
                let (d, _) = common::log(name, text);
                let dir = d.path().to_path_buf();
                nothing_lost(std::slice::from_ref(&dir));
                without_sizes(common::report_json(&[dir]))
            })
            .collect();
        assert_eq!(reports[0]["inputs"][0]["format"], format, "{rel}");
        assert!(reports[0]["inputs"][0]["records"].as_u64().unwrap() > 0, "{rel}");
        for (how, r) in ["CRLF", "BOM", "BOM and CRLF"].iter().zip(&reports[1..]) {
            assert!(*r == reports[0], "{format}: {how} differs:\n{}\nagainst\n{}", r, reports[0]);
        }
    }
}

/// A line past the longest kept (128 MiB), written in pieces while the log is followed, is one
/// line, as a one-shot read of the finished file finds it: once each piece past the cap was a
/// malformed line of its own and the lines after it were numbered wrong.
#[test]
fn an_overlong_line_written_in_pieces_while_followed_is_one_line() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("events.jsonl");
    let start = r#"{"type":"session.start","data":{"sessionId":"s"},"id":"e0","timestamp":"2026-10-01T10:00:00Z"}"#;
    let prompt = r#"{"type":"user.message","data":{"content":"hi"},"id":"e1","timestamp":"2026-10-01T10:00:01Z"}"#;
    std::fs::write(&p, format!("{start}\n{{\"x\":\"")).unwrap();
    let mut live = arbor_core::live::Live::open(std::slice::from_ref(&p), &mut ());
    let piece = vec![b'y'; 48 << 20];
    let mut w = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    for _ in 0..3 {
        w.write_all(&piece).unwrap();
        w.flush().unwrap();
        live.update(&mut ());
        // Under the cap it is a last line cut short, past it a line too long: line 2 either way,
        // and nothing final until it ends.
        let r = live.snapshot().report();
        let found = common::findings(&r);
        assert!(found == ["truncated-final-line@2"] || found == ["malformed-line@2"], "{found:?}");
        assert_eq!(live.context().findings.list.len(), 0, "{found:?}");
    }
    w.write_all(format!("\"}}\n{prompt}\n").as_bytes()).unwrap();
    drop(w);
    live.update(&mut ());
    let followed = live.snapshot().report();
    let fresh = nothing_lost(std::slice::from_ref(&p));
    assert_eq!(common::findings(&fresh), ["malformed-line@2"]);
    assert_eq!(common::findings(&followed), common::findings(&fresh));
    assert_eq!((followed.inputs[0].records, followed.inputs[0].bad_lines), (2, 1));
    assert_eq!(followed.waits, fresh.waits);
    assert_eq!(live.context().findings.list.len(), 1, "one final finding, not one a piece");
}

/// Everything that reads a file's first line or head outside the line reader sees line 1 as the
/// reader does, byte-order mark or not: a log's title (`about_head`, the app's list and tree)
/// and dsh-session's survey of a folder's headers (generations, placeholders). With a BOM the
/// title was lost, and an older generation of a session file was read beside the newer one.
#[test]
fn a_byte_order_mark_hides_no_title_and_no_header() {
    let cases = common::repo().join("tests/conformance/cases");
    for rel in [
        "dsh-rpc-two-level/input/run.jsonl",
        "dsh-session-boundary-faults/input/session.jsonl",
        "copilot-events-saved/input/events.jsonl",
        "copilot-rpc-resumed/input/sdk-recording.jsonl",
        "codex-turns-usage/input/rollout.jsonl",
        "claude-code-turns-usage/input/s-u.jsonl",
    ] {
        let lf = std::fs::read_to_string(cases.join(rel)).unwrap().replace("\r\n", "\n");
        let format = arbor_core::formats::detect(lf.lines().map(str::as_bytes));
        for text in [format!("\u{feff}{lf}"), format!("\u{feff}{}", lf.replace('\n', "\r\n"))] {
            for f in [None, format] {
                let about = |t: &str| arbor_core::formats::about_head(t.as_bytes(), f);
                assert_eq!(about(&text), about(&lf), "{rel} ({:?})", f.map(|f| f.id));
            }
        }
    }
    // A title on line 1 itself, after a BOM.
    let titled = "\u{feff}{\"type\":\"summary\",\"summary\":\"Fix the build\",\"leafUuid\":\"u1\"}\n";
    let plain = &titled[3..];
    let about = |t: &str| arbor_core::formats::about_head(t.as_bytes(), arbor_core::formats::by_id("claude-code"));
    assert_eq!(about(plain).as_deref(), Some("Fix the build"));
    assert_eq!(about(titled), about(plain));
    // Generations of one session file: the older one is set aside whether its header follows a
    // BOM or not.
    let dir = tempfile::tempdir().unwrap();
    let input = cases.join("dsh-session-generations/input");
    for e in std::fs::read_dir(&input).unwrap().flatten() {
        let bytes = std::fs::read(e.path()).unwrap();
        let name = e.file_name().into_string().unwrap();
        let bytes = if name.ends_with(".jsonl") { [&b"\xEF\xBB\xBF"[..], &bytes].concat() } else { bytes };
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let without_sizes = |mut r: serde_json::Value| {
        for input in r["inputs"].as_array_mut().unwrap() {
            input["bytes"] = 0.into();
        }
        r
    };
    let with_bom = without_sizes(common::report_json(&[dir.path().to_path_buf()]));
    let plain = without_sizes(common::report_json(&[input]));
    assert!(with_bom == plain, "{with_bom:#}\nagainst\n{plain:#}");
}

/// The same session id in logs of two formats names two sessions (a Claude Code session and a
/// Codex rollout in one folder were one tree, both models' tokens under one root): each is
/// named `id@format` once both are there, and as written when alone; which file is read first
/// (a followed folder where the other appears later) changes nothing.
#[test]
fn one_session_id_in_two_formats_is_two_sessions_whichever_is_read_first() {
    let case = common::repo().join("tests/conformance/cases/mixed-formats-same-session-id/input");
    let (claude, codex) = ("s-u.jsonl", "rollout-2026-09-12T00-00-00-s-u.jsonl");
    let sessions = |r: &serde_json::Value| -> Vec<(String, serde_json::Value, u64)> {
        r["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (s["id"].as_str().unwrap().to_owned(), s["parent"].clone(), s["usage"]["output"].as_u64().unwrap())
            })
            .collect()
    };
    let both = common::report_json(std::slice::from_ref(&case));
    nothing_lost(std::slice::from_ref(&case));
    assert_eq!(
        sessions(&both),
        [
            ("s-u@codex".to_owned(), serde_json::Value::Null, 25),
            ("s-u@claude-code".to_owned(), serde_json::Value::Null, 52)
        ]
    );
    for (file, output) in [(claude, 52), (codex, 25)] {
        let alone = common::report_json(&[case.join(file)]);
        assert_eq!(sessions(&alone), [("s-u".to_owned(), serde_json::Value::Null, output)], "{file}");
    }
    for (first, then) in [(claude, codex), (codex, claude)] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(case.join(first), dir.path().join(first)).unwrap();
        let folder = dir.path().to_path_buf();
        let mut live = arbor_core::live::Live::open(std::slice::from_ref(&folder), &mut ());
        std::fs::copy(case.join(then), dir.path().join(then)).unwrap();
        live.update(&mut ());
        let followed = serde_json::to_value(live.snapshot().report()).unwrap();
        assert_eq!(sessions(&followed), sessions(&both), "{first} first");
        // (A cost summed in another order may differ in its last digit: not compared.)
        let turns = |r: &serde_json::Value| -> Vec<String> {
            let t = r["turns"].as_array().unwrap().iter();
            t.map(|t| format!("{} {} {} {} {}", t["session"], t["turn"], t["start"], t["end"], t["usage"]["output"]))
                .collect()
        };
        assert_eq!(turns(&followed), turns(&both), "{first} first");
    }
}

/// Files whose names are not UTF-8 are named apart in the report (`reader::path_text`: each byte
/// outside UTF-8 `\xNN`, a backslash `\\`), and what the app asks by that name (a raw line) is
/// read from that file: once both were `a\u{fffd}.jsonl`, and the second's lines were read
/// from the first.
#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8_are_named_apart_and_read_back_from_their_own_file() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let line = |id: &str| {
        format!("{{\"method\":\"session.event\",\"params\":{{\"sessionId\":\"{id}\",\"event\":{{\"type\":\"turn/start\",\"seq\":1,\"time\":0,\"data\":{{\"turn\":1}}}}}}}}\n")
    };
    for (name, id) in [(&b"a\xfe.jsonl"[..], "fe"), (b"a\xff.jsonl", "ff"), (b"a\\xff.jsonl", "text")] {
        std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(name)), line(id)).unwrap();
    }
    let a = arbor_core::analyze(&[dir.path().to_path_buf()], &mut ());
    let names: Vec<&str> = a.files.iter().map(|f| f.display.as_str()).collect();
    assert_eq!(names, ["a\\\\xff.jsonl", "a\\xfe.jsonl", "a\\xff.jsonl"]);
    for (name, id) in [("a\\xfe.jsonl", "fe"), ("a\\xff.jsonl", "ff"), ("a\\\\xff.jsonl", "text")] {
        let raw = a.raw_line(name, 1).unwrap();
        assert!(raw.contains(&format!("\"sessionId\":\"{id}\"")), "{name}: {raw}");
    }
}

/// A Claude Code session copied beside itself while followed (`b.jsonl` written in two pieces
/// with the lines of `a.jsonl`, which was truncated and written again meanwhile): a fresh read
/// takes `b.jsonl` whole for a replay of `a.jsonl` (one `replayed-history`, no turn of its own);
/// followed, its second piece is read as turns of its own. Found by the `follow` fuzz target.
#[test]
#[ignore = "engine bug: a replay across files read as it grows differs from a fresh read (claude_code replay prefix)"]
fn follow_replays_beside_a_log() {
    let log =
        std::fs::read(common::repo().join("tests/conformance/cases/claude-code-turns-usage/input/s-u.jsonl")).unwrap();
    let (third, half) = (log.len() / 3, log.len() / 2);
    let mut script = log[..third].to_vec();
    script.push(0x1e);
    let op = |script: &mut Vec<u8>, op: u8, bytes: &[u8]| {
        for piece in bytes.chunks(255) {
            script.extend([op, piece.len() as u8]);
            script.extend_from_slice(piece);
        }
    };
    op(&mut script, 0, &log[third..]);
    op(&mut script, 1, &log[..half]);
    script.extend([2, 128]);
    op(&mut script, 4, &log[..255.min(log.len())]);
    op(&mut script, 0, &log[255.min(log.len())..]);
    op(&mut script, 1, &log[half..]);
    let tmp = tempfile::tempdir().unwrap();
    fuzz_targets::follow(&script, &tmp.path().join("follow"));
}

/// A file of a followed folder judged to be in no known format, then replaced by a log (renamed
/// over it) or cut, is detected again, as a fresh read does: once it stayed unread, and kept the
/// size it had. Found by the `follow` fuzz target (`regressions/follow-unknown-file-cut.bin`).
#[test]
fn a_followed_file_in_no_known_format_replaced_by_a_log_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.jsonl");
    std::fs::write(&path, "not a log\n".repeat(500)).unwrap();
    let folder = dir.path().to_path_buf();
    let mut live = arbor_core::live::Live::open(std::slice::from_ref(&folder), &mut ());
    assert_eq!(live.snapshot().report().inputs[0].format, "unknown");
    let log = common::repo().join("tests/conformance/cases/codex-turns-usage/input/rollout.jsonl");
    let beside = dir.path().join("x.tmp");
    std::fs::copy(log, &beside).unwrap();
    std::fs::rename(&beside, &path).unwrap();
    live.update(&mut ());
    let followed = live.snapshot().report();
    let fresh = nothing_lost(std::slice::from_ref(&folder));
    assert_eq!(followed.inputs, fresh.inputs);
    assert_eq!(followed.inputs[0].format, "codex");
    assert_eq!(common::tree(&followed), common::tree(&fresh));
}

/// A followed folder whose only log goes away is a report of nothing, not a panic: its
/// `file-rewritten` finding was placed in file 0 of no files. Found by the `follow` fuzz target.
#[test]
fn a_followed_folder_whose_every_file_went_away_reports_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.jsonl");
    std::fs::copy(common::repo().join("tests/conformance/cases/codex-turns-usage/input/rollout.jsonl"), &path).unwrap();
    let folder = dir.path().to_path_buf();
    let mut live = arbor_core::live::Live::open(std::slice::from_ref(&folder), &mut ());
    std::fs::remove_file(&path).unwrap();
    live.update(&mut ());
    let r = live.snapshot().report();
    assert!(r.inputs.is_empty() && r.sessions.is_empty(), "{r:?}");
    assert!(live.finish().report().diagnostics.is_empty());
}
