//! `claude-code`: Claude Code transcripts (SPEC 2.4). A project folder holds one
//! `<sessionId>.jsonl` per session; sub-agents are inline sidechains of it (1.0), `agent-<id>.jsonl`
//! files beside it (2.0), or `<sessionId>/subagents/agent-<id>.jsonl` files with
//! `agent-<id>.meta.json` sidecars (2.1, flat at any depth).
//!
//! This module owns what those files mean: which session each line is (a sub-agent is its
//! `agentId`, never its `sessionId`, which every sub-agent line shares with the root), turns and
//! steps (a prompt to the next prompt; one step per API message, which is split over lines that
//! share `message.id`), replies, token usage counted once per session and `(message.id,
//! requestId)`, replayed history (only the same line read again is a replay; another line that
//! reuses a uuid is read in its own session), and every piece of evidence that ties a sub-agent
//! to the call that spawned it. Parent links are resolved once every file is read (`settle`),
//! strongest evidence first, each run keeping how it was linked; what the parent received from
//! each run is read back from its line when the report is built. It does not own the record
//! index, the graph or the report.
//!
//! Files: `line` (the line shape and text tools), `file` (one file's state machine), `link` (the
//! cross-file evidence and `settle`), `plan` (the files that come with an opened session), `transcript` (what a line says, read
//! back for the Transcript view).

mod file;
mod line;
mod link;
mod plan;
mod transcript;

use super::{routed, FileStart, FormatInfo, HeadLine, Routed};
use line::{is_sidecar, notice_result, TYPES};
use crate::ctx::Ctx;
use crate::wire::{List, Obj, Raw, Str};

pub const FORMAT: FormatInfo = FormatInfo {
    id: "claude-code",
    description: "Claude Code transcripts (project folders, session files, sub-agent files and sidecars)",
    reader: &ClaudeCode,
};

#[derive(Debug)]
struct ClaudeCode;

/// The one-pass line reader and its serde reference, each one's reading of `text` printed
/// (`None`: refused): what the differential tests (`tests/scan.rs`) compare.
#[doc(hidden)]
pub fn line_readings(text: &str) -> (String, String) {
    (format!("{:?}", line::parse(text)), format!("{:?}", line::parse_serde(text)))
}

impl super::Format for ClaudeCode {
    fn plan(&self, plan: &mut super::Plan) {
        plan::plan(plan, &FORMAT);
    }

    /// A transcript line (a known `type` with `uuid`, `parentUuid` or `sessionId`), or a sidecar
    /// (no `type`; a `toolUseId`, or an `agentType` with a `spawnDepth` or `description`).
    fn vote(&self, head: &HeadLine) -> bool {
        let Ok(text) = std::str::from_utf8(head.bytes()) else { return false };
        let Some(l) = line::parse(text) else { return false };
        match l.kind.as_str() {
            Some(t) => {
                TYPES.contains(&t) && (l.uuid.present() || l.parent_uuid.present() || l.session_id.present())
            }
            None => is_sidecar(&l),
        }
    }

    fn machine(&self, file: &FileStart<'_>) -> Box<dyn Routed> {
        routed(file::ClaudeFile::new(file.display, file.head_lines()))
    }

    fn settle(&self, cx: &mut Ctx) {
        link::settle(cx);
    }

    fn transcript(&self, line: &[u8], out: &mut Vec<crate::vocab::transcript::Draft>) {
        transcript::transcript(line, out);
    }

    /// A `summary`, `custom-title` or `ai-title` line, else a user line's typed prompt: its first
    /// text that is not a context block the harness added (SPEC 2.4 Text), a slash command as
    /// typed; a line of tool results, a meta line or a compaction summary has none.
    fn about(&self, line: &[u8]) -> Option<super::About> {
        use super::{about_str, About};
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        match v.get("type")?.as_str()? {
            "summary" => about_str(&v, "/summary").map(About::Title),
            "custom-title" | "ai-title" => about_str(&v, "/customTitle")
                .or_else(|| about_str(&v, "/aiTitle"))
                .or_else(|| about_str(&v, "/title"))
                .map(About::Title),
            "user" if !["isSidechain", "isMeta", "isCompactSummary"].iter().any(|k| v.get(*k) == Some(&true.into())) => {
                typed_prompt(v.pointer("/message/content")?).map(About::Prompt)
            }
            _ => None,
        }
    }

