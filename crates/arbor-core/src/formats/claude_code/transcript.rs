//! What one Claude Code line says, as transcript parts (SPEC 5 Transcript): prompts, assistant
//! text, thinking and tool calls (a `Task`/`Agent` call as the spawn it is), tool results (one
//! that names its `toolUseResult.agentId` as what the parent received), task notifications,
//! compactions and system notices.
//!
//! Lines are read back a page at a time, not on the hot path, so they are read whole with
//! serde_json. Which child a spawn started is not on its line: `link::settle` registers it in
//! `Ctx::spawns`. A split API message repeats its usage on each line as a snapshot that grows;
//! each part carries its line's snapshot and the message key `(message.id, requestId)` the reader
//! counts it by, and the transcript keeps the largest of each count, as the reader does.

use super::line::{self, is_spawn_tool, BLOCK_SEPARATOR};
use crate::report::Usage;
use crate::vocab::transcript::{Draft, Media, PartKind};
use serde_json::Value;

/// The parts of one line.
pub(super) fn transcript(line: &[u8], out: &mut Vec<Draft>) {
    let Ok(v) = serde_json::from_slice::<Value>(line) else { return };
    let content = v.pointer("/message/content");
    match v.get("type").and_then(Value::as_str) {
        Some("user") => user(&v, content, out),
        Some("assistant") => assistant(&v, content, out),
        Some("system") => {
            let text = v.get("content").and_then(Value::as_str).unwrap_or_default();
            if v.get("subtype").and_then(Value::as_str) == Some("compact_boundary") {
                // `compactMetadata`: what started it and the context's tokens before and after.
                let meta = v.get("compactMetadata");
                let num = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_u64);
                let mut about: Vec<String> = Vec::new();
                about.extend(meta.and_then(|m| m.get("trigger")).and_then(Value::as_str).map(str::to_owned));
                about.extend(num("preTokens").map(|n| format!("{n} tokens before")));
                about.extend(num("postTokens").map(|n| format!("{n} after")));
                let mut t = if text.is_empty() { "Conversation compacted".to_owned() } else { text.to_owned() };
                if !about.is_empty() {
                    t.push_str(&format!(" ({})", about.join(", ")));
                }
                out.push(Draft::new(PartKind::Compaction, t));
            } else if !text.is_empty() {
                // A system line without text (a session start, a duration) is bookkeeping.
                let mut d = Draft::new(PartKind::Notice, text);
                d.is_error = (v.get("level").and_then(Value::as_str) == Some("error")).then_some(true);
                out.push(d);
            }
        }
        _ => {}
    }
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool) == Some(true)
}

/// A user line: a prompt, a meta or notification text, a compaction summary, or tool results.
fn user(v: &Value, content: Option<&Value>, out: &mut Vec<Draft>) {
    let text = text_of(content);
    if let Some(n) = line::Notice::of(&text) {
        // A background task's end is the result of the call that started it: the transcript
        // shows it as what the parent received when that call spawned a sub-agent.
        let mut d = Draft::new(PartKind::ToolResult, line::notice_result(&text));
        d.call_id = n.tool_use_id.map(String::from);
        d.is_error = Some(matches!(n.status.as_deref(), Some("failed" | "error")));
        out.push(d);
        return;
    }
    if flag(v, "isCompactSummary") {
        out.push(Draft::new(PartKind::Compaction, text));
        return;
    }
    let blocks = content.and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let results: Vec<&Value> = blocks.iter().filter(|b| kind(b) == Some("tool_result")).collect();
    let images: Vec<&Value> = blocks.iter().filter(|b| kind(b) == Some("image")).collect();
    if !text.is_empty() || (results.is_empty() && images.is_empty()) {
        let what = if flag(v, "isMeta") { PartKind::Notice } else { PartKind::Prompt };
        out.push(Draft::new(what, text));
    }
    out.extend(images.into_iter().map(image));
    // A line's toolUseResult describes its result only when it holds one (as the reader reads it).
    let agent = v
        .pointer("/toolUseResult/agentId")
        .and_then(Value::as_str)
        .filter(|a| !a.is_empty() && results.len() == 1);
    // A background spawn's result says it was launched: the child's reply is its
    // `<task-notification>`, later.
    let launched = v.pointer("/toolUseResult/status").and_then(Value::as_str) == Some("async_launched");
    for r in results {
        let (text, json) = result_text(r.get("content"));
        let received = agent.is_some() && !launched;
        let mut d = Draft::new(if received { PartKind::Received } else { PartKind::ToolResult }, text);
        d.acknowledges = launched;
        d.json = json;
        d.call_id = r.get("tool_use_id").and_then(Value::as_str).map(str::to_owned);
        d.is_error = Some(flag(r, "is_error"));
        d.child = agent.map(str::to_owned);
        out.push(d);
        if let Some(Value::Array(inner)) = r.get("content") {
            out.extend(inner.iter().filter(|b| kind(b) == Some("image")).map(image));
        }
    }
}

