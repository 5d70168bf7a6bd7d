//! The report: plain data, the one shape every consumer reads (SPEC.md section 4).
//!
//! It owns nothing but serialization. The engine fills it; `arbor analyze --json` prints it; the app
//! sends it over IPC. Fields may be added, never renamed. Graph indices never appear here: sessions
//! are named by the ids the log gave them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A place in the input: the file as given (relative to an opened folder) and a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Place {
    pub file: String,
    #[ts(type = "number")]
    pub line: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Ok,
    Error,
    Cancelled,
    Open,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum WaitOutcome {
    Idle,
    Error,
    Inferred,
    Open,
}

/// How a run's parent was established (SPEC 4 `runs[].link`), strongest evidence first where a
/// format has several: a reader that pairs spawns and children by position says `inferred`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum Link {
    /// dsh-rpc: a `subagent.started` edge.
    StartEdge,
    /// dsh-session: the child's header names its `parentSession`.
    Header,
    /// Copilot: `subagent.started.data.parentId`.
    AgentId,
    /// Copilot: the agent that issued the `tool.execution_start` with the same `toolCallId`.
    ToolCall,
    /// Copilot before 1.0.32: the sub-agent is marked by `data.parentToolCallId` (SPEC 2.2).
    ParentToolCallId,
    /// Claude Code: the sidecar's `toolUseId` names the spawn call.
    Meta,
    /// Claude Code: `toolUseResult.agentId` on the parent's tool result.
    ToolResult,
    /// Claude Code: `agentId: <id>` in the tool result's text.
    ResultText,
    /// Claude Code: the child's first `parentUuid` names a line of the parent.
    ParentUuid,
    /// Claude Code: the child's first prompt equals one unanswered spawn call's prompt.
    Prompt,
    /// Codex: the child's `session_meta` names its `parent_thread_id`.
    ThreadSpawn,
    /// Codex: a `sub_agent_activity` event ties the child to the parent's `spawn_agent` call.
    Activity,
    /// Codex: a review sub-agent that starts within a second after one `entered_review_mode`.
    TimeWindow,
    /// Gemini CLI: the folder the child's file lies in names the root session (no call names it).
    Folder,
    /// OpenCode: the child session's `parentID` names the session that made it, and no task
    /// call names it.
    ParentId,
    /// Nothing links the child to its parent: it was hung under the root (or stands alone).
    Inferred,
}

impl Link {
    pub fn as_str(self) -> &'static str {
        match self {
            Link::StartEdge => "start-edge",
            Link::Header => "header",
            Link::AgentId => "agent-id",
            Link::ToolCall => "tool-call",
            Link::ParentToolCallId => "parent-tool-call-id",
            Link::Meta => "meta",
            Link::ToolResult => "tool-result",
            Link::ResultText => "result-text",
            Link::ParentUuid => "parent-uuid",
            Link::Prompt => "prompt",
            Link::Folder => "folder",
            Link::ThreadSpawn => "thread-spawn",
            Link::Activity => "activity",
            Link::TimeWindow => "time-window",
            Link::ParentId => "parent-id",
            Link::Inferred => "inferred",
        }
    }
}

/// Token counts (SPEC 4 `usage`), as the log records them, each counted once by its format's
/// rules. `cost` in US dollars is what the priced models' tokens cost (`None` when no model
/// behind the counts has a price); the tokens of models without a price are `unpriced`, so one
/// such model never hides the others' cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct Usage {
    #[ts(type = "number")]
    pub input: u64,
    #[ts(type = "number")]
    pub output: u64,
    #[ts(type = "number")]
    pub cache_read: u64,
    #[ts(type = "number")]
    pub cache_write: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub unpriced: Option<Unpriced>,
}

/// The part of a count whose models have no price: how many tokens, and the models, in name
/// order ("$6.27 + 1.2M tokens unpriced").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct Unpriced {
    #[ts(type = "number")]
    pub tokens: u64,
    pub models: Vec<String>,
}

impl Usage {
    /// Adds `other`'s counts (saturating: counts come from untrusted logs). Costs are left alone.
    pub fn add(&mut self, other: &Usage) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.cache_write = self.cache_write.saturating_add(other.cache_write);
    }

    pub fn is_zero(&self) -> bool {
        self.input == 0 && self.output == 0 && self.cache_read == 0 && self.cache_write == 0
    }

    /// Every token it counts.
    pub fn tokens(&self) -> u64 {
        self.input.saturating_add(self.output).saturating_add(self.cache_read).saturating_add(self.cache_write)
    }

    /// Adds `other`'s counts and what they cost: the priced parts' costs add up, the unpriced
    /// parts' tokens and models join.
    pub fn add_costed(&mut self, other: &Usage) {
        self.add(other);
        self.cost = match (self.cost, other.cost) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        if let Some(o) = &other.unpriced {
            let mine = self.unpriced.get_or_insert_with(Unpriced::default);
            mine.tokens = mine.tokens.saturating_add(o.tokens);
            for m in &o.models {
                if let Err(i) = mine.models.binary_search(m) {
                    mine.models.insert(i, m.clone());
                }
            }
        }
    }
}