    fn parse_ahead(&self) -> Option<crate::formats::ParseAhead> {
        Some(crate::formats::ahead::<line::ClaudeShape>)
    }

    /// The text blocks of an assistant line (its string content, when it is one).
    fn reply_text(&self, line: &[u8]) -> String {
        let Some(back) = Back::of(line) else { return String::new() };
        back.message.0.map_or_else(String::new, |m| text_of(m.content))
    }

    /// What a parent received: the text of the tool result answering call `key`; for a background
    /// spawn, the `<result>` of its `<task-notification>`.
    fn received_text(&self, line: &[u8], key: Option<&str>) -> String {
        let Some(back) = Back::of(line) else { return String::new() };
        let content = back.message.0.and_then(|m| m.content);
        if let (Some(c), Some(key)) = (content, key) {
            if let Ok(blocks) = serde_json::from_str::<List<BackBlock>>(c.0) {
                let result = blocks.0.iter().find(|b| {
                    b.kind.as_str() == Some("tool_result") && b.tool_use_id.as_str() == Some(key)
                });
                if let Some(r) = result {
                    return text_of(r.content);
                }
            }
        }
        let text = text_of(content.or(back.content).or(back.attachment.0.and_then(|a| a.prompt)));
        match line::Notice::of(&text) {
            Some(_) => notice_result(&text).to_owned(),
            None => text,
        }
    }
}

/// What the user typed in a prompt's content (a string or text blocks): the first text that is
/// something once the context blocks it starts with are taken off, a slash command as typed.
fn typed_prompt(content: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let texts: Vec<&str> = match content {
        Value::String(s) => vec![s.as_str()],
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect(),
        _ => return None,
    };
    texts.into_iter().find_map(|t| {
        slash_command(t).or_else(|| Some(super::without_context(t)).filter(|t| !t.trim().is_empty()).map(str::to_owned))
    })
}

/// A slash command a user typed, as Claude Code records it (`<command-name>/init</command-name>`
/// with its `<command-args>`), written as typed: `/init`, `/review the parser`.
fn slash_command(content: &str) -> Option<String> {
    let tag = |name: &str| {
        let open = format!("<{name}>");
        let start = content.find(&open)? + open.len();
        let end = content[start..].find(&format!("</{name}>"))? + start;
        Some(content[start..end].trim())
    };
    let name = tag("command-name").filter(|n| !n.is_empty())?;
    Some(match tag("command-args").filter(|a| !a.is_empty()) {
        Some(args) => format!("{name} {args}"),
        None => name.to_owned(),
    })
}

/// A line as it is read back for a text: the raw content, decoded only where it is asked for.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct Back<'a> {
    #[serde(borrow)]
    message: Obj<BackMessage<'a>>,
    #[serde(borrow)]
    content: Option<Raw<'a>>,
    #[serde(borrow)]
    attachment: Obj<BackAttachment<'a>>,
}

impl<'a> Back<'a> {
    fn of(line: &'a [u8]) -> Option<Back<'a>> {
        let text = std::str::from_utf8(line).ok()?;
        serde_json::from_str(text).ok()
    }
}

#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct BackMessage<'a> {
    #[serde(borrow)]
    content: Option<Raw<'a>>,
}

#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct BackAttachment<'a> {
    #[serde(borrow)]
    prompt: Option<Raw<'a>>,
}

#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct BackBlock<'a> {
    #[serde(borrow, rename = "type")]
    kind: Str<'a>,
    #[serde(borrow)]
    text: Option<Raw<'a>>,
    #[serde(borrow)]
    tool_use_id: Str<'a>,
    #[serde(borrow)]
    content: Option<Raw<'a>>,
}