/// An `image` block (SPEC 2.4 Text): inline base64 data (its type and decoded size; the data as
/// a `data:` URL, read back when shown), or an address, never fetched.
fn image(b: &Value) -> Draft {
    let source = b.get("source");
    let s = |k: &str| source.and_then(|s| s.get(k)).and_then(Value::as_str);
    let mut d = Draft::new(PartKind::Image, "");
    match (s("type"), s("data"), s("url")) {
        (_, Some(data), _) => {
            let media = Media::inline(s("media_type"), data);
            // A media type that is not one an image element draws is not put in a URL.
            d.data_url = media.drawable().then(|| format!("data:{};base64,{}", media.media_type.as_deref().unwrap_or_default(), data.trim()));
            d.media = Some(media);
        }
        (_, None, Some(url)) => {
            d.text = url.to_owned();
            d.media = Some(Media { media_type: s("media_type").map(str::to_owned), bytes: None });
        }
        _ => d.media = Some(Media::default()),
    }
    d
}

/// An assistant line: its blocks in order, each with the line's model, message key and usage.
fn assistant(v: &Value, content: Option<&Value>, out: &mut Vec<Draft>) {
    let first = out.len();
    let api_error = flag(v, "isApiErrorMessage");
    match content {
        Some(Value::String(s)) => out.push(Draft::new(if api_error { PartKind::Notice } else { PartKind::Text }, s)),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                let s = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or_default();
                match kind(b) {
                    Some("text") if api_error => out.push(Draft::new(PartKind::Notice, s("text"))),
                    Some("text") => out.push(Draft::new(PartKind::Text, s("text"))),
                    Some("thinking") => out.push(Draft::new(PartKind::Reasoning, s("thinking"))),
                    Some("redacted_thinking") => out.push(Draft::new(PartKind::Reasoning, "(redacted)")),
                    Some("tool_use") => {
                        let name = b.get("name").and_then(Value::as_str);
                        let input = b.get("input");
                        let spawn = name.is_some_and(is_spawn_tool);
                        // A spawn's task is its prompt; a call without one shows its arguments.
                        let prompt = input.and_then(|i| i.get("prompt")).and_then(Value::as_str);
                        let mut d = match prompt.filter(|_| spawn) {
                            Some(p) => Draft::new(PartKind::Spawn, p),
                            None => {
                                let mut d = Draft::new(if spawn { PartKind::Spawn } else { PartKind::ToolCall }, pretty(input));
                                d.json = input.is_some();
                                d
                            }
                        };
                        d.tool = name.map(str::to_owned);
                        d.call_id = b.get("id").and_then(Value::as_str).map(str::to_owned);
                        out.push(d);
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    if out.len() == first {
        out.push(Draft::new(PartKind::Text, ""));
    }
    if api_error {
        out[first].is_error = Some(true);
    }
    let model = v.pointer("/message/model").and_then(Value::as_str).filter(|m| !m.is_empty());
    let id = v.pointer("/message/id").and_then(Value::as_str).filter(|m| !m.is_empty());
    // The reader counts a message once per (message.id, requestId).
    let message = id.map(|id| format!("{id} {}", v.get("requestId").and_then(Value::as_str).unwrap_or_default()));
    out[first].usage = v.pointer("/message/usage").filter(|u| u.is_object()).map(usage);
    for d in &mut out[first..] {
        d.model = model.map(str::to_owned);
        d.message.clone_from(&message);
    }
}

fn kind(b: &Value) -> Option<&str> {
    b.get("type").and_then(Value::as_str)
}

/// `message.usage` as the reader reads it (`line::TokenCounts`).
fn usage(u: &Value) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_f64).filter(|v| *v >= 0.0).map_or(0, |v| v.min(u64::MAX as f64) as u64);
    Usage {
        input: n("input_tokens"),
        output: n("output_tokens"),
        cache_read: n("cache_read_input_tokens"),
        cache_write: n("cache_creation_input_tokens"),
        cost: None,
        unpriced: None,
    }
}

/// A content value's text: a string, or its text blocks in order, each kept apart (SPEC 2.4
/// Text: joined by a blank line, never glued).
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| kind(b) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            texts.join(BLOCK_SEPARATOR)
        }
        _ => String::new(),
    }
}

/// A tool result's content as text: a string, its text blocks (an image as `[image]`), or any
/// other value as JSON (`true` then).
fn result_text(content: Option<&Value>) -> (String, bool) {
    match content {
        None | Some(Value::Null) => (String::new(), false),
        Some(Value::String(s)) => (s.clone(), false),
        Some(Value::Array(blocks)) if blocks.iter().all(|b| matches!(kind(b), Some("text" | "image"))) => {
            let parts: Vec<&str> = blocks
                .iter()
                .map(|b| match kind(b) {
                    Some("image") => "[image]",
                    _ => b.get("text").and_then(Value::as_str).unwrap_or_default(),
                })
                .collect();
            (parts.join("\n"), false)
        }
        Some(other) => (pretty(Some(other)), true),
    }
}

