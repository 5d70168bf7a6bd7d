//! The one-pass line parser (`scan::parse_line`) against the serde reference
//! (`wire::parse_line_serde`): the same `Line`, or the same refusal, for every line of every
//! shipped log and for many variations of them that break them in the ways logs break.

use crate::common;

use arbor_core::formats::{
    claude_code_line_readings, codex_line_readings, gemini_cli_line_readings, gemini_cli_received_readings,
    opencode_row_readings,
};
use arbor_core::text::scan::{parse_line, parse_line_in};
use arbor_core::wire::parse_line_serde;
use proptest::prelude::*;

/// The same reading, with the boxed parts on the heap and in an arena (as the engine reads each
/// chunk); a line that is not UTF-8 is refused by both (see `parse_line_serde`).
fn same(bytes: &[u8]) {
    let got = format!("{:?}", parse_line(bytes));
    let want = format!("{:?}", std::str::from_utf8(bytes).ok().and_then(parse_line_serde));
    assert_eq!(got, want, "on {:?}", String::from_utf8_lossy(bytes));
    let arena = bumpalo::Bump::new();
    let in_arena = format!("{:?}", std::str::from_utf8(bytes).ok().and_then(|t| parse_line_in(t, &arena)));
    assert_eq!(in_arena, want, "in an arena, on {:?}", String::from_utf8_lossy(bytes));
    // The Claude Code reader is built of the same parts, against its own serde shapes.
    if let Ok(text) = std::str::from_utf8(bytes) {
        let (got, want) = claude_code_line_readings(text);
        assert_eq!(got, want, "the Claude Code reader, on {text:?}");
        // So is OpenCode's (a store's rows as rendered, a storage tree's documents).
        let (got, want) = opencode_row_readings(text);
        assert_eq!(got, want, "the OpenCode reader, on {text:?}");
        let (got, want) = codex_line_readings(text);
        assert_eq!(got, want, "the Codex reader, on {text:?}");
        let (got, want) = gemini_cli_line_readings(text);
        assert_eq!(got, want, "the Gemini CLI reader, on {text:?}");
        // What a parent received from a sub-agent, read back by the scanner.
        let (got, want) = gemini_cli_received_readings(text);
        assert_eq!(got, want, "what a Gemini CLI call received, on {text:?}");
    }
}

/// Every line of the shipped logs (conformance cases, hostile inputs, the corpus).
fn shipped_lines() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for f in common::files_under(&common::shipped_log_dirs()) {
        let Ok(mut bytes) = std::fs::read(&f) else { continue };
        if bytes.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
            continue;
        }
        // An OpenCode store a case makes from SQL is read as its rows' rendering.
        if f.extension().is_some_and(|e| e == "sql") {
            bytes = rendered_store(&String::from_utf8_lossy(&bytes));
        }
        out.extend(bytes.split(|b| *b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec()));
    }
    out
}

/// The rendering of the rows (`bytes::rows`) of the store `sql` makes.
fn rendered_store(sql: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    rusqlite::Connection::open(&db).unwrap().execute_batch(sql).unwrap();
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut arbor_core::bytes::rows::open(&db).unwrap(), &mut out).unwrap();
    out
}

#[test]
fn every_shipped_line_reads_as_the_reference_reads_it() {
    let lines = shipped_lines();
    assert!(lines.len() > 1000, "only {} lines found", lines.len());
    let mut parsed = 0;
    let mut rows = 0;
    for l in &lines {
        same(l);
        parsed += usize::from(parse_line(l).is_some());
        rows += usize::from(l.starts_with(b"{\"$table\":"));
    }
    assert!(parsed > 1000);
    assert!(rows > 100, "only {rows} rows of OpenCode stores rendered");
}