/// One model's share of the tokens of the whole report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ModelUsage {
    pub model: String,
    pub usage: Usage,
}

/// The tokens of the whole report, per model and in all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct UsageSummary {
    pub models: Vec<ModelUsage>,
    pub total: Usage,
    /// The price table costs come from.
    pub prices: PriceSource,
}

/// Where a table came from, as the report says it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
pub struct PriceSource {
    pub source: String,
    pub date: String,
}

/// What a parent received from a child's run (a spawn call's result), where the log shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Received {
    pub text: String,
    pub at: Place,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Report {
    pub report_version: u32,
    pub inputs: Vec<Input>,
    pub sessions: Vec<Session>,
    pub turns: Vec<Turn>,
    pub replies: Vec<Reply>,
    pub waits: Vec<Wait>,
    pub diagnostics: Vec<Diagnostic>,
    /// Tokens per model and in all, when any log records them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub usage: Option<UsageSummary>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Input {
    pub file: String,
    /// A format id (`dsh-rpc`, `dsh-session`, `copilot-events`, `copilot-rpc`), or `unknown`.
    pub format: String,
    #[ts(type = "number")]
    pub records: u64,
    #[ts(type = "number")]
    pub bad_lines: u64,
    #[ts(type = "number")]
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Session {
    pub id: String,
    pub parent: Option<String>,
    pub root: Option<String>,
    pub depth: Option<u32>,
    pub label: Option<String>,
    pub runs: Vec<Run>,
    /// Records attributed to this session (its own events and statuses).
    #[ts(type = "number")]
    pub events: u64,
    /// True when the parent link was inferred rather than read (2.2).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[ts(as = "Option<bool>", optional)]
    pub inferred_parent: bool,
    /// The session's own tokens, when its log records any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub usage: Option<Usage>,
    /// The tokens of the session and every session under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub subtree_usage: Option<Usage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Run {
    pub parent: Option<String>,
    pub start: Option<Place>,
    pub end: Option<Place>,
    pub outcome: Outcome,
    /// How the parent was established.
    pub link: Link,
    /// Wire time (epoch ms) of the start and end records, when the log has a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub start_time: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub end_time: Option<f64>,
    /// What the parent received from this run, where the log shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub received: Option<Received>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Turn {
    pub session: String,
    /// A number for dsh logs, the `turnId` string for Copilot logs.
    #[ts(type = "number | string | null")]
    pub turn: serde_json::Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub run: Option<u32>,
    pub start: Option<Place>,
    pub end: Option<Place>,
    pub reason: Option<String>,
    pub steps: u32,
    /// Wire time (epoch ms) of the start and end, when the log has a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub start_time: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub end_time: Option<f64>,
    /// The steps inside this turn, for the timeline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(as = "Option<Vec<StepSpan>>", optional)]
    pub step_spans: Vec<StepSpan>,
    /// The turn's tokens, when its log records any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct StepSpan {
    pub step: u32,
    pub start: Place,
    pub end: Option<Place>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub start_time: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub end_time: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Reply {
    pub session: String,
    pub root: bool,
    #[ts(type = "number | string | null")]
    pub turn: serde_json::Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub run: Option<u32>,
    pub text: String,
    pub at: Place,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Wait {
    pub root: String,
    pub start: Option<Place>,
    pub end: Option<Place>,
    pub outcome: WaitOutcome,
    pub reply: Option<String>,
    /// dsh-rpc only: the root turn's finish reason and counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub finish_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub notifications: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub events: Option<u64>,
    pub naive: NaiveWait,
}

/// What the naive reader would have done. Copilot waits fill `end`, `outcome`, `reply`; dsh-rpc
/// root turns fill `notifications`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct NaiveWait {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub end: Option<Option<Place>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub outcome: Option<WaitOutcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reply: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub notifications: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Diagnostic {
    pub code: String,
    pub severity: Severity,
    pub at: Place,
    pub session: Option<String>,
    pub message: String,
    /// Wire time (epoch ms) of the record at `at`, when there is one and the log has a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub time: Option<f64>,
}
