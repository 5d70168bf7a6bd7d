//! `arbor export` end to end: the OTLP-JSON file decoded with the protocol crate's own types, the
//! OTLP/HTTP push read by a loopback server that decodes the protobuf, and every way a push can
//! fail (a closed port, 4xx, 5xx, retries, a backend that never answers, rejected spans, a
//! failure after some requests went through) giving a clear message and exit 1.

use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

fn arbor(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbor")).args(args).env_remove("OTEL_EXPORTER_OTLP_HEADERS").output().unwrap()
}

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases").join(name).join("input")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn attr<'a>(s: &'a Span, key: &str) -> Option<&'a Value> {
    s.attributes.iter().find(|kv| kv.key == key).and_then(|kv| kv.value.as_ref()).and_then(|v| v.value.as_ref())
}

fn attr_str<'a>(s: &'a Span, key: &str) -> Option<&'a str> {
    match attr(s, key) {
        Some(Value::StringValue(v)) => Some(v),
        _ => None,
    }
}

fn spans(requests: &[ExportTraceServiceRequest]) -> Vec<Span> {
    requests
        .iter()
        .flat_map(|r| &r.resource_spans)
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| s.spans.iter().cloned())
        .collect()
}

fn export_json(args: &[&str], input: &Path) -> (String, Vec<ExportTraceServiceRequest>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.jsonl");
    let mut all = vec!["export", "--otlp-json", file.to_str().unwrap()];
    all.extend_from_slice(args);
    all.push(input.to_str().unwrap());
    let out = arbor(&all);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let raw = std::fs::read_to_string(&file).unwrap();
    // Each line is an ExportTraceServiceRequest in the OTLP-JSON mapping, read by the protocol
    // crate's own serde types.
    let requests = raw.lines().map(|l| serde_json::from_str::<ExportTraceServiceRequest>(l).unwrap()).collect();
    (raw, requests)
}

