//! The files that come with an opened Claude Code session (SPEC 2.4: opening one session file
//! also reads its own sub-agent files and sidecars), the sidecars this format claims by their
//! place, and the order that puts a folder's sessions before its sub-agents.

use super::super::{FormatInfo, Plan, Planned};
use crate::intern::{HashMap, HashSet};
use crate::reader::InputFile;
use std::io::BufRead;
use std::path::{Path, PathBuf};

pub(super) fn plan(plan: &mut Plan, format: &'static FormatInfo) {
    add_own_files(plan);
    claim_sidecars(plan, format);
    parents_first(plan);
    originals_first(plan);
}

/// A file's name, from its display path.
fn name_of(display: &str) -> &str {
    display.rsplit('/').next().unwrap_or(display)
}

fn dir_of(display: &str) -> &str {
    display.rsplit_once('/').map_or("", |(d, _)| d)
}

/// After each session file opened by itself (not found in a folder), the files of its own
/// sub-agents: everything under `<stem>/subagents/` beside it (2.1), and the `agent-*.jsonl`
/// beside it whose first line names it as their `sessionId` (2.0).
fn add_own_files(plan: &mut Plan) {
    super::super::common::add_own_files(plan, own_files);
}

fn own_files(input: &InputFile) -> Vec<InputFile> {
    let mut files = Vec::new();
    let Some(name) = input.path.file_name().and_then(|n| n.to_str()) else { return files };
    let Some(stem) = name.strip_suffix(".jsonl") else { return files };
    if stem.is_empty() || stem.starts_with("agent-") {
        return files;
    }
    let dir = input.path.parent().unwrap_or(Path::new(""));
    let shown_dir = match input.display.rsplit_once('/') {
        Some((d, _)) => format!("{d}/"),
        None => String::new(),
    };
    let subagents = dir.join(stem).join("subagents");
    // Folders are not followed through symbolic links (SECURITY.md): a link at `<stem>` or at
    // `subagents` could point anywhere, and its files are not what the user opened.
    let real_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    if real_dir(&dir.join(stem)) && real_dir(&subagents) {
        let (found, _) = crate::reader::expand(std::slice::from_ref(&subagents));
        for f in found {
            files.push(InputFile {
                path: f.path,
                display: format!("{shown_dir}{stem}/subagents/{}", f.display),
                from_folder: true,
            });
        }
    }
    let Ok(entries) = std::fs::read_dir(if dir.as_os_str().is_empty() { Path::new(".") } else { dir }) else {
        return files;
    };
    let mut beside: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_str()?.to_owned();
            (n.starts_with("agent-") && n.ends_with(".jsonl") && e.file_type().ok()?.is_file()).then(|| (n, e.path()))
        })
        .collect();
    beside.sort();
    for (n, path) in beside {
        if first_session_id(&path).as_deref() == Some(stem) {
            files.push(InputFile { path, display: format!("{shown_dir}{n}"), from_folder: true });
        }
    }
    files
}

/// The `sessionId` of a file's first line (read up to 1 MiB; a longer line says nothing).
fn first_session_id(path: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct First {
        #[serde(rename = "sessionId")]
        session_id: Option<String>,
    }
    let f = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(f).take(1 << 20).read_until(b'\n', &mut line).ok()?;
    serde_json::from_slice::<First>(&line).ok()?.session_id
}

use std::io::{Read, Seek};

/// A sidecar `agent-<id>.meta.json` beside its transcript `agent-<id>.jsonl` is this format's,
/// even when it is not JSON: it is read as one, and a line that does not parse is a finding
/// (`malformed-line`) rather than an `unknown-format` file.
fn claim_sidecars(plan: &mut Plan, format: &'static FormatInfo) {
    let transcripts: HashSet<String> = plan
        .files
        .iter()
        .map(|f| f.input.display.as_str())
        .filter(|d| name_of(d).starts_with("agent-") && d.ends_with(".jsonl"))
        .map(|d| d.trim_end_matches(".jsonl").to_owned())
        .collect();
    for f in &mut plan.files {
        let d = f.input.display.as_str();
        if f.skip.is_some() || f.format.is_some() || !name_of(d).starts_with("agent-") {
            continue;
        }
        if let Some(base) = d.strip_suffix(".meta.json") {
            if transcripts.contains(base) {
                f.format = Some(format);
            }
        }
    }
}

