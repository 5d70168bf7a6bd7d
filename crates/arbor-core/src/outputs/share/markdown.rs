//! The Markdown style: headings per session, a line of facts per item, prose as the log wrote
//! it with markup outside code made text (`<` as `&lt;`), and arguments, results and other
//! verbatim text in fences longer than any run of backticks inside them.

use std::io;

use super::words::{facts, shown_text, usage_line, Head, Meta, Out, Render};
use crate::outputs::report_parts::DiagnosticRef;
use crate::transcript::{Part, PartKind, Row};

#[derive(Default)]
pub(crate) struct Markdown;

/// `#` repeated for a heading `level` deep (1–6).
fn hashes(level: u32) -> String {
    "#".repeat(level.clamp(1, 6) as usize)
}

/// `text` as an inline code span: delimited by one backtick more than its longest run, padded
/// where it starts or ends with one; on one line.
pub(crate) fn code(text: &str) -> String {
    let one_line = text.replace(['\n', '\r'], " ");
    let ticks = "`".repeat(longest_run(&one_line, '`') + 1);
    let pad = if one_line.starts_with('`') || one_line.ends_with('`') { " " } else { "" };
    format!("{ticks}{pad}{one_line}{pad}{ticks}")
}

fn longest_run(text: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for x in text.chars() {
        run = if x == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// `text` verbatim in a fenced block (`lang` its info string).
pub(crate) fn fenced(text: &str, lang: &str) -> String {
    let fence = "`".repeat((longest_run(text, '`') + 1).max(3));
    let nl = if text.ends_with('\n') { "" } else { "\n" };
    format!("{fence}{lang}\n{text}{nl}{fence}\n\n")
}

/// Prose from the log as Markdown that keeps its formatting but none of its markup: every `<`
/// outside a fenced block or a code span becomes `&lt;`, so that no renderer takes the log's
/// `<script>` or `<img>` for HTML. Text inside code is left alone (it is shown literally there).
pub(crate) fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut fence: Option<(char, usize)> = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let marker = t.chars().next().filter(|c| *c == '`' || *c == '~');
        if let Some(m) = marker {
            let n = t.chars().take_while(|&c| c == m).count();
            if n >= 3 {
                match fence {
                    None => fence = Some((m, n)),
                    Some((fm, fnum)) if fm == m && n >= fnum && t.trim_end().chars().all(|c| c == m) => fence = None,
                    _ => {}
                }
                out.push_str(line);
                continue;
            }
        }
        if fence.is_some() {
            out.push_str(line);
            continue;
        }
        escape_outside_spans(line, &mut out);
    }
    if fence.is_some() {
        // An unclosed fence would swallow what follows it in the export: close it here.
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&"`".repeat(fence.map_or(3, |f| f.1.max(3))));
        out.push('\n');
    }
    out
}

/// One line: `<` escaped outside code spans (a run of backticks opens a span that the same run
/// closes; an unclosed run is literal backticks, so what follows it is escaped).
fn escape_outside_spans(line: &str, out: &mut String) {
    let b: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < b.len() {
        if b[i] == '`' {
            let n = b[i..].iter().take_while(|&&c| c == '`').count();
            let close = (i + n..b.len()).find(|&j| {
                b[j] == '`' && b[j..].iter().take_while(|&&c| c == '`').count() == n && (j == 0 || b[j - 1] != '`')
            });
            if let Some(j) = close {
                out.extend(&b[i..j + n]);
                i = j + n;
                continue;
            }
            out.extend(&b[i..i + n]);
            i += n;
            continue;
        }
        if b[i] == '<' {
            out.push_str("&lt;");
        } else {
            out.push(b[i]);
        }
        i += 1;
    }
}

/// The line of facts above an item: what it is, its place and time, its tokens.
fn meta(row: &Row, part: &Part) -> String {
    let f = Meta::of(row, part);
    let mut m = format!("**{}**", f.who);
    if let Some(n) = &f.name {
        m.push(' ');
        m.push_str(&code(n));
    }
    if let Some(b) = f.bytes {
        m.push_str(&format!(", {b} bytes"));
    }
    if f.error {
        m.push_str(" **(error)**");
    }
    if let Some(arg) = &f.argument {
        m.push_str(" · ");
        m.push_str(&code(arg));
    }
    m.push_str(" · ");
    m.push_str(&code(&f.place));
    if let Some(t) = &f.time {
        m.push_str(&format!(" · {t}"));
    }
    if let Some(t) = &f.tokens {
        m.push_str(&format!(" · tokens {t}"));
    }
    m.push_str("\n\n");
    m
}

