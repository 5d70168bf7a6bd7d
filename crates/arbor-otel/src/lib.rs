//! Arbor's OpenTelemetry export: an `Analysis` as spans that follow the GenAI semantic
//! conventions, in OTLP requests of a bounded number of spans each, written as OTLP-JSON lines
//! (`write_json`) or sent over OTLP/HTTP with protobuf (`http::send`, feature `http`).
//!
//! The mapping (README "Export"): each run of a session is an `invoke_agent` span
//! (`gen_ai.agent.id`, `gen_ai.agent.name`, `gen_ai.conversation.id` the root's id, the run's
//! `arbor.link`); a child's span hangs under the `execute_tool` span of the call that spawned it
//! where the parent's transcript names it, else under the parent's `invoke_agent` span; each turn
//! is a `chat` span under its run; each tool call an `execute_tool` span under its turn
//! (`gen_ai.tool.name`, `gen_ai.tool.call.id`, an error status when its result is an error);
//! tokens are `gen_ai.usage.*`; findings are span events (`arbor.finding.code`,
//! `arbor.finding.severity`) on the innermost span that holds their place. Times come from the
//! log's clock; a log without one gets synthetic times from wire order (one millisecond a record
//! from 2000-01-01), and every span whose times were not read from the log says
//! `arbor.time.synthetic = true`. Ids come from `ids`. Message texts, tool arguments and results
//! are left out unless `Options::include_content`.
//!
//! It owns the mapping and the batching; the engine owns the analysis, the protocol crate the
//! messages and their encodings, the caller the I/O (this crate writes to what it is given and,
//! with `http`, to the endpoint it is given; it never chooses a place itself).

pub mod ids;

#[cfg(feature = "http")]
pub mod http;

use arbor_core::finding::Loc;
use arbor_core::report::{Link, Outcome, Severity, Usage};
use arbor_core::report_parts::{DiagnosticRef, PlaceRef, ReportParts, SessionRef, TurnIdRef};
use arbor_core::transcript::{Index, PartKind};
use arbor_core::Analysis;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, ArrayValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::{Event, SpanKind};
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status};
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};

pub use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest as Request;

/// 2000-01-01T00:00:00Z in epoch milliseconds: where synthetic times start, one millisecond a
/// record, so that a log without a clock still shows its wire order (and no backend takes its
/// spans for 1970's).
pub const SYNTHETIC_EPOCH_MS: u64 = 946_684_800_000;

/// Transcript rows read back per page while a session's tool calls are gathered.
const PAGE_ROWS: u32 = 4096;

/// What an export includes and how it is cut into requests.
#[derive(Debug, Clone)]
pub struct Options {
    /// Prompts, message texts, tool arguments and results as the conventions' opt-in content
    /// attributes (`gen_ai.input.messages`, `gen_ai.output.messages`,
    /// `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). Off by default: logs hold
    /// whatever their users typed and their tools read.
    pub include_content: bool,
    /// Spans per request at most (a session's spans may end one request a little past it).
    pub batch_spans: usize,
    /// Resource attributes added to `service.name = arbor` (and may replace it), such as
    /// `openinference.project.name` for Phoenix.
    pub resource: Vec<(String, String)>,
}

impl Default for Options {
    fn default() -> Self {
        Options { include_content: false, batch_spans: 2000, resource: Vec::new() }
    }
}

/// What an export sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Traces: one per root session (and one for findings that belong to no session).
    pub traces: u64,
    pub spans: u64,
    /// Span events: one per finding.
    pub events: u64,
    /// OTLP requests (lines of an OTLP-JSON file).
    pub requests: u64,
    /// Traces whose times are synthetic (from wire order) because their log has no clock.
    pub synthetic_traces: u64,
}

/// Export `analysis` as OTLP requests, handing each to `send` as soon as it is full: memory holds
/// one request's spans and one session's tool calls, never the whole export. An error from
/// `send` ends the export and is returned.
pub fn export<E>(
    analysis: &Analysis,
    options: &Options,
    mut send: impl FnMut(Request) -> Result<(), E>,
) -> Result<Summary, E> {
    let parts = ReportParts::new(analysis);
    let mut walk = Walk::new(analysis, &parts, options);
    for s in parts.sessions() {
        walk.session(&s);
        if walk.spans.len() >= walk.batch {
            walk.flush(&mut send)?;
        }
    }
    walk.unplaced_findings();
    walk.flush(&mut send)?;
    Ok(walk.summary)
}

/// Export `analysis` as OTLP-JSON, one `ExportTraceServiceRequest` a line (the OpenTelemetry
/// Collector's file exporter layout, which its `otlpjsonfile` receiver and Jaeger's upload read).
pub fn write_json(analysis: &Analysis, options: &Options, mut out: impl Write) -> std::io::Result<Summary> {
    let summary = export(analysis, options, |request| {
        serde_json::to_writer(&mut out, &request).map_err(std::io::Error::from)?;
        out.write_all(b"\n")
    })?;
    out.flush()?;
    Ok(summary)
}