#[test]
fn the_otlp_json_file_decodes_with_the_protocol_types_into_the_delegation_tree() {
    let (raw, requests) = export_json(&[], &case("builtin-sample"));
    // OTLP-JSON's own rules: lowerCamelCase keys, hex ids, 64-bit integers as strings.
    for key in ["\"resourceSpans\"", "\"scopeSpans\"", "\"traceId\"", "\"parentSpanId\"", "\"startTimeUnixNano\":\""] {
        assert!(raw.contains(key), "no {key}");
    }
    assert!(raw.contains("\"intValue\":\""), "int64 attributes are strings");
    let all = spans(&requests);
    let by_id: HashMap<&[u8], &Span> = all.iter().map(|s| (&s.span_id[..], s)).collect();
    assert_eq!(by_id.len(), all.len(), "span ids are unique");
    for s in &all {
        assert_eq!((s.trace_id.len(), s.span_id.len()), (16, 8));
        assert!(s.end_time_unix_nano >= s.start_time_unix_nano, "{}", s.name);
        if !s.parent_span_id.is_empty() {
            let p = by_id.get(&s.parent_span_id[..]).unwrap_or_else(|| panic!("{}: parent not exported", s.name));
            assert_eq!(p.trace_id, s.trace_id, "{}: parent in another trace", s.name);
        }
    }
    let agent = |id: &str| {
        all.iter()
            .find(|s| {
                attr_str(s, "gen_ai.operation.name") == Some("invoke_agent")
                    && attr_str(s, "gen_ai.agent.id") == Some(id)
            })
            .unwrap_or_else(|| panic!("no invoke_agent span for {id}"))
    };
    // Copilot: the sub-agent hangs under the execute_tool span of the call that spawned it.
    let root = agent("sdk-main");
    assert!(root.parent_span_id.is_empty());
    assert_eq!(attr_str(root, "gen_ai.conversation.id"), Some("sdk-main"));
    let scanner = agent("ag-scan");
    let call = by_id[&scanner.parent_span_id[..]];
    assert_eq!(call.name, "execute_tool task");
    assert_eq!(attr_str(call, "gen_ai.tool.name"), Some("task"));
    assert_eq!(attr_str(call, "gen_ai.tool.call.id"), Some("t-scan"));
    assert_eq!(attr_str(scanner, "arbor.link"), Some("tool-call"));
    assert_eq!(attr_str(scanner, "gen_ai.conversation.id"), Some("sdk-main"));
    assert_eq!(scanner.name, "invoke_agent Scanner");
    // The finding there is an event with its code and severity.
    let ev = scanner.events.iter().find(|e| e.name.contains("child-idle-would-resolve-wait")).expect("finding event");
    let ev_attr = |k: &str| ev.attributes.iter().find(|kv| kv.key == k).and_then(|kv| kv.value.clone());
    assert!(format!("{:?}", ev_attr("arbor.finding.severity")).contains("warning"));
    // dsh-rpc: a start edge names no call, so the child hangs under its parent's run; a reused
    // id is one span per run, each under its own parent.
    let lead = agent("lead");
    let planner = agent("planner");
    assert_eq!(planner.parent_span_id, lead.span_id);
    assert_eq!(attr_str(planner, "arbor.link"), Some("start-edge"));
    let reruns: Vec<&Span> = all
        .iter()
        .filter(|s| {
            attr_str(s, "gen_ai.agent.id") == Some("worker-7")
                && attr_str(s, "gen_ai.operation.name") == Some("invoke_agent")
        })
        .collect();
    assert_eq!(reruns.len(), 2);
    assert_eq!(reruns[0].parent_span_id, lead.span_id);
    assert_eq!(reruns[1].parent_span_id, planner.span_id);
    assert_eq!(reruns[1].status.as_ref().map(|s| s.code), Some(2), "the run that failed has an error status");
    // Turns are chat spans under their run; tool calls under their turn; tokens where recorded.
    let chat =
        all.iter().find(|s| s.parent_span_id == lead.span_id && s.name.starts_with("chat")).expect("lead's turn");
    assert_eq!(attr_str(chat, "gen_ai.operation.name"), Some("chat"));
    assert!(all
        .iter()
        .any(|s| s.parent_span_id == chat.span_id && attr_str(s, "gen_ai.tool.call.id") == Some("c-plan")));
    // The sample's logs have clocks: no synthetic times, and times are the log's.
    // (A tool call that never got a result ends where it starts, and says so.)
    for s in &all {
        let unanswered = s.name.starts_with("execute_tool") && attr_str(s, "arbor.place.end").is_none();
        assert_eq!(
            attr(s, "arbor.time.synthetic").is_some(),
            unanswered,
            "{}: a clocked log's times are its own",
            s.name
        );
    }
    assert_eq!(lead.start_time_unix_nano, 1_785_000_000_007_000_000);
}

#[test]
fn exporting_twice_gives_the_same_ids_and_content_only_on_request() {
    let (a, _) = export_json(&[], &case("builtin-sample"));
    let (b, _) = export_json(&[], &case("builtin-sample"));
    assert_eq!(a, b, "the same log exports to the same bytes");
    assert!(!a.contains("Summarize the repository"), "prompts are left out by default");
    assert!(!a.contains("gen_ai.input.messages") && !a.contains("gen_ai.tool.call.arguments"));
    let (c, requests) = export_json(&["--include-content"], &case("builtin-sample"));
    assert!(c.contains("Summarize the repository") && c.contains("gen_ai.input.messages"));
    assert!(c.contains("gen_ai.tool.call.arguments") && c.contains("gen_ai.tool.call.result"));
    // The same spans, with the same ids, whether or not content is included.
    let ids = |r: &[ExportTraceServiceRequest]| spans(r).into_iter().map(|s| s.span_id).collect::<Vec<_>>();
    assert_eq!(ids(&requests), ids(&export_json(&[], &case("builtin-sample")).1));
}

