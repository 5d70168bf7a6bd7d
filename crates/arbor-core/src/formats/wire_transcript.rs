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

/// The parts of one line of the harness family, of the records a comparison reads back (see
/// `may_compare`): what `transcript` gives, read without building the whole line as a
/// `serde_json::Value` (a comparison reads back every message and tool call of both runs). Every
/// part is there in order, so a part's index is `transcript`'s; those that are not compared
/// (reasoning) come without their text. A line this reading does not know how to say the same
/// of (another event, a key written twice, not an object) is read by `transcript`.
pub(crate) fn compared(line: &[u8], out: &mut Vec<Draft>) {
    match fast::read(line) {
        Some(parts) => out.extend(parts),
        None => transcript(line, out),
    }
}

/// `compared`'s reading: one pass of the engine's scanner over only the fields `transcript`
/// looks at for prompts, replies, tool calls and spawns, each as lenient as `Value`'s lookups (a
/// field of another type reads as absent). A known key written twice, where `Value` keeps the
/// last, makes the reading fail: such a line goes to `transcript`.
mod fast {
    use super::{json_shown, Draft, PartKind};
    use crate::scan::{field, FieldBit, Scanner, R};
    use crate::wire::{Obj, Raw, Str};

    #[derive(Default)]
    pub(super) struct Line<'a> {
        method: Str<'a>,
        params: Obj<Params<'a>>,
        kind: Str<'a>,
        data: Obj<Data<'a>>,
    }

    #[derive(Default)]
    struct Params<'a> {
        event: Obj<Box<Line<'a>>>,
        child_session_id: Str<'a>,
        content_blocks: Blocks<'a>,
    }

    #[derive(Default)]
    struct Data<'a> {
        message: Obj<Message<'a>>,
        content: Blocks<'a>,
        source: Obj<Source<'a>>,
        arguments: Option<Raw<'a>>,
        name: Str<'a>,
        call_id: Str<'a>,
        tool_name: Str<'a>,
        tool_call_id: Str<'a>,
    }

    #[derive(Default)]
    struct Message<'a> {
        content: Blocks<'a>,
    }

    #[derive(Default)]
    struct Source<'a> {
        kind: Str<'a>,
        sender_session_id: Str<'a>,
    }

    #[derive(Default)]
    struct Block<'a> {
        kind: Str<'a>,
        text: Str<'a>,
    }

    /// A `content` field: absent, a string, a list of blocks (objects; other elements say
    /// nothing), or any other value.
    #[derive(Default)]
    enum Blocks<'a> {
        #[default]
        Absent,
        Other,
        Text(Str<'a>),
        List(Vec<Block<'a>>),
    }

    /// `transcript`'s parts of a line (an object, with nothing after it), or `None` for a line it
    /// says otherwise of or that this reading does not read.
    pub(super) fn read(line: &[u8]) -> Option<Vec<Draft>> {
        // Not UTF-8: `transcript` reads no such line either.
        let text = simdutf8::basic::from_utf8(line).ok()?;
        let (mut l, mut seen) = (Line::default(), 0);
        if !Scanner::whole(text, None, |p| p.object(|p, key| read_line(p, &mut l, &mut seen, key))) {
            return None;
        }
        parts(&l)
    }

    fn read_line<'a>(p: &mut Scanner<'a>, l: &mut Line<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "method" => field!(seen, 0, l.method, p.str_field()),
            "params" => field!(seen, 1, l.params, p.obj_field(read_params)),
            "type" => field!(seen, 2, l.kind, p.str_field()),
            "data" => field!(seen, 3, l.data, p.obj_field(read_data)),
            _ => p.skip(),
        }
    }

    fn read_params<'a>(p: &mut Scanner<'a>, x: &mut Params<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "event" => field!(seen, 0, x.event, p.obj_field(read_line).map(|o| Obj(o.0.map(Box::new)))),
            "childSessionId" => field!(seen, 1, x.child_session_id, p.str_field()),
            "contentBlocks" => field!(seen, 2, x.content_blocks, read_blocks(p)),
            _ => p.skip(),
        }
    }

    fn read_data<'a>(p: &mut Scanner<'a>, d: &mut Data<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "message" => field!(seen, 0, d.message, p.obj_field(read_message)),
            "content" => field!(seen, 1, d.content, read_blocks(p)),
            "source" => field!(seen, 2, d.source, p.obj_field(read_source)),
            "arguments" => field!(seen, 3, d.arguments, p.raw_field()),
            "name" => field!(seen, 4, d.name, p.str_field()),
            "callId" => field!(seen, 5, d.call_id, p.str_field()),
            "toolName" => field!(seen, 6, d.tool_name, p.str_field()),
            "toolCallId" => field!(seen, 7, d.tool_call_id, p.str_field()),
            _ => p.skip(),
        }
    }

    fn read_message<'a>(p: &mut Scanner<'a>, m: &mut Message<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "content" => field!(seen, 0, m.content, read_blocks(p)),
            _ => p.skip(),
        }
    }

    fn read_source<'a>(p: &mut Scanner<'a>, x: &mut Source<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "kind" => field!(seen, 0, x.kind, p.str_field()),
            "senderSessionId" => field!(seen, 1, x.sender_session_id, p.str_field()),
            _ => p.skip(),
        }
    }

    fn read_block<'a>(p: &mut Scanner<'a>, b: &mut Block<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "type" => field!(seen, 0, b.kind, p.str_field()),
            "text" => field!(seen, 1, b.text, p.str_field()),
            _ => p.skip(),
        }
    }

    /// A string, a list (its objects as blocks, other elements read and dropped), or any other
    /// value (read, and saying nothing).
    fn read_blocks<'a>(p: &mut Scanner<'a>) -> R<Blocks<'a>> {
        match p.peek() {
            Some(b'"') => p.str_field().map(Blocks::Text),
            Some(b'[') => {
                let mut out = Vec::new();
                p.array(|p| {
                    if let Obj(Some(b)) = p.obj_field(read_block)? {
                        out.push(b);
                    }
                    Ok(())
                })?;
                Ok(Blocks::List(out))
            }
            _ => p.decline().map(|()| Blocks::Other),
        }
    }

    impl Blocks<'_> {
        fn present(&self) -> bool {
            !matches!(self, Blocks::Absent)
        }

        /// `blocks_text`: the string, or the text of the blocks whose type is `text` or not
        /// said, joined.
        fn text(&self) -> String {
            match self {
                Blocks::Text(s) => s.as_str().unwrap_or_default().to_owned(),
                Blocks::List(blocks) => blocks
                    .iter()
                    .filter(|b| b.kind.as_str().is_none_or(|t| t == "text"))
                    .filter_map(|b| b.text.as_str())
                    .collect(),
                Blocks::Absent | Blocks::Other => String::new(),
            }
        }
    }

    impl<'a> Data<'a> {
        /// `/message/content`, else `content`.
        fn content(&self) -> &Blocks<'a> {
            match &self.message.0 {
                Some(m) if m.content.present() => &m.content,
                _ => &self.content,
            }
        }
    }

    fn owned(s: &Str) -> Option<String> {
        s.as_str().map(str::to_owned)
    }

    /// A tool call's arguments as `json_text` says them, with their print: the value the text
    /// shows (`crate::vocab::print::json`) without reading the pretty text back, else the text's
    /// words.
    fn arguments(raw: Option<Raw>) -> Option<(String, bool, u64)> {
        let v = match raw {
            None => None,
            Some(Raw(r)) => Some(serde_json::from_str::<serde_json::Value>(r).ok()?),
        };
        let (text, shown) = json_shown(v.as_ref());
        let print = shown.as_deref().map_or_else(|| crate::vocab::print::folded(&text), crate::vocab::print::json);
        Some((text, shown.is_some(), print))
    }

    /// A reply's part, its text left out: a comparison takes only its print.
    fn reply(text: &str) -> Draft {
        let mut d = Draft::new(PartKind::Text, "");
        d.print = Some(crate::vocab::print::folded(text));
        d
    }

    /// `transcript`'s parts of the line, or `None` for a line it says otherwise of.
    pub(super) fn parts(l: &Line) -> Option<Vec<Draft>> {
        match l.method.as_str() {
            Some("session.event") => match l.params.0.as_ref().and_then(|p| p.event.0.as_deref()) {
                Some(ev) => event(ev),
                None => Some(Vec::new()),
            },
            Some("subagent.started") => {
                let mut d = Draft::new(PartKind::Spawn, "");
                d.child = l.params.0.as_ref().and_then(|p| owned(&p.child_session_id));
                Some(vec![d])
            }
            Some("session/prompt") => {
                let text = l.params.0.as_ref().map(|p| p.content_blocks.text()).unwrap_or_default();
                Some(vec![Draft::new(PartKind::Prompt, text)])
            }
            Some("subagent.finished") => None,
            Some(_) => Some(Vec::new()),
            None => event(l),
        }
    }

    fn event(ev: &Line) -> Option<Vec<Draft>> {
        let Some(kind) = ev.kind.as_str() else { return Some(Vec::new()) };
        let empty = Data::default();
        let data = ev.data.0.as_ref().unwrap_or(&empty);
        let source = data.source.0.as_ref();
        let mut out = Vec::new();
        match kind {
            "user/message" | "steering/message" => {
                let kind = match source.and_then(|s| s.kind.as_str()) {
                    None | Some("user" | "coordinator") => PartKind::Prompt,
                    Some(_) => PartKind::Notice,
                };
                let mut d = Draft::new(kind, data.content().text());
                d.child = source.and_then(|s| owned(&s.sender_session_id)).filter(|_| kind == PartKind::Notice);
                out.push(d);
            }
            "assistant/message" => {
                if let Blocks::List(blocks) = data.content() {
                    for b in blocks {
                        match b.kind.as_str() {
                            Some("text") => out.push(reply(b.text.as_str().unwrap_or_default())),
                            // Not compared: its place only.
                            Some("reasoning") => out.push(Draft::new(PartKind::Reasoning, "")),
                            _ => {}
                        }
                    }
                }
                if out.is_empty() {
                    out.push(reply(""));
                }
            }
            "tool/call" | "tool.execution_start" => {
                let (text, json, print) = arguments(data.arguments)?;
                let mut d = Draft::new(PartKind::ToolCall, text);
                d.json = json;
                d.print = Some(print);
                let (tool, call) = if kind == "tool/call" {
                    (&data.name, &data.call_id)
                } else {
                    (&data.tool_name, &data.tool_call_id)
                };
                d.tool = owned(tool);
                d.call_id = owned(call);
                out.push(d);
            }
            "user.message" => out.push(Draft::new(PartKind::Prompt, data.content.text())),
            "assistant.message" => out.push(match &data.content {
                Blocks::Text(s) => reply(s.as_str().unwrap_or_default()),
                other => reply(&other.text()),
            }),
            // Boundaries, bookkeeping and the like: `transcript` says nothing of them either.
            k if !super::says_something(k) => {}
            _ => return None,
        }
        Some(out)
    }
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
    let (text, shown) = json_shown(v);
    (text, shown.is_some())
}