fn pretty(v: Option<&Value>) -> String {
    v.map_or_else(String::new, |v| serde_json::to_string_pretty(v).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(line: &str) -> Vec<Draft> {
        let mut out = Vec::new();
        transcript(line.as_bytes(), &mut out);
        out
    }

    #[test]
    fn a_split_message_line_carries_its_key_and_snapshot_and_a_broken_line_nothing() {
        let p = parts(
            r#"{"type":"assistant","requestId":"r1","message":{"id":"m1","model":"x","content":[{"type":"thinking","thinking":"hm"},{"type":"tool_use","id":"t1","name":"Agent","input":{"prompt":"do it"}}],"usage":{"input_tokens":3,"output_tokens":8}}}"#,
        );
        assert_eq!(p.len(), 2);
        assert_eq!((p[0].kind, p[0].text.as_str()), (Some(PartKind::Reasoning), "hm"));
        assert_eq!((p[1].kind, p[1].text.as_str(), p[1].call_id.as_deref()), (Some(PartKind::Spawn), "do it", Some("t1")));
        assert_eq!(p[0].usage.as_ref().map(|u| (u.input, u.output)), Some((3, 8)));
        assert!(p[1].usage.is_none());
        assert!(p.iter().all(|d| d.message.as_deref() == Some("m1 r1") && d.model.as_deref() == Some("x")));
        assert!(parts(r#"{"type":"assistant","message":"#).is_empty());
        let c = parts(r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual","preTokens":9,"postTokens":2}}"#);
        assert_eq!(c[0].text, "Conversation compacted (manual, 9 tokens before, 2 after)");
        assert!(parts(r#"{"type":"user","message":{"content":7}}"#).iter().all(|d| d.text.is_empty()));
    }

    #[test]
    fn text_blocks_are_kept_apart_and_an_image_is_a_part_of_its_own() {
        let p = parts(
            r#"{"type":"user","message":{"content":[{"type":"text","text":"<ide_opened_file>foo.go</ide_opened_file>"},{"type":"text","text":"real title here"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}}"#,
        );
        assert_eq!(p.len(), 2);
        assert_eq!((p[0].kind, p[0].text.as_str()), (Some(PartKind::Prompt), "<ide_opened_file>foo.go</ide_opened_file>\n\nreal title here"));
        assert_eq!(p[1].kind, Some(PartKind::Image));
        assert_eq!(p[1].media, Some(Media { media_type: Some("image/png".into()), bytes: Some(8) }));
        assert_eq!(p[1].data_url.as_deref(), Some("data:image/png;base64,iVBORw0KGgo="));
        // An image alone is the line's one part; an address is kept as text, never fetched; a
        // media type that could break out of a URL is not put in one.
        let only = parts(r#"{"type":"user","message":{"content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}}"#);
        assert_eq!((only.len(), only[0].kind, only[0].text.as_str(), only[0].data_url.is_none()), (1, Some(PartKind::Image), "https://x/y.png", true));
        let odd = parts(r#"{"type":"user","message":{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png\" onload=\"x","data":"AAAA"}}]}}"#);
        assert_eq!((odd[0].data_url.as_deref(), odd[0].media.as_ref().and_then(|m| m.bytes)), (None, Some(3)));
        let result = parts(
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"shot"},{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4A=="}}]}]}}"#,
        );
        assert_eq!(result.iter().map(|d| d.kind).collect::<Vec<_>>(), [Some(PartKind::ToolResult), Some(PartKind::Image)]);
        assert_eq!(result[1].media.as_ref().and_then(|m| m.bytes), Some(4));
        let two = parts(r#"{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}"#);
        assert_eq!(two.iter().map(|d| d.text.as_str()).collect::<Vec<_>>(), ["a", "b"], "assistant blocks are parts of their own");
    }

    #[test]
    fn a_result_that_names_its_agent_is_what_the_parent_received() {
        let p = parts(
            r#"{"type":"user","toolUseResult":{"agentId":"a1"},"message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"DONE"}]}]}}"#,
        );
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].kind, p[0].child.as_deref(), p[0].text.as_str()), (Some(PartKind::Received), Some("a1"), "DONE"));
        let n = parts(
            r#"{"type":"user","message":{"content":"<task-notification><tool-use-id>t2</tool-use-id><status>failed</status><result>no</result></task-notification>"}}"#,
        );
        assert_eq!((n[0].kind, n[0].text.as_str(), n[0].is_error), (Some(PartKind::ToolResult), "no", Some(true)));
        assert_eq!(n[0].call_id.as_deref(), Some("t2"));
    }
}
