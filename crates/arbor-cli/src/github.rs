//! `arbor check --format github`: the findings as GitHub Actions workflow commands, which the
//! runner turns into annotations on the files and lines of the run's checkout.
//!
//! `::error file=F,line=L,title=T::MESSAGE` for an error, `::warning` for a warning, `::notice` for
//! an info finding; a finding at line 0 has no `line`. Values are escaped as the runner expects
//! (the actions toolkit's `escapeData` and `escapeProperty`), so log text cannot end a command or
//! start a new one; its other control characters are first written out (`\u{1b}`), as in the
//! terminal summary, so that it cannot recolour the job's log either. A closing line that is not a
//! command counts the findings.

use crate::check::Check;
use crate::summary::inert;
use arbor_core::report::Severity;
use std::io::{self, Write};

/// A command's message: `%`, CR and LF escaped, so that it stays on its line.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A property value: as a message, and `:` and `,`, which separate properties, escaped too.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn command(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

pub fn write(out: &mut impl Write, c: &Check) -> io::Result<()> {
    commands(out, c)?;
    let (e, w, i) = c.counts();
    closing(out, (e, w, i), c.files.len())
}

/// The closing line that counts the findings.
pub fn closing(out: &mut impl Write, (e, w, i): (usize, usize, usize), files: usize) -> io::Result<()> {
    writeln!(out, "arbor check: {e} errors, {w} warnings, {i} info findings in {files} files")
}

/// One workflow command per finding.
pub fn commands(out: &mut impl Write, c: &Check) -> io::Result<()> {
    for &(file, d) in &c.findings {
        let mut props = format!("file={}", escape_property(&inert(&c.files[file].path)));
        if d.at.line > 0 {
            props.push_str(&format!(",line={}", d.at.line));
        }
        props.push_str(&format!(",title={}", escape_property(&format!("arbor {}", d.code))));
        let message = match &d.session {
            Some(s) => format!("{} (session {s})", d.message),
            None => d.message.clone(),
        };
        writeln!(out, "::{} {props}::{}", command(d.severity), escape_data(&inert(&message)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_cannot_leave_its_command() {
        let hostile = "50% done\r\n::error file=x::pwned, a:b";
        assert_eq!(escape_data(hostile), "50%25 done%0D%0A::error file=x::pwned, a:b");
        assert_eq!(escape_property(hostile), "50%25 done%0D%0A%3A%3Aerror file=x%3A%3Apwned%2C a%3Ab");
        // `%` is escaped first: an escape already in the text does not decode to a line break.
        assert_eq!(escape_data("%0A"), "%250A");
    }
}
