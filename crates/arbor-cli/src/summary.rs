//! The terminal summary: the tree with labels and statuses, the root replies, and the findings
//! grouped by severity with file:line. Log text is printed with control characters escaped, so a
//! log cannot move the cursor or recolour the terminal, and with Unicode's bidi controls shown as
//! `<U+202E>` rather than applied, so that `file<U+202E>gpj.exe` cannot read as `fileexe.jpg`.

use arbor_core::report::{Outcome, Report, Severity, WaitOutcome};
use std::collections::HashMap;
use std::io::{self, Write};

/// Unicode's bidirectional embedding, override and isolate controls (U+202A–U+202E,
/// U+2066–U+2069): printed, they reorder the text after them. Text outputs show them instead.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// How a bidi control is shown: `<U+202E>`.
fn bidi_shown(c: char) -> String {
    format!("<U+{:04X}>", c as u32)
}

/// Log text for a line of terminal output: control characters but tabs shown as U+FFFD and bidi
/// controls as `<U+202E>`, so that neither acts on the terminal.
pub fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push(c),
            c if c.is_control() => out.push('\u{fffd}'),
            c if is_bidi_control(c) => out.push_str(&bidi_shown(c)),
            c => out.push(c),
        }
    }
    out
}

/// Log text made safe for a terminal: control characters (ANSI escapes among them) escaped, and
/// long text cut.
pub fn safe(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i >= max {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c if is_bidi_control(c) => out.push_str(&bidi_shown(c)),
            c => out.push(c),
        }
    }
    out
}

/// Log text with its control characters written out as `\u{…}` (and bidi controls as
/// `<U+202E>`), except line breaks and tabs: a
/// terminal or a CI log viewer shows it without acting on it, and the line breaks stay for the
/// format to escape in its own way.
pub fn inert(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(c),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c if is_bidi_control(c) => out.push_str(&bidi_shown(c)),
            c => out.push(c),
        }
    }
    out
}

fn outcome(o: Outcome) -> &'static str {
    match o {
        Outcome::Ok => "ok",
        Outcome::Error => "error",
        Outcome::Cancelled => "cancelled",
        Outcome::Open => "open",
    }
}

fn wait_outcome(o: WaitOutcome) -> &'static str {
    match o {
        WaitOutcome::Idle => "idle",
        WaitOutcome::Error => "error",
        WaitOutcome::Inferred => "inferred",
        WaitOutcome::Open => "open",
    }
}

fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "950", "12.3k", "4.56M": a token count said short.
fn short(n: u64) -> String {
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s };
    let n = n as f64;
    match n {
        n if n < 1e3 => format!("{n}"),
        n if n < 1e6 => trim(format!("{:.*}", if n < 1e4 { 2 } else { 1 }, n / 1e3)) + "k",
        n => trim(format!("{:.*}", if n < 1e7 { 2 } else { 1 }, n / 1e6)) + "M",
    }
}

/// What a count costs: the priced part in dollars, and the tokens of models without a price
/// beside it ("$6.2700 + 1.2M tokens unpriced: mystery-model"), never a cost hidden by them.
fn cost_text(u: &arbor_core::report::Usage) -> String {
    let dollars = |c: f64| if c < 0.01 { format!("${c:.6}") } else { format!("${c:.4}") };
    let unpriced = u.unpriced.as_ref().filter(|x| x.tokens > 0).map(|x| {
        let models: Vec<String> = x.models.iter().map(|m| safe(m, 80)).collect();
        format!("{} tokens unpriced: {}", short(x.tokens), models.join(", "))
    });
    match (u.cost, unpriced) {
        (Some(c), Some(x)) => format!("{} + {x}", dollars(c)),
        (Some(c), None) => dollars(c),
        (None, Some(x)) => x,
        (None, None) => "cost unknown".to_owned(),
    }
}

fn tokens_line(u: &arbor_core::report::Usage) -> String {
    let cost = cost_text(u);
    format!(
        "in {}  out {}  cache read {}  cache write {}  {cost}",
        count(u.input),
        count(u.output),
        count(u.cache_read),
        count(u.cache_write)
    )
}

/// Tokens per root (its whole subtree) and per model, where the logs record them (SPEC 4
/// `usage`); a cost only where every model behind it has a price.
fn tokens(out: &mut impl Write, r: &Report) -> io::Result<()> {
    let Some(summary) = &r.usage else { return Ok(()) };
    writeln!(out, "\nTokens by root (its whole tree)")?;
    for s in r.sessions.iter().filter(|s| s.root.as_deref() == Some(s.id.as_str())) {
        if let Some(u) = &s.subtree_usage {
            writeln!(out, "  {}  {}", safe(&s.id, 80), tokens_line(u))?;
        }
    }
    writeln!(out, "Tokens by model")?;
    for m in &summary.models {
        writeln!(out, "  {}  {}", safe(&m.model, 80), tokens_line(&m.usage))?;
    }
    writeln!(out, "  all  {}", tokens_line(&summary.total))?;
    writeln!(out, "  prices: {} ({})", safe(&summary.prices.source, 200), safe(&summary.prices.date, 40))
}