/// A folder's `agent-*` files after its other files (sessions before their sub-agents, in wire
/// order too); everything else keeps its place.
fn parents_first(plan: &mut Plan) {
    let is_agent = |f: &Planned| name_of(&f.input.display).starts_with("agent-");
    let mut last_other: HashMap<String, usize> = HashMap::default();
    for (i, f) in plan.files.iter().enumerate() {
        if !is_agent(f) {
            last_other.insert(dir_of(&f.input.display).to_owned(), i);
        }
    }
    let mut deferred: HashMap<String, Vec<Planned>> = HashMap::default();
    let mut out = Vec::with_capacity(plan.files.len());
    for (i, f) in std::mem::take(&mut plan.files).into_iter().enumerate() {
        let dir = dir_of(&f.input.display).to_owned();
        let last = last_other.get(&dir).copied();
        if is_agent(&f) && last.is_some_and(|j| j > i) {
            deferred.entry(dir).or_default().push(f);
            continue;
        }
        let flush = !is_agent(&f) && last == Some(i);
        out.push(f);
        if flush {
            out.extend(deferred.remove(&dir).unwrap_or_default());
        }
    }
    plan.files = out;
}

/// A folder's session files in the order they were written (by their first line's time, then
/// their last's, then name), each in one of the places they held: a resumed session's file
/// replays its original's lines, and a line is counted where it is read first (SPEC 2.4), so the
/// original, which ends before its resumption, must be read before it. Files whose first lines
/// are not Claude Code lines keep their places.
fn originals_first(plan: &mut Plan) {
    /// A session file's place in the plan, and what orders it among its folder's.
    type Placed = (usize, (String, String));
    let mut by_dir: HashMap<String, Vec<Placed>> = HashMap::default();
    for (i, f) in plan.files.iter().enumerate() {
        let d = &f.input.display;
        let name = name_of(d);
        if f.skip.is_some() || name.starts_with("agent-") || !name.ends_with(".jsonl") || other_harness(&f.input.path) {
            continue;
        }
        if let Some(span) = time_span(&f.input.path) {
            by_dir.entry(dir_of(d).to_owned()).or_default().push((i, span));
        }
    }
    let mut moves: Vec<(usize, usize)> = Vec::new();
    for (_, mut files) in by_dir {
        if files.len() < 2 {
            continue;
        }
        let slots: Vec<usize> = files.iter().map(|f| f.0).collect();
        files.sort_by(|a, b| a.1.cmp(&b.1).then(plan.files[a.0].input.display.cmp(&plan.files[b.0].input.display)));
        moves.extend(slots.into_iter().zip(files.into_iter().map(|f| f.0)));
    }
    if moves.iter().all(|(to, from)| to == from) {
        return;
    }
    let mut old: Vec<Option<Planned>> = std::mem::take(&mut plan.files).into_iter().map(Some).collect();
    let mut placed: Vec<Option<Planned>> = (0..old.len()).map(|_| None).collect();
    for (to, from) in moves {
        placed[to] = old[from].take();
    }
    plan.files = placed.into_iter().zip(old).filter_map(|(p, o)| p.or(o)).collect();
}

/// Whether a file lies where another harness keeps its sessions, named as it names them: a Codex
/// rollout (`rollout-*.jsonl`), or a file of a Gemini CLI chats folder (`tmp/<project>/chats/`,
/// or a sub-agent folder in it). Claude Code writes neither, so `originals_first` does not open
/// them for their times: opening every file of a 20,000-file Gemini CLI tree was a fifth of its
/// CPU (most of it the system's).
fn other_harness(path: &Path) -> bool {
    fn name(p: Option<&Path>) -> Option<&str> {
        p.and_then(Path::file_name).and_then(|n| n.to_str())
    }
    if name(Some(path)).is_some_and(|n| n.starts_with("rollout-")) {
        return true;
    }
    let parent = path.parent();
    let grandparent = parent.and_then(Path::parent);
    [parent, grandparent].into_iter().any(|chats| {
        name(chats) == Some("chats") && name(chats.and_then(Path::parent).and_then(Path::parent)) == Some("tmp")
    })
}

