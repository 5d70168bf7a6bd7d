//! `arbor changes PATH... [--session ID] [--json | --patch]`: what each agent changed (SPEC 6.5),
//! the edits the engine reads back from the transcripts (`arbor_core::changes`): for people, each
//! session's files with their edits; `--json`, one object an edit; `--patch`, one unified diff.

use arbor_core::changes::Edit;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn print(paths: &[PathBuf], session: Option<&str>, json: bool, patch: bool) -> ExitCode {
    let analysis = match crate::transcript::read_for(paths, session) {
        Ok(a) => a,
        Err(code) => return code,
    };
    if let Some(s) = session.filter(|s| analysis.transcript_index(s).is_none()) {
        return crate::fail(&format!("no session `{s}` in what was read (`arbor analyze` lists the sessions)"));
    }
    let edits = analysis.changes(session);
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = if json {
        edits.iter().try_for_each(|e| {
            serde_json::to_writer(&mut out, e).map_err(std::io::Error::from).and_then(|_| out.write_all(b"\n"))
        })
    } else if patch {
        edits.iter().try_for_each(|e| write_patch(&mut out, e))
    } else {
        write_text(&mut out, &edits)
    }
    .and_then(|_| out.flush());
    std::mem::forget(analysis);
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => crate::fail(&format!("cannot write: {e}")),
        _ => ExitCode::SUCCESS,
    }
}

fn applied(e: &Edit) -> &'static str {
    match e.applied {
        Some(true) => "applied",
        Some(false) => "failed",
        None => "no result",
    }
}

/// Log text is untrusted: control characters and bidi controls are shown, not sent.
fn shown(s: &str) -> String {
    crate::summary::visible(s)
}

/// Each edit as a comment line (session, place, tool, applied) and its diff.
fn write_patch(out: &mut impl Write, e: &Edit) -> std::io::Result<()> {
    writeln!(out, "# {} {}:{} {} ({})", shown(&e.session), shown(&e.at.file), e.at.line, shown(&e.tool), applied(e))?;
    for line in e.diff.lines() {
        writeln!(out, "{}", shown(line))?;
    }
    Ok(())
}

/// Per session, its files in the order it first changed them, each with its edits.
fn write_text(out: &mut impl Write, edits: &[Edit]) -> std::io::Result<()> {
    if edits.is_empty() {
        return writeln!(out, "No file was written or edited.");
    }
    let mut at = 0;
    while at < edits.len() {
        let session = &edits[at].session;
        let end = edits[at..].iter().position(|e| &e.session != session).map_or(edits.len(), |n| at + n);
        let group = &edits[at..end];
        let mut files: Vec<&str> = Vec::new();
        for e in group {
            if !files.contains(&e.path.as_str()) {
                files.push(&e.path);
            }
        }
        writeln!(
            out,
            "{} — {} file{} changed, {} edit{}",
            shown(session),
            files.len(),
            plural(files.len()),
            group.len(),
            plural(group.len())
        )?;
        for f in files {
            let of: Vec<&Edit> = group.iter().filter(|e| e.path == f).collect();
            let (a, r) = of.iter().fold((0, 0), |(a, r), e| (a + e.added, r + e.removed));
            writeln!(out, "  {}  +{a} -{r}", shown(f))?;
            for e in of {
                let turn = match &e.turn {
                    serde_json::Value::Null => String::new(),
                    serde_json::Value::String(s) => format!(" turn {}", shown(s)),
                    t => format!(" turn {t}"),
                };
                writeln!(
                    out,
                    "    {}:{}{turn} {} {} +{} -{} ({})",
                    shown(&e.at.file),
                    e.at.line,
                    shown(&e.tool),
                    e.kind,
                    e.added,
                    e.removed,
                    applied(e)
                )?;
            }
        }
        at = end;
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
