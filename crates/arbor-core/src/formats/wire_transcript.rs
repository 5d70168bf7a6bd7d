//! What the harness family's lines say, as transcript parts (SPEC 5 Transcript): dsh durable
//! events (bare or inside a dsh-rpc `session.event`), dsh-rpc lifecycle notifications, and
//! Copilot envelopes (bare or inside a copilot-rpc `session.event`).
//!
//! This reads lines back a page at a time, not on the hot path, so it reads them whole with
//! serde_json rather than through the scanner's shape. Boundaries, chunks and bookkeeping lines
//! say nothing here (the whole message is in its `assistant/message`).

use crate::report::Usage;
use crate::vocab::transcript::{Draft, PartKind};
use serde_json::Value;

/// The parts of one line of the harness family.
pub(crate) fn transcript(line: &[u8], out: &mut Vec<Draft>) {
    let Ok(v) = serde_json::from_slice::<Value>(line) else { return };
    match v.get("method").and_then(Value::as_str) {
        Some("session.event") => {
            if let Some(ev) = v.pointer("/params/event") {
                event(ev, out);
            }
        }
        Some("subagent.started") => {
            let mut d = Draft::new(PartKind::Spawn, "");
            d.child = str_at(&v, "/params/childSessionId").map(str::to_owned);
            out.push(d);
        }
        Some("subagent.finished") => {
            let mut d = Draft::new(PartKind::Received, blocks_text(v.pointer("/params/lastAssistantMessage")));
            d.child = str_at(&v, "/params/childSessionId").map(str::to_owned);
            d.is_error = Some(str_at(&v, "/params/status") != Some("ok"));
            out.push(d);
        }
        Some("session/prompt") => {
            out.push(Draft::new(PartKind::Prompt, blocks_text(v.pointer("/params/contentBlocks"))));
        }
        Some(_) => {}
        None => event(&v, out),
    }
}

/// Whether a record of the harness family of this kind may hold a compared part (a prompt, a
/// reply, a tool call or spawn): a tool's result (`tool/result`, `tool.execution_complete`), a
/// child's end (`subagent.finished`), Copilot's sub-agent lifecycle and its session errors are
/// read as results, received replies and notices only.
pub(crate) fn may_compare(kind: crate::ctx::Kind) -> bool {
    use crate::ctx::Kind;
    !matches!(kind, Kind::ToolResult | Kind::SubagentFinished | Kind::Lifecycle | Kind::Error)
}

fn str_at<'v>(v: &'v Value, path: &str) -> Option<&'v str> {
    v.pointer(path).and_then(Value::as_str)
}

/// The text blocks of a content list (or a plain string), joined without a separator.
fn blocks_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str).is_none_or(|t| t == "text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

/// A JSON value as text: a string holding an object or array as pretty JSON, any other string as
/// it is, anything else as pretty JSON (`true` for JSON). Codex's transcript uses it too.
pub(super) fn json_text(v: Option<&Value>) -> (String, bool) {
    match v {
        None | Some(Value::Null) => (String::new(), false),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(parsed @ (Value::Object(_) | Value::Array(_))) => {
                (serde_json::to_string_pretty(&parsed).unwrap_or_else(|_| s.clone()), true)
            }
            _ => (s.clone(), false),
        },
        Some(other) => (serde_json::to_string_pretty(other).unwrap_or_default(), true),
    }
}

fn count(v: &Value, keys: &[&str]) -> u64 {
    keys.iter().find_map(|k| v.get(k).and_then(Value::as_u64)).unwrap_or(0)
}

/// dsh's `usage` object (`inputTokens`, `outputTokens`, `cacheReadTokens`, `cacheWriteTokens`).
fn dsh_usage(v: Option<&Value>) -> Option<Usage> {
    let u = v?;
    let usage = Usage {
        input: count(u, &["inputTokens"]),
        output: count(u, &["outputTokens"]),
        cache_read: count(u, &["cacheReadTokens"]),
        cache_write: count(u, &["cacheWriteTokens", "cacheCreationTokens"]),
        cost: None,
        unpriced: None,
    };
    (!usage.is_zero()).then_some(usage)
}

