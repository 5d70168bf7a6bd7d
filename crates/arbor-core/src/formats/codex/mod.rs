//! `codex`: Codex CLI rollouts (SPEC 2.5), one thread a file
//! (`~/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl`), each line a
//! `{timestamp, type, payload}` envelope.
//!
//! This module owns its line shape (`Line`, lenient serde structs that borrow from the line and
//! keep texts raw), each rollout's state machine (its session, turns, steps, replies, token
//! usage, a fork's replayed history) and the evidence that links threads across files, which it
//! resolves in `settle` because a child's rollout and its parent's come in any order. It does not
//! read files itself: reply texts are read back by the driver (`reply_text`, `received_text`);
//! what `settle` compares (a child's reply against what its parent received) is a hash of each
//! text's words, taken on the worker threads while lines are parsed.
//!
//! **Steps.** A Codex turn is a loop of model calls: the model streams output items (reasoning,
//! a message, tool calls), the harness records the call's tokens in a `token_count` (newer
//! builds: a `token_usage_record` with its `response_id`), then runs the tools and calls the
//! model again. A step is one model call: it opens at the turn's first model output item after
//! the turn's start or the previous step, and ends at the usage record that counts that call
//! (or at the turn's end). Tool outputs, user input and context records open no step.
//!
//! **Turns without `task_started`.** Rollouts of builds that did not persist `task_started`
//! (0.66 and earlier) have no turn boundaries; there, each `event_msg user_message` opens a turn
//! numbered 1, 2, … that lasts until the next one (reason null), so that those rollouts still
//! show turns and replies. A rollout that has a `task_started` before its first `user_message`
//! never does this.
//!
//! **Usage.** Per model call, once: `info.last_token_usage` of a `token_count` whose
//! `info.total_token_usage` moved (builds repeat the last count, unchanged, after each
//! `turn_context`; a repeat is not a new call); a count with only the cumulative total adds the
//! difference from the previous total; once a rollout has `token_usage_record` lines (one per
//! response), those are counted, by `response_id`, and its `token_count`s are not. Input is
//! reported without its cached part (`cache_read`) and cache writes (`cache_write`), as the
//! other formats do; reasoning tokens are part of `output_tokens` and counted there.
//!
//! **Re-running `settle`.** The evidence is kept, not consumed: settling again (a followed log
//! that grew, a rollout that appeared) extends the runs it made before and tells no finding
//! twice; a child whose parent changes (its parent's rollout appeared) gets a new run under it,
//! since runs are never rewritten, and what was told of the old link stays told.


mod lines;
mod links;
mod rollout;
#[cfg(test)]
mod tests;
mod transcript;

use super::{routed, FileStart, FormatInfo, HeadLine, Routed};
use crate::ctx::Ctx;
use crate::wire::{Obj, Str};
use serde::Deserialize;
use std::borrow::Cow;

use lines::*;
use links::{activity_kind, settle};
use rollout::Rollout;

pub const FORMAT: FormatInfo =
    FormatInfo { id: "codex", description: "Codex CLI rollouts (~/.codex/sessions)", reader: &CodexFormat };

#[derive(Debug, Clone)]
struct CodexFormat;

/// The envelope types a rollout line has: those SPEC 2.5 names, and those newer builds add.
const ENVELOPE_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "world_state",
    "inter_agent_communication",
    "inter_agent_communication_metadata",
    "token_usage_record",
    "retained_context",
    "security_risk_score",
];