/// Why an export to a file failed.
#[derive(Debug)]
pub enum FileError {
    /// Nothing in `paths` could be read in a known format.
    Unreadable(String),
    /// The file could not be written.
    Io(std::io::Error),
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FileError::Unreadable(why) => write!(f, "nothing could be read in a known format: {why}"),
            FileError::Io(e) => write!(f, "cannot write the export: {e}"),
        }
    }
}

impl std::error::Error for FileError {}

/// Analyse `paths` and write the OTLP-JSON export to `file`, through a temporary file beside it
/// that is renamed into place: a failed export leaves no partial file behind.
pub fn export_file(paths: &[PathBuf], file: &Path, options: &Options) -> Result<Summary, FileError> {
    let analysis = arbor_core::analyze(paths, &mut ());
    if analysis.files.iter().all(|f| f.format.is_none()) {
        let why: Vec<String> = analysis.cx.findings.list.iter().map(|f| f.message.to_string()).collect();
        return Err(FileError::Unreadable(if why.is_empty() { "no log files found".into() } else { why.join("; ") }));
    }
    write_json_file(&analysis, file, options).map_err(FileError::Io)
}

/// Write the OTLP-JSON export of `analysis` to `file` atomically (a temporary file renamed).
pub fn write_json_file(analysis: &Analysis, file: &Path, options: &Options) -> std::io::Result<Summary> {
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = file.file_name().map_or_else(|| "export".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.arbor-{}.tmp", std::process::id()));
    let written = std::fs::File::create(&tmp)
        .and_then(|f| write_json(analysis, options, std::io::BufWriter::with_capacity(1 << 16, f)))
        .and_then(|s| std::fs::rename(&tmp, file).map(|_| s));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Where a span starts or ends, as the log says: its clock time (epoch ms) and its record.
#[derive(Debug, Clone, Copy, Default)]
struct When {
    ms: Option<f64>,
    rec: Option<u32>,
}

/// A span of the current session, before it is finished: what its children and findings need.
#[derive(Debug, Clone, Copy)]
struct Placed {
    id: [u8; 8],
    /// Its records, first to last (`u32::MAX` as the end of one still open).
    from: u32,
    to: u32,
    start: u64,
    end: u64,
}

impl Placed {
    fn holds(&self, rec: u32) -> bool {
        self.from <= rec && rec <= self.to
    }
}

/// The trace being written: one root session and everything under it.
struct Trace {
    id: [u8; 16],
    root: String,
    /// Whether the root's log has a clock; without one every time in the trace is synthetic.
    clock: bool,
    /// Every session's run spans so far, for its children.
    runs: HashMap<String, Vec<Placed>>,
    /// Spawn calls not yet matched to a child's run, by (parent, child), in call order.
    spawns: HashMap<(String, String), VecDeque<Placed>>,
}

/// What a span needs of a report turn (`TurnRef` without its step spans: a whole log's turns
/// are held while the export runs).
struct Turn<'a> {
    turn: TurnIdRef<'a>,
    run: Option<u32>,
    start: Option<PlaceRef<'a>>,
    end: Option<PlaceRef<'a>>,
    reason: Option<&'a str>,
    steps: u32,
    start_time: Option<f64>,
    end_time: Option<f64>,
    usage: Option<Usage>,
}

/// A tool call gathered from a session's transcript.
struct Call {
    call_id: Option<String>,
    tool: String,
    start: When,
    end: When,
    row: u32,
    is_error: Option<bool>,
    child: Option<String>,
    arguments: String,
    result: Option<String>,
}

/// What a turn's transcript adds to its span.
#[derive(Default)]
struct TurnText {
    model: Option<String>,
    input: Vec<serde_json::Value>,
    output: Vec<serde_json::Value>,
}

struct Walk<'a, 'p> {
    a: &'a Analysis,
    parts: &'p ReportParts<'a>,
    content: bool,
    batch: usize,
    resource: Resource,
    spans: Vec<Span>,
    summary: Summary,
    /// Each display name's file index (the report names files by display).
    files: HashMap<&'a str, u32>,
    turns: HashMap<&'a str, Vec<Turn<'a>>>,
    findings: HashMap<&'a str, Vec<DiagnosticRef<'a>>>,
    /// Findings of no session in the tree.
    unplaced: Vec<DiagnosticRef<'a>>,
    indexes: arbor_core::intern::HashMap<&'a str, Index>,
    /// Each file's first line, by file index, read once (for trace ids).
    first_lines: HashMap<u32, Vec<u8>>,
    trace: Option<Trace>,
}

fn kv(key: &str, value: any_value::Value) -> KeyValue {
    KeyValue { key: key.to_owned(), value: Some(AnyValue { value: Some(value) }), ..KeyValue::default() }
}

fn string(key: &str, v: impl Into<String>) -> KeyValue {
    kv(key, any_value::Value::StringValue(v.into()))
}

fn int(key: &str, v: u64) -> KeyValue {
    kv(key, any_value::Value::IntValue(i64::try_from(v).unwrap_or(i64::MAX)))
}

fn flag(key: &str, v: bool) -> KeyValue {
    kv(key, any_value::Value::BoolValue(v))
}

fn strings(key: &str, v: &[&str]) -> KeyValue {
    let values = v.iter().map(|x| AnyValue { value: Some(any_value::Value::StringValue((*x).to_owned())) }).collect();
    kv(key, any_value::Value::ArrayValue(ArrayValue { values }))
}

fn usage_attrs(attrs: &mut Vec<KeyValue>, prefix: &str, u: &Usage) {
    attrs.push(int(&format!("{prefix}input_tokens"), u.input));
    attrs.push(int(&format!("{prefix}output_tokens"), u.output));
    attrs.push(int(&format!("{prefix}cache_read.input_tokens"), u.cache_read));
    attrs.push(int(&format!("{prefix}cache_creation.input_tokens"), u.cache_write));
}

fn place(p: &PlaceRef<'_>) -> String {
    format!("{}:{}", p.file, p.line)
}

/// The conventions' `gen_ai.provider.name` for a format: the model provider behind the harness
/// where there is one (the conventions' well-known names), else the harness itself.
fn provider(format: &str) -> &'static str {
    match format {
        f if f.starts_with("dsh") => "deepseek",
        f if f.starts_with("copilot") => "github_copilot",
        "claude-code" => "anthropic",
        "codex" => "openai",
        _ => "unknown",
    }
}