/// The `timestamp` of a file's first and last Claude Code lines (within its first and last
/// 64 KiB), when its first lines are Claude Code's.
fn time_span(path: &Path) -> Option<(String, String)> {
    const WINDOW: u64 = 64 << 10;
    #[derive(serde::Deserialize)]
    struct Stamp {
        #[serde(rename = "type")]
        kind: Option<String>,
        timestamp: Option<String>,
        #[serde(rename = "sessionId")]
        session_id: Option<String>,
    }
    let stamp = |line: &[u8]| -> Option<String> {
        let s: Stamp = serde_json::from_slice(line).ok()?;
        let claude = s.kind.is_some_and(|k| super::line::TYPES.contains(&k.as_str())) && s.session_id.is_some();
        claude.then_some(s.timestamp).flatten()
    };
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let window = |f: &mut std::fs::File| {
        // Sized at once: `read_to_end` alone probes from 32 bytes up, a dozen reads a file.
        let mut bytes = Vec::with_capacity(WINDOW.min(len) as usize + 1);
        f.take(WINDOW).read_to_end(&mut bytes).ok().map(|_| bytes)
    };
    let head = window(&mut f)?;
    // A Claude Code line names its `sessionId`: a head without the key (a Codex rollout, any
    // other log in the folder) is not parsed line by line to learn that.
    memchr::memmem::find(&head, b"\"sessionId\"")?;
    let first = keyed_lines(&head, false).find_map(stamp)?;
    f.seek(std::io::SeekFrom::Start(len.saturating_sub(WINDOW))).ok()?;
    let tail = window(&mut f)?;
    let last = keyed_lines(&tail, true).find_map(stamp).unwrap_or_else(|| first.clone());
    Some((first, last))
}

/// The lines of `bytes` (split at `\n`) that hold the key `"sessionId"`, first to last (or last
/// to first): a line without it names no session, so it is neither split out nor parsed (a
/// Gemini CLI session file names its session on its first line only, and splitting and parsing
/// its every message here was a fifth of a Gemini tree's instructions).
fn keyed_lines(bytes: &[u8], rev: bool) -> impl Iterator<Item = &[u8]> {
    const KEY: &[u8] = b"\"sessionId\"";
    let line_at = move |i: usize| {
        let start = memchr::memrchr(b'\n', &bytes[..i]).map_or(0, |p| p + 1);
        let end = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |p| i + p);
        (start, end)
    };
    // Where to look next: from `at` on (forward), or before `at` (backward).
    let mut at = if rev { bytes.len() } else { 0 };
    std::iter::from_fn(move || {
        let hit = if rev {
            memchr::memmem::rfind(&bytes[..at], KEY)?
        } else {
            at + memchr::memmem::find(bytes.get(at..)?, KEY)?
        };
        let (start, end) = line_at(hit);
        at = if rev { start.saturating_sub(1) } else { end + 1 };
        Some(&bytes[start..end])
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn other_harnesses_files_are_told_by_their_places_and_names() {
        use std::path::Path;
        let other = |p: &str| super::other_harness(Path::new(p));
        // Gemini CLI: a session in a project's chats folder, a sub-agent in a session's folder.
        assert!(other("/home/u/.gemini/tmp/0b7dfb12/chats/session-2026-01-01T10-00-abc.jsonl"));
        assert!(other("gem/tmp/0b7dfb12/chats/89595dea-0001-431f-8ca2-000000000001/25c6828c.jsonl"));
        // Codex: a rollout, wherever it lies.
        assert!(other("/home/u/.codex/sessions/2026/01/01/rollout-2026-01-01T10-00-00-abc.jsonl"));
        assert!(other("rollout-x.jsonl"));
        // Claude Code's own places, and a folder named chats that is not Gemini CLI's.
        assert!(!other("/home/u/.claude/projects/-home-u-app/1f0c2d7e-7e1a-4b7e-9a8e-2c1d3e4f5a6b.jsonl"));
        assert!(!other("/home/u/.claude/projects/-home-u-tmp-chats/1f0c2d7e.jsonl"));
        assert!(!other("/home/u/backup/chats/1f0c2d7e.jsonl"));
        assert!(!other("chats/1f0c2d7e.jsonl"));
        assert!(!other("/home/u/tmp/chats/a/b/1f0c2d7e.jsonl"));
    }

    #[test]
    fn keyed_lines_are_the_lines_that_name_a_session_in_either_order() {
        let text = b"{\"sessionId\":\"a\"}\n{\"x\":1}\n\n{\"b\":2,\"sessionId\":\"b\",\"sessionId\":3}\r\n{\"sessionId\":\"c\"}";
        let lines = |rev| super::keyed_lines(text, rev).map(|l| String::from_utf8_lossy(l).into_owned()).collect::<Vec<_>>();
        let want = ["{\"sessionId\":\"a\"}", "{\"b\":2,\"sessionId\":\"b\",\"sessionId\":3}\r", "{\"sessionId\":\"c\"}"];
        assert_eq!(lines(false), want);
        assert_eq!(lines(true), want.iter().rev().copied().collect::<Vec<_>>());
        assert_eq!(super::keyed_lines(b"no key\n", false).count(), 0);
        assert_eq!(super::keyed_lines(b"\"sessionId\"", true).count(), 1);
        assert_eq!(super::keyed_lines(b"", true).count(), 0);
    }
}
