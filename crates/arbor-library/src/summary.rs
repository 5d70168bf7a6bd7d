//! One session's summary (SPEC 6.1), made from its own analysis and nothing else: the report
//! `arbor analyze --json` prints for the same files gives the same title, harness, turns,
//! sub-agents, tokens, cost, findings and outcome (`tests/summary.rs` holds them equal over the
//! corpus), and the records' wire times give its start and end.
//!
//! Two facts are not in the report and are read here from the log's head, as the app's title
//! is: the title (what the format reads there, `Format::about`) and the working folder (the
//! `cwd` its harness writes in its first lines), which names the project. A session whose log
//! has no clock gets its files' modification time, marked `clock: "mtime"`.
//!
//! It also keeps the usage the reports by day, week and month need (`Booked`): each turn's
//! tokens at the turn's start, what the session counted outside its turns at the session's
//! start; and the report's per-model totals.

use arbor_core::report::{Report, Severity, Usage};
use arbor_core::Analysis;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// Findings by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Findings {
    pub error: u64,
    pub warning: u64,
    pub info: u64,
}

/// Where a session's times come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    /// The first and last timestamps its records carry.
    Log,
    /// The log has no clock: its files' latest modification time, start and end alike.
    Mtime,
    /// Neither.
    None,
}

/// One session (a root and its sub-agents, as its place holds them) in a line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// What was opened: the session's file or folder.
    pub path: String,
    /// The root session's id (the first root, when a log holds several).
    pub session: Option<String>,
    pub title: Option<String>,
    /// The log's working folder, else the folder it was found in.
    pub project: String,
    /// `cwd` or `folder`: what `project` is.
    pub project_from: String,
    /// The format its analysis read it in (`claude-code`, `codex`, `copilot-events`, …).
    pub harness: Option<String>,
    /// Epoch milliseconds.
    pub start: Option<f64>,
    pub end: Option<f64>,
    pub clock: Clock,
    /// Milliseconds from start to end.
    pub duration: Option<f64>,
    /// The root sessions' turns.
    pub turns: u64,
    /// Sessions under the roots, and how deep the deepest is.
    pub subagents: u64,
    pub depth: u32,
    /// Every count once, by section 4's rules (the report's `usage.total`), with the priced
    /// part's cost and what is unpriced.
    pub usage: Usage,
    pub findings: Findings,
    /// The root's last outcome: its last run's, else its last wait's, else its last turn's
    /// reason.
    pub outcome: Option<String>,
    pub files: u64,
    pub bytes: u64,
}

/// Tokens booked at a time (for the reports by day, week and month) or to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Booked {
    /// Epoch milliseconds, or none when the log has no clock.
    pub time: Option<f64>,
    pub model: Option<String>,
    pub usage: Usage,
}

/// A summary with what the usage reports need.
#[derive(Debug, Clone, PartialEq)]
pub struct Summarized {
    pub summary: Summary,
    /// By time: each root or sub-agent turn at its start, the rest of each session at its
    /// session's start.
    pub by_time: Vec<Booked>,
    /// By model, from the report's `usage.models`.
    pub by_model: Vec<Booked>,
}

/// How far into a log its working folder is looked for.
const HEAD: u64 = 1 << 16;

/// The summary of what `analysis` read from `path`, found in `folder`.
pub fn summarize(path: &Path, folder: &str, analysis: &Analysis) -> Summarized {
    let report = analysis.report();
    let (mut start, mut end) = (f64::INFINITY, f64::NEG_INFINITY);
    for r in analysis.cx.records.iter() {
        if !r.time.is_nan() {
            start = start.min(r.time);
            end = end.max(r.time);
        }
    }
    let mut clock = Clock::Log;
    if start > end {
        match latest_mtime(analysis.files.iter().map(|f| f.path.as_path())) {
            Some(t) => (start, end, clock) = (t, t, Clock::Mtime),
            None => clock = Clock::None,
        }
    }
    let (start, end) = if clock == Clock::None { (None, None) } else { (Some(start), Some(end)) };
    let first = analysis.files.first().map(|f| f.path.clone()).unwrap_or_else(|| path.to_path_buf());
    let (project, project_from) = match cwd(path, &first) {
        Some(c) => (c, "cwd"),
        None => (folder.to_string(), "folder"),
    };
    let summary = Summary {
        path: arbor_core::reader::path_text(path),
        session: report.sessions.iter().find(|s| s.parent.is_none()).map(|s| s.id.clone()),
        title: title(path, &first),
        project,
        project_from: project_from.to_string(),
        harness: analysis.files.iter().find_map(|f| f.format).map(|f| f.id.to_string()),
        start,
        end,
        clock,
        duration: start.zip(end).map(|(s, e)| e - s),
        turns: root_turns(&report),
        subagents: report.sessions.iter().filter(|s| s.parent.is_some()).count() as u64,
        depth: report.sessions.iter().filter_map(|s| s.depth).max().unwrap_or(0),
        usage: report.usage.as_ref().map(|u| u.total.clone()).unwrap_or_default(),
        findings: findings(&report),
        outcome: outcome(&report),
        files: analysis.files.len() as u64,
        bytes: analysis.files.iter().map(|f| f.bytes).sum(),
    };
    let by_time = book_by_time(&report, start);
    let by_model = report
        .usage
        .iter()
        .flat_map(|u| &u.models)
        .map(|m| Booked { time: None, model: Some(m.model.clone()), usage: m.usage.clone() })
        .collect();
    Summarized { summary, by_time, by_model }
}