pub fn full(out: &mut impl Write, r: &Report) -> io::Result<()> {
    writeln!(out, "Inputs")?;
    for i in &r.inputs {
        writeln!(out, "  {}  {}  {} records, {} bad lines", safe(&i.file, 200), i.format, i.records, i.bad_lines)?;
    }
    writeln!(out, "\nDelegation tree ({} sessions)", r.sessions.len())?;
    let mut findings_of: HashMap<&str, usize> = HashMap::new();
    for d in &r.diagnostics {
        if let Some(s) = &d.session {
            *findings_of.entry(s.as_str()).or_default() += 1;
        }
    }
    for s in &r.sessions {
        let indent = "  ".repeat(s.depth.unwrap_or(0) as usize + 1);
        let status = match s.runs.last() {
            Some(run) => outcome(run.outcome),
            None if s.parent.is_none() => "root",
            None => "no run",
        };
        let mut line = format!("{indent}{}", safe(&s.id, 80));
        if let Some(l) = &s.label {
            line.push_str(&format!(" \"{}\"", safe(l, 60)));
        }
        line.push_str(&format!("  [{status}]"));
        if s.runs.len() > 1 {
            line.push_str(&format!("  {} runs", s.runs.len()));
        }
        // How each run's parent was established (SPEC 4 `runs[].link`), each kind once.
        let mut links: Vec<&str> = Vec::new();
        for run in &s.runs {
            if !links.contains(&run.link.as_str()) {
                links.push(run.link.as_str());
            }
        }
        if !links.is_empty() {
            line.push_str(&format!("  via {}", links.join(", ")));
        }
        if s.root.is_none() {
            match &s.parent {
                Some(p) => line.push_str(&format!("  (under `{}`, no root)", safe(p, 60))),
                None => line.push_str("  (no root)"),
            }
        }
        line.push_str(&format!("  {} events", s.events));
        if let Some(n) = findings_of.get(s.id.as_str()) {
            line.push_str(&format!("  {n} findings"));
        }
        writeln!(out, "{line}")?;
    }
    tokens(out, r)?;
    if !r.waits.is_empty() {
        writeln!(out, "\nRoot replies")?;
        for w in &r.waits {
            let at = w.start.as_ref().map_or("?".to_owned(), |p| format!("{}:{}", safe(&p.file, 200), p.line));
            let reply = w.reply.as_deref().map_or("(no reply)".to_owned(), |t| format!("\"{}\"", safe(t, 120)));
            writeln!(out, "  {} at {at}  [{}]  {reply}", safe(&w.root, 80), wait_outcome(w.outcome))?;
            if let (Some(n), Some(naive)) = (w.notifications, w.naive.notifications) {
                if naive != n {
                    writeln!(out, "    a naive reader would have delivered {naive} of {n} notifications")?;
                }
            }
            if let (Some(o), Some(reply)) = (w.naive.outcome, &w.naive.reply) {
                if o != w.outcome || reply != &w.reply {
                    let nr = reply.as_deref().map_or("(no reply)".to_owned(), |t| format!("\"{}\"", safe(t, 120)));
                    writeln!(out, "    a naive waiter would have ended [{}] with {nr}", wait_outcome(o))?;
                }
            }
        }
    }
    // Logs without waits (Claude Code transcripts, durable logs): each root turn's reply.
    let root_replies: Vec<_> = r.replies.iter().filter(|x| x.root).collect();
    if r.waits.is_empty() && !root_replies.is_empty() {
        writeln!(out, "\nRoot replies")?;
        for x in root_replies {
            let turn = match &x.turn {
                serde_json::Value::Null => String::new(),
                t => format!(" turn {t}"),
            };
            let text = if x.text.is_empty() { "(no text)".to_owned() } else { format!("\"{}\"", safe(&x.text, 120)) };
            writeln!(out, "  {}{turn} at {}:{}  {text}", safe(&x.session, 80), safe(&x.at.file, 200), x.at.line)?;
        }
    }
    writeln!(out)?;
    findings(out, r)
}

pub fn findings(out: &mut impl Write, r: &Report) -> io::Result<()> {
    if r.diagnostics.is_empty() {
        return writeln!(out, "No findings.");
    }
    for (sev, title) in [(Severity::Error, "Errors"), (Severity::Warning, "Warnings"), (Severity::Info, "Info")] {
        let list: Vec<_> = r.diagnostics.iter().filter(|d| d.severity == sev).collect();
        if list.is_empty() {
            continue;
        }
        writeln!(out, "{title} ({})", list.len())?;
        for d in list {
            writeln!(out, "  {}:{}  {}  {}", safe(&d.at.file, 200), d.at.line, d.code, safe(&d.message, 300))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::safe;

    #[test]
    fn inert_text_keeps_its_line_breaks_and_loses_its_escapes() {
        assert_eq!(super::inert("a\u{1b}[31m\r\n\tb\u{0}\u{7f}\u{9b}é"), "a\\u{1b}[31m\r\n\tb\\u{0}\\u{7f}\\u{9b}é");
    }

    #[test]
    fn escapes_terminal_control_sequences() {
        assert_eq!(safe("a\u{1b}[31mred\nb", 100), "a\\u{1b}[31mred\\nb");
        assert_eq!(safe("abcdef", 3), "abc…");
    }
}
