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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Report {
    pub report_version: u32,
    pub inputs: Vec<Input>,
    pub sessions: Vec<Session>,
    pub turns: Vec<Turn>,
    pub replies: Vec<Reply>,
    pub waits: Vec<Wait>,
    pub diagnostics: Vec<Diagnostic>,
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Run {
    pub parent: Option<String>,
    pub start: Option<Place>,
    pub end: Option<Place>,
    pub outcome: Outcome,
    /// Wire time (epoch ms) of the start and end records, when the log has a clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub start_time: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub end_time: Option<f64>,
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
