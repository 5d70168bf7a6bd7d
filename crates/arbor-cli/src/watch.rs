//! `arbor watch PATH...`: follow logs as they are written (SPEC 5 Follow), for a terminal or a CI
//! step beside a running agent. It prints each finding as the engine finds it, and with `--json`
//! also each new session, each run that settles and each turn that ends, one JSON object a line.
//! When the logs stop growing for `--idle`, or on Ctrl+C, it finishes the analysis, prints what
//! the end of the logs settles (turns still open, a last line cut short, links no more files
//! will change), and exits with `arbor check`'s status.
//!
//! **What is printed stays true, or is withdrawn.** A fact is printed once it is settled: a
//! finding once the engine holds it final, a turn once it can end no later (its log wrote its
//! end, or its session's next turn began; a Claude Code turn ends at its last line, so it is
//! printed when the next prompt comes, or at the end). What a later reading no longer finds (a
//! file truncated and written again, copytruncate rotation: its `unknown-format` while it was
//! empty; a session whose parent a later file settles) is withdrawn: `withdrawn: ` and the line
//! as printed, or with `--json` `{"event":"withdrawn","withdrawn":{…the event as printed…}}`,
//! then what holds now. A consumer that drops each withdrawn event holds, at the end, exactly
//! what `arbor check` (and `arbor analyze`) report on the finished files, and the exit status
//! counts only what was not withdrawn.

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

/// What has been printed so far and still holds, to print only what is new and withdraw what
/// no longer holds.
#[derive(Default)]
struct Printed {
    /// How many findings of the live context's list were printed (it only grows until the logs
    /// are read again).
    findings: usize,
    /// The findings printed and not withdrawn: identity → (how many, the line as printed, its
    /// severity).
    shown: HashMap<String, Shown>,
    /// Sessions, runs and turns printed and not withdrawn (`--json`): identity → the event.
    facts: HashMap<String, serde_json::Value>,
}

struct Shown {
    count: usize,
    line: String,
    severity: Severity,
}

impl Printed {
    /// (errors, warnings, infos) of the findings that stand.
    fn counts(&self) -> (usize, usize, usize) {
        let mut n = (0, 0, 0);
        for s in self.shown.values() {
            match s.severity {
                Severity::Error => n.0 += s.count,
                Severity::Warning => n.1 += s.count,
                Severity::Info => n.2 += s.count,
            }
        }
        n
    }

    fn fails(&self, fail_on: FailOn) -> bool {
        self.shown.values().any(|s| s.count > 0 && fail_on.fails(s.severity))
    }
}

