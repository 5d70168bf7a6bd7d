//! `arbor watch PATH...`: follow logs as they are written (SPEC 5 Follow), for a terminal or a CI
//! step beside a running agent. It prints each finding as the engine finds it (a finding printed
//! is final: it never goes away as the log grows), and with `--json` also each new session, each
//! run that settles and each turn that ends, one JSON object a line. When the logs stop growing
//! for `--idle`, or on Ctrl+C, it finishes the analysis, prints what the end of the logs settles
//! (turns still open, a last line cut short, links no more files will change), and exits with
//! `arbor check`'s status.

use crate::check::FailOn;
use arbor_core::analysis::Analysis;
use arbor_core::ctx::Ctx;
use arbor_core::finding::Finding;
use arbor_core::intern::{HashMap, Sym};
use arbor_core::report::{Outcome, Severity};
use arbor_follow::Follower;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the Ctrl+C flag is looked at while waiting.
const TICK: Duration = Duration::from_millis(100);

/// What has been printed so far, to print only what is new.
#[derive(Default)]
struct Printed {
    /// Findings of the live context printed (they are final, in the order found).
    findings: usize,
    sessions: crate::HashSetStr,
    /// Runs printed as settled, by session and run index.
    runs: HashMap<(String, usize), ()>,
    /// Turns printed as ended: (session, turn index in the list, as found).
    turns: HashMap<(String, String), ()>,
    errors: usize,
    warnings: usize,
    infos: usize,
}