fn turn_name(t: &TurnIdRef<'_>) -> String {
    match t {
        TurnIdRef::Num(n) => n.to_string(),
        TurnIdRef::Text(s) => (*s).to_owned(),
        TurnIdRef::Null => String::new(),
    }
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

fn outcome(o: Outcome) -> &'static str {
    match o {
        Outcome::Ok => "ok",
        Outcome::Error => "error",
        Outcome::Cancelled => "cancelled",
        Outcome::Open => "open",
    }
}

/// Epoch milliseconds as nanoseconds, exact for whole milliseconds: `ms * 1e6` in f64 is not
/// (2026's nanoseconds need 61 bits, an f64 holds 53).
fn ms_to_ns(ms: f64) -> u64 {
    if !(ms.is_finite() && ms > 0.0) {
        return 0;
    }
    let whole = ms.trunc();
    (whole as u64).saturating_mul(1_000_000).saturating_add(((ms - whole) * 1e6).round() as u64)
}

impl<'a, 'p> Walk<'a, 'p> {
    fn new(a: &'a Analysis, parts: &'p ReportParts<'a>, options: &Options) -> Self {
        let mut turns: HashMap<&'a str, Vec<Turn<'a>>> = HashMap::new();
        for t in parts.turns() {
            let turn = Turn {
                turn: t.turn,
                run: t.run,
                start: t.start,
                end: t.end,
                reason: t.reason,
                steps: t.steps,
                start_time: t.start_time,
                end_time: t.end_time,
                usage: t.usage,
            };
            turns.entry(t.session).or_default().push(turn);
        }
        let mut findings: HashMap<&'a str, Vec<DiagnosticRef<'a>>> = HashMap::new();
        let mut unplaced = Vec::new();
        let files: HashMap<&str, u32> =
            a.files.iter().enumerate().map(|(i, f)| (f.display.as_str(), i as u32)).collect();
        for d in parts.diagnostics() {
            // A finding that names no session belongs to the session of the record it is at
            // (a naive waiter's misreading at a sub-agent's line); one whose session is not in
            // the tree goes with the unplaced ones.
            let at = files.get(d.at.file).and_then(|&file| a.cx.find_record(Loc { file, line: d.at.line }));
            let of_record = at
                .and_then(|r| a.records().get(r))
                .filter(|r| r.session != arbor_core::ctx::NO_SESSION)
                .map(|r| a.name(arbor_core::intern::Sym(r.session)));
            let in_tree = |s: &&str| a.cx.ids.get(s).is_some_and(|sym| a.cx.graph.contains(sym));
            match d.session.filter(in_tree).or(of_record.filter(in_tree)) {
                Some(s) => findings.entry(s).or_default().push(d),
                None => unplaced.push(d),
            }
        }
        let mut resource = vec![string("service.name", "arbor"), string("service.version", arbor_core::VERSION)];
        for (k, v) in &options.resource {
            resource.retain(|r| &r.key != k);
            resource.push(string(k, v.clone()));
        }
        Walk {
            a,
            parts,
            content: options.include_content,
            batch: options.batch_spans.max(1),
            resource: Resource { attributes: resource, ..Resource::default() },
            spans: Vec::new(),
            summary: Summary::default(),
            files,
            turns,
            findings,
            unplaced,
            indexes: a.transcript_indexes(),
            first_lines: HashMap::new(),
            trace: None,
        }
    }