#[test]
fn a_log_without_a_clock_gets_synthetic_times_in_wire_order_marked_so() {
    // The two-level case without its `time` fields: a recording with no clock at all.
    let dir = tempfile::tempdir().unwrap();
    let clockless = dir.path().join("run.jsonl");
    let log = std::fs::read_to_string(case("dsh-rpc-two-level").join("run.jsonl")).unwrap();
    let mut stripped = String::new();
    for line in log.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(e) = v.pointer_mut("/params/event").and_then(|e| e.as_object_mut()) {
            e.remove("time");
        }
        stripped.push_str(&v.to_string());
        stripped.push('\n');
    }
    assert!(!stripped.contains("\"time\""));
    std::fs::write(&clockless, stripped).unwrap();
    let (_, requests) = export_json(&["--batch", "3"], &clockless);
    assert!(requests.len() > 1, "--batch 3 cuts the export into several requests");
    assert!(requests.iter().all(|r| spans(std::slice::from_ref(r)).len() <= 3 + 8));
    let all = spans(&requests);
    assert!(!all.is_empty());
    for s in &all {
        assert!(matches!(attr(s, "arbor.time.synthetic"), Some(Value::BoolValue(true))), "{} is not marked", s.name);
        // 2000-01-01 plus one millisecond per record.
        assert!(s.start_time_unix_nano >= 946_684_800_000_000_000 && s.start_time_unix_nano < 946_684_900_000_000_000);
    }
    // Wire order: a child's run starts after its parent's.
    let by_id: HashMap<&[u8], &Span> = all.iter().map(|s| (&s.span_id[..], s)).collect();
    for s in &all {
        if let Some(p) = by_id.get(&s.parent_span_id[..]) {
            assert!(s.start_time_unix_nano >= p.start_time_unix_nano, "{} starts before {}", s.name, p.name);
        }
    }
}

/// What the loopback server says to each request it reads.
#[derive(Clone, Copy)]
enum Answer {
    Ok,
    Status(u16),
    /// A 200 whose ExportTraceServiceResponse says spans were rejected.
    Rejected,
    /// Read the request, never answer.
    Silent,
    /// A 200 whose body is sent in part, then nothing more (the connection kept open).
    Stall,
    /// A 200 whose body ends, the connection closed, before its Content-Length.
    Cut,
    /// A 200 with a body over 1 MiB.
    Huge,
    /// A 200 whose body is not an ExportTraceServiceResponse.
    Garbage,
    /// A 200 with the OTLP-JSON response, said to be JSON.
    Json,
}

/// A request as the receiver read it: its headers (names lower-cased) and body.
type Received = (HashMap<String, String>, Vec<u8>);

/// A tiny OTLP/HTTP receiver on a loopback port: it reads each request (keep-alive too), keeps
/// it, and answers as `answer` says for the request's number.
struct Receiver {
    url: String,
    requests: Arc<Mutex<Vec<Received>>>,
}

fn read_request(r: &mut BufReader<TcpStream>) -> Option<Received> {
    let mut headers = HashMap::new();
    let mut line = String::new();
    r.read_line(&mut line).ok().filter(|&n| n > 0)?;
    loop {
        line.clear();
        r.read_line(&mut line).ok()?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    let len: usize = headers.get("content-length")?.parse().ok()?;
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some((headers, body))
}

fn receiver(answer: impl Fn(usize) -> Answer + Send + 'static) -> Receiver {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let kept = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut r = BufReader::new(stream.try_clone().unwrap());
            let mut w = stream;
            while let Some(req) = read_request(&mut r) {
                let n = {
                    let mut k = kept.lock().unwrap();
                    k.push(req);
                    k.len() - 1
                };
                let answer = answer(n);
                if matches!(answer, Answer::Silent) {
                    std::thread::sleep(std::time::Duration::from_secs(20));
                    return;
                }
                let (status, body, declared, kind) = answer.parts();
                let head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {declared}\r\nRetry-After: 0\r\n\r\n"
                );
                if w.write_all(head.as_bytes()).and_then(|_| w.write_all(&body)).and_then(|_| w.flush()).is_err() {
                    break;
                }
                if matches!(answer, Answer::Stall) {
                    // The rest of the body never comes; the connection stays open.
                    std::thread::sleep(std::time::Duration::from_secs(20));
                    return;
                }
                if body.len() < declared {
                    // Cut short: the connection closes before the body's end.
                    break;
                }
            }
        }
    });
    Receiver { url, requests }
}

