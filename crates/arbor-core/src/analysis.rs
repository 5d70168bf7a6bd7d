//! The driver: reads each input through the reader, detects its format, feeds its lines in wire
//! order to that format's state machine, then settles cross-file facts and builds the report.
//!
//! One pass over each file; memory holds the record index (a few dozen bytes a record), the graph
//! and the findings, never line text. Progress is reported to an observer, which may cancel.

use crate::copilot::{events_root_id, Copilot};
use crate::ctx::{Ctx, Record};
use crate::detect::{detect, Format, DETECT_LINES};
use crate::dsh::{link_headers, DshRpc, DshSession};
use crate::finding::{Code, Loc};
use crate::intern::Sym;
use crate::reader::{self, InputFile, Lines};
use crate::report::{self, Place, Report};
use crate::wire::parse_line;
use std::collections::HashMap;
use std::path::PathBuf;

/// What the engine has done so far, for a progress bar.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Progress {
    pub files_done: usize,
    pub files_total: usize,
    pub bytes_read: u64,
    pub bytes_total: u64,
    pub records: u64,
    pub sessions: usize,
    pub findings: usize,
}

/// Told of progress every so many lines; returning `false` cancels the analysis.
pub trait Observer {
    fn progress(&mut self, _p: &Progress) -> bool {
        true
    }
}

impl Observer for () {}

impl<F: FnMut(&Progress) -> bool> Observer for F {
    fn progress(&mut self, p: &Progress) -> bool {
        self(p)
    }
}

/// How often the observer is told, in lines.
const PROGRESS_EVERY: u64 = 1 << 15;

#[derive(Debug, Clone)]
pub struct FileInfo {
    pub path: PathBuf,
    pub display: String,
    pub format: Option<Format>,
    pub records: u64,
    pub bad_lines: u64,
    pub bytes: u64,
}

/// A finished analysis: the context the format modules filled, and the files read.
#[derive(Debug)]
pub struct Analysis {
    pub cx: Ctx,
    pub files: Vec<FileInfo>,
    pub cancelled: bool,
}

enum State {
    Rpc(DshRpc),
    Session(DshSession),
    Copilot(Copilot),
}

impl State {
    fn line(&mut self, cx: &mut Ctx, bytes: &[u8], at: Loc, offset: u64) -> bool {
        let Some(line) = parse_line(bytes) else { return false };
        match self {
            State::Rpc(s) => s.line(cx, &line, at, offset),
            State::Session(s) => s.line(cx, &line, at, offset),
            State::Copilot(s) => s.line(cx, &line, at, offset),
        }
        true
    }

    fn finish(&mut self, cx: &mut Ctx) {
        match self {
            State::Rpc(s) => s.finish(cx),
            State::Session(s) => s.finish(cx),
            State::Copilot(s) => s.finish(cx),
        }
    }
}

fn stem(display: &str) -> String {
    let name = display.rsplit('/').next().unwrap_or(display);
    name.split('.').next().unwrap_or(name).to_owned()
}

/// Analyze the given files and folders. Paths that cannot be read become findings; the rest loads.
pub fn analyze(paths: &[PathBuf], observer: &mut dyn Observer) -> Analysis {
    let (inputs, unreadable) = reader::expand(paths);
    let mut cx = Ctx::default();
    let mut files: Vec<FileInfo> = Vec::new();
    for u in unreadable {
        let file = files.len() as u32;
        files.push(FileInfo {
            path: PathBuf::from(&u.display),
            display: u.display.clone(),
            format: None,
            records: 0,
            bad_lines: 0,
            bytes: 0,
        });
        cx.findings.add(
            Code::UnreadableInput,
            Loc { file, line: 0 },
            None,
            format!("cannot read `{}`: {}", u.display, u.reason),
        );
    }
    let mut progress = Progress {
        files_total: inputs.len(),
        bytes_total: inputs.iter().filter_map(|f| std::fs::metadata(&f.path).ok()).map(|m| m.len()).sum(),
        ..Progress::default()
    };
    let mut cancelled = false;
    for input in inputs {
        let file = files.len() as u32;
        files.push(FileInfo {
            path: input.path.clone(),
            display: input.display.clone(),
            format: None,
            records: 0,
            bad_lines: 0,
            bytes: 0,
        });
        if !read_file(&mut cx, &input, file, &mut files[file as usize], &mut progress, observer) {
            cancelled = true;
            break;
        }
        progress.files_done += 1;
    }
    link_headers(&mut cx);
    progress.sessions = cx.graph.len();
    progress.findings = cx.findings.list.len();
    observer.progress(&progress);
    Analysis { cx, files, cancelled }
}