    fn rec(&self, p: Option<&PlaceRef<'_>>) -> Option<u32> {
        let p = p?;
        let file = *self.files.get(p.file)?;
        self.a.cx.find_record(Loc { file, line: p.line }).and_then(|r| u32::try_from(r).ok())
    }

    fn record_time(&self, rec: u32) -> Option<f64> {
        self.a.records().get(rec as usize).map(|r| r.time).filter(|t| !t.is_nan())
    }

    fn format_of(&self, rec: Option<u32>) -> &'static str {
        rec.and_then(|r| self.a.cx.file_of(r as usize))
            .and_then(|f| self.a.files.get(f as usize))
            .and_then(|f| f.format)
            .map_or("unknown", |f| f.id)
    }

    /// A time in nanoseconds, and whether it is synthetic: the log's clock in a trace with one,
    /// the record's place in wire order in a trace without; else `fallback`.
    fn time(&self, clock: bool, w: When, fallback: u64) -> (u64, bool) {
        if clock {
            match w.ms.or_else(|| w.rec.and_then(|r| self.record_time(r))) {
                Some(ms) => (ms_to_ns(ms), false),
                None => (fallback, true),
            }
        } else {
            match w.rec {
                Some(r) => ((SYNTHETIC_EPOCH_MS + u64::from(r)) * 1_000_000, true),
                None => (fallback, true),
            }
        }
    }

    /// Start the trace of `root` unless it is the current one.
    fn enter_trace(&mut self, root: &str, first_rec: Option<u32>, clock: bool) {
        if self.trace.as_ref().is_some_and(|t| t.root == root) {
            return;
        }
        let file = first_rec.and_then(|r| self.a.cx.file_of(r as usize));
        let line = match file {
            Some(f) => {
                let a = self.a;
                self.first_lines
                    .entry(f)
                    .or_insert_with(|| {
                        a.files
                            .get(f as usize)
                            .and_then(|info| arbor_core::raw_line(&info.path, 1))
                            .map(String::into_bytes)
                            .unwrap_or_default()
                    })
                    .clone()
            }
            None => Vec::new(),
        };
        self.summary.traces += 1;
        if !clock {
            self.summary.synthetic_traces += 1;
        }
        self.trace = Some(Trace {
            id: ids::trace_id(root, &line),
            root: root.to_owned(),
            clock,
            runs: HashMap::new(),
            spawns: HashMap::new(),
        });
    }

    fn session(&mut self, s: &SessionRef<'_>) {
        let index = self.indexes.remove(s.id);
        let turns = self.turns.remove(s.id).unwrap_or_default();
        let first_row = index.as_ref().and_then(|i| i.record(0));
        let first_row = first_row.and_then(|r| u32::try_from(r).ok());
        let root = s.root.unwrap_or(s.id);
        if self.trace.as_ref().is_none_or(|t| t.root != root) {
            // The root's first record names its file; its clock decides the trace's times.
            let first = first_row
                .or_else(|| s.runs.first().and_then(|r| self.rec(r.start.as_ref())))
                .or_else(|| turns.first().and_then(|t| self.rec(t.start.as_ref())));
            let clock = first.and_then(|r| self.record_time(r)).is_some()
                || s.runs.iter().any(|r| r.start_time.is_some())
                || turns.iter().any(|t| t.start_time.is_some());
            self.enter_trace(root, first, clock);
        }
        let Some(trace) = self.trace.take() else { return };
        let mut trace = trace;
        self.session_spans(&mut trace, s, index.as_ref(), first_row, &turns);
        self.trace = Some(trace);
    }

    fn session_spans(
        &mut self,
        trace: &mut Trace,
        s: &SessionRef<'_>,
        index: Option<&Index>,
        first_row: Option<u32>,
        turns: &[Turn<'a>],
    ) {
        let clock = trace.clock;
        let root = trace.root.clone();
        // The session's extent, for runs the log leaves open or never shows.
        let turn_recs: Vec<(Option<u32>, Option<u32>)> =
            turns.iter().map(|t| (self.rec(t.start.as_ref()), self.rec(t.end.as_ref()))).collect();
        let last_row =
            index.and_then(|i| i.record((i.len() as u32).checked_sub(1)?)).and_then(|r| u32::try_from(r).ok());
        let first_rec = [first_row, turn_recs.iter().find_map(|t| t.0)].into_iter().flatten().min();
        // Every time the session's log gives, by record: a run whose own records have no clock
        // (a JSON-RPC start edge) takes the first and last times of what happened in it.
        let mut clocked: Vec<(u32, f64)> = Vec::new();
        if clock {
            if let Some(i) = index {
                for row in 0..i.len() as u32 {
                    let Some(r) = i.record(row).and_then(|r| u32::try_from(r).ok()) else { continue };
                    if let Some(t) = self.record_time(r) {
                        clocked.push((r, t));
                    }
                }
            }
            for (t, &(from, to)) in turns.iter().zip(&turn_recs) {
                clocked.extend(from.zip(t.start_time));
                clocked.extend(to.zip(t.end_time));
            }
            clocked.sort_by_key(|c| c.0);
        }
        let within = |from: Option<u32>, to: Option<u32>| -> (Option<f64>, Option<f64>) {
            let lo = clocked.partition_point(|c| c.0 < from.unwrap_or(0));
            let hi = clocked.partition_point(|c| c.0 <= to.unwrap_or(u32::MAX));
            let inside = &clocked[lo..hi.max(lo)];
            (inside.first().map(|c| c.1), inside.last().map(|c| c.1))
        };
        let last_rec = [last_row, turn_recs.iter().rev().find_map(|t| t.1.or(t.0))].into_iter().flatten().max();
        let format = self.format_of(first_rec.or_else(|| s.runs.first().and_then(|r| self.rec(r.start.as_ref()))));
        let provider = provider(format);
        let label = s.label.unwrap_or(s.id);

        // Runs: one `invoke_agent` span each (one for a session the log shows no run of).
        let mut runs: Vec<Placed> = Vec::new();
        let run_count = s.runs.len().max(1);
        for i in 0..run_count {
            let run = s.runs.get(i);
            let start_rec = run.and_then(|r| self.rec(r.start.as_ref())).or(first_rec);
            let end_rec = run.and_then(|r| self.rec(r.end.as_ref()));
            // A run the log leaves open lasts until the next run starts, or the session's end.
            let open_end = match s.runs.get(i + 1) {
                Some(next) => self.rec(next.start.as_ref()).map(|r| r.saturating_sub(1)),
                None => last_rec,
            };
            let parent_id = run.and_then(|r| r.parent).or(s.parent);
            // The spawning call's span where the parent's transcript names it, else the
            // parent's run that holds this run's start.
            let parent: Option<(Placed, bool)> = parent_id.and_then(|p| {
                let spawned = trace.spawns.get_mut(&(p.to_owned(), s.id.to_owned())).and_then(VecDeque::pop_front);
                if let Some(call) = spawned {
                    return Some((call, true));
                }
                let runs = trace.runs.get(p)?;
                let at = start_rec.unwrap_or(0);
                runs.iter().rev().find(|r| r.holds(at)).or(runs.last()).map(|r| (*r, false))
            });
            let id = ids::span_id(&trace.id, "run", s.id, &i.to_string());
            let (pstart, pend) = parent.map_or((SYNTHETIC_EPOCH_MS * 1_000_000, 0), |(p, _)| (p.start, p.end));
            let (first_in, last_in) = within(start_rec, end_rec.or(open_end));
            let start_ms = run.and_then(|r| r.start_time).or_else(|| start_rec.and_then(|r| self.record_time(r)));
            let end_ms = run.and_then(|r| r.end_time).or_else(|| end_rec.and_then(|r| self.record_time(r)));
            let (start, syn_a) = self.time(clock, When { ms: start_ms.or(first_in), rec: start_rec }, pstart);
            let end_when = When { ms: end_ms.or(last_in), rec: end_rec.or(open_end) };
            let (end, syn_b) = self.time(clock, end_when, pend.max(start));
            let end = end.max(start);
            let mut attrs = vec![
                string("gen_ai.operation.name", "invoke_agent"),
                string("gen_ai.provider.name", provider),
                string("gen_ai.agent.id", s.id),
                string("gen_ai.agent.name", label),
                string("gen_ai.conversation.id", &root),
                string("arbor.format", format),
                int("arbor.run.index", i as u64),
                int("arbor.session.events", s.events),
            ];
            if let Some(d) = s.depth {
                attrs.push(int("arbor.session.depth", u64::from(d)));
            }
            if let Some(p) = parent_id {
                attrs.push(string("arbor.session.parent", p));
            }
            if let Some(r) = run {
                attrs.push(string("arbor.link", r.link.as_str()));
                attrs.push(string("arbor.run.outcome", outcome(r.outcome)));
                if let Some(p) = &r.start {
                    attrs.push(string("arbor.place", place(p)));
                }
                if let Some(p) = &r.end {
                    attrs.push(string("arbor.place.end", place(p)));
                }
                if let Some(rc) = &r.received {
                    attrs.push(string("arbor.received.place", place(&rc.at)));
                    if self.content {
                        attrs.push(string("arbor.received.text", rc.text));
                    }
                }
            } else if let Some(p) = first_rec.and_then(|r| self.a.record_view(r as usize)) {
                attrs.push(string("arbor.place", format!("{}:{}", p.file, p.line)));
            }
            if s.inferred_parent || run.is_some_and(|r| r.link == Link::Inferred && r.parent.is_some()) {
                attrs.push(flag("arbor.parent.inferred", true));
            }
            if i == 0 {
                if let Some(u) = &s.usage {
                    usage_attrs(&mut attrs, "gen_ai.usage.", u);
                }
                if let Some(u) = &s.subtree_usage {
                    usage_attrs(&mut attrs, "arbor.usage.subtree.", u);
                }
            }
            if syn_a || syn_b {
                attrs.push(flag("arbor.time.synthetic", true));
            }
            let status = match run.map(|r| r.outcome) {
                Some(Outcome::Error) => {
                    attrs.push(string("error.type", "agent_error"));
                    Some(Status { message: "the run ended in an error".into(), code: StatusCode::Error as i32 })
                }
                _ => None,
            };
            let placed =
                Placed { id, from: start_rec.unwrap_or(0), to: end_rec.or(open_end).unwrap_or(u32::MAX), start, end };
            runs.push(placed);
            self.push(trace, placed, parent.map(|(p, _)| p.id), format!("invoke_agent {label}"), attrs, status);
        }
        trace.runs.insert(s.id.to_owned(), runs.clone());

        // Turns: one `chat` span each, under the run it belongs to.
        let mut turn_spans: Vec<(Placed, [u8; 8], Vec<KeyValue>)> = Vec::new();
        for (k, (t, &(from, to))) in turns.iter().zip(&turn_recs).enumerate() {
            let run = t
                .run
                .and_then(|r| runs.get(r as usize))
                .or_else(|| from.and_then(|f| runs.iter().rev().find(|r| r.holds(f))))
                .unwrap_or(&runs[0]);
            let (start, syn_a) = self.time(clock, When { ms: t.start_time, rec: from }, run.start);
            let (end, syn_b) = self.time(clock, When { ms: t.end_time, rec: to }, run.end.max(start));
            let end = end.max(start);
            let mut attrs = vec![
                string("gen_ai.operation.name", "chat"),
                string("gen_ai.provider.name", provider),
                string("gen_ai.conversation.id", &root),
                string("gen_ai.agent.id", s.id),
                string("arbor.turn", turn_name(&t.turn)),
                int("arbor.turn.steps", u64::from(t.steps)),
            ];
            if let Some(r) = t.reason {
                attrs.push(strings("gen_ai.response.finish_reasons", &[r]));
            }
            if let Some(p) = &t.start {
                attrs.push(string("arbor.place", place(p)));
            }
            if let Some(u) = &t.usage {
                usage_attrs(&mut attrs, "gen_ai.usage.", u);
            }
            if syn_a || syn_b {
                attrs.push(flag("arbor.time.synthetic", true));
            }
            let id = ids::span_id(&trace.id, "turn", s.id, &k.to_string());
            let placed = Placed { id, from: from.unwrap_or(run.from), to: to.unwrap_or(u32::MAX), start, end };
            turn_spans.push((placed, run.id, attrs));
        }

        // The transcript: tool calls, and the turns' models (and texts, on request).
        let mut calls: Vec<Call> = Vec::new();
        let mut texts: Vec<TurnText> = (0..turn_spans.len()).map(|_| TurnText::default()).collect();
        if let Some(index) = index {
            self.read_transcript(index, &turn_spans, &mut calls, &mut texts);
        }
        let parent_of = |rec: u32, turns: &[(Placed, [u8; 8], Vec<KeyValue>)]| -> Placed {
            turns
                .iter()
                .rev()
                .map(|t| t.0)
                .find(|t| t.holds(rec))
                .or_else(|| runs.iter().rev().find(|r| r.holds(rec)).copied())
                .unwrap_or(runs[0])
        };
        let mut tool_spans: Vec<Placed> = Vec::new();
        for call in &calls {
            let row = call.start.rec.unwrap_or(0);
            let parent = parent_of(row, &turn_spans);
            let which = call.call_id.clone().unwrap_or_else(|| format!("row {}", call.row));
            let id = ids::span_id(&trace.id, "tool", s.id, &which);
            let (start, syn_a) = self.time(clock, call.start, parent.start);
            let (end, syn_b) = match call.end.rec {
                Some(_) => self.time(clock, call.end, start),
                None => (start, true),
            };
            let end = end.max(start);
            let mut attrs = vec![
                string("gen_ai.operation.name", "execute_tool"),
                string("gen_ai.tool.name", call.tool.clone()),
                string("gen_ai.tool.type", "function"),
                string("gen_ai.conversation.id", &root),
                string("gen_ai.agent.id", s.id),
            ];
            if let Some(c) = &call.call_id {
                attrs.push(string("gen_ai.tool.call.id", c.clone()));
            }
            if let Some(p) = self.a.record_view(row as usize) {
                attrs.push(string("arbor.place", format!("{}:{}", p.file, p.line)));
            }
            if let Some(p) = call.end.rec.and_then(|r| self.a.record_view(r as usize)) {
                attrs.push(string("arbor.place.end", format!("{}:{}", p.file, p.line)));
            }
            if let Some(child) = &call.child {
                attrs.push(string("arbor.spawn.child", child.clone()));
            }
            if self.content {
                attrs.push(string("gen_ai.tool.call.arguments", call.arguments.clone()));
                if let Some(r) = &call.result {
                    attrs.push(string("gen_ai.tool.call.result", r.clone()));
                }
            }
            if syn_a || syn_b {
                attrs.push(flag("arbor.time.synthetic", true));
            }
            let status = (call.is_error == Some(true)).then(|| {
                attrs.push(string("error.type", "tool_error"));
                Status { message: "the tool's result is an error".into(), code: StatusCode::Error as i32 }
            });
            let placed = Placed { id, from: row, to: call.end.rec.unwrap_or(row), start, end };
            if let Some(child) = &call.child {
                trace.spawns.entry((s.id.to_owned(), child.clone())).or_default().push_back(placed);
            }
            tool_spans.push(placed);
            self.push(trace, placed, Some(parent.id), format!("execute_tool {}", call.tool), attrs, status);
        }
        let turn_places: Vec<Placed> = turn_spans.iter().map(|t| t.0).collect();
        for ((placed, parent, mut attrs), text) in turn_spans.into_iter().zip(texts) {
            let span_name = match &text.model {
                Some(m) => {
                    attrs.push(string("gen_ai.request.model", m.clone()));
                    format!("chat {m}")
                }
                None => "chat".to_owned(),
            };
            if self.content {
                if !text.input.is_empty() {
                    attrs.push(string("gen_ai.input.messages", serde_json::Value::Array(text.input).to_string()));
                }
                if !text.output.is_empty() {
                    attrs.push(string("gen_ai.output.messages", serde_json::Value::Array(text.output).to_string()));
                }
            }
            self.push(trace, placed, Some(parent), span_name, attrs, None);
        }

        // Findings: events on the innermost span that holds their place.
        for d in self.findings.remove(s.id).unwrap_or_default() {
            self.finding_event(trace, &d, [&tool_spans[..], &turn_places, &runs]);
        }
    }

    /// Gathers a session's tool calls (with their results) and what its turns said.
    fn read_transcript(
        &self,
        index: &Index,
        turns: &[(Placed, [u8; 8], Vec<KeyValue>)],
        calls: &mut Vec<Call>,
        texts: &mut [TurnText],
    ) {
        let max_text = if self.content { usize::MAX } else { 0 };
        let mut open: HashMap<String, usize> = HashMap::new();
        let mut from = 0;
        while (from as usize) < index.len() {
            let page = self.a.transcript_page(index, from, PAGE_ROWS, max_text);
            if page.rows.is_empty() {
                break;
            }
            from += page.rows.len() as u32;
            for row in page.rows {
                let rec = u32::try_from(row.record).unwrap_or(u32::MAX);
                let when = When { ms: row.time, rec: Some(rec) };
                let turn = turns.iter().rposition(|t| t.0.holds(rec));
                for part in row.parts {
                    if let (Some(m), Some(t)) = (&part.model, turn) {
                        texts[t].model.get_or_insert_with(|| m.clone());
                    }
                    match part.kind {
                        // A spawn that names no call (a dsh start edge) is the child's run
                        // itself, not a tool call: the child hangs under the parent's run.
                        PartKind::Spawn if part.call_id.is_none() => {}
                        PartKind::ToolCall | PartKind::Spawn => {
                            if let Some(c) = &part.call_id {
                                open.insert(c.clone(), calls.len());
                            }
                            calls.push(Call {
                                call_id: part.call_id,
                                tool: part.tool.unwrap_or_else(|| "unknown".into()),
                                start: when,
                                end: When::default(),
                                row: row.row,
                                is_error: None,
                                child: part.child,
                                arguments: part.text,
                                result: None,
                            });
                        }
                        PartKind::ToolResult | PartKind::Received => {
                            let Some(&i) = part.call_id.as_ref().and_then(|c| open.get(c)) else { continue };
                            let call = &mut calls[i];
                            call.end = when;
                            call.is_error = part.is_error;
                            call.child = call.child.take().or(part.child);
                            call.result = Some(part.text);
                        }
                        PartKind::Prompt if self.content => {
                            // A prompt comes before the turn it starts.
                            if let Some(t) = turn.or_else(|| turns.iter().position(|t| t.0.from > rec)) {
                                texts[t].input.push(message("user", "text", part.text));
                            }
                        }
                        PartKind::Text | PartKind::Reasoning if self.content => {
                            if let Some(t) = turn {
                                let kind = if part.kind == PartKind::Text { "text" } else { "reasoning" };
                                texts[t].output.push(message("assistant", kind, part.text));
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// A finding as an event of the innermost span that holds its record: the tool call it is
    /// at, else its turn, else its run, else the session's first span.
    fn finding_event(&mut self, trace: &Trace, d: &DiagnosticRef<'_>, spans: [&[Placed]; 3]) {
        let rec = self.rec(Some(&d.at));
        let [tools, turns, runs] = spans;
        let at = |list: &[Placed]| rec.and_then(|r| list.iter().rev().find(|p| p.holds(r)).copied());
        let target = tools
            .iter()
            .rev()
            .find(|p| Some(p.from) == rec || Some(p.to) == rec)
            .copied()
            .or_else(|| at(turns))
            .or_else(|| at(runs))
            .unwrap_or(runs[0]);
        let time = if trace.clock { d.time.map(ms_to_ns).unwrap_or(target.start) } else { target.start };
        let event = finding(d, time);
        self.summary.events += 1;
        if let Some(span) = self.spans.iter_mut().rev().find(|sp| sp.span_id == target.id) {
            span.events.push(event);
        }
    }

    /// Findings of no session (a file that cannot be read, a line that is not JSON): one span of
    /// a trace of their own.
    fn unplaced_findings(&mut self) {
        // Findings of sessions that were never walked (none, while every session is) join them.
        let mut all = std::mem::take(&mut self.unplaced);
        all.extend(self.findings.drain().flat_map(|(_, v)| v));
        all.sort_by(|x, y| (x.at.file, x.at.line, x.code).cmp(&(y.at.file, y.at.line, y.code)));
        if all.is_empty() {
            return;
        }
        let first: Vec<u8> = self
            .a
            .files
            .first()
            .and_then(|f| arbor_core::raw_line(&f.path, 1))
            .map(String::into_bytes)
            .unwrap_or_default();
        let trace_id = ids::trace_id("arbor findings", &first);
        self.summary.traces += 1;
        self.summary.synthetic_traces += 1;
        let start = SYNTHETIC_EPOCH_MS * 1_000_000;
        let events: Vec<Event> = all.iter().map(|d| finding(d, start)).collect();
        self.summary.events += events.len() as u64;
        self.summary.spans += 1;
        self.spans.push(Span {
            trace_id: trace_id.to_vec(),
            span_id: ids::span_id(&trace_id, "findings", "", "").to_vec(),
            name: "arbor findings".into(),
            kind: SpanKind::Internal as i32,
            start_time_unix_nano: start,
            end_time_unix_nano: start,
            attributes: vec![flag("arbor.time.synthetic", true), int("arbor.findings", events.len() as u64)],
            events,
            ..Span::default()
        });
    }

    fn push(
        &mut self,
        trace: &Trace,
        p: Placed,
        parent: Option<[u8; 8]>,
        name: String,
        attributes: Vec<KeyValue>,
        status: Option<Status>,
    ) {
        self.summary.spans += 1;
        self.spans.push(Span {
            trace_id: trace.id.to_vec(),
            span_id: p.id.to_vec(),
            parent_span_id: parent.map_or_else(Vec::new, |p| p.to_vec()),
            name,
            kind: SpanKind::Internal as i32,
            start_time_unix_nano: p.start,
            end_time_unix_nano: p.end,
            attributes,
            status,
            ..Span::default()
        });
    }

    fn flush<E>(&mut self, send: &mut impl FnMut(Request) -> Result<(), E>) -> Result<(), E> {
        if self.spans.is_empty() {
            return Ok(());
        }
        let spans = std::mem::take(&mut self.spans);
        let request = ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(self.resource.clone()),
                scope_spans: vec![ScopeSpans {
                    scope: Some(InstrumentationScope {
                        name: "arbor".into(),
                        version: arbor_core::VERSION.into(),
                        ..InstrumentationScope::default()
                    }),
                    spans,
                    schema_url: String::new(),
                }],
                schema_url: String::new(),
            }],
        };
        self.summary.requests += 1;
        let _ = self.parts;
        send(request)
    }
}

/// A finding as a span event.
fn finding(d: &DiagnosticRef<'_>, time: u64) -> Event {
    Event {
        time_unix_nano: time,
        name: format!("arbor.finding {}", d.code),
        attributes: vec![
            string("arbor.finding.code", d.code),
            string("arbor.finding.severity", severity(d.severity)),
            string("arbor.finding.message", d.message.as_ref()),
            string("arbor.place", place(&d.at)),
        ],
        dropped_attributes_count: 0,
    }
}

/// One message of the conventions' `gen_ai.{input,output}.messages`.
fn message(role: &str, kind: &str, text: String) -> serde_json::Value {
    serde_json::json!({"role": role, "parts": [{"type": kind, "content": text}]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_become_exact_nanoseconds() {
        assert_eq!(ms_to_ns(1_785_000_000_007.0), 1_785_000_000_007_000_000);
        assert_eq!(ms_to_ns(1_785_000_000_007.5), 1_785_000_000_007_500_000);
        assert_eq!((ms_to_ns(0.0), ms_to_ns(-5.0), ms_to_ns(f64::NAN)), (0, 0, 0));
    }

    #[test]
    fn providers_are_the_conventions_names() {
        assert_eq!(provider("dsh-rpc"), "deepseek");
        assert_eq!(provider("copilot-events"), "github_copilot");
        assert_eq!(provider("claude-code"), "anthropic");
        assert_eq!(provider("codex"), "openai");
    }
}