impl Answer {
    /// Its status, the body sent, the length the answer declares and its content type.
    fn parts(&self) -> (u16, Vec<u8>, usize, &'static str) {
        let proto = "application/x-protobuf";
        let whole = |status, body: Vec<u8>| {
            let len = body.len();
            (status, body, len, proto)
        };
        match self {
            Answer::Ok => whole(200, ExportTraceServiceResponse::default().encode_to_vec()),
            Answer::Status(s) => whole(*s, b"backend says no".to_vec()),
            Answer::Rejected => whole(
                200,
                ExportTraceServiceResponse {
                    partial_success: Some(ExportTracePartialSuccess {
                        rejected_spans: 2,
                        error_message: "spans too old".into(),
                    }),
                }
                .encode_to_vec(),
            ),
            Answer::Silent => unreachable!("never answers"),
            // A partial_success field begun, its rest never sent.
            Answer::Stall => (200, b"\x12".to_vec(), 10, proto),
            Answer::Cut => (200, b"\x12\x02".to_vec(), 40, proto),
            Answer::Huge => whole(200, vec![0; (1 << 20) + 10]),
            Answer::Garbage => whole(200, b"\xff\xff\xff\xff".to_vec()),
            Answer::Json => {
                let (_, body, len, _) = whole(200, br#"{"partialSuccess":{}}"#.to_vec());
                (200, body, len, "application/json")
            }
        }
    }
}

fn push(url: &str, extra: &[&str]) -> Output {
    let mut args = vec!["export", "--otlp-http", url];
    args.extend_from_slice(extra);
    let input = case("builtin-sample");
    args.push(input.to_str().unwrap());
    arbor(&args)
}

#[test]
fn otlp_http_sends_protobuf_with_the_headers_given() {
    let r = receiver(|_| Answer::Ok);
    let out = push(&r.url, &["-H", "Authorization: Bearer s3cret", "--header", "x-tenant=t1", "--batch", "10"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("in 3 requests to"), "{}", text(&out.stderr));
    let requests = r.requests.lock().unwrap();
    assert_eq!(requests.len(), 3);
    for (headers, body) in requests.iter() {
        assert_eq!(headers.get("content-type").map(String::as_str), Some("application/x-protobuf"));
        assert_eq!(headers.get("authorization").map(String::as_str), Some("Bearer s3cret"));
        assert_eq!(headers.get("x-tenant").map(String::as_str), Some("t1"));
        let decoded = ExportTraceServiceRequest::decode(&body[..]).expect("protobuf");
        assert!(!spans(&[decoded]).is_empty());
    }
    // The pushed spans are the file's spans.
    let pushed: Vec<Span> =
        requests.iter().flat_map(|(_, b)| spans(&[ExportTraceServiceRequest::decode(&b[..]).unwrap()])).collect();
    let (_, file) = export_json(&[], &case("builtin-sample"));
    let ids = |s: &[Span]| {
        let mut v: Vec<Vec<u8>> = s.iter().map(|s| s.span_id.clone()).collect();
        v.sort();
        v
    };
    assert_eq!(ids(&pushed), ids(&spans(&file)));
}

fn fails_with(out: &Output, says: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(says), "`{says}` not in: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains(" spans, "), "no success line after a failure: {err}");
}

#[test]
fn a_closed_port_fails_at_once_with_exit_one() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out = push(&format!("http://127.0.0.1:{port}"), &[]);
    fails_with(&out, &format!("127.0.0.1:{port}/v1/traces"));
    assert!(text(&out.stderr).contains("cannot"), "{}", text(&out.stderr));
}

#[test]
fn a_4xx_or_5xx_answer_fails_with_its_status_and_body() {
    for status in [400, 401, 413, 500] {
        let r = receiver(move |_| Answer::Status(status));
        let out = push(&r.url, &[]);
        fails_with(&out, &format!("answered HTTP {status}: backend says no"));
        assert_eq!(r.requests.lock().unwrap().len(), 1, "{status} is not retried");
    }
}

#[test]
fn a_retryable_answer_is_retried_then_fails_or_goes_through() {
    let r = receiver(|_| Answer::Status(503));
    let out = push(&r.url, &["--retries", "2"]);
    fails_with(&out, "answered HTTP 503 after 3 tries");
    assert_eq!(r.requests.lock().unwrap().len(), 3);
    let r = receiver(|n| if n == 0 { Answer::Status(429) } else { Answer::Ok });
    let out = push(&r.url, &["--retries", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn a_backend_that_never_answers_times_out() {
    let r = receiver(|_| Answer::Silent);
    let started = std::time::Instant::now();
    let out = push(&r.url, &["--timeout", "1"]);
    fails_with(&out, "did not answer within 1 s");
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
}

/// A 2xx counts as accepted only when its whole answer came and decodes: each of these was
/// once taken for success (exit 0), though what the backend kept is not known.
#[test]
fn a_2xx_whose_answer_does_not_arrive_whole_is_a_failure() {
    for (answer, says) in [
        (Answer::Stall, "its body did not arrive within 1 s"),
        (Answer::Cut, "its body was cut short"),
        (Answer::Huge, "with a body over 1 MiB"),
        (Answer::Garbage, "with a body that is not an OTLP ExportTraceServiceResponse"),
    ] {
        let r = receiver(move |_| answer);
        let out = push(&r.url, &["--timeout", "1", "--retries", "0"]);
        fails_with(&out, says);
        assert!(text(&out.stderr).contains("whether it kept the spans is not known"), "{}", text(&out.stderr));
    }
    // The OTLP-JSON response, said to be JSON, is a whole answer.
    let r = receiver(|_| Answer::Json);
    let out = push(&r.url, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn rejected_spans_and_a_failure_midway_are_never_a_quiet_success() {
    let r = receiver(|_| Answer::Rejected);
    fails_with(&push(&r.url, &[]), "rejected 2 of 24 spans: spans too old");
    // The second of three requests fails: the error says what had gone through.
    let r = receiver(|n| if n == 0 { Answer::Ok } else { Answer::Status(500) });
    let out = push(&r.url, &["--batch", "10"]);
    fails_with(&out, "the export is incomplete: 1 request(s), ");
}

#[test]
fn bad_export_arguments_exit_two() {
    let input = case("builtin-sample");
    let p = input.to_str().unwrap();
    for (args, says) in [
        (&["export", p][..], "--otlp-json"),
        (&["export", "--otlp-json", "x", "--otlp-http", "http://127.0.0.1:9", p], "cannot be used with"),
        (&["export", "--otlp-http", "ftp://host/v1/traces", p], "is not an http:// or https:// URL"),
        (&["export", "--otlp-http", "http://127.0.0.1:9", "-H", "no-separator", p], "--header wants"),
        (&["export", "--otlp-json", "-", "--resource", "novalue", p], "--resource wants KEY=VALUE"),
    ] {
        let out = arbor(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(says), "{args:?}: {}", text(&out.stderr));
    }
}

#[test]
fn a_file_that_cannot_be_written_fails_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("missing-folder").join("out.jsonl");
    let input = case("builtin-sample");
    let out = arbor(&["export", "--otlp-json", target.to_str().unwrap(), input.to_str().unwrap()]);
    fails_with(&out, "cannot write");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