/// Read one file; `false` when the observer cancelled.
fn read_file(
    cx: &mut Ctx,
    input: &InputFile,
    file: u32,
    info: &mut FileInfo,
    progress: &mut Progress,
    observer: &mut dyn Observer,
) -> bool {
    let base_bytes = progress.bytes_read;
    let mut lines = match reader::open(&input.path) {
        Ok(r) => Lines::new(r),
        Err(e) => {
            cx.findings.add(
                Code::UnreadableInput,
                Loc { file, line: 0 },
                None,
                format!("cannot read `{}`: {e}", input.display),
            );
            return true;
        }
    };
    // Detection reads the first lines; they are kept (a few hundred at most) and replayed.
    let mut head: Vec<(u64, u64, Vec<u8>, bool)> = Vec::new();
    let mut error = None;
    while head.len() < DETECT_LINES {
        match lines.next_line() {
            Ok(Some(l)) => head.push((l.number, l.offset, l.bytes.to_vec(), l.terminated)),
            Ok(None) => break,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let head_bytes: Vec<Vec<u8>> = head.iter().map(|h| h.2.clone()).collect();
    let Some(format) = detect(head_bytes.iter().map(|b| b.as_slice())) else {
        info.bytes = lines.bytes_read();
        let why = match &error {
            Some(e) => format!("cannot read `{}`: {e}", input.display),
            None if head.is_empty() => format!("`{}` is empty: no known format", input.display),
            None => format!("`{}` is in no known format: skipped", input.display),
        };
        let code = if error.is_some() && head.is_empty() { Code::UnreadableInput } else { Code::UnknownFormat };
        cx.findings.add(code, Loc { file, line: 1 }, None, why);
        return true;
    };
    info.format = Some(format);
    let mut state = match format {
        Format::DshRpc => State::Rpc(DshRpc::default()),
        Format::DshSession => State::Session(DshSession::new(stem(&input.display))),
        Format::CopilotEvents => State::Copilot(Copilot::events(events_root_id(&head_bytes, &input.display))),
        Format::CopilotRpc => State::Copilot(Copilot::rpc()),
    };
    drop(head_bytes);
    let mut handle = |cx: &mut Ctx, number: u64, offset: u64, bytes: &[u8], terminated: bool| {
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return;
        }
        let at = Loc { file, line: number };
        let valid = std::str::from_utf8(bytes).is_ok() && state.line(cx, bytes, at, offset);
        if valid {
            info.records += 1;
        } else {
            info.bad_lines += 1;
            if terminated {
                cx.findings.add(Code::MalformedLine, at, None, malformed_why(bytes));
            } else {
                cx.findings.add(
                    Code::TruncatedFinalLine,
                    at,
                    None,
                    "the last line has no final newline and does not parse: the log was still being written",
                );
            }
        }
    };
    for (number, offset, bytes, terminated) in head {
        handle(cx, number, offset, &bytes, terminated);
    }
    let mut count = 0u64;
    if error.is_none() {
        loop {
            match lines.next_line() {
                Ok(Some(l)) => {
                    handle(cx, l.number, l.offset, l.bytes, l.terminated);
                    count += 1;
                    if count.is_multiple_of(PROGRESS_EVERY) {
                        progress.bytes_read = base_bytes + lines.bytes_read();
                        progress.records = cx.records.len() as u64;
                        progress.sessions = cx.graph.len();
                        progress.findings = cx.findings.list.len();
                        if !observer.progress(progress) {
                            return false;
                        }
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
    }
    if let Some(e) = error {
        // A read error (a corrupt zstd frame) ends this file; what was read stays.
        let line = lines_read(cx, file) + 1;
        cx.findings.add(Code::UnreadableInput, Loc { file, line }, None, format!("reading stopped here: {e}"));
    }
    state.finish(cx);
    info.bytes = lines.bytes_read();
    progress.bytes_read = base_bytes + info.bytes;
    progress.records = cx.records.len() as u64;
    true
}

fn lines_read(cx: &Ctx, file: u32) -> u64 {
    let last_record = cx.records.iter().rev().find(|r| r.file == file).map_or(0, |r| r.line as u64);
    let last_finding = cx.findings.list.iter().filter(|f| f.at.file == file).map(|f| f.at.line).max().unwrap_or(0);
    last_record.max(last_finding)
}

fn malformed_why(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Err(e) => format!("the line is not valid UTF-8 (at byte {})", e.valid_up_to()),
        Ok(s) => match serde_json::from_str::<serde::de::IgnoredAny>(s) {
            Err(e) => format!("the line is not JSON: {e}"),
            Ok(_) => "the line is JSON but not an object".to_owned(),
        },
    }
}

const BOUNDARY_CODES: &[Code] = &[
    Code::SeqNotIncreasing,
    Code::TurnStartWhileOpen,
    Code::TurnNumberSkipped,
    Code::StepNumberSkipped,
    Code::StepOutsideTurn,
    Code::StepStartWhileOpen,
    Code::BoundaryMismatch,
    Code::EventOutsideStep,
    Code::ToolResultWithoutCall,
    Code::TurnEndWithOpenStep,
    Code::UnclosedAtEnd,
    Code::BoundaryMirrorEvent,
    Code::UnknownEventType,
];

impl Analysis {
    fn place(&self, at: Loc) -> Place {
        Place { file: self.files[at.file as usize].display.clone(), line: at.line }
    }

    /// A recording's turns, replies and boundary findings for a session that also has a durable
    /// log are left out: the durable log is the fact log (SPEC 2.3).
    fn superseded_by_durable(&self, file: u32, session: Sym) -> bool {
        self.files[file as usize].format == Some(Format::DshRpc) && self.cx.durable.contains(&session)
    }

    pub fn name(&self, s: Sym) -> &str {
        self.cx.ids.name(s)
    }

    pub fn records(&self) -> &[Record] {
        &self.cx.records
    }

    /// The raw text of a line of an input, read back from the file.
    pub fn raw_line(&self, file: &str, line: u64) -> Option<String> {
        let (ix, info) = self.files.iter().enumerate().find(|(_, f)| f.display == file)?;
        let offset = self.cx.records.iter().find(|r| r.file == ix as u32 && r.line as u64 == line).map(|r| r.offset);
        let bytes = match offset {
            Some(o) => reader::raw_line_at(&info.path, o).ok()?,
            None => reader::raw_line_numbered(&info.path, line).ok()??,
        };
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    pub fn report(&self) -> Report {
        let cx = &self.cx;
        let placements = cx.graph.placements();
        let run_count = |s: Sym| cx.graph.get(s).map_or(0, |n| n.runs.len());
        let is_root = |s: Sym| placements.get(&s).and_then(|p| p.root) == Some(s);
        let name = |s: Sym| cx.ids.name(s).to_owned();

        let inputs = self
            .files
            .iter()
            .map(|f| report::Input {
                file: f.display.clone(),
                format: f.format.map_or("unknown", Format::id).to_owned(),
                records: f.records,
                bad_lines: f.bad_lines,
                bytes: f.bytes,
            })
            .collect();

        let sessions = cx
            .graph
            .report_order()
            .into_iter()
            .filter_map(|s| cx.graph.get(s))
            .map(|n| {
                let p = placements.get(&n.id).copied();
                report::Session {
                    id: name(n.id),
                    parent: n.parent.map(name),
                    root: p.and_then(|p| p.root).map(name),
                    depth: p.and_then(|p| p.depth),
                    label: n.label.clone(),
                    runs: n
                        .runs
                        .iter()
                        .map(|r| report::Run {
                            parent: r.parent.map(name),
                            start: r.start.map(|l| self.place(l)),
                            end: r.end.map(|l| self.place(l)),
                            outcome: r.outcome,
                        })
                        .collect(),
                    events: n.events,
                    inferred_parent: n.inferred_parent,
                }
            })
            .collect();

        let mut turns = Vec::new();
        let mut replies = Vec::new();
        for t in &cx.turns.list {
            let file = t.start.or(t.end).map_or(0, |l| l.file);
            if self.superseded_by_durable(file, t.session) {
                continue;
            }
            let run = t.run.filter(|_| run_count(t.session) > 1);
            turns.push(report::Turn {
                session: name(t.session),
                turn: t.turn.clone(),
                run,
                start: t.start.map(|l| self.place(l)),
                end: t.end.map(|l| self.place(l)),
                reason: t.reason.clone(),
                steps: t.steps,
                start_time: t.start_time,
                end_time: t.end_time,
                step_spans: t
                    .step_spans
                    .iter()
                    .map(|(step, start, end)| report::StepSpan {
                        step: *step,
                        start: self.place(*start),
                        end: end.map(|l| self.place(l)),
                    })
                    .collect(),
            });
            if let Some((text, at)) = &t.reply {
                replies.push(report::Reply {
                    session: name(t.session),
                    root: is_root(t.session),
                    turn: t.turn.clone(),
                    run,
                    text: text.clone(),
                    at: self.place(*at),
                });
            }
        }
        for r in &cx.loose_replies {
            replies.push(report::Reply {
                session: name(r.session),
                root: is_root(r.session),
                turn: serde_json::Value::Null,
                run: None,
                text: r.text.clone(),
                at: self.place(r.at),
            });
        }

        let mut waits: Vec<&crate::ctx::WaitRec> = cx.waits.iter().collect();
        waits.sort_by_key(|w| w.start);
        let waits = waits
            .into_iter()
            .map(|w| report::Wait {
                root: name(w.root),
                start: w.start.map(|l| self.place(l)),
                end: w.end.map(|l| self.place(l)),
                outcome: w.outcome,
                reply: w.reply.clone(),
                finish_reason: w.finish_reason.clone(),
                notifications: w.notifications,
                events: w.events,
                naive: report::NaiveWait {
                    end: w.naive.end.map(|e| e.map(|l| self.place(l))),
                    outcome: w.naive.outcome,
                    reply: w.naive.reply.clone(),
                    notifications: w.naive.notifications,
                },
            })
            .collect();

        let mut findings: Vec<&crate::finding::Finding> = cx
            .findings
            .list
            .iter()
            .filter(|f| {
                !(BOUNDARY_CODES.contains(&f.code)
                    && f.session.is_some_and(|s| self.superseded_by_durable(f.at.file, s)))
            })
            .collect();
        findings.sort_by_key(|f| f.at);
        let diagnostics = findings
            .into_iter()
            .map(|f| report::Diagnostic {
                code: f.code.as_str().to_owned(),
                severity: f.code.severity(),
                at: self.place(f.at),
                session: f.session.map(name),
                message: f.message.clone(),
            })
            .collect();

        Report { report_version: 1, inputs, sessions, turns, replies, waits, diagnostics }
    }

    /// Counts by session id, for callers that index sessions by name.
    pub fn session_index(&self) -> HashMap<String, usize> {
        self.cx.graph.report_order().into_iter().enumerate().map(|(i, s)| (self.name(s).to_owned(), i)).collect()
    }
}
