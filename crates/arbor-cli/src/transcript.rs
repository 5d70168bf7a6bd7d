//! `arbor transcript PATH... --session ID [--json]`: one session's conversation, for terminals
//! and scripts. The rows and parts are the engine's (`arbor_core::transcript`), the same the app
//! shows; `--json` prints each part as an object a line with its row's place, turn and step.

use arbor_core::transcript::{Item, PartKind, Row};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Rows read back per page: each page reads its lines from the files once.
const PAGE: u32 = 256;

/// The logs at `paths`, read for reading back: a one-line error and exit 2 when a path is missing
/// or nothing is in a known format. With `session`, only what that session needs where the paths
/// say which files that is: a Claude Code project folder holding `<session>.jsonl` is read as
/// that session's chain (its file, its sub-agents, the sessions a resume replays:
/// `Entry::claude_project`), a folder holding `<session>/` (a Copilot session-state) as that
/// folder, not the whole project or state.
pub fn read_for(paths: &[PathBuf], session: Option<&str>) -> Result<arbor_core::Analysis, ExitCode> {
    crate::tune_allocator();
    analyzed(paths, session).map_err(|msg| crate::fail(&msg))
}

/// `read_for` with what went wrong said rather than printed, and the allocator left as it is
/// (`tune_allocator` runs before any other thread): what reads two inputs at once calls it, each
/// on a thread of its own, and prints their failures in order.
pub fn analyzed(paths: &[PathBuf], session: Option<&str>) -> Result<arbor_core::Analysis, String> {
    for p in paths {
        if !arbor_core::reader::exists(p) {
            return Err(format!("no such file or folder: {}", p.display()));
        }
    }
    let narrowed = session.and_then(|s| narrow(paths, s));
    let mut analysis = arbor_core::analyze(narrowed.as_deref().unwrap_or(paths), &mut ());
    if narrowed.is_some() {
        // Named as the folder's files are when the folder is read whole.
        analysis.name_files_under(&paths[0]);
    }
    if !analysis.files.iter().any(|f| f.format.is_some()) {
        return Err("nothing could be read in a known format".to_owned());
    }
    Ok(analysis)
}

/// The files of `session` alone, when one folder given holds them as its own (see `read_for`).
fn narrow(paths: &[PathBuf], session: &str) -> Option<Vec<PathBuf>> {
    let [dir] = paths else { return None };
    if !dir.is_dir() || session.is_empty() || session.contains(['/', '\\']) || session.starts_with('.') {
        return None;
    }
    let own = dir.join(session);
    if ["jsonl", "jsonl.zst", "jsonl.zstd"].iter().any(|x| dir.join(format!("{session}.{x}")).is_file()) {
        let entries = arbor_library::store::Entry::claude_project(dir, "");
        let stem = |p: &PathBuf| p.file_name().map(|n| n.to_string_lossy().split('.').next().unwrap_or("").to_owned());
        return entries
            .into_iter()
            .find(|e| e.paths.iter().any(|p| stem(p).as_deref() == Some(session)))
            .map(|e| e.paths);
    }
    own.is_dir().then(|| vec![own])
}

pub fn print(paths: &[PathBuf], session: &str, json: bool, width: usize) -> ExitCode {
    let analysis = match crate::transcript::read_for(paths, Some(session)) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let Some(index) = analysis.transcript_index(session) else {
        return crate::fail(&format!("no session `{session}` in what was read (`arbor analyze` lists the sessions)"));
    };
    let max = if width == 0 { usize::MAX } else { width };
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut from = 0;
    let written = (|| -> std::io::Result<()> {
        while (from as usize) < index.len() {
            let page = analysis.transcript_page(&index, from, PAGE, max);
            for row in &page.rows {
                if json {
                    for part in &row.parts {
                        let item = Item {
                            session: &page.session,
                            row: row.row,
                            at: &row.at,
                            time: row.time,
                            turn: &row.turn,
                            step: row.step,
                            part,
                        };
                        serde_json::to_writer(&mut out, &item)?;
                        out.write_all(b"\n")?;
                    }
                } else {
                    text_row(&mut out, row)?;
                }
            }
            from += PAGE;
        }
        out.flush()
    })();
    std::mem::forget(analysis);
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => crate::fail(&format!("cannot write: {e}")),
        _ => ExitCode::SUCCESS,
    }
}

fn label(kind: PartKind) -> &'static str {
    match kind {
        PartKind::Prompt => "prompt",
        PartKind::Text => "assistant",
        PartKind::Reasoning => "reasoning",
        PartKind::ToolCall => "tool call",
        PartKind::ToolResult => "tool result",
        PartKind::Spawn => "spawn",
        PartKind::Received => "received",
        PartKind::Compaction => "compaction",
        PartKind::Notice => "notice",
        PartKind::Usage => "model call",
        PartKind::Image => "image",
    }
}

/// A row for people: its place, turn and step, then each part, its text indented under it.
fn text_row(out: &mut impl Write, row: &Row) -> std::io::Result<()> {
    let turn = match &row.turn {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => format!(" turn {s}"),
        t => format!(" turn {t}"),
    };
    let step = row.step.map(|s| format!(" step {s}")).unwrap_or_default();
    for part in &row.parts {
        let mut head = format!("{}:{}{turn}{step} {}", row.at.file, row.at.line, label(part.kind));
        if let Some(tool) = &part.tool {
            head.push_str(&format!(" {tool}"));
        }
        if let Some(child) = &part.child {
            head.push_str(&format!(" [{child}]"));
        }
        if part.is_error == Some(true) {
            head.push_str(" (error)");
        }
        if let (PartKind::Usage, Some(model)) = (part.kind, &part.model) {
            head.push_str(&format!(" {model}"));
        }
        if let Some(m) = &part.media {
            head.push_str(&format!(" {}", m.media_type.as_deref().unwrap_or("(type unknown)")));
            if let Some(b) = m.bytes {
                head.push_str(&format!(", {b} bytes"));
            }
        }
        if let Some(u) = &part.usage {
            head.push_str(&format!(
                " · tokens in {} out {} cache read {} write {}",
                u.input, u.output, u.cache_read, u.cache_write
            ));
        }
        // Log text is untrusted: control characters and bidi controls are shown, not sent to
        // the terminal (a tool's or child's name too).
        writeln!(out, "{}", crate::summary::visible(&head))?;
        for line in part.text.lines() {
            writeln!(out, "    {}", crate::summary::visible(line))?;
        }
        if part.cut {
            writeln!(out, "    … ({} characters in all)", part.text_len)?;
        }
    }
    Ok(())
}
