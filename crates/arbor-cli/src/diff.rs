//! `arbor diff A B [--json]`: two runs compared (SPEC 6.3): their trees aligned, each pair's
//! deltas, sessions on one side only, totals, and where the conversations part. The comparison
//! is the engine's (`arbor_core::compare`), the same the app's Compare view shows.

use arbor_core::outputs::compare::{
    AmountDelta, ComparedItem, ComparedPair, Comparison, CountDelta, Divergence, Measure, PairDelta,
};
use arbor_core::Analysis;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::summary::{safe, visible};

pub struct Args<'a> {
    pub a: &'a Path,
    pub b: &'a Path,
    pub session_a: Option<&'a str>,
    pub session_b: Option<&'a str>,
    pub json: bool,
    pub ignore: Vec<Measure>,
}

/// The root of `analysis` a side compares: the one named, else its only one.
fn root_of(analysis: &Analysis, named: Option<&str>, side: &str, path: &Path) -> Result<String, ExitCode> {
    if let Some(s) = named {
        return Ok(s.to_owned());
    }
    match analysis.top_sessions().as_slice() {
        [one] => Ok((*one).to_owned()),
        [] => Err(crate::fail(&format!("{} holds no session", path.display()))),
        roots => {
            let shown: Vec<&str> = roots.iter().take(8).copied().collect();
            let more = if roots.len() > 8 { format!(" and {} more", roots.len() - 8) } else { String::new() };
            Err(crate::fail(&format!(
                "{} holds {} root sessions: name one with --session-{side} ({}{more})",
                path.display(),
                roots.len(),
                visible(&shown.join(", "))
            )))
        }
    }
}

