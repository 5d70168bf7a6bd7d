//! What a rollout line says, as transcript parts (SPEC 5 Transcript), read back a page at a
//! time with serde_json rather than through the scanner's shape.
//!
//! **One source for each thing said.** A rollout records the model's output twice: as
//! `response_item`s (what the model was sent and produced, which the reader's turns, steps and
//! replies are made of) and as `event_msg`s for the UI (`user_message`, `agent_message`,
//! `agent_reasoning`, `context_compacted`). The transcript shows the `response_item`s and the
//! `compacted` line (which carries the summary); the UI echoes give nothing. Token counts are
//! their own lines: a `token_count` or `token_usage_record` that the reader counted is a row of
//! its own (the reader made its record a `Kind::Usage`; a repeat or a fork's copy stays none), a
//! `usage` part to which the engine gives the tokens and model the reader counted there
//! (`UsageBook::call`: a count with only the running total counts a difference no line holds),
//! so a turn's usage parts add up to the turn's usage in the report.

use crate::vocab::transcript::{Draft, Media, PartKind};
use serde_json::Value;

/// User-role messages the harness writes (context, instructions), not the user.
const HARNESS_PREFIXES: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<turn_aborted>",
    "<user_shell_command>",
];

pub(super) fn line(line: &[u8], out: &mut Vec<Draft>) {
    let Ok(v) = serde_json::from_slice::<Value>(line) else { return };
    let Some(p) = v.get("payload").filter(|p| p.is_object()) else { return };
    let t = str_at(p, "type").unwrap_or("");
    match v.get("type").and_then(Value::as_str) {
        Some("response_item") => item(p, t, out),
        Some("compacted") => out.push(Draft::new(PartKind::Compaction, str_at(p, "message").unwrap_or(""))),
        Some("event_msg") if t == "token_count" => out.push(Draft::new(PartKind::Usage, "")),
        Some("event_msg") => event(p, t, out),
        Some("token_usage_record") => out.push(Draft::new(PartKind::Usage, "")),
        _ => {}
    }
}

fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
    v.get(key).and_then(Value::as_str)
}

/// The texts of a content list (or a plain string), each kept apart by a blank line.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| matches!(str_at(b, "type"), Some("input_text" | "output_text" | "text") | None))
                .filter_map(|b| str_at(b, "text"))
                .collect();
            texts.join("\n\n")
        }
        _ => String::new(),
    }
}

fn images_in(content: Option<&Value>) -> usize {
    content.and_then(Value::as_array).map_or(0, |b| b.iter().filter(|b| str_at(b, "type") == Some("input_image")).count())
}

/// The `input_image` blocks of a content list, each a part of its own: a `data:` URL's type and
/// size (its data read back when shown), or an address, never fetched.
fn images(content: Option<&Value>, out: &mut Vec<Draft>) {
    let blocks = content.and_then(Value::as_array).into_iter().flatten();
    for b in blocks.filter(|b| str_at(b, "type") == Some("input_image")) {
        let url = str_at(b, "image_url").unwrap_or_default();
        let mut d = Draft::new(PartKind::Image, "");
        match Media::of_data_url(url) {
            Some(media) => {
                d.data_url = media.drawable().then(|| url.to_owned());
                d.media = Some(media);
            }
            None => {
                d.text = url.to_owned();
                d.media = Some(Media::default());
            }
        }
        out.push(d);
    }
}

use super::super::wire_transcript::json_text;

/// The payload without its `type`, as JSON: the arguments of a call whose fields are its
/// arguments (`local_shell_call`, `web_search_call`, …).
fn fields_text(p: &Value) -> String {
    let mut m = p.as_object().cloned().unwrap_or_default();
    for k in ["type", "id", "call_id", "status"] {
        m.remove(k);
    }
    serde_json::to_string_pretty(&Value::Object(m)).unwrap_or_default()
}