impl super::Format for CodexFormat {
    /// The envelope: a known `type` and an object `payload`. No other format's lines have a
    /// `payload`, and none of theirs uses these types.
    fn vote(&self, head: &HeadLine) -> bool {
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Head<'a> {
            #[serde(borrow, rename = "type")]
            kind: Str<'a>,
            payload: Obj<Empty>,
        }
        let Ok(text) = std::str::from_utf8(head.bytes()) else { return false };
        if !starts_object(text) {
            return false;
        }
        let Ok(h) = serde_json::from_str::<Head>(text) else { return false };
        h.payload.0.is_some() && h.kind.as_str().is_some_and(|t| ENVELOPE_TYPES.contains(&t))
    }

    fn machine(&self, file: &FileStart<'_>) -> Box<dyn Routed> {
        routed(Rollout::new(super::stem(file.display)))
    }

    fn settle(&self, cx: &mut Ctx) {
        settle(cx);
    }

    /// The first `user_message` event's text (the `response_item` user messages also carry the
    /// harness's context blocks); an older rollout's user `message` item serves too.
    fn about(&self, line: &[u8]) -> Option<super::About> {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        let payload = v.get("payload")?;
        let text = match (v.get("type")?.as_str()?, payload.get("type").and_then(|t| t.as_str())) {
            ("event_msg", Some("user_message")) => super::about_str(payload, "/message"),
            ("response_item", Some("message")) if payload.get("role").and_then(|r| r.as_str()) == Some("user") => {
                super::about_str(payload, "/content/0/text")
            }
            _ => None,
        };
        // An IDE's context block before the prompt is not what the user typed.
        text.map(|t| super::without_context(&t).to_owned()).filter(|t| !t.trim().is_empty()).map(super::About::Prompt)
    }

    fn parse_ahead(&self) -> Option<crate::formats::ParseAhead> {
        Some(crate::formats::ahead::<CodexShape>)
    }

    /// A turn's reply: `task_complete.last_agent_message`, or an assistant message's text.
    fn reply_text(&self, line: &[u8]) -> String {
        let Some(l) = parse_bytes(line) else { return String::new() };
        let Some(p) = l.payload() else { return String::new() };
        if let Some(raw) = p.last_agent_message {
            return decode_raw(raw).map(Cow::into_owned).unwrap_or_default();
        }
        blocks_text(&p.content.0)
    }

    /// What a parent received from a child: a `FINAL_ANSWER` agent message's payload, or the
    /// status text of an older `<subagent_notification>`.
    fn received_text(&self, line: &[u8], _key: Option<&str>) -> String {
        let Some(l) = parse_bytes(line) else { return String::new() };
        let Some(p) = l.payload() else { return String::new() };
        let text = blocks_text(&p.content.0);
        if let Some(answer) = final_answer(&text) {
            return answer.to_owned();
        }
        notification(&text).map(|(_, t)| t).unwrap_or_default()
    }

    fn transcript(&self, line: &[u8], out: &mut Vec<crate::vocab::transcript::Draft>) {
        transcript::line(line, out);
    }

    /// A tool's output (`function_call_output` and its kin) is a result, a `reasoning` item
    /// reasoning (an `agent_reasoning` event says nothing), an error event a notice.
    fn may_compare(&self, kind: crate::ctx::Kind) -> bool {
        use crate::ctx::Kind;
        !matches!(kind, Kind::ToolResult | Kind::Reasoning | Kind::Error)
    }
}

/// What a rollout's first line says of its place among threads, read without analysing it: the
/// library keeps a child's rollout with its parent's by it, so that a thread and its
/// sub-agents are one session there (SPEC 2.5's parent links, read from the fields `settle`
/// reads them from).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ThreadHead {
    /// Its first `session_meta`'s id.
    pub id: String,
    /// The parent its `session_meta` names (`thread-spawn`): `source.subagent.thread_spawn`'s,
    /// else `parent_thread_id`.
    pub parent: Option<String>,
    /// It says it is a sub-agent (any `source.subagent`, or `thread_source: "subagent"`).
    pub subagent: bool,
    /// `source.subagent` is `"review"` (linked by the time of its parent's review, `time-window`).
    pub review: bool,
    /// When it started (epoch milliseconds): the line's time, else its payload's.
    pub start: Option<f64>,
}

/// A line as the one-pass reader and as the serde reference read it (`lines::parse_line`,
/// `lines::parse_serde`), for the differential tests.
pub fn line_readings(text: &str) -> (String, String) {
    (format!("{:?}", lines::parse_line(text)), format!("{:?}", lines::parse_serde(text)))
}

/// A rollout's first line read as `ThreadHead`: `None` when it is not a `session_meta` with an id
/// (the rollout is then its file's stem, linked by nothing of its own).
pub fn thread_head(line: &[u8]) -> Option<ThreadHead> {
    let l = parse_bytes(line)?;
    let p = l.payload()?;
    if l.kind.as_str() != Some("session_meta") {
        return None;
    }
    let id = p.id.non_empty()?.to_owned();
    let time = |s: &Str| s.as_str().and_then(crate::text::time::rfc3339_ms);
    let src = source_of(p);
    Some(ThreadHead {
        id,
        parent: src.parent.map(str::to_owned),
        subagent: src.subagent,
        review: src.review,
        start: time(&l.timestamp).or_else(|| time(&p.timestamp)),
    })
}

/// What a rollout's later lines say of other threads: the children it started (a started
/// `sub_agent_activity`, `activity` links) and when it entered review mode (`time-window`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ThreadBody {
    pub started: Vec<String>,
    pub reviews: Vec<f64>,
}

/// The texts a line holds when `thread_body_line` has something to read in it.
pub const THREAD_BODY_MARKERS: [&str; 3] = ["sub_agent_activity", "SubAgentActivity", "entered_review_mode"];

/// Adds to `body` what one line says (nothing, for a line of anything else).
pub fn thread_body_line(line: &[u8], body: &mut ThreadBody) {
    let Some(l) = parse_bytes(line) else { return };
    let Some(p) = l.payload() else { return };
    match (l.kind.as_str().unwrap_or(""), p.kind.as_str().unwrap_or("")) {
        ("event_msg", t @ ("sub_agent_activity" | "item_completed")) => {
            if let Some(a) = sub_activity(t, p).filter(|a| activity_kind(a.kind).0) {
                body.started.push(a.child.to_owned());
            }
        }
        ("event_msg", "entered_review_mode") => {
            if let Some(ms) = l.timestamp.as_str().and_then(crate::text::time::rfc3339_ms) {
                body.reviews.push(ms);
            }
        }
        _ => {}
    }
}

/// How long after a rollout's `entered_review_mode` a review sub-agent may start and be its child.
pub const THREAD_REVIEW_WINDOW_MS: f64 = links::REVIEW_WINDOW_MS;