pub fn run(paths: &[PathBuf], json: bool, idle: Option<Duration>, fail_on: FailOn) -> ExitCode {
    crate::tune_allocator();
    for p in paths {
        if !arbor_core::reader::exists(p) {
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
    let mut last_growth = Instant::now();
    let result = (|| -> std::io::Result<()> {
        emit(&mut out, json, &follower.live().snapshot(), follower.live().context(), &mut printed, Settle::Following)?;
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
                // Read again: what was printed may no longer hold, and is held to the new reading.
                let settle = match &change.reread {
                    Some(why) => {
                        eprintln!("arbor watch: {why}: read again from the start");
                        Settle::ReadAgain
                    }
                    None => Settle::Following,
                };
                emit(&mut out, json, &follower.live().snapshot(), follower.live().context(), &mut printed, settle)?;
            }
        }
        // The logs' end: what finishing settles.
        let done = follower.into_live().finish();
        emit(&mut out, json, &done, &done.cx, &mut printed, Settle::End)?;
        out.flush()?;
        let readable = done.files.iter().any(|f| f.format.is_some());
        let (errors, warnings, infos) = printed.counts();
        eprintln!(
            "arbor watch: {errors} errors, {warnings} warnings, {infos} info findings in {} files{}",
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
        _ if printed.fails(fail_on) => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    }
}

fn name(cx: &Ctx, s: Sym) -> String {
    cx.ids.name(s).to_owned()
}

/// How settled what `emit` is given is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Settle {
    /// The logs grew: the live context's findings list grew at its end.
    Following,
    /// The logs were read again from the start: its findings are a new list.
    ReadAgain,
    /// The finished analysis: everything is settled.
    End,
}

/// Print what is new and withdraw what no longer holds: findings of `findings_from` (the live
/// context, or at the end the finished analysis), then with `--json`, from the snapshot `a`,
/// sessions and settled runs, and from `findings_from` the turns that ended for good.
fn emit(
    out: &mut impl Write,
    json: bool,
    a: &Analysis,
    findings_from: &Ctx,
    printed: &mut Printed,
    settle: Settle,
) -> std::io::Result<()> {
    let file = |f: u32| a.files.get(f as usize).map_or("", |i| i.display.as_str());
    if json {
        // While the logs grow, only what is new is made and printed (a log of 200k sessions is
        // not written out at every change); a reading again and the end hold everything printed
        // to what is now so.
        let following = settle == Settle::Following;
        let now = facts(a, findings_from, &file, settle, following.then_some(&printed.facts));
        if !following {
            let keys: crate::HashSetStr = now.iter().map(|(k, _)| k.clone()).collect();
            let gone: Vec<String> = printed.facts.keys().filter(|k| !keys.contains(*k)).cloned().collect();
            for k in gone {
                if let Some(v) = printed.facts.remove(&k) {
                    writeln!(out, "{}", serde_json::json!({"event": "withdrawn", "withdrawn": v}))?;
                }
            }
        }
        for (k, v) in now {
            match printed.facts.get(&k) {
                Some(old) if *old == v => continue,
                Some(old) => writeln!(out, "{}", serde_json::json!({"event": "withdrawn", "withdrawn": old}))?,
                None => {}
            }
            writeln!(out, "{v}")?;
            printed.facts.insert(k, v);
        }
    }
    let list = &findings_from.findings.list;
    if settle == Settle::Following && list.len() >= printed.findings {
        for f in &list[printed.findings..] {
            let (key, line, severity) = finding(json, findings_from, &file, f);
            writeln!(out, "{line}")?;
            let s = printed.shown.entry(key).or_insert(Shown { count: 0, line, severity });
            s.count += 1;
        }
    } else {
        // A new list: each finding printed that it does not hold is withdrawn, each it holds
        // that was not printed is printed.
        let mut now: HashMap<String, (usize, String, Severity)> = HashMap::default();
        let mut order = Vec::new();
        for f in list {
            let (key, line, severity) = finding(json, findings_from, &file, f);
            let e = now.entry(key.clone()).or_insert_with(|| {
                order.push(key);
                (0, line, severity)
            });
            e.0 += 1;
        }
        let mut withdrawn: Vec<(&String, &mut Shown)> = printed.shown.iter_mut().collect();
        withdrawn.sort_by(|a, b| a.0.cmp(b.0));
        for (key, shown) in withdrawn {
            let keep = now.get(key).map_or(0, |n| n.0);
            while shown.count > keep {
                shown.count -= 1;
                if json {
                    let v: serde_json::Value = serde_json::from_str(&shown.line).unwrap_or_default();
                    writeln!(out, "{}", serde_json::json!({"event": "withdrawn", "withdrawn": v}))?;
                } else {
                    writeln!(out, "withdrawn: {}", shown.line)?;
                }
            }
        }
        printed.shown.retain(|_, s| s.count > 0);
        for key in order {
            let (count, line, severity) = now.remove(&key).expect("a finding of the list");
            let s = printed.shown.entry(key).or_insert(Shown { count: 0, line, severity });
            for _ in s.count..count {
                writeln!(out, "{}", s.line)?;
            }
            s.count = s.count.max(count);
        }
    }
    printed.findings = list.len();
    out.flush()
}

/// The sessions and settled runs of the snapshot `a`, and the turns of `cx` that ended for good
/// (all that ended, at the end), as (identity, event), in order; with `skip`, none whose identity
/// it holds.
fn facts<'f>(
    a: &Analysis,
    cx: &Ctx,
    file: &dyn Fn(u32) -> &'f str,
    settle: Settle,
    skip: Option<&HashMap<String, serde_json::Value>>,
) -> Vec<(String, serde_json::Value)> {
    let skipped = |k: &String| skip.is_some_and(|m| m.contains_key(k));
    let mut now = Vec::new();
    let place =
        |l: Option<arbor_core::finding::Loc>| l.map(|l| serde_json::json!({"file": file(l.file), "line": l.line}));
    let snap = &a.cx;
    for s in snap.graph.nodes() {
        let id = name(snap, s.id);
        let key = format!("session\0{id}");
        if !skipped(&key) {
            let v = serde_json::json!({
                "event": "session", "id": id,
                "parent": s.parent.map(|p| name(snap, p)), "label": snap.graph.label(s),
            });
            now.push((key, v));
        }
        for (i, r) in s.runs.iter().enumerate() {
            let key = format!("run\0{id}\0{i}");
            if r.outcome == Outcome::Open || skipped(&key) {
                continue;
            }
            let v = serde_json::json!({
                "event": "run", "session": id, "run": i + 1, "parent": r.parent.map(|p| name(snap, p)),
                "outcome": r.outcome, "link": r.link, "start": place(r.start), "end": place(r.end),
            });
            now.push((key, v));
        }
    }
    // A turn whose end its log did not write (a Claude Code turn ends at its last line) is
    // settled once its session's next turn began.
    let list = &cx.turns.list;
    let mut later: arbor_core::intern::HashSet<Sym> = Default::default();
    let mut followed = vec![false; list.len()];
    for (i, t) in list.iter().enumerate().rev() {
        followed[i] = !later.insert(t.session);
    }
    for (i, t) in list.iter().enumerate() {
        let Some(end) = t.end() else { continue };
        let written = cx.records.get(end as usize).is_some_and(|r| r.kind() == arbor_core::ctx::Kind::TurnEnd);
        if settle != Settle::End && !written && !followed[i] {
            continue;
        }
        let session = name(cx, t.session);
        let turn = match t.turn {
            arbor_core::turns::TurnId::Num(n) => n.to_string(),
            arbor_core::turns::TurnId::Text(s) => cx.turns.id_text(s).to_owned(),
        };
        // A turn is named by its session, id, run and start (ids repeat across runs).
        let start = t.start().and_then(|r| cx.loc_of(r)).map(|l| (file(l.file), l.line));
        let key = format!("turn\0{session}\0{turn}\0{:?}\0{start:?}", t.run());
        if skipped(&key) {
            continue;
        }
        let v = serde_json::json!({
            "event": "turn", "session": session, "turn": turn, "reason": cx.turns.reason(t),
            "end": place(cx.loc_of(end)),
        });
        now.push((key, v));
    }
    now
}

/// A finding as printed: (its identity, its line, its severity).
fn finding<'f>(json: bool, cx: &Ctx, file: &dyn Fn(u32) -> &'f str, f: &Finding) -> (String, String, Severity) {
    let severity = f.code.severity();
    let session = f.session.map(|s| name(cx, s));
    let key = format!(
        "{}\0{}\0{}\0{}\0{}",
        f.code.as_str(),
        file(f.at.file),
        f.at.line,
        session.as_deref().unwrap_or("\0"),
        f.message
    );
    let line = if json {
        serde_json::json!({
            "event": "finding", "code": f.code.as_str(), "severity": severity,
            "at": {"file": file(f.at.file), "line": f.at.line},
            "session": session, "message": &*f.message.text(),
        })
        .to_string()
    } else {
        let sev = match severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        // Log text is untrusted: control characters and bidi controls are shown, not sent to
        // the terminal (tabs too: a message is one line).
        let message = crate::summary::visible(&f.message.text()).replace('\t', "\u{fffd}");
        let at = crate::summary::visible(file(f.at.file));
        format!("{at}:{}  {sev}  {}  {message}", f.at.line, f.code.as_str())
    };
    (key, line, severity)
}