/// Lines written to hit each distinction the parser keeps with serde_json.
#[test]
fn the_edges_of_json_and_of_the_shapes_read_as_the_reference_reads_them() {
    // Each level is typed: a line's `params`, then its `event`, a line again.
    let nested = |n: usize, inner: &str| {
        format!("{{{}\"method\":\"m\"{inner}{}}}", "\"params\":{\"event\":{".repeat(n), "}}".repeat(n))
    };
    let deep_typed = nested(200, "");
    let deep_skipped = format!("{{\"x\":{}1{}}}", "[".repeat(5000), "]".repeat(5000));
    let deep_declined = format!("{{\"method\":{}1{}}}", "[".repeat(200), "]".repeat(200));
    let cases: Vec<String> = vec![
        r#"{}"#.into(),
        r#"  {"method":"a"}  "#.into(),
        r#"{"method":"a"} x"#.into(),
        r#"{"method":"a",}"#.into(),
        r#"{"method":"a","method":"b"}"#.into(),
        r#"{"method":"a","x":1,"x":2}"#.into(),
        r#"{"data":{"turn":1,"turn":2}}"#.into(),
        r#"{"data":{"message":{"content":[{"type":"text","type":"x"}]}}}"#.into(),
        r#"{"meth\u006fd":"a"}"#.into(),
        r#"{"method":"a\u00e9\n\"q\""}"#.into(),
        r#"{"method":"\ud800"}"#.into(),
        r#"{"x":"\ud800"}"#.into(),
        r#"{"\ud800":1}"#.into(),
        r#"{"x":{"\ud800":1}}"#.into(),
        r#"{"method":{"\ud800":1}}"#.into(),
        r#"{"method":["\ud800"]}"#.into(),
        // A message's `content` is kept escaped and decoded later: it must be refused, or
        // accepted, exactly as a string serde_json decodes (surrogates paired).
        r#"{"data":{"content":"\ud800"}}"#.into(),
        r#"{"data":{"content":"\udc00 x"}}"#.into(),
        r#"{"data":{"content":"\ud83d\ude00 ok \uD83D\uDE00"}}"#.into(),
        r#"{"data":{"content":"\ud83d\u0041"}}"#.into(),
        r#"{"data":{"content":"\ud83d\n"}}"#.into(),
        r#"{"data":{"content":"\ud83dx"}}"#.into(),
        r#"{"data":{"content":"\ud83d\ud83d\ude00"}}"#.into(),
        r#"{"data":{"content":"\ud83d\ude00\ude00"}}"#.into(),
        r#"{"data":{"content":"\\ud800 is text, \\\u00e9 is \u00e9"}}"#.into(),
        r#"{"data":{"content":"\u00e9\"\\\/\b\f\n\r\t\u0000"}}"#.into(),
        r#"{"data":{"content":"\ud800","content":"x"}}"#.into(),
        r#"{"params":{"event":{"data":{"content":"\udfff"}}}}"#.into(),
        r#"{"method":"\x"}"#.into(),
        r#"{"method":"\u12g4"}"#.into(),
        "{\"method\":\"a\u{1}\"}".into(),
        "{\"method\":\"tab\there\"}".into(),
        r#"{"seq":1e400}"#.into(),
        r#"{"x":1e400}"#.into(),
        r#"{"method":1e400}"#.into(),
        r#"{"method":[1e400]}"#.into(),
        r#"{"data":{"dt":[1e400]}}"#.into(),
        r#"{"seq":-0,"time":1.5,"seq0":123456789012345678901234567890,"time0":-12.5e-3,"version":01}"#.into(),
        r#"{"seq":9007199254740993,"time":18446744073709551616,"version":-9223372036854775809}"#.into(),
        r#"{"seq":1.,"time":2}"#.into(),
        r#"{"seq":.5}"#.into(),
        r#"{"seq":-}"#.into(),
        r#"{"seq":1e}"#.into(),
        r#"{"seq":"1","time":true,"ignorable":1,"method":null,"params":[1],"data":"x"}"#.into(),
        r#"{"result":null,"error":{"code":1}}"#.into(),
        r#"{"result":nul}"#.into(),
        r#"{"ignorable":true,"version":2,"data":{"cancelled":false,"dt":[1,2,[3]],"content":"hi"}}"#.into(),
        r#"{"data":{"dt":{"a":1},"content":{"a":1},"reason":{"kind":"x"},"message":{"content":"x"}}}"#.into(),
        r#"{"data":{"message":{"content":[1,"a",null,{"type":"text","text":"t\"x","toolCallId":"c"},{"text":null}],"source":{"callId":"c"}}}}"#.into(),
        r#"{"data":{"content":[{"type":"text","text":{"a":[1]}}]}}"#.into(),
        r#"{"params":{"sessionId":"s","event":{"type":"x","data":{"turn":1}},"status":"idle","parentSessionId":"p","childSessionId":"c","stopReason":"r"}}"#.into(),
        r#"{"params":{"event":[]}}"#.into(),
        r#"{"params":{"event":{"params":{"event":{"method":"deep"}}}}}"#.into(),
        r#"{"x":[{"a":[]},{},[[]],"",0,-1.5E+3,true,false,null]}"#.into(),
        r#"{"x":[1,]}"#.into(),
        r#"{"x":[1 2]}"#.into(),
        r#"{"x":{"a" 1}}"#.into(),
        r#"{"x":{"a":1,}}"#.into(),
        r#"{"x":tru}"#.into(),
        r#"{"x":}"#.into(),
        r#"{"x""#.into(),
        r#"{"method":"a""#.into(),
        r#"{"method":"a"#.into(),
        r#"[{"method":"a"}]"#.into(),
        r#""method""#.into(),
        "\u{c}{}".into(),
        "{}\u{c}".into(),
        " \t\r\n{}".into(),
        deep_typed,
        deep_skipped,
        deep_declined,
        // The Claude Code shapes: a message's content as a string (hashed), as blocks, as
        // anything else; fields given twice at each level; values of surprising types.
        r#"{"type":"user","message":{"content":"a\n\u00e9 \ud83d\ude00"}}"#.into(),
        r#"{"type":"user","message":{"content":"\ud800"}}"#.into(),
        r#"{"type":"user","message":{"content":{"\ud800":1}}}"#.into(),
        r#"{"type":"user","message":{"content":{"a":[1e400]}}}"#.into(),
        r#"{"type":"user","message":{"content":1e400}}"#.into(),
        r#"{"type":"user","message":{"content":[1,null,"x",{"type":"text","text":"t"},{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"p","run_in_background":true,"description":"d","subagent_type":"s","x":[]}}]}}"#.into(),
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"r"}],"is_error":"no"}]}}"#.into(),
        r#"{"type":"user","message":{"content":[{"type":"text","type":"text"}]}}"#.into(),
        r#"{"type":"user","message":{"content":[{"input":{"prompt":1,"prompt":2}}]}}"#.into(),
        r#"{"type":"user","message":{"content":"x","content":"y"}}"#.into(),
        r#"{"type":"assistant","message":{"id":"m","model":"c","usage":{"input_tokens":5,"output_tokens":1e400}}}"#.into(),
        r#"{"type":"assistant","message":{"usage":{"input_tokens":-1,"cache_read_input_tokens":2.5,"cache_creation_input_tokens":"3"},"stop_reason":null}}"#.into(),
        r#"{"type":"user","toolUseResult":{"agentId":"a","status":"completed","isAsync":true,"agentId":"b"}}"#.into(),
        r#"{"type":"user","toolUseResult":"Error: x","message":[],"attachment":{"prompt":"p","content":null}}"#.into(),
        r#"{"type":"queue-operation","content":"<task-notification>","forkedFrom":null,"isSidechain":1}"#.into(),
        r#"{"forkedFrom":{"sessionId":"s"},"forkedFrom":null}"#.into(),
        r#"{"agentType":"general","description":"d","toolUseId":"t","spawnDepth":2,"parentAgentId":"p","spawnDepth":3}"#.into(),
        r#"{"typ\u0065":"user","uuid":"u","parentUuid":null,"sessionId":"s","agentId":"a","isMeta":false,"isCompactSummary":true,"timestamp":"t","requestId":"r","subtype":"x"}"#.into(),
        // OpenCode's rows and documents: the columns, the row's document in `data` (its unknown
        // fields skipped), a document's fields at the top (read whole first, as serde's
        // `flatten` buffers them), fields twice at each level, the header's tables.
        r#"{"$db":"sqlite","user_version":0,"tables":{"session":["id","title"],"message":["id",1,null],"part":"x"}}"#.into(),
        r#"{"$db":"sqlite","tables":{"session":[1e400]}}"#.into(),
        r#"{"$db":"sqlite","tables":{"session":["\ud800"]}}"#.into(),
        r#"{"$db":"sqlite","tables":[],"tables":{}}"#.into(),
        r#"{"$table":"part","$rowid":57,"id":"p1","message_id":"m","session_id":"s","time_created":1.5,"time_updated":2,"data":{"type":"tool","callID":"c","tool":"task","state":{"status":"completed","output":"task_id: x","metadata":{"sessionId":"c1","x":1e400},"time":{"start":1,"end":2},"input":{"subagent_type":"general","description":"d","prompt":[1]}},"x":"\ud800"}}"#.into(),
        r#"{"$table":"part","data":{"type":"step-finish","tokens":{"input":1,"output":2,"reasoning":3,"cache":{"read":4,"write":5,"read":6}},"cost":0.5}}"#.into(),
        r#"{"$table":"message","data":{"role":"assistant","modelID":"m","providerID":"p","model":{"modelID":"x"},"agent":"a","summary":{"diffs":[]},"error":{"name":"MessageAbortedError","data":{}},"finish":"stop","time":{"created":1,"completed":2},"tokens":"x"}}"#.into(),
        r#"{"$table":"message","$table":"part"}"#.into(),
        r#"{"$table":"message","data":{"role":"user","role":"assistant"}}"#.into(),
        r#"{"$table":"message","data":"{not json}","data":null}"#.into(),
        r#"{"$table":"session","$rowid":1,"id":"s","parent_id":null,"title":"t","directory":"/d","time_created":1,"revert":{"x":1e400}}"#.into(),
        r#"{"$table":"session","id":"s","revert":{"x":"\ud800"}}"#.into(),
        r#"{"$table":"session","id":"s","revert":{"\ud800":1}}"#.into(),
        r#"{"$table":"session","id":"s","id":"t"}"#.into(),
        r#"{"id":"s","projectID":"p","directory":"/d","title":"t","time":{"created":1,"x":[1e400]}}"#.into(),
        r#"{"id":"s","projectID":"p","time":{"created":1,"x":[1]},"time":{}}"#.into(),
        r#"{"id":"m","sessionID":"s","role":"user","time":{"created":1},"summary":true,"synthetic":1,"ignored":true}"#.into(),
        r#"{"id":"p","messageID":"m","sessionID":"s","type":"text","text":"a\n\u00e9","state":[],"tokens":null}"#.into(),
        // Codex rollouts: the line and its payload take a field twice (the later wins, a payload
        // read over the earlier one); the shapes inside refuse it; values of surprising types.
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"a","source":{"subagent":{"thread_spawn":{"parent_thread_id":"p","agent_path":"x","agent_nickname":"n","depth":1}}},"thread_source":"subagent","subagent_history_start_ordinal":3}}"#.into(),
        r#"{"type":"session_meta","payload":{"id":"a","source":{"subagent":"review"}},"payload":{"timestamp":"u"}}"#.into(),
        r#"{"type":"session_meta","payload":{"id":"a"},"payload":"x","type":"y"}"#.into(),
        r#"{"type":"session_meta","payload":"\ud800"}"#.into(),
        r#"{"type":"session_meta","payload":[1e400]}"#.into(),
        r#"{"type":"session_meta","payload":{"source":{"subagent":[1]},"source":"cli"}}"#.into(),
        r#"{"type":"session_meta","payload":{"source":{"subagent":"\ud800"}}}"#.into(),
        r#"{"type":"session_meta","payload":{"source":{"subagent":{"thread_spawn":1,"thread_spawn":2}}}}"#.into(),
        r#"{"type":"session_meta","payload":{"source":{"subagent":{"thread_spawn":{"agent_path":"a","agent_path":"b"}}}}}"#.into(),
        r#"{"type":"session_meta","payload":{"source":{"subagent":null,"subagent":"x"}}}"#.into(),
        r#"{"type":"event_msg","payload":{"type":"token_count","info":{"model":"m","total_token_usage":{"input_tokens":10,"cached_input_tokens":2,"output_tokens":1e400},"last_token_usage":{"total_tokens":-1.5}}}}"#.into(),
        r#"{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1,"input_tokens":2}}}}"#.into(),
        r#"{"type":"event_msg","payload":{"type":"task_complete","turn_id":"t","last_agent_message":"done \u00e9 \n x"}}"#.into(),
        r#"{"type":"event_msg","payload":{"type":"task_complete","last_agent_message":null}}"#.into(),
        r#"{"type":"event_msg","payload":{"type":"task_complete","last_agent_message":{"a":1}}}"#.into(),
        r#"{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"SubAgentActivity","id":"i","agent_thread_id":"c","agent_path":"p","kind":"completed","kind":"x"}}}"#.into(),
        r#"{"type":"event_msg","payload":{"type":"sub_agent_activity","agent_thread_id":"c","kind":"started","kind":"interacted","event_id":"e"}}"#.into(),
        r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi  there"},1,{"type":"text","text":null},{"type":"x","type":"y"}]}}"#.into(),
        r#"{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"\ud800"}]}}"#.into(),
        r#"{"type":"response_item","payload":{"type":"agent_message","author":"a","content":[{"type":"input_text","text":"Message Type: FINAL_ANSWER\nPayload:\nok"}]}}"#.into(),
        r#"{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<subagent_notification>{\"agent_path\":\"p\",\"status\":{\"completed\":\"r\"}}</subagent_notification>"}]}}"#.into(),
        r#"{"type":"response_item","payload":{"type":"message","content":"x","content":[{"type":"text","text":"y"}]}}"#.into(),
        r#"{"type":"turn_context","payload":{"model":"m","model":"n","call_id":"c","new_thread_id":"t","response_id":"r","usage":{"input_tokens":1},"ordinal":2},"ordinal":3}"#.into(),
        r#"{"type":"x","payload":{"k\u0069nd":"started"},"\ud800":1}"#.into(),
        // Gemini CLI: the metadata line, messages with content as a string, a part, a list of
        // parts (strings, objects with text twice, function responses, anything else), tool
        // calls, `$set` and `$rewindTo`, fields twice, values of surprising types.
        r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"u","kind":"subagent","summary":"x","messages":[{"id":"m","type":"user","content":"hi"},1,"x"]}"#.into(),
        r#"{"sessionId":"s","projectHash":"h","messages":{"\ud800":[1e400]}}"#.into(),
        r#"{"sessionId":"s","projectHash":"h","messages":"\ud800"}"#.into(),
        r#"{"sessionId":"s","projectHash":"h","messages":1e400}"#.into(),
        r#"{"sessionId":"s","messages":null,"messages":[]}"#.into(),
        r#"{"id":"m","timestamp":"t","type":"user","content":"<session_context>\nx\n</session_context>"}"#.into(),
        r#"{"id":"m","type":"user","content":[{"text":"a"},"b  c",{"functionResponse":{"id":"f"},"functionResponse":1},{"text":"x","text":"y"},[1,[2]],null,3,{"text":7}]}"#.into(),
        r#"{"id":"m","type":"user","content":{"text":"\ud800"}}"#.into(),
        r#"{"id":"m","type":"user","content":["\ud800"]}"#.into(),
        r#"{"id":"m","type":"user","content":[1e400]}"#.into(),
        r#"{"id":"m","type":"user","content":{"\ud800":1}}"#.into(),
        r#"{"id":"m","type":"user","content":true,"content":"x"}"#.into(),
        r#"{"id":"m","type":"gemini","model":"g","tokens":{"input":10,"output":2,"cached":3,"thoughts":1,"tool":0,"total":16,"input":1},"content":""}"#.into(),
        r#"{"id":"m","type":"gemini","tokens":{"input":1e400}}"#.into(),
        r#"{"id":"m","type":"gemini","toolCalls":[{"id":"c","name":"invoke_agent","status":"success","agentId":"a","displayName":"d","result":[{"functionResponse":{"response":{"output":"r"}}}],"args":{"x":1}},2,{"name":"a","name":"b"}],"thoughts":[{"subject":"s"},1e400]}"#.into(),
        r#"{"id":"m","type":"gemini","thoughts":"x","thoughts":[]}"#.into(),
        // What a call received (a sub-agent's answer), each way a result can hold it: output,
        // error, neither (written as JSON), a response that is no object, text parts, a plain
        // string, keys twice, `resultDisplay` alone, values serde_json does not read.
        r#"{"id":"m","type":"gemini","toolCalls":[{"id":"a","result":[{"functionResponse":{"id":"a","response":{"output":"one \"q\" \n two"}}},{"text":"t"}]},{"id":"b","result":{"functionResponse":{"response":{"error":"bad","output":7}}}},{"id":"c","result":[{"functionResponse":{"response":{"error":"e"}}},{"functionResponse":{"response":{"z":[1,{"b":2,"a":1.5}],"y":null}}}]}]}"#.into(),
        r#"{"id":"m","type":"gemini","toolCalls":[{"id":"a","result":"plain","resultDisplay":"d"},{"id":"b","result":[],"resultDisplay":"shown"},{"id":"c","result":[1,"x",null],"resultDisplay":5},{"id":"d","resultDisplay":"only"},{"id":"e","result":{"functionResponse":{"response":"str"}}}]}"#.into(),
        r#"{"id":"m","type":"gemini","toolCalls":[{"id":"a","result":{"functionResponse":{"response":{"output":"x"}},"functionResponse":2,"text":"t"}},{"id":"b","result":{"functionResponse":{"nothing":1},"text":"u","text":"v"}},{"id":"c","result":[{"text":7},{"text":"w"}],"result":[{"text":"last"}]}]}"#.into(),
        r#"{"id":"m","type":"gemini","toolCalls":[{"id":"a","result":[{"text":"ok"},1e400]},{"id":"b","result":{"text":"\ud800"}},{"id":"c","result":[{"text":"ok"}],"resultDisplay":1e400},{"id":"d","result":[{"\ud800":1,"text":"k"}]},{"id":"e","result":[{"functionResponse":{"response":{"output":"o","\ud800":0}}}]}]}"#.into(),
        r#"{"id":"m","type":"gemini","toolCalls":[{"id":"a","result":[{"functionResponse":{"response":{"output":null,"error":"e"}}}]},{"id":1,"result":"n"},{"id":"c","id":"d","result":"dup id"},"x",{"id":"e","result":[{"functionResponse":{"response":{"output":"\u00e9\ud83d\ude00"}}}]}]}"#.into(),
        r#"{"id":"m","type":"gemini","thoughts":{"\ud800":1}}"#.into(),
        r#"{"$set":{"messages":[{"id":"a"}],"summary":"s","messages":[]}}"#.into(),
        r#"{"$set":{"summary":"s","lastUpdated":"t"},"$rewindTo":"m"}"#.into(),
        r#"{"$rewindTo":5,"$set":"x"}"#.into(),
    ];
    for c in &cases {
        same(c.as_bytes());
    }
    // The nesting limit itself, both sides of it: typed containers up to serde_json's limit.
    let mut parsed = 0;
    for n in 58..68 {
        for inner in ["", r#","data":{}"#, r#","data":{"message":{}}"#] {
            let l = nested(n, inner);
            same(l.as_bytes());
            parsed += usize::from(parse_line(l.as_bytes()).is_some());
        }
    }
    assert!(parsed > 0 && parsed < 30, "the limit is not inside the range tried ({parsed} of 30 parsed)");
    for n in 120..130 {
        let l = format!("{{\"method\":{}1{}}}", "[".repeat(n), "]".repeat(n));
        same(l.as_bytes());
    }
    // OpenCode: an unknown top-level value is read whole (typed) up to the nesting limit; the
    // same depth inside the row's document is skipped.
    for n in 124..132 {
        same(format!("{{\"$table\":\"session\",\"revert\":{}1{}}}", "[".repeat(n), "]".repeat(n)).as_bytes());
        same(format!("{{\"$table\":\"part\",\"data\":{{\"x\":{}1{}}}}}", "[".repeat(n), "]".repeat(n)).as_bytes());
    }
    same(b"{\"method\":\"\xff\"}");
    // Invalid UTF-8 in a string serde_json would skip unchecked: refused all the same.
    same(b"{\"type\":\"session\",\"cwd\":\"{{c\x89\x93}\"}");
    assert!(parse_line(b"{\"cwd\":\"\x89\"}").is_none());
}

