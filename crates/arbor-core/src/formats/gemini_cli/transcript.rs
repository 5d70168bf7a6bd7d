//! A message read back as transcript parts (SPEC 5 Transcript), and the texts the report reads
//! back: a reply's text, what a parent received from a sub-agent's call.

use super::lines::{first_value, ContentInfo};
use crate::scan::{Scanner, R};
use serde::Deserialize;
use crate::vocab::transcript::{Draft, Media, PartKind};
use serde_json::Value;

/// The text parts of a `content` (a string, a part, or a list of parts), kept apart.
fn texts(content: &Value) -> Vec<&str> {
    match content {
        Value::String(s) => vec![s.as_str()],
        Value::Array(parts) => parts.iter().filter_map(|p| p.get("text")?.as_str()).collect(),
        Value::Object(_) => content.get("text").and_then(Value::as_str).into_iter().collect(),
        _ => Vec::new(),
    }
}

fn joined(content: &Value) -> String {
    texts(content).into_iter().filter(|t| !t.trim().is_empty()).collect::<Vec<_>>().join("\n\n")
}

fn parts(content: &Value) -> Vec<&Value> {
    match content {
        Value::Array(parts) => parts.iter().collect(),
        Value::Object(_) => vec![content],
        _ => Vec::new(),
    }
}

/// What a tool's `result` (a `PartListUnion` of `functionResponse` parts) says: the response's
/// `output`, else its `error`, else the response as JSON; `resultDisplay` when there is none.
fn result_text(call: &Value) -> (String, bool) {
    let (mut out, json) = call.get("result").map(response_texts).unwrap_or_default();
    if out.is_empty() {
        if let Some(t) = call.get("resultDisplay").and_then(Value::as_str) {
            out.push(t.to_owned());
        }
    }
    (out.join("\n\n"), json && out.len() == 1)
}

/// The texts of a `result`'s parts (each response's `output`, else its `error`, else the response
/// as JSON), and whether one was JSON.
pub(super) fn response_texts(result: &Value) -> (Vec<String>, bool) {
    let mut out = Vec::new();
    let mut json = false;
    if let Some(t) = result.as_str() {
        out.push(t.to_owned());
    }
    for p in parts(result) {
        if let Some(r) = p.get("functionResponse").and_then(|f| f.get("response")) {
            match r.get("output").or(r.get("error")).and_then(Value::as_str) {
                Some(t) => out.push(t.to_owned()),
                None => {
                    json = true;
                    out.push(r.to_string());
                }
            }
        } else if let Some(t) = p.get("text").and_then(Value::as_str) {
            out.push(t.to_owned());
        }
    }
    (out, json)
}

/// `response_texts` of a result read by the scanner where the scanner stands (at the value),
/// without a `Value`: `Ok(None)` when a response has no text to give (the `Value` path writes it
/// as JSON, in `Value`'s key order), `Err` when the value is not one serde_json reads (the
/// scanner's `typed` reading: numbers in range, strings and keys decoded, the nesting limit).
/// A key given twice counts at its last, as in a `Value`.
fn scan_response_texts(p: &mut Scanner<'_>) -> R<Option<Vec<String>>> {
    /// A part's `functionResponse.response`: its text, or one that needs its JSON.
    enum Response {
        Text(String),
        Json,
    }
    fn string_or_none(p: &mut Scanner<'_>) -> R<Option<String>> {
        if p.peek() != Some(b'"') {
            return p.typed().map(|()| None);
        }
        let (text, escaped) = p.string()?;
        Ok(Some(p.decoded(text, escaped)?.into_owned()))
    }
    fn response(p: &mut Scanner<'_>) -> R<Response> {
        if p.peek() != Some(b'{') {
            return p.typed().map(|()| Response::Json);
        }
        let (mut output, mut error) = (None, None);
        p.object(|p, k| match k {
            "output" => string_or_none(p).map(|t| output = Some(t)),
            "error" => string_or_none(p).map(|t| error = Some(t)),
            _ => p.typed(),
        })?;
        // `output`, when there is one, else `error`: a string, or the response as JSON.
        Ok(match output.or(error) {
            Some(Some(t)) => Response::Text(t),
            _ => Response::Json,
        })
    }
    // A part: its `functionResponse.response` when it has one, else its `text`.
    let part = |p: &mut Scanner<'_>, out: &mut Vec<String>| -> R<bool> {
        let (mut answer, mut text) = (None, None);
        p.object(|p, k| match k {
            "functionResponse" if p.peek() == Some(b'{') => {
                let mut r = None;
                p.object(|p, k| if k == "response" { response(p).map(|x| r = Some(x)) } else { p.typed() })?;
                answer = Some(r);
                Ok(())
            }
            "functionResponse" => p.typed().map(|()| answer = Some(None)),
            "text" => string_or_none(p).map(|t| text = Some(t)),
            _ => p.typed(),
        })?;
        match (answer.flatten(), text.flatten()) {
            (Some(Response::Text(t)), _) => out.push(t),
            (Some(Response::Json), _) => return Ok(false),
            (None, Some(t)) => out.push(t),
            (None, None) => {}
        }
        Ok(true)
    };
    let mut out = Vec::new();
    let mut plain = true;
    match p.peek() {
        Some(b'"') => out.extend(string_or_none(p)?),
        Some(b'[') => p.array(|p| {
            if p.peek() == Some(b'{') {
                plain &= part(p, &mut out)?;
                Ok(())
            } else {
                p.typed()
            }
        })?,
        Some(b'{') => plain = part(p, &mut out)?,
        _ => p.typed()?,
    }
    Ok(plain.then_some(out))
}