impl Render for Markdown {
    fn begin(&mut self, o: &mut Out, title: &str) -> io::Result<()> {
        o.str(&format!("# {}\n\n", prose(&title.replace(['\n', '\r'], " "))))
    }

    fn head(&mut self, o: &mut Out, h: &Head) -> io::Result<()> {
        if h.depth > 0 {
            let name = h.label.as_deref().or(h.title.as_deref()).unwrap_or("Sub-agent");
            o.str(&format!("{} Sub-agent: {}\n\n", hashes(h.depth + 1), prose(&name.replace(['\n', '\r'], " "))))?;
        }
        let mut s = String::new();
        for (k, v) in facts(h) {
            s.push_str(&format!("- {k}: {}\n", code(&v)));
        }
        s.push('\n');
        o.str(&s)
    }

    fn part(&mut self, o: &mut Out, row: &Row, part: &Part, _depth: u32) -> io::Result<()> {
        let mut s = meta(row, part);
        match part.kind {
            PartKind::Prompt | PartKind::Text | PartKind::Received | PartKind::Spawn | PartKind::Notice => {
                if !part.text.is_empty() {
                    s.push_str(&prose(&part.text));
                    s.push_str("\n\n");
                }
            }
            PartKind::Reasoning => {
                for line in prose(&part.text).lines() {
                    s.push_str("> ");
                    s.push_str(line);
                    s.push('\n');
                }
                s.push('\n');
            }
            PartKind::ToolCall | PartKind::ToolResult => {
                if !part.text.is_empty() {
                    s.push_str(&fenced(&shown_text(part), if part.json { "json" } else { "text" }));
                }
            }
            PartKind::Compaction | PartKind::Usage | PartKind::Image => {
                if !part.text.is_empty() && part.kind != PartKind::Image {
                    s.push_str(&fenced(&part.text, "text"));
                }
            }
        }
        o.str(&s)
    }

    fn child_open(&mut self, o: &mut Out, _h: &Head) -> io::Result<()> {
        o.str("---\n\n")
    }

    fn child_close(&mut self, o: &mut Out, h: &Head) -> io::Result<()> {
        o.str(&format!("*End of sub-agent {}.*\n\n---\n\n", code(&h.id)))
    }

    fn child_summary(&mut self, o: &mut Out, h: &Head, file: Option<&str>) -> io::Result<()> {
        let name = h.label.as_deref().unwrap_or("sub-agent");
        let mut s = format!("> **Sub-agent** {} {}", code(name), code(&h.id));
        if let Some(x) = h.outcome {
            s.push_str(&format!(" · {}", super::words::outcome(x)));
        }
        if let (Some(a), Some(b)) = (h.start, h.end) {
            if b >= a {
                s.push_str(&format!(" · {}", super::words::duration(b - a)));
            }
        }
        s.push_str(&format!(" · {} items", h.rows));
        if let Some(u) = h.subtree.as_ref().or(h.usage.as_ref()) {
            s.push_str(&format!(" · tokens {}", usage_line(u)));
        }
        if h.sub_agents > 0 {
            s.push_str(&format!(" · {} sub-agents of its own", h.sub_agents));
        }
        if let Some(f) = file {
            // The name is ours (plain characters), but a link target is escaped anyway.
            s.push_str(&format!(" · [its transcript](<{}>)", f.replace(['<', '>'], "_")));
        }
        s.push_str("\n\n");
        o.str(&s)
    }

    fn loose_children(&mut self, o: &mut Out, depth: u32) -> io::Result<()> {
        o.str(&format!("{} Sub-agents not spawned in this transcript\n\n", hashes(depth + 2)))
    }

    fn findings(&mut self, o: &mut Out, list: &[DiagnosticRef<'_>], depth: u32) -> io::Result<()> {
        let mut s = format!("{} Findings ({})\n\n", hashes(depth + 2), list.len());
        for d in list {
            s.push_str(&format!(
                "- **{}** {} at {}: {}\n",
                super::words::severity(d.severity),
                code(d.code),
                code(&format!("{}:{}", d.at.file, d.at.line)),
                prose(&d.message.replace(['\n', '\r'], " "))
            ));
        }
        s.push('\n');
        o.str(&s)
    }

    fn end(&mut self, o: &mut Out, footer: &str) -> io::Result<()> {
        o.str(&format!("---\n\n*{footer}*\n"))
    }
}