/// A content value's text: a string, or its text blocks in order, each kept apart (SPEC 2.4 Text).
fn text_of(content: Option<Raw>) -> String {
    let decode = |raw: &str| serde_json::from_str::<std::borrow::Cow<str>>(raw).map(|t| t.into_owned()).ok();
    match content.map(|c| c.0) {
        Some(raw) if raw.starts_with('"') => decode(raw).unwrap_or_default(),
        Some(raw) if raw.starts_with('[') => serde_json::from_str::<List<BackBlock>>(raw)
            .map(|blocks| {
                let texts: Vec<String> = blocks
                    .0
                    .iter()
                    .filter(|b| b.kind.as_str() == Some("text"))
                    .filter_map(|b| b.text.and_then(|t| decode(t.0)))
                    .collect();
                texts.join(line::BLOCK_SEPARATOR)
            })
            .unwrap_or_default(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Format;
    use super::*;

    fn votes(l: &str) -> bool {
        ClaudeCode.vote(&HeadLine::new(l.as_bytes()))
    }

    #[test]
    fn transcript_lines_and_sidecars_vote_and_their_look_alikes_do_not() {
        assert!(votes(r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"content":"hi"}}"#));
        assert!(votes(r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s"}"#));
        assert!(votes(r#"{"agentType":"general-purpose","description":"x","toolUseId":"toolu_1","spawnDepth":1}"#));
        assert!(votes(r#"{"agentType":"Explore","spawnDepth":2}"#));
        assert!(!votes(r#"{"type":"user","message":{"role":"user"}}"#), "no uuid, parentUuid or sessionId");
        assert!(!votes(r#"{"type":"session_meta","payload":{"id":"x"},"sessionId":"s"}"#));
        assert!(!votes(r#"{"type":"summary","summary":"s","leafUuid":"u"}"#));
        assert!(!votes(r#"{"agentType":"x"}"#));
        assert!(!votes("[1]"));
    }

    #[test]
    fn a_title_is_what_the_user_typed_not_the_context_blocks_before_it() {
        let about = |l: &str| match ClaudeCode.about(l.as_bytes()) {
            Some(super::super::About::Prompt(p)) => Some(p),
            _ => None,
        };
        let glued = r#"{"type":"user","message":{"content":[{"type":"text","text":"<ide_opened_file>The user opened foo.go in the IDE.</ide_opened_file>"},{"type":"text","text":"real title here"}]}}"#;
        assert_eq!(about(glued).as_deref(), Some("real title here"));
        let one = r#"{"type":"user","message":{"content":"<system-reminder>\nbe brief\n</system-reminder>\n<ide_selection a=\"1\">x</ide_selection>  fix the parser"}}"#;
        assert_eq!(about(one).as_deref(), Some("fix the parser"));
        assert_eq!(about(r#"{"type":"user","message":{"content":"<command-name>/review</command-name><command-args>all</command-args>"}}"#).as_deref(), Some("/review all"));
        assert_eq!(about(r#"{"type":"user","message":{"content":"<ide_opened_file>only context</ide_opened_file>"}}"#), None);
        assert_eq!(about(r#"{"type":"user","isMeta":true,"message":{"content":"Caveat: the messages below"}}"#), None);
        assert_eq!(about(r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}}"#), None);
        assert_eq!(about(r#"{"type":"user","message":{"content":"<b>bold</b> typed"}}"#).as_deref(), Some("<b>bold</b> typed"));
    }

    #[test]
    fn received_text_is_the_result_of_the_call_or_the_notification() {
        let line = br#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t0","content":"no"},{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"A"},{"type":"text","text":"B"}]}]}}"#;
        assert_eq!(ClaudeCode.received_text(line, Some("t1")), "A\n\nB", "blocks kept apart");
        assert_eq!(ClaudeCode.received_text(line, Some("t0")), "no");
        let n = br#"{"type":"user","message":{"content":"<task-notification><tool-use-id>t2</tool-use-id><result>\nDONE\n</result></task-notification>"}}"#;
        assert_eq!(ClaudeCode.received_text(n, Some("t2")), "DONE");
        assert_eq!(ClaudeCode.reply_text(br#"{"message":{"content":[{"type":"thinking"},{"type":"text","text":"hi"}]}}"#), "hi");
    }
}