/// `response_texts` of a raw `result`, read by the scanner where it can say the same (a
/// response without a text output is written as `Value` writes it); `None` when the raw text is
/// not one serde_json reads as a value.
pub(super) fn raw_response_texts(raw: &str) -> Option<(Vec<String>, bool)> {
    let mut scanned = None;
    if !Scanner::value(raw, |p| scan_response_texts(p).map(|t| scanned = Some(t))) {
        return None;
    }
    match scanned.flatten() {
        Some(texts) => Some((texts, false)),
        None => serde_json::from_str::<Value>(raw).ok().map(|v| response_texts(&v)),
    }
}

/// The parts of one message line.
pub(super) fn line(bytes: &[u8], out: &mut Vec<Draft>) {
    let Some(m) = first_value::<Value>(bytes) else { return };
    let Some(kind) = m.get("type").and_then(Value::as_str) else { return };
    let content = m.get("content").unwrap_or(&Value::Null);
    let id = m.get("id").and_then(Value::as_str).map(str::to_owned);
    match kind {
        "user" => {
            for p in parts(content) {
                if let Some(fr) = p.get("functionResponse") {
                    let mut d = Draft::new(PartKind::ToolResult, fr.get("response").map(Value::to_string).unwrap_or_default());
                    d.json = true;
                    d.tool = fr.get("name").and_then(Value::as_str).map(str::to_owned);
                    d.call_id = fr.get("id").and_then(Value::as_str).map(str::to_owned);
                    out.push(d);
                } else if let Some(data) = p.get("inlineData") {
                    let mut d = Draft::new(PartKind::Image, "");
                    let mime = data.get("mimeType").and_then(Value::as_str);
                    d.media = Some(Media::inline(mime, data.get("data").and_then(Value::as_str).unwrap_or("")));
                    if let (Some(mime), Some(b64)) = (mime, data.get("data").and_then(Value::as_str)) {
                        d.data_url = Some(format!("data:{mime};base64,{b64}"));
                    }
                    out.push(d);
                }
            }
            let text = joined(content);
            if !text.is_empty() {
                // The CLI's own context (no turn): shown as what it is, not as a prompt.
                // (Counted as the reader counts it when it reads the line: one definition.)
                let context = ContentInfo::deserialize(content).is_ok_and(|c| c.only_context());
                let kind = if context { PartKind::Notice } else { PartKind::Prompt };
                out.push(Draft::new(kind, text));
            }
        }
        "gemini" => {
            for t in m.get("thoughts").and_then(Value::as_array).into_iter().flatten() {
                let subject = t.get("subject").and_then(Value::as_str).unwrap_or("");
                let description = t.get("description").and_then(Value::as_str).unwrap_or("");
                let text = match (subject.trim().is_empty(), description.trim().is_empty()) {
                    (false, false) => format!("**{subject}**\n\n{description}"),
                    (false, true) => subject.to_owned(),
                    _ => description.to_owned(),
                };
                if !text.is_empty() {
                    out.push(Draft::new(PartKind::Reasoning, text));
                }
            }
            let text = joined(content);
            if !text.is_empty() {
                out.push(Draft::new(PartKind::Text, text));
            }
            for c in m.get("toolCalls").and_then(Value::as_array).into_iter().flatten() {
                let name = c.get("name").and_then(Value::as_str).map(str::to_owned);
                let call_id = c.get("id").and_then(Value::as_str).map(str::to_owned);
                let mut d = Draft::new(PartKind::ToolCall, c.get("args").map(Value::to_string).unwrap_or_default());
                d.json = true;
                d.tool = name.clone();
                d.call_id = call_id.clone();
                d.child = c.get("agentId").and_then(Value::as_str).map(str::to_owned);
                out.push(d);
                let status = c.get("status").and_then(Value::as_str);
                let (text, json) = result_text(c);
                if status.is_some() || !text.is_empty() {
                    let mut r = Draft::new(PartKind::ToolResult, text);
                    r.json = json;
                    r.tool = name;
                    r.call_id = call_id;
                    r.is_error = status.map(|s| s != "success");
                    r.child = c.get("agentId").and_then(Value::as_str).map(str::to_owned);
                    out.push(r);
                }
            }
            let usage = m.get("tokens").and_then(|t| serde_json::from_value::<super::lines::Tokens>(t.clone()).ok());
            let model = m.get("model").and_then(Value::as_str).map(str::to_owned);
            if let Some(first) = out.first_mut() {
                first.usage = usage.map(|u| u.usage());
                first.model = model;
                first.message = id;
            }
        }
        _ => {
            // `info`, `warning`, `error`; a type the producer does not write (hand-made files
            // have `model` with `parts`) is shown as what it says, never as a reply.
            let text = match m.get("parts") {
                Some(p) if content.is_null() => joined(p),
                _ => joined(content),
            };
            out.push(Draft::new(PartKind::Notice, format!("{kind}: {text}")));
        }
    }
}