/// Bytes a log's line can be broken with.
const BREAKERS: &[u8] = b"{}[]\",:\\0123456789-+.eEtfnul \t\x01a";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    /// A shipped line, cut short, with bytes changed, inserted or removed.
    #[test]
    fn broken_shipped_lines_read_as_the_reference_reads_them(
        pick in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0usize..BREAKERS.len(), 0u8..4), 0..4),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        thread_local! { static LINES: Vec<Vec<u8>> = shipped_lines().into_iter().filter(|l| !l.is_empty()).collect(); }
        let mut line = LINES.with(|ls| pick.get(ls).clone());
        for (at, b, how) in edits {
            let i = at.index(line.len() + 1);
            match how {
                0 if i < line.len() => line[i] = BREAKERS[b],
                1 => line.insert(i, BREAKERS[b]),
                2 if i < line.len() => { line.remove(i); }
                _ => line.insert(i, b'"'),
            }
        }
        if let Some(c) = cut {
            line.truncate(c.index(line.len() + 1));
        }
        same(&line);
    }

    /// Reply texts are decoded by `json::push_json_string`: the text serde_json gives, or
    /// nothing where serde_json refuses the string.
    #[test]
    fn json_strings_decode_as_serde_json_decodes_them(
        pieces in proptest::collection::vec(prop::sample::select(STRING_PIECES), 0..12),
        tail in "[a\u{e9}\u{65e5}]{0,3}",
    ) {
        let json = format!("\"{}{tail}\"", pieces.concat());
        let mut got = String::from("kept ");
        let ok = arbor_core::text::json::push_json_string(&mut got, json.as_bytes());
        let want = serde_json::from_str::<String>(&json).ok();
        prop_assert_eq!(ok, want.is_some(), "{}", json);
        prop_assert_eq!(got, format!("kept {}", want.unwrap_or_default()), "{}", json);
        prop_assert!(!arbor_core::text::json::push_json_string(&mut String::new(), b"\"a\xff\""));
    }
}