fn item(p: &Value, t: &str, out: &mut Vec<Draft>) {
    match t {
        "message" => {
            let text = content_text(p.get("content"));
            match str_at(p, "role") {
                Some("assistant") => out.push(Draft::new(PartKind::Text, text)),
                Some("user") => {
                    if !text.is_empty() || images_in(p.get("content")) == 0 {
                        out.push(user_message(text));
                    }
                    images(p.get("content"), out);
                }
                _ => {}
            }
        }
        "reasoning" => {
            // The summary the model shows; the raw reasoning when a build records only that.
            let summary = p.get("summary").and_then(Value::as_array).into_iter().flatten();
            let mut parts: Vec<&str> = summary.filter_map(|b| str_at(b, "text")).collect();
            if parts.is_empty() {
                let content = p.get("content").and_then(Value::as_array).into_iter().flatten();
                parts = content.filter_map(|b| str_at(b, "text")).collect();
            }
            out.push(Draft::new(PartKind::Reasoning, parts.join("\n\n")));
        }
        "function_call" | "custom_tool_call" => {
            let name = str_at(p, "name");
            let args = if t == "function_call" { p.get("arguments") } else { p.get("input") };
            let (text, json) = json_text(args);
            let mut d = Draft::new(PartKind::ToolCall, text);
            d.json = json;
            if name == Some("spawn_agent") {
                // The task, when the arguments name one; else the arguments as they are.
                let task = args.and_then(Value::as_str).and_then(|a| serde_json::from_str::<Value>(a).ok());
                let task = task.as_ref().and_then(|a| ["message", "prompt", "task"].iter().find_map(|k| str_at(a, k)));
                if let Some(task) = task {
                    d.text = task.to_owned();
                    d.json = false;
                }
                d.kind = Some(PartKind::Spawn);
            }
            d.tool = name.map(str::to_owned);
            d.call_id = str_at(p, "call_id").map(str::to_owned);
            out.push(d);
        }
        "local_shell_call" | "web_search_call" | "tool_search_call" | "image_generation_call" => {
            let mut d = Draft::new(PartKind::ToolCall, fields_text(p));
            d.json = true;
            d.tool = Some(t.trim_end_matches("_call").to_owned());
            d.call_id = str_at(p, "call_id").map(str::to_owned);
            out.push(d);
        }
        "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" | "tool_search_output" => {
            out.push(tool_result(p));
        }
        "agent_message" => {
            let text = content_text(p.get("content"));
            match super::final_answer(&text) {
                Some(answer) => {
                    let mut d = Draft::new(PartKind::Received, answer);
                    d.child = str_at(p, "author").and_then(thread_id).map(str::to_owned);
                    out.push(d);
                }
                // Another agent's message to this one: an input, as a prompt is.
                None => out.push(Draft::new(PartKind::Prompt, text)),
            }
        }
        _ => {}
    }
}

/// A child named by its thread id rather than its agent path (`/root/…`), which is no session's id.
fn thread_id(name: &str) -> Option<&str> {
    (!name.is_empty() && !name.starts_with('/')).then_some(name)
}

/// A user-role message: the user's prompt, an older child's notification, or the harness.
fn user_message(text: String) -> Draft {
    if let Some((agent, status)) = super::notification(&text) {
        let mut d = Draft::new(PartKind::Received, status);
        d.child = thread_id(&agent).map(str::to_owned);
        return d;
    }
    let start = text.trim_start();
    let kind = if HARNESS_PREFIXES.iter().any(|h| start.starts_with(h)) { PartKind::Notice } else { PartKind::Prompt };
    Draft::new(kind, text)
}

/// A tool's output: a string (JSON or text), or `{content, success}`; it failed when it says
/// `success: false` or a non-zero `metadata.exit_code`, or (the text newer shell tools
/// return) starts `Exit code: N` with N not 0.
fn tool_result(p: &Value) -> Draft {
    let output = p.get("output");
    let exit = output.and_then(Value::as_str).and_then(|s| s.strip_prefix("Exit code: "));
    let exit = exit.and_then(|s| s.split(|c: char| !c.is_ascii_digit() && c != '-').next()?.parse::<i64>().ok());
    let parsed = output.and_then(Value::as_str).and_then(|s| serde_json::from_str::<Value>(s).ok());
    let obj = parsed.as_ref().or(output).filter(|o| o.is_object());
    let failed = obj.and_then(|o| {
        let success = o.get("success").and_then(Value::as_bool).map(|ok| !ok);
        success.or_else(|| o.pointer("/metadata/exit_code").and_then(Value::as_i64).map(|c| c != 0))
    });
    let (text, json) = match obj.and_then(|o| o.get("content").or(o.get("output"))).and_then(Value::as_str) {
        Some(s) if obj.is_some_and(|o| o.get("agent_id").is_none()) => (s.to_owned(), false),
        _ => json_text(output),
    };
    let mut d = Draft::new(PartKind::ToolResult, text);
    d.json = json;
    // A `spawn_agent` call's output only names the child it started (its id, nickname or
    // task path); what the parent received is the child's `FINAL_ANSWER` message, later.
    d.acknowledges = true;
    d.is_error = Some(failed.or(exit.map(|c| c != 0)).unwrap_or(false));
    d.call_id = str_at(p, "call_id").map(str::to_owned);
    d
}