/// The raw text of each of a message's fields `names` asks for (the last of a field given twice,
/// as a `Value` keeps it), read in one pass by the engine's scanner, every other field skipped:
/// the report reads one field of a message back, and a whole `Value` of it (its thoughts, its
/// other calls' results) was half of a Gemini CLI tree's instructions. `None` when the bytes do
/// not start with a JSON object.
fn raw_fields<'a, const N: usize>(bytes: &'a [u8], names: [&str; N]) -> Option<[Option<&'a str>; N]> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut out = [None; N];
    Scanner::first(text, |p| raw_of(p, names).map(|f| out = f)).then_some(out)
}

/// The raw text of the fields `names` of the object at `p` (at its `{`), the last of a field
/// given twice; the others skipped.
fn raw_of<'a, const N: usize>(p: &mut Scanner<'a>, names: [&str; N]) -> R<[Option<&'a str>; N]> {
    let mut out = [None; N];
    p.object(|p, key| {
        let start = p.pos();
        p.skip()?;
        if let Some(i) = names.iter().position(|n| *n == key) {
            out[i] = Some(p.since(start));
        }
        Ok(())
    })?;
    Ok(out)
}

/// A raw value as a `Value`, `Null` when it is absent or does not read as one.
fn value_of(raw: Option<&str>) -> Option<Value> {
    serde_json::from_str(raw?).ok()
}

/// A `gemini` message's text: its text parts, kept apart.
pub(super) fn reply(bytes: &[u8]) -> String {
    raw_fields(bytes, ["content"]).map(|[c]| joined(&value_of(c).unwrap_or(Value::Null))).unwrap_or_default()
}

/// A call's fields `received` reads, in this order.
const CALL_FIELDS: [&str; 3] = ["id", "result", "resultDisplay"];

/// The `result` and `resultDisplay` (raw) of the call `key` of a message line (its first call
/// when `None`), in its last `toolCalls` as a `Value` keeps it; `None` when the line is not an
/// object, has no such call, or the call is no object.
fn found_call<'a>(bytes: &'a [u8], key: Option<&str>) -> Option<(Option<&'a str>, Option<&'a str>)> {
    let text = std::str::from_utf8(bytes).ok()?;
    // Each call's `CALL_FIELDS` raw, `None` for an element that is no object.
    type Call<'a> = Option<[Option<&'a str>; 3]>;
    let mut calls: Option<Vec<Call>> = None;
    let read = Scanner::first(text, |p| {
        p.object(|p, k| {
            if k != "toolCalls" {
                return p.skip();
            }
            if p.peek() != Some(b'[') {
                calls = None;
                return p.skip();
            }
            let mut list = Vec::new();
            p.array(|p| {
                if p.peek() != Some(b'{') {
                    list.push(None);
                    return p.skip();
                }
                list.push(Some(raw_of(p, CALL_FIELDS)?));
                Ok(())
            })?;
            calls = Some(list);
            Ok(())
        })
    });
    if !read {
        return None;
    }
    let id_of = |c: &Call| c.and_then(|[id, ..]| value_of(id));
    let [_, result, display] =
        calls.into_iter().flatten().find(|c| key.is_none() || id_of(c).as_ref().and_then(Value::as_str) == key)??;
    Some((result, display))
}