/// What a JSON string's text is made of, good and bad: escapes of every kind, surrogates paired
/// and not, quotes and control characters that end or break it, non-ASCII text.
const STRING_PIECES: &[&str] = &[
    "a",
    "text ",
    "\u{e9}",
    "\u{1F600}",
    "\\\"",
    "\\\\",
    "\\/",
    "\\b",
    "\\f",
    "\\n",
    "\\r",
    "\\t",
    "\\u0041",
    "\\u00e9",
    "\\u0000",
    "\\uD83D",
    "\\ude00",
    "\\uDBFF\\uDFFF",
    "\\ud800\\u0041",
    "\\u12",
    "\\u12g4",
    "\\x",
    "\\",
    "\"",
    "\u{1}",
    "\n",
    "\u{7f}",
];

/// A message's text is kept as it is in the line and decoded when asked for, to the same text
/// serde_json gives.
#[test]
fn an_escaped_message_text_decodes_when_asked_for() {
    let line = br#"{"data":{"content":"\ud83d\ude00 \"q\" \u00e9\\n\n"}}"#;
    let text = parse_line(line).and_then(|l| l.data.0.and_then(|d| d.content.text()));
    assert_eq!(text.as_deref(), Some("\u{1F600} \"q\" \u{e9}\\n\n"));
    let plain =
        parse_line(br#"{"data":{"content":"no escapes"}}"#).and_then(|l| l.data.0.and_then(|d| d.content.text()));
    assert_eq!(plain.as_deref(), Some("no escapes"));
    assert!(parse_line(br#"{"data":{"content":"\ud83d"}}"#).is_none());
}
