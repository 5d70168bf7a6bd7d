//! The files that come with an opened Gemini CLI session (its sub-agents' files, which lie in
//! `chats/<its session id>/`), and the older `session-*.json` a newer Gemini CLI migrated to
//! `session-*.jsonl` beside it and kept: the same session, read once (`superseded-session-file`).

use super::super::{FormatInfo, Plan, Skip};
use crate::finding::Code;
use crate::reader::InputFile;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

pub(super) fn plan(plan: &mut Plan, format: &'static FormatInfo) {
    add_own_files(plan);
    set_aside_migrated(plan, format);
}

/// The `sessionId` of a JSON Lines file's first line (read up to 1 MiB).
fn first_session_id(path: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct First {
        #[serde(rename = "sessionId")]
        session_id: Option<String>,
        #[serde(rename = "projectHash")]
        project_hash: Option<String>,
    }
    let f = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(f).take(1 << 20).read_until(b'\n', &mut line).ok()?;
    let first = serde_json::from_slice::<First>(&line).ok()?;
    first.project_hash?;
    first.session_id
}

/// After each `session-*.jsonl` opened by itself (not found in a folder), the files of its
/// sub-agents: `<its session id>/*.jsonl` beside it (every depth lies there: the folder names
/// the root). A folder reached through a symbolic link is not followed.
fn add_own_files(plan: &mut Plan) {
    super::super::common::add_own_files(plan, own_files);
}

fn own_files(input: &InputFile) -> Vec<InputFile> {
    let Some(name) = input.path.file_name().and_then(|n| n.to_str()) else { return Vec::new() };
    if !(name.starts_with("session-") && name.ends_with(".jsonl")) {
        return Vec::new();
    }
    let Some(id) = first_session_id(&input.path) else { return Vec::new() };
    if id.is_empty() || id.contains(['/', '\\']) || id == "." || id == ".." {
        return Vec::new();
    }
    let dir = input.path.parent().unwrap_or(Path::new(""));
    let folder = dir.join(&id);
    if !std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir()) {
        return Vec::new();
    }
    let shown_dir = match input.display.rsplit_once('/') {
        Some((d, _)) => format!("{d}/"),
        None => String::new(),
    };
    let Ok(entries) = std::fs::read_dir(&folder) else { return Vec::new() };
    let mut files: Vec<InputFile> = entries
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_str()?.to_owned();
            (n.ends_with(".jsonl") && e.file_type().ok()?.is_file()).then(|| InputFile {
                path: e.path(),
                display: format!("{shown_dir}{id}/{n}"),
                from_folder: true,
            })
        })
        .collect();
    files.sort_by(|a, b| a.display.cmp(&b.display));
    files
}

/// A `session-*.json` whose `session-*.jsonl` is planned too: Gemini CLI migrated it on resume
/// and kept the old file; the `.jsonl` holds all of it and what came after.
fn set_aside_migrated(plan: &mut Plan, format: &'static FormatInfo) {
    let planned: std::collections::HashSet<PathBuf> = plan.files.iter().map(|f| f.input.path.clone()).collect();
    for f in &mut plan.files {
        let Some(name) = f.input.path.file_name().and_then(|n| n.to_str()) else { continue };
        if f.skip.is_some() || !(name.starts_with("session-") && name.ends_with(".json")) {
            continue;
        }
        let newer = f.input.path.with_file_name(format!("{name}l"));
        if !planned.contains(&newer) {
            continue;
        }
        let (Some(id), Some(old)) = (first_session_id(&newer), document_session_id(&f.input.path)) else { continue };
        if id == old {
            f.skip = Some(Skip {
                format,
                code: Code::SupersededSessionFile,
                message: format!(
                    "session `{id}` was migrated to `{name}l` by a newer Gemini CLI, which kept this file: that one is read"
                ),
            });
        }
    }
}

/// The `sessionId` of an older whole-file document.
fn document_session_id(path: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Doc {
        #[serde(rename = "sessionId")]
        session_id: Option<String>,
    }
    let f = std::fs::File::open(path).ok()?;
    serde_json::from_reader::<_, Doc>(std::io::BufReader::new(f).take(256 << 20)).ok()?.session_id
}