/// The document of a call's two fields that `received` reads.
fn call_doc(result: Option<&str>, display: Option<&str>) -> String {
    format!("{{\"result\":{},\"resultDisplay\":{}}}", result.unwrap_or("null"), display.unwrap_or("null"))
}

/// What the call `key` of a `gemini` message returned (a sub-agent's answer to its parent).
pub(super) fn received(bytes: &[u8], key: Option<&str>) -> String {
    let Some((result, display)) = found_call(bytes, key) else { return String::new() };
    // The call's two fields as one document, read as a `Value` of it reads them (a value serde
    // cannot read fails the whole call): by the scanner, or as a `Value` when a response has to
    // be written as JSON.
    let doc = call_doc(result, display);
    let (mut texts, mut shown) = (Some(Vec::new()), None);
    let read = Scanner::whole(&doc, None, |p| {
        p.object(|p, k| match k {
            "result" => scan_response_texts(p).map(|t| texts = t),
            _ if p.peek() == Some(b'"') => {
                let (text, escaped) = p.string()?;
                shown = Some(p.decoded(text, escaped)?.into_owned());
                Ok(())
            }
            _ => p.typed().map(|()| shown = None),
        })
    });
    match (read, texts) {
        (false, _) => String::new(),
        (true, Some(texts)) if texts.is_empty() => shown.unwrap_or_default(),
        (true, Some(texts)) => texts.join("\n\n"),
        (true, None) => serde_json::from_str::<Value>(&doc).ok().map(|c| result_text(&c).0).unwrap_or_default(),
    }
}

/// `received` as it was read before the scanner read it: the call's fields made one document and
/// parsed as a `Value`. The reference the differential tests hold `received` to.
pub(super) fn received_by_value(bytes: &[u8], key: Option<&str>) -> String {
    let Some((result, display)) = found_call(bytes, key) else { return String::new() };
    let call: Option<Value> = serde_json::from_str(&call_doc(result, display)).ok();
    call.map(|c| result_text(&c).0).unwrap_or_default()
}

/// Each call's raw `result` in a message line (for the differential tests).
pub(super) fn raw_results(bytes: &[u8]) -> Vec<(Option<String>, Option<&str>)> {
    let Ok(text) = std::str::from_utf8(bytes) else { return Vec::new() };
    let mut out = Vec::new();
    Scanner::first(text, |p| {
        p.object(|p, k| {
            if k != "toolCalls" || p.peek() != Some(b'[') {
                return p.skip();
            }
            out.clear();
            p.array(|p| {
                if p.peek() != Some(b'{') {
                    return p.skip();
                }
                let [id, result, _] = raw_of(p, CALL_FIELDS)?;
                out.push((value_of(id).and_then(|v| v.as_str().map(str::to_owned)), result));
                Ok(())
            })
        })
    });
    out
}

/// A prompt's text for a title (SPEC 6.1), or the session's summary.
pub(super) fn about(bytes: &[u8]) -> Option<crate::formats::About> {
    let m = first_value::<Value>(bytes)?;
    if let Some(s) = m.get("summary").and_then(Value::as_str).filter(|s| !s.trim().is_empty()) {
        if m.get("sessionId").is_some() || m.get("$set").is_none() {
            return Some(crate::formats::About::Title(s.to_owned()));
        }
    }
    if let Some(s) = m.get("$set").and_then(|s| s.get("summary")).and_then(Value::as_str) {
        return Some(crate::formats::About::Title(s.to_owned()));
    }
    let first_prompt = |m: &Value| {
        let text = joined(m.get("content").unwrap_or(&Value::Null));
        (m.get("type").and_then(Value::as_str) == Some("user") && !text.trim().is_empty()).then_some(text)
    };
    // An older whole-file document: its first prompt.
    if let Some(list) = m.get("messages").and_then(Value::as_array) {
        return list.iter().find_map(first_prompt).map(crate::formats::About::Prompt);
    }
    first_prompt(&m).map(crate::formats::About::Prompt)
}