fn root_turns(report: &Report) -> u64 {
    let roots: std::collections::HashSet<&str> =
        report.sessions.iter().filter(|s| s.parent.is_none()).map(|s| s.id.as_str()).collect();
    report.turns.iter().filter(|t| roots.contains(t.session.as_str())).count() as u64
}

fn findings(report: &Report) -> Findings {
    let mut f = Findings::default();
    for d in &report.diagnostics {
        match d.severity {
            Severity::Error => f.error += 1,
            Severity::Warning => f.warning += 1,
            Severity::Info => f.info += 1,
        }
    }
    f
}

/// The first root's last run's outcome, else its last wait's, else its last turn's reason.
fn outcome(report: &Report) -> Option<String> {
    let root = report.sessions.iter().find(|s| s.parent.is_none())?;
    let word = |v: serde_json::Value| v.as_str().map(str::to_owned);
    if let Some(run) = root.runs.last() {
        return serde_json::to_value(run.outcome).ok().and_then(word);
    }
    if let Some(wait) = report.waits.iter().rev().find(|w| w.root == root.id) {
        return serde_json::to_value(wait.outcome).ok().and_then(word);
    }
    report.turns.iter().rev().find(|t| t.session == root.id).and_then(|t| t.reason.clone())
}

/// Each turn's tokens at its start (else the session's start); what each session counted
/// beyond its turns at the session's start.
fn book_by_time(report: &Report, start: Option<f64>) -> Vec<Booked> {
    let mut out = Vec::new();
    for s in &report.sessions {
        let Some(total) = &s.usage else { continue };
        let mut rest = total.clone();
        let mut first_time: Option<f64> = None;
        for t in report.turns.iter().filter(|t| t.session == s.id) {
            first_time = first_time.or(t.start_time);
            let Some(u) = &t.usage else { continue };
            subtract(&mut rest, u);
            out.push(Booked { time: t.start_time.or(start), model: None, usage: u.clone() });
        }
        let at = s.runs.first().and_then(|r| r.start_time).or(first_time).or(start);
        if rest.tokens() > 0 || rest.cost.is_some_and(|c| c.abs() > 1e-12) {
            out.push(Booked { time: at, model: None, usage: rest });
        }
    }
    out
}

fn subtract(rest: &mut Usage, u: &Usage) {
    rest.input = rest.input.saturating_sub(u.input);
    rest.output = rest.output.saturating_sub(u.output);
    rest.cache_read = rest.cache_read.saturating_sub(u.cache_read);
    rest.cache_write = rest.cache_write.saturating_sub(u.cache_write);
    if let (Some(r), Some(c)) = (rest.cost.as_mut(), u.cost) {
        *r -= c;
    }
    if let (Some(r), Some(c)) = (rest.unpriced.as_mut(), &u.unpriced) {
        r.tokens = r.tokens.saturating_sub(c.tokens);
    }
    if rest.unpriced.as_ref().is_some_and(|u| u.tokens == 0) {
        rest.unpriced = None;
    }
}

fn latest_mtime<'a>(paths: impl Iterator<Item = &'a Path>) -> Option<f64> {
    paths
        .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max()
        .and_then(|t: SystemTime| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as f64)
}

/// The title as the app's list shows it: Copilot's workspace summary, else what the first
/// file's format reads in its head.
fn title(path: &Path, first: &Path) -> Option<String> {
    if path.is_dir() {
        if let Some(t) = yaml_field(&path.join("workspace.yaml"), "summary") {
            return arbor_core::formats::about_line(&t);
        }
    }
    arbor_core::formats::about_file(first, None)
}

/// `key: value` in a small YAML file (Copilot's `workspace.yaml`).
fn yaml_field(path: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let prefix = format!("{key}:");
    let v = text.lines().find_map(|l| l.strip_prefix(prefix.as_str()))?.trim().trim_matches(['"', '\'']);
    (!v.is_empty()).then(|| v.to_string())
}

/// The working folder the log's first lines name: Claude Code's `cwd` on each line, Codex's
/// `session_meta.payload.cwd`, Copilot's `session.start` context or its `workspace.yaml`.
fn cwd(path: &Path, first: &Path) -> Option<String> {
    if path.is_dir() {
        if let Some(c) = yaml_field(&path.join("workspace.yaml"), "cwd") {
            return Some(c);
        }
    }
    let file = arbor_core::reader::open(first).ok()?;
    let mut lines = std::io::BufReader::new(file.take(HEAD));
    let mut line = Vec::new();
    while lines.read_until(b'\n', &mut line).ok()? > 0 {
        if memchr_cwd(&line) {
            if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) {
                let found = [&v, &v["payload"], &v["data"], &v["data"]["context"], &v["params"]]
                    .iter()
                    .find_map(|o| o.get("cwd").and_then(|c| c.as_str()).filter(|c| !c.is_empty()));
                if let Some(c) = found {
                    return Some(c.to_string());
                }
            }
        }
        line.clear();
    }
    None
}

fn memchr_cwd(line: &[u8]) -> bool {
    line.windows(5).any(|w| w == b"\"cwd\"")
}