pub fn run(args: Args) -> ExitCode {
    crate::tune_allocator();
    if !arbor_core::reader::exists(args.a) {
        return crate::fail(&format!("no such file or folder: {}", args.a.display()));
    }
    // The two inputs read at once, each on a core of its own (reading one routes its lines on
    // one thread); one path on both sides (two sessions of one folder) is read once.
    let same_input = args.a == args.b;
    let (a, b) = std::thread::scope(|s| {
        let other = (!same_input).then(|| s.spawn(|| crate::transcript::analyzed(&[PathBuf::from(args.b)], None)));
        let a = crate::transcript::analyzed(&[args.a.to_path_buf()], None);
        (a, other.map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e))))
    });
    let a = match a {
        Ok(a) => a,
        Err(msg) => return crate::fail(&msg),
    };
    let b = match b.transpose() {
        Ok(b) => b,
        Err(msg) => return crate::fail(&msg),
    };
    let b_ref = b.as_ref().unwrap_or(&a);
    let root_a = match root_of(&a, args.session_a, "a", args.a) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let root_b = match root_of(b_ref, args.session_b, "b", args.b) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let Some(cmp) = a.compare(&root_a, b_ref, &root_b, &args.ignore) else {
        let (missing, path) = if a.transcript_index(&root_a).is_none() { (&root_a, args.a) } else { (&root_b, args.b) };
        return crate::fail(&format!(
            "no session `{}` in {} (`arbor analyze` lists the sessions)",
            visible(missing),
            path.display()
        ));
    };
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let written = if args.json {
        serde_json::to_writer(&mut out, &cmp).map_err(io::Error::from).and_then(|_| writeln!(out))
    } else {
        text(&mut out, &cmp)
    };
    let flushed = written.and_then(|_| out.flush());
    std::mem::forget(a);
    std::mem::forget(b);
    match flushed {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("arbor diff: {e}");
            return ExitCode::from(2);
        }
    }
    if cmp.same {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn seconds(s: f64) -> String {
    let a = s.abs();
    let sign = if s < 0.0 { "-" } else { "" };
    if a < 60.0 {
        format!("{sign}{a:.1} s")
    } else if a < 3600.0 {
        format!("{sign}{}m{:02}s", (a / 60.0) as u64, (a % 60.0) as u64)
    } else {
        format!("{sign}{}h{:02}m", (a / 3600.0) as u64, ((a % 3600.0) / 60.0) as u64)
    }
}

fn dollars(c: f64) -> String {
    if c.abs() < 0.01 {
        format!("${c:.6}")
    } else {
        format!("${c:.4}")
    }
}

fn signed(n: i64) -> String {
    if n > 0 {
        format!("+{n}")
    } else if n < 0 {
        format!("−{}", -n)
    } else {
        "±0".to_owned()
    }
}

fn percent(r: Option<f64>) -> String {
    match r {
        Some(r) if r.is_finite() => {
            let p = r * 100.0;
            if p >= 0.0 {
                format!(" (+{p:.0} %)")
            } else {
                format!(" (−{:.0} %)", -p)
            }
        }
        _ => String::new(),
    }
}

fn count(c: &CountDelta) -> String {
    let side = |x: Option<u64>| x.map_or_else(|| "–".to_owned(), |n| n.to_string());
    if c.change == 0 {
        side(c.a.or(c.b))
    } else {
        format!("{} → {} ({})", side(c.a), side(c.b), signed(c.change))
    }
}

fn amount(a: &AmountDelta, unit: fn(f64) -> String) -> String {
    let side = |x: Option<f64>| x.map_or_else(|| "unknown".to_owned(), unit);
    if a.a == a.b {
        side(a.a)
    } else {
        format!("{} → {}{}", side(a.a), side(a.b), percent(a.ratio))
    }
}

/// The lines of a delta: every measure that differs, or, with `all`, every measure.
fn delta_lines(out: &mut impl Write, d: &PairDelta, indent: &str, all: bool) -> io::Result<()> {
    let differs = |m: Measure| all || d.differs.contains(&m);
    let mut line: Vec<String> = Vec::new();
    if differs(Measure::Duration) {
        line.push(format!("duration {}", amount(&d.duration, seconds)));
    }
    if differs(Measure::Turns) {
        line.push(format!("turns {}", count(&d.turns)));
    }
    if differs(Measure::Steps) {
        line.push(format!("steps {}", count(&d.steps)));
    }
    if differs(Measure::Cost) {
        line.push(format!("cost {}", amount(&d.cost, dollars)));
    }
    if !line.is_empty() {
        writeln!(out, "{indent}{}", line.join("   "))?;
    }
    if differs(Measure::Tokens) {
        let t = &d.tokens;
        writeln!(
            out,
            "{indent}tokens in {}   out {}   cache read {}   cache write {}",
            count(&t.input),
            count(&t.output),
            count(&t.cache_read),
            count(&t.cache_write)
        )?;
    }
    let listed = |m: &std::collections::BTreeMap<String, CountDelta>| -> Vec<String> {
        m.iter().filter(|(_, c)| all || c.change != 0).map(|(k, c)| format!("{} {}", safe(k, 60), count(c))).collect()
    };
    if differs(Measure::ToolCalls) && !d.tool_calls.is_empty() {
        writeln!(out, "{indent}tool calls {}", listed(&d.tool_calls).join(", "))?;
    }
    if differs(Measure::Findings) && !d.findings.is_empty() {
        writeln!(out, "{indent}findings {}", listed(&d.findings).join(", "))?;
    }
    if differs(Measure::Outcome) {
        let o = |x: Option<arbor_core::report::Outcome>| {
            x.map_or_else(
                || "none".to_owned(),
                |o| serde_json::to_value(o).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            )
        };
        if d.outcome.a == d.outcome.b {
            writeln!(out, "{indent}outcome {}", o(d.outcome.a))?;
        } else {
            writeln!(out, "{indent}outcome {} → {}", o(d.outcome.a), o(d.outcome.b))?;
        }
    }
    Ok(())
}

fn item(out: &mut impl Write, side: &str, i: Option<&ComparedItem>, indent: &str) -> io::Result<()> {
    match i {
        None => writeln!(out, "{indent}  {side}  (its conversation ends here)"),
        Some(i) => {
            let kind =
                serde_json::to_value(i.kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
            let tool = i.tool.as_deref().map(|t| format!(" {}", safe(t, 60))).unwrap_or_default();
            writeln!(
                out,
                "{indent}  {side}  {}:{} (row {}) {kind}{tool}: {}",
                visible(&i.at.file),
                i.at.line,
                i.row,
                safe(&i.text, 160)
            )
        }
    }
}

fn divergence(out: &mut impl Write, d: &Divergence, indent: &str) -> io::Result<()> {
    let what = match d.what {
        "prompt" => "the prompts differ",
        "reply" => "the replies differ",
        "tool" => "another tool is called",
        "arguments" => "a tool call's arguments differ",
        "task" => "a sub-agent's task differs",
        "kind" => "one does something else",
        "ended" => "one conversation ends",
        other => other,
    };
    writeln!(out, "{indent}diverges after {} same items: {what}", d.same_before)?;
    item(out, "A", d.a.as_ref(), indent)?;
    item(out, "B", d.b.as_ref(), indent)
}

fn name(p: &ComparedPair) -> String {
    let id = |x: &Option<String>| x.as_deref().map_or_else(|| "–".to_owned(), |s| safe(s, 48));
    let label = p.label.as_deref().map(|l| format!("  {}", safe(l, 80))).unwrap_or_default();
    match (&p.a, &p.b) {
        (Some(a), Some(b)) if a == b => format!("{}{label}", safe(a, 48)),
        _ => format!("{} ↔ {}{label}", id(&p.a), id(&p.b)),
    }
}

fn text(out: &mut impl Write, c: &Comparison) -> io::Result<()> {
    for (side, r) in [("A", &c.a), ("B", &c.b)] {
        let title = r.title.as_deref().map(|t| format!("  “{}”", safe(t, 100))).unwrap_or_default();
        let format = r.format.as_deref().unwrap_or("unknown format");
        let files = match r.files.as_slice() {
            [one] => visible(one),
            many => format!("{} files", many.len()),
        };
        writeln!(
            out,
            "{side}: {}{title}  ({format}, {}, {} {})",
            safe(&r.root, 60),
            files,
            r.sessions,
            if r.sessions == 1 { "session" } else { "sessions" }
        )?;
    }
    writeln!(out)?;
    for p in &c.pairs {
        let indent = "  ".repeat(p.depth as usize);
        let mark = match (&p.a, &p.b) {
            (Some(_), None) => "-",
            (None, Some(_)) => "+",
            _ if p.delta.differs.is_empty() => "=",
            _ => "~",
        };
        let tail = match mark {
            "=" => "  same",
            "-" => "  only in A",
            "+" => "  only in B",
            _ => "",
        };
        writeln!(out, "{indent}{mark} {}{tail}", name(p))?;
        if mark == "~" {
            let inner = format!("{indent}    ");
            delta_lines(out, &p.delta, &inner, false)?;
            if let Some(d) = &p.divergence {
                divergence(out, d, &inner)?;
            }
        }
    }
    writeln!(out)?;
    writeln!(out, "totals")?;
    delta_lines(out, &c.totals, "    ", true)?;
    writeln!(out)?;
    if c.same {
        writeln!(out, "the runs are the same by every measure")?;
    } else {
        let differs = |m: &Measure| c.totals.differs.contains(m) || c.pairs.iter().any(|p| p.delta.differs.contains(m));
        let names: Vec<&str> = Measure::ALL.iter().filter(|m| differs(m)).map(|m| m.as_str()).collect();
        writeln!(out, "the runs differ: {}", names.join(", "))?;
    }
    if !c.ignored.is_empty() {
        let names: Vec<&str> = c.ignored.iter().map(|m| m.as_str()).collect();
        writeln!(out, "(not compared: {})", names.join(", "))?;
    }
    Ok(())
}