fn event(p: &Value, t: &str, out: &mut Vec<Draft>) {
    match t {
        "error" | "stream_error" => {
            // `message`, or (some builds) an `error` object with its `message`.
            let message = str_at(p, "message").or(p.pointer("/error/message").and_then(Value::as_str));
            let mut d = Draft::new(PartKind::Notice, message.unwrap_or(""));
            d.is_error = Some(t == "error");
            out.push(d);
        }
        "sub_agent_activity" => out.push(activity(p)),
        "item_completed" => {
            if let Some(item) = p.get("item").filter(|i| str_at(i, "type") == Some("SubAgentActivity")) {
                out.push(activity(item));
            }
        }
        "entered_review_mode" => {
            let hint = str_at(p, "user_facing_hint").map(str::to_owned);
            out.push(Draft::new(PartKind::Notice, format!("Entered review mode: {}", hint.unwrap_or_else(|| fields_text(p)))));
        }
        "patch_apply_end" => {
            // Whether an `apply_patch` call's patch was applied (SPEC 6.5), by its call id: a notice
            // of its own, beside the call's output, which Codex writes too.
            let ok = p.get("success").and_then(Value::as_bool);
            let said: Vec<&str> =
                ["stdout", "stderr"].iter().filter_map(|k| str_at(p, k)).map(str::trim).filter(|t| !t.is_empty()).collect();
            let head = match ok {
                Some(true) => "Patch applied",
                Some(false) => "Patch not applied",
                None => "Patch applied?",
            };
            let text = if said.is_empty() { head.to_owned() } else { format!("{head}: {}", said.join("\n")) };
            let mut d = Draft::new(PartKind::Notice, text);
            d.call_id = str_at(p, "call_id").map(str::to_owned);
            d.is_error = ok.map(|ok| !ok);
            out.push(d);
        }
        "exited_review_mode" => {
            let said = p.pointer("/review_output/overall_explanation").and_then(Value::as_str);
            out.push(Draft::new(PartKind::Notice, format!("Exited review mode: {}", said.unwrap_or(""))));
        }
        _ => {}
    }
}

/// A parent's note of what a child it spawned is doing (started, completed, …).
fn activity(p: &Value) -> Draft {
    let who = str_at(p, "agent_path").or(str_at(p, "agent_thread_id")).unwrap_or("sub-agent");
    let mut d = Draft::new(PartKind::Notice, format!("{who}: {}", str_at(p, "kind").unwrap_or("started")));
    d.child = str_at(p, "agent_thread_id").map(str::to_owned);
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_apply_end_is_a_notice_of_its_call_saying_whether_it_applied() {
        let mut out = Vec::new();
        line(br#"{"timestamp":"t","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"call_7","stdout":"Success. Updated the following files:\nM src/a.rs\n","stderr":"","success":true}}"#, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].kind, out[0].call_id.as_deref(), out[0].is_error), (Some(PartKind::Notice), Some("call_7"), Some(false)));
        assert_eq!(out[0].text, "Patch applied: Success. Updated the following files:\nM src/a.rs");
        let mut out = Vec::new();
        line(br#"{"timestamp":"t","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"call_8","stdout":"","stderr":"no such file","success":false}}"#, &mut out);
        assert_eq!((out[0].is_error, out[0].text.as_str()), (Some(true), "Patch not applied: no such file"));
    }

    #[test]
    fn a_user_message_keeps_its_blocks_apart_and_each_image_is_a_part() {
        let mut out = Vec::new();
        line(
            br#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"look"},{"type":"input_text","text":"at this"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"},{"type":"input_image","image_url":"https://x/y.png"}]}}"#,
            &mut out,
        );
        assert_eq!(out.iter().map(|d| d.kind).collect::<Vec<_>>(), [Some(PartKind::Prompt), Some(PartKind::Image), Some(PartKind::Image)]);
        assert_eq!(out[0].text, "look\n\nat this");
        assert_eq!(out[1].media, Some(Media { media_type: Some("image/png".into()), bytes: Some(3) }));
        assert_eq!(out[1].data_url.as_deref(), Some("data:image/png;base64,AAAA"));
        assert_eq!((out[2].text.as_str(), out[2].data_url.as_deref()), ("https://x/y.png", None));
    }
}