/// One durable dsh event or Copilot envelope.
fn event(ev: &Value, out: &mut Vec<Draft>) {
    let Some(kind) = ev.get("type").and_then(Value::as_str) else { return };
    let empty = Value::Null;
    let data = ev.get("data").unwrap_or(&empty);
    match kind {
        // dsh durable events.
        "user/message" | "steering/message" => {
            let content = data.pointer("/message/content").or(data.get("content"));
            // A user message from a plugin (the runtime context) or a notice of a settled child
            // is the harness speaking, not the user; a coordinator's relay is a parent's prompt.
            let kind = match str_at(data, "/source/kind") {
                None | Some("user" | "coordinator") => PartKind::Prompt,
                Some(_) => PartKind::Notice,
            };
            let mut d = Draft::new(kind, blocks_text(content));
            d.child = str_at(data, "/source/senderSessionId").filter(|_| kind == PartKind::Notice).map(str::to_owned);
            out.push(d);
        }
        "assistant/message" => {
            let content = data.pointer("/message/content").or(data.get("content"));
            let model = str_at(data, "/message/source/model").or(str_at(data, "/provenance/model"));
            let first = out.len();
            for b in content.and_then(Value::as_array).into_iter().flatten() {
                let text = b.get("text").and_then(Value::as_str).unwrap_or_default();
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => out.push(Draft::new(PartKind::Text, text)),
                    Some("reasoning") => out.push(Draft::new(PartKind::Reasoning, text)),
                    // A tool-call block is shown by its own `tool/call` event.
                    _ => {}
                }
            }
            if out.len() == first {
                out.push(Draft::new(PartKind::Text, ""));
            }
            out[first].usage = dsh_usage(data.get("usage"));
            for d in &mut out[first..] {
                d.model = model.map(str::to_owned);
            }
        }
        "tool/call" => {
            let (text, json) = json_text(data.get("arguments"));
            let mut d = Draft::new(PartKind::ToolCall, text);
            d.json = json;
            d.tool = str_at(data, "/name").map(str::to_owned);
            d.call_id = str_at(data, "/callId").map(str::to_owned);
            out.push(d);
        }
        "tool/result" => {
            let blocks = data.pointer("/message/content").and_then(Value::as_array);
            let result =
                blocks.and_then(|b| b.iter().find(|b| b.get("type").and_then(Value::as_str) == Some("tool-result")));
            let (text, is_error, call) = match result {
                Some(r) => (
                    blocks_text(r.get("content")),
                    r.get("isError").and_then(Value::as_bool),
                    r.get("toolCallId").and_then(Value::as_str).or(str_at(data, "/message/source/callId")),
                ),
                None => (
                    blocks_text(data.get("content")),
                    data.get("isError").and_then(Value::as_bool),
                    str_at(data, "/callId"),
                ),
            };
            let mut d = Draft::new(PartKind::ToolResult, text);
            d.is_error = is_error.or(data.get("error").map(|e| !e.is_null()));
            d.call_id = call.map(str::to_owned);
            out.push(d);
        }
        k if k.starts_with("compaction/") => {
            let text = str_at(data, "/summary").unwrap_or(k);
            out.push(Draft::new(PartKind::Compaction, text));
        }
        "system/message" | "developer/message" | "context/message" => {
            let content = data.pointer("/message/content").or(data.get("content"));
            out.push(Draft::new(PartKind::Notice, blocks_text(content)));
        }
        // Copilot envelopes.
        "user.message" => out.push(Draft::new(PartKind::Prompt, blocks_text(data.get("content")))),
        "assistant.message" => {
            let mut d = Draft::new(PartKind::Text, blocks_text(data.get("content")));
            let output = count(data, &["outputTokens"]);
            d.usage = (output > 0).then_some(Usage { output, ..Usage::default() });
            d.message = str_at(data, "/messageId").map(str::to_owned);
            out.push(d);
        }
        "assistant.reasoning" => out.push(Draft::new(PartKind::Reasoning, blocks_text(data.get("content")))),
        "tool.execution_start" => {
            let (text, json) = json_text(data.get("arguments"));
            let mut d = Draft::new(PartKind::ToolCall, text);
            d.json = json;
            d.tool = str_at(data, "/toolName").map(str::to_owned);
            d.call_id = str_at(data, "/toolCallId").map(str::to_owned);
            out.push(d);
        }
        "tool.execution_complete" => {
            let result = data.get("result");
            let content = result.and_then(|r| r.get("content")).or(result);
            let (text, json) = json_text(content);
            let mut d = Draft::new(PartKind::ToolResult, text);
            d.json = json;
            d.is_error = data.get("success").and_then(Value::as_bool).map(|ok| !ok);
            d.call_id = str_at(data, "/toolCallId").map(str::to_owned);
            out.push(d);
        }
        "subagent.started" | "subagent.completed" | "subagent.failed" => {
            let who = str_at(data, "/agentDisplayName").or(str_at(data, "/agentName")).unwrap_or("sub-agent");
            let what = &kind["subagent.".len()..];
            let mut d = Draft::new(PartKind::Notice, format!("{who} {what}"));
            d.is_error = (kind == "subagent.failed").then_some(true);
            if let Some(e) = str_at(data, "/error") {
                d.text = format!("{who} failed: {e}");
            }
            out.push(d);
        }
        "session.error" => {
            let mut d = Draft::new(PartKind::Notice, str_at(data, "/message").unwrap_or("session error"));
            d.is_error = Some(true);
            out.push(d);
        }
        "session.info" | "session.warning" => {
            out.push(Draft::new(PartKind::Notice, str_at(data, "/message").unwrap_or(kind)));
        }
        k if k.starts_with("session.compaction") => {
            out.push(Draft::new(PartKind::Compaction, str_at(data, "/summaryContent").unwrap_or(k)));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(line: &str) -> Vec<(PartKind, String)> {
        let mut out = Vec::new();
        transcript(line.as_bytes(), &mut out);
        out.into_iter().map(|d| (d.kind.unwrap(), d.text)).collect()
    }

    #[test]
    fn dsh_events_say_what_a_reader_wants() {
        assert_eq!(
            parts(
                r#"{"type":"assistant/message","data":{"message":{"content":[{"type":"reasoning","text":"hm"},{"type":"text","text":"A"},{"type":"tool-call","id":"c"},{"type":"text","text":"B"}]}}}"#
            ),
            [(PartKind::Reasoning, "hm".into()), (PartKind::Text, "A".into()), (PartKind::Text, "B".into())]
        );
        assert_eq!(
            parts(
                r#"{"method":"session.event","params":{"sessionId":"s","event":{"type":"user/message","data":{"content":[{"type":"text","text":"hi"}]}}}}"#
            ),
            [(PartKind::Prompt, "hi".into())]
        );
        assert_eq!(parts(r#"{"type":"turn/start","data":{"turn":1}}"#), []);
        let mut out = Vec::new();
        transcript(
            br#"{"type":"tool/call","data":{"callId":"c1","name":"subagent","arguments":"{\"prompt\":\"go\"}"}}"#,
            &mut out,
        );
        assert_eq!(
            (out[0].tool.as_deref(), out[0].call_id.as_deref(), out[0].json),
            (Some("subagent"), Some("c1"), true)
        );
        assert!(out[0].text.contains("\"prompt\": \"go\""), "{}", out[0].text);
    }

    #[test]
    fn dsh_lifecycle_names_the_child_and_its_reply() {
        let mut out = Vec::new();
        transcript(br#"{"method":"subagent.finished","params":{"parentSessionId":"p","childSessionId":"c","status":"error","lastAssistantMessage":[{"type":"text","text":"boom"}]}}"#, &mut out);
        assert_eq!(
            (out[0].kind, out[0].text.as_str(), out[0].child.as_deref(), out[0].is_error),
            (Some(PartKind::Received), "boom", Some("c"), Some(true))
        );
    }

    #[test]
    fn copilot_envelopes_say_what_a_reader_wants() {
        let mut out = Vec::new();
        transcript(br#"{"type":"tool.execution_complete","data":{"toolCallId":"t","success":false,"result":{"content":"nope"}},"id":"e","timestamp":"t"}"#, &mut out);
        assert_eq!(
            (out[0].kind, out[0].text.as_str(), out[0].is_error),
            (Some(PartKind::ToolResult), "nope", Some(true))
        );
        assert_eq!(
            parts(r#"{"type":"assistant.message","data":{"content":"Root summary."},"id":"e12"}"#),
            [(PartKind::Text, "Root summary.".into())]
        );
    }
}