pub fn run(paths: &[PathBuf], json: bool, idle: Option<Duration>, fail_on: FailOn) -> ExitCode {
    crate::tune_allocator();
    for p in paths {
        if !p.exists() {
            return crate::fail(&format!("no such file or folder: {}", p.display()));
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // Without a handler the default one ends the process, which is still an exit.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst));
    }
    let mut follower = match Follower::open(paths, &mut ()) {
        Ok(f) => f,
        Err(e) => return crate::fail(&e),
    };
    let mut out = std::io::stdout().lock();
    let mut printed = Printed::default();
    let mut fails = false;
    let mut last_growth = Instant::now();
    let result = (|| -> std::io::Result<()> {
        emit(
            &mut out,
            json,
            &follower.live().snapshot(),
            follower.live().context(),
            &mut printed,
            fail_on,
            &mut fails,
        )?;
        loop {
            for e in follower.take_errors() {
                eprintln!("arbor watch: {e}");
            }
            if stop.load(Ordering::SeqCst) {
                break;
            }
            if idle.is_some_and(|d| last_growth.elapsed() >= d) {
                break;
            }
            if let Some(change) = follower.next(TICK, &mut ()) {
                last_growth = Instant::now();
                if let Some(why) = &change.reread {
                    eprintln!("arbor watch: {why}: read again from the start");
                    if change.rewritten {
                        // What was printed may no longer hold: print what the new reading finds,
                        // and let only that decide the status (an input unreadable while it was
                        // made again is not an error of the logs).
                        printed = Printed::default();
                        fails = false;
                    }
                }
                emit(
                    &mut out,
                    json,
                    &follower.live().snapshot(),
                    follower.live().context(),
                    &mut printed,
                    fail_on,
                    &mut fails,
                )?;
            }
        }
        // The logs' end: what finishing settles.
        let done = follower.into_live().finish();
        emit(&mut out, json, &done, &done.cx, &mut printed, fail_on, &mut fails)?;
        out.flush()?;
        let readable = done.files.iter().any(|f| f.format.is_some());
        eprintln!(
            "arbor watch: {} errors, {} warnings, {} info findings in {} files{}",
            printed.errors,
            printed.warnings,
            printed.infos,
            done.files.len(),
            if readable { "" } else { " (nothing could be read in a known format)" }
        );
        if !readable {
            return Err(std::io::Error::other("unreadable"));
        }
        Ok(())
    })();
    match result {
        Err(e) if e.to_string() == "unreadable" => ExitCode::from(2),
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => crate::fail(&format!("cannot write: {e}")),
        _ if fails => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    }
}

fn name(cx: &Ctx, s: Sym) -> String {
    cx.ids.name(s).to_owned()
}

/// Print what is new: final findings of `findings_from` (the live context, or at the end the
/// finished analysis), then, from the snapshot `a`, sessions, settled runs and ended turns.
fn emit(
    out: &mut impl Write,
    json: bool,
    a: &Analysis,
    findings_from: &Ctx,
    printed: &mut Printed,
    fail_on: FailOn,
    fails: &mut bool,
) -> std::io::Result<()> {
    let cx = &a.cx;
    let file = |f: u32| a.files.get(f as usize).map_or("", |i| i.display.as_str());
    if json {
        for s in cx.graph.nodes() {
            let id = name(cx, s.id);
            if printed.sessions.insert(id.clone()) {
                let v = serde_json::json!({
                    "event": "session", "id": id,
                    "parent": s.parent.map(|p| name(cx, p)), "label": cx.graph.label(s),
                });
                writeln!(out, "{v}")?;
            }
            for (i, r) in s.runs.iter().enumerate() {
                if r.outcome == Outcome::Open || printed.runs.contains_key(&(id.clone(), i)) {
                    continue;
                }
                printed.runs.insert((id.clone(), i), ());
                let place = |l: Option<arbor_core::finding::Loc>| {
                    l.map(|l| serde_json::json!({"file": file(l.file), "line": l.line}))
                };
                let v = serde_json::json!({
                    "event": "run", "session": id, "run": i + 1, "parent": r.parent.map(|p| name(cx, p)),
                    "outcome": r.outcome, "link": r.link, "start": place(r.start), "end": place(r.end),
                });
                writeln!(out, "{v}")?;
            }
        }
        for t in &cx.turns.list {
            let Some(end) = t.end() else { continue };
            let session = name(cx, t.session);
            let turn = match t.turn {
                arbor_core::turns::TurnId::Num(n) => n.to_string(),
                arbor_core::turns::TurnId::Text(s) => cx.turns.id_text(s).to_owned(),
            };
            let key = (session.clone(), format!("{turn}@{end}"));
            if printed.turns.insert(key, ()).is_some() {
                continue;
            }
            let at = cx.loc_of(end);
            let v = serde_json::json!({
                "event": "turn", "session": session, "turn": turn, "reason": cx.turns.reason(t),
                "end": at.map(|l| serde_json::json!({"file": file(l.file), "line": l.line})),
            });
            writeln!(out, "{v}")?;
        }
    }
    let list = &findings_from.findings.list;
    for f in list.iter().skip(printed.findings) {
        finding(out, json, findings_from, &file, f, printed, fail_on, fails)?;
    }
    printed.findings = list.len();
    out.flush()
}

#[allow(clippy::too_many_arguments)]
fn finding<'f>(
    out: &mut impl Write,
    json: bool,
    cx: &Ctx,
    file: &dyn Fn(u32) -> &'f str,
    f: &Finding,
    printed: &mut Printed,
    fail_on: FailOn,
    fails: &mut bool,
) -> std::io::Result<()> {
    let severity = f.code.severity();
    match severity {
        Severity::Error => printed.errors += 1,
        Severity::Warning => printed.warnings += 1,
        Severity::Info => printed.infos += 1,
    }
    *fails |= fail_on.fails(severity);
    if json {
        let v = serde_json::json!({
            "event": "finding", "code": f.code.as_str(), "severity": severity,
            "at": {"file": file(f.at.file), "line": f.at.line},
            "session": f.session.map(|s| name(cx, s)), "message": f.message,
        });
        writeln!(out, "{v}")
    } else {
        let sev = match severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        // Log text is untrusted: control characters are shown, not sent to the terminal.
        let message: String = f.message.chars().map(|c| if c.is_control() { '\u{fffd}' } else { c }).collect();
        writeln!(out, "{}:{}  {sev}  {}  {message}", file(f.at.file), f.at.line, f.code.as_str())
    }
}
