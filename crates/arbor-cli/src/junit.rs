//! `arbor check --format junit`: the findings as JUnit XML, for CI systems that show test reports.
//!
//! One test case per input file (named by its path relative to `--root`, its class the file's
//! format), one `<failure>` per finding that fails the check (`--fail-on`; errors always), and the
//! other findings as the case's `<system-out>`. A suite's `failures` counts the failed cases. Log
//! text is escaped for XML, and the control characters XML 1.0 cannot carry at all are written
//! out as `\u{…}` (`summary::inert`).

use crate::check::Check;
use crate::summary::inert;
use arbor_core::explain;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Text for an XML attribute or element: markup escaped, and characters XML 1.0 forbids made
/// visible instead of making the document unreadable.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in inert(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Attribute values normalise whitespace; keep line breaks and tabs as references.
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            '\u{FFFE}' | '\u{FFFF}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

pub fn write(out: &mut impl Write, c: &Check) -> io::Result<()> {
    let (tests, failures) = counts(c);
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(out, r#"<testsuites name="arbor check" tests="{tests}" failures="{failures}" errors="0" skipped="0">"#)?;
    suite(out, c, "arbor check")?;
    writeln!(out, "</testsuites>")
}

/// The test cases and the failed ones of a check.
pub fn counts(c: &Check) -> (usize, usize) {
    let tests = c.files.len();
    // `failures` counts failed test cases, as the JUnit schema has it, not `<failure>` elements.
    let failures = (0..tests)
        .filter(|&i| c.findings.iter().any(|&(file, d)| file == i && c.fail_on.is_failure(d.severity)))
        .count();
    (tests, failures)
}

/// One `<testsuite>`: the whole check, or (`arbor check --each`) one part of a folder.
pub fn suite(out: &mut impl Write, c: &Check, name: &str) -> io::Result<()> {
    let fail_on = c.fail_on;
    let (tests, failures) = counts(c);
    writeln!(
        out,
        r#"  <testsuite name="{}" tests="{tests}" failures="{failures}" errors="0" skipped="0" time="0">"#,
        escape(name)
    )?;
    for (i, f) in c.files.iter().enumerate() {
        let mine: Vec<_> = c.findings.iter().filter(|(file, _)| *file == i).map(|(_, d)| *d).collect();
        writeln!(
            out,
            r#"    <testcase name="{}" classname="{}" file="{}" time="0">"#,
            escape(&f.path),
            escape(&f.format),
            escape(&f.path)
        )?;
        let mut other = String::new();
        for d in &mine {
            let line = format!(
                "{}:{} {} ({}){}: {}",
                f.path,
                d.at.line,
                d.code,
                explain::severity(d.severity),
                d.session.as_deref().map_or(String::new(), |s| format!(" in session {s}")),
                d.message
            );
            if fail_on.is_failure(d.severity) {
                writeln!(
                    out,
                    r#"      <failure type="{}" message="{}">{}</failure>"#,
                    escape(&d.code),
                    escape(&d.message),
                    escape(&line)
                )?;
            } else {
                other.push_str(&line);
                other.push('\n');
            }
        }
        if !other.is_empty() {
            writeln!(out, "      <system-out>{}</system-out>", escape(&other))?;
        }
        writeln!(out, "    </testcase>")?;
    }
    writeln!(out, "  </testsuite>")
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markup_and_forbidden_characters_are_escaped() {
        assert_eq!(escape(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&apos;");
        assert_eq!(escape("]]>\u{1b}[31m\u{0}"), "]]&gt;\\u{1b}[31m\\u{0}");
        assert_eq!(escape("a\nb\tc"), "a&#10;b&#9;c");
    }
}