/// `json_text`'s text, with the JSON value it shows (`None` when the text is not JSON): a
/// string's object or array parsed once for both.
fn json_shown(v: Option<&Value>) -> (String, Option<std::borrow::Cow<'_, Value>>) {
    use std::borrow::Cow;
    match v {
        None | Some(Value::Null) => (String::new(), None),
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(parsed @ (Value::Object(_) | Value::Array(_))) => {
                (serde_json::to_string_pretty(&parsed).unwrap_or_else(|_| s.clone()), Some(Cow::Owned(parsed)))
            }
            _ => (s.clone(), None),
        },
        Some(other) => (serde_json::to_string_pretty(other).unwrap_or_default(), Some(Cow::Borrowed(other))),
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

/// Whether `event` gives a part for an event of this type (a boundary, usage or bookkeeping
/// event gives none).
fn says_something(kind: &str) -> bool {
    matches!(
        kind,
        "user/message"
            | "steering/message"
            | "assistant/message"
            | "tool/call"
            | "tool/result"
            | "system/message"
            | "developer/message"
            | "context/message"
            | "user.message"
            | "assistant.message"
            | "assistant.reasoning"
            | "tool.execution_start"
            | "tool.execution_complete"
            | "subagent.started"
            | "subagent.completed"
            | "subagent.failed"
            | "session.error"
            | "session.info"
            | "session.warning"
    ) || kind.starts_with("compaction/")
        || kind.starts_with("session.compaction")
}

/// One durable dsh event or Copilot envelope (what it gives, `says_something`).
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

    /// What a comparison takes of a line's parts: every part's kind in order, and the print,
    /// tool, call id and child of those it compares, with the text (and its JSON flag) of all
    /// but replies (a comparison takes only a reply's print; a reading may leave its text out).
    type Said = (u64, Option<String>, Option<String>, Option<String>, Option<(String, bool)>);

    fn compared_view(parts: Vec<Draft>) -> Vec<(PartKind, Option<Said>)> {
        parts
            .into_iter()
            .map(|d| {
                let kind = d.kind.unwrap();
                let print = d.print.unwrap_or_else(|| crate::vocab::print::text(&d.text, d.json));
                let text = (kind != PartKind::Text).then_some((d.text, d.json));
                let said = matches!(kind, PartKind::Prompt | PartKind::Text | PartKind::ToolCall | PartKind::Spawn)
                    .then_some((print, d.tool, d.call_id, d.child, text));
                (kind, said)
            })
            .collect()
    }

    /// Whether `compared` says of `line` what `transcript` does; and whether it read the line
    /// itself (rather than handing it to `transcript`).
    fn same_as_transcript(line: &[u8]) -> bool {
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        compared(line, &mut fast);
        transcript(line, &mut slow);
        let view = |v: Vec<Draft>| compared_view(v);
        assert_eq!(view(fast), view(slow), "{}", String::from_utf8_lossy(line));
        fast::read(line).is_some()
    }

    #[test]
    fn a_comparison_reads_every_line_of_the_corpus_as_a_page_does() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests");
        let mut stack = vec![root.join("corpus"), root.join("conformance/cases"), root.join("hostile")];
        let (mut lines, mut read_fast) = (0, 0);
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = e.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|x| x == "jsonl" || x == "json") {
                    for line in std::fs::read(&path).unwrap().split(|&b| b == b'\n') {
                        lines += 1;
                        read_fast += usize::from(same_as_transcript(line));
                    }
                }
            }
        }
        // The harness family's messages and tool calls (a few hundred lines) read by `compared`.
        assert!(lines > 5000 && read_fast > 300, "{lines} lines, {read_fast} read by `compared` itself");
    }

    #[test]
    fn a_comparison_reads_surprising_lines_as_a_page_does() {
        let lines = [
            // The shapes it reads itself.
            r#"{"method":"session.event","params":{"sessionId":"s","event":{"type":"user/message","data":{"message":{"content":[{"type":"text","text":"a\n b"},{"text":"c"},{"type":"image","text":"x"},7,{"type":3,"text":"d"}]}}}}}"#,
            r#"{"type":"user/message","data":{"message":{"content":null},"content":"skipped"}}"#,
            r#"{"type":"user/message","data":{"message":{"other":1},"content":"used"}}"#,
            r#"{"type":"user/message","data":{"message":[1],"content":"used \u00e9"}}"#,
            r#"{"type":"user/message","data":{"content":"ctx","source":{"kind":"plugin","senderSessionId":"c"}}}"#,
            r#"{"type":"steering/message","data":{"content":"go","source":{"kind":"coordinator"}}}"#,
            r#"{"type":"user/message","data":"not an object"}"#,
            r#"{"type":"assistant/message","data":{"message":{"content":[{"type":"reasoning","text":"hm"}]}}}"#,
            r#"{"type":"assistant/message","data":{"message":{"content":[{"type":"text","text":5},{"type":"text"}]}}}"#,
            r#"{"type":"assistant/message","data":{"message":{"content":"a string"}}}"#,
            r#"{"type":"tool/call","data":{"name":"grep","callId":"c","arguments":{"b":[1,2.5,"x"],"a":{"z":null}}}}"#,
            r#"{"type":"tool/call","data":{"name":"grep","callId":"c","arguments":"{\"q\": 1}"}}"#,
            r#"{"type":"tool/call","data":{"name":"grep","arguments":"plain"}}"#,
            r#"{"type":"tool/call","data":{"name":7,"arguments":null}}"#,
            r#"{"type":"tool/call","data":{"arguments":12}}"#,
            r#"{"type":"tool.execution_start","data":{"toolName":"task","toolCallId":"t","arguments":{"prompt":"p"}}}"#,
            r#"{"type":"user.message","data":{"content":"hi"}}"#,
            r#"{"type":"assistant.message","data":{"content":[{"type":"text","text":"x"}],"messageId":"m"}}"#,
            r#"{"method":"subagent.started","params":{"childSessionId":"c"}}"#,
            r#"{"method":"subagent.started","params":[1]}"#,
            r#"{"method":"session/prompt","id":1,"params":{"contentBlocks":[{"type":"text","text":"p"}]}}"#,
            r#"{"method":"session.event","params":{"event":"no"}}"#,
            r#"{"method":5,"type":"user/message","data":{"content":"bare"}}"#,
            r#"{"method":"other","type":"user/message"}"#,
            // Events of which a page says nothing.
            r#"{"type":"assistant.turn_start","data":{"turnId":"0"},"id":"e"}"#,
            r#"{"type":"assistant.turn_end","data":{"turnId":"0"}}"#,
            r#"{"type":"session.idle","data":{}}"#,
            r#"{"type":"turn/start","data":{"turn":1}}"#,
            r#"{"method":"session.event","params":{"event":{"type":"step/end","data":{"usage":{}}}}}"#,
            // Those it hands to `transcript`.
            r#"{"type":"assistant.reasoning","data":{"content":"hm"}}"#,
            r#"{"type":"session.info","data":{"message":"i"}}"#,
            r#"{"type":"session.compaction_complete","data":{"summaryContent":"s"}}"#,
            r#"{"type":"compaction/finished","data":{"summary":"s"}}"#,
            r#"{"type":"system/message","data":{"content":"sys"}}"#,
            r#"{"type":"subagent.completed","data":{"agentName":"a"}}"#,
            r#"{"type":"tool.execution_complete","data":{"toolCallId":"t","result":{"content":"r"}}}"#,
            r#"{"type":"user.message","data":{"content":"a"},"data":{"content":"b"}}"#,
            r#"{"type":"tool/result","data":{"content":"r"}}"#,
            r#"{"type":"user/message","data":{"content":"first","content":"second"}}"#,
            r#"{"type":"user/message","type":"tool/call","data":{}}"#,
            r#"["user/message",{"content":"x"}]"#,
            r#"{"method":"subagent.finished","params":{"childSessionId":"c","status":"ok"}}"#,
            "not json",
            "",
        ];
        let fast: Vec<bool> = lines.iter().map(|l| same_as_transcript(l.as_bytes())).collect();
        assert_eq!(fast.iter().filter(|&&f| f).count(), 29, "{fast:?}");
        // Not UTF-8 (in a field no page reads): handed over, and nothing said of it.
        let line = b"{\"type\":\"user.message\",\"data\":{\"content\":\"a\"},\"x\":\"\xff\"}";
        assert!(!same_as_transcript(line));
    }

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
