//! `arbor analyze --each` and `arbor check --each`: a folder of many independent sessions (a
//! Copilot `session-state/`, a Claude Code project, a dsh sessions folder) read one session at a
//! time, several at once, the results written in a stable order with a total at the end.
//!
//! How a folder splits into units (`units`), each analysed on its own:
//! - every sub-folder is one unit, with everything under it (a Copilot `session-state/<id>/`);
//! - every log file directly in the folder is one unit, together with the folder of the same
//!   stem beside it (a Claude Code `<session>.jsonl` and its `<session>/` of sub-agents) and the
//!   files whose first line names it as their parent: a dsh child session's header names its
//!   `parentSession` (followed up to the root), a Claude Code 2.0 `agent-*.jsonl` line names its
//!   session's `sessionId`. A file given as a path is a unit of its own.
//!
//! Units are written in their sorted order while up to `jobs` are analysed at once; a unit is
//! started only while fewer than `2 × jobs` results wait to be written, so memory holds what is
//! in flight, never the whole folder. This module owns the splitting and the scheduling; what a
//! unit's result looks like is its caller's (`main`).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// One independent part of what was given: analysed alone, reported under its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Relative to the folder it came from (`<id>`, `<session>.jsonl`), or the path as given.
    pub name: String,
    pub paths: Vec<PathBuf>,
    /// The folder its files are named under in its report (as if that folder had been opened),
    /// or `None` to name them as given.
    pub base: Option<PathBuf>,
}

/// What a file's first line says of the session it belongs to.
#[derive(Debug, Default, PartialEq)]
struct Head {
    /// The session the file is (a dsh header's `id`, a Codex rollout's `session_meta` id).
    id: Option<String>,
    /// The session it belongs under: a dsh header's `parentSession`, a Claude Code line's
    /// `sessionId` when that is not the file's own stem, the parent a Codex rollout's first line
    /// names (`thread_spawn`).
    parent: Option<String>,
}

fn head(path: &Path) -> Head {
    let Some(line) = arbor_library::store::first_line(path) else { return Head::default() };
    // A Codex rollout, read as the library reads it (`formats::thread_head`).
    if let Some(t) = arbor_core::formats::thread_head(&line) {
        return Head { id: Some(t.id), parent: t.parent };
    }
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) else { return Head::default() };
    let text = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    if v.get("type").and_then(|t| t.as_str()) == Some("session") {
        return Head { id: text("id"), parent: text("parentSession") };
    }
    let stem = stem(path);
    Head { id: None, parent: text("sessionId").filter(|s| Some(s.as_str()) != stem.as_deref()) }
}

/// A log file's name without its extensions (`a.jsonl.zst` → `a`).
fn stem(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    Some(name.split('.').next().unwrap_or(&name).to_owned())
}

/// The units of the paths given, in order: each path's units sorted by name.
pub fn units(paths: &[PathBuf]) -> Vec<Unit> {
    let mut out = Vec::new();
    for p in paths {
        if !p.is_dir() {
            out.push(Unit { name: p.to_string_lossy().into_owned(), paths: vec![p.clone()], base: None });
            continue;
        }
        // With several paths, a folder's files are named under the folder's own name, as the
        // engine names them when several paths are opened at once.
        let base = if paths.len() > 1 { p.parent().map(Path::to_path_buf).unwrap_or_default() } else { p.clone() };
        out.extend(split(p, &base));
    }
    out
}

fn split(folder: &Path, base: &Path) -> Vec<Unit> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        // An unreadable folder is one unit: its analysis says why it cannot be read.
        return vec![Unit {
            name: folder.to_string_lossy().into_owned(),
            paths: vec![folder.to_path_buf()],
            base: Some(base.to_path_buf()),
        }];
    };
    let mut folders: Vec<PathBuf> = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        // A link to a folder is not followed, as in the engine's walk.
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            folders.push(path);
        } else if arbor_core::reader::is_log_name(&e.file_name().to_string_lossy()) && !path.is_dir() {
            files.push(path);
        }
    }
    folders.sort();
    files.sort();
    // Group the files: each under the root of its parent chain, when that file is here.
    let heads: Vec<Head> = files.iter().map(|f| head(f)).collect();
    let mut by_id: HashMap<String, usize> = HashMap::new();
    for (i, (f, h)) in files.iter().zip(&heads).enumerate() {
        // A dsh session is named by its header; a Claude Code session by its file's stem.
        if let Some(id) = h.id.clone().or_else(|| stem(f)) {
            by_id.entry(id).or_insert(i);
        }
    }
    let owner = |mut i: usize| -> usize {
        // Follow parents while they are here, at most as many steps as there are files (a cycle
        // of headers stops where it started).
        for _ in 0..files.len() {
            match heads[i].parent.as_deref().and_then(|p| by_id.get(p)) {
                Some(&j) if j != i => i = j,
                _ => break,
            }
        }
        i
    };
    let mut groups: BTreeMap<usize, Vec<PathBuf>> = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        groups.entry(owner(i)).or_default().push(f.clone());
    }
    let rel = |p: &Path| arbor_core::reader::path_text(p.strip_prefix(folder).unwrap_or(p));
    let mut units: Vec<Unit> = Vec::new();
    let mut claimed: HashMap<PathBuf, usize> = HashMap::new();
    for (owner, mut paths) in groups {
        if let Some(s) = stem(&files[owner]) {
            let beside = folder.join(&s);
            if folders.contains(&beside) {
                claimed.insert(beside.clone(), units.len());
                paths.push(beside);
            }
        }
        units.push(Unit { name: rel(&files[owner]), paths, base: Some(base.to_path_buf()) });
    }
    for f in folders {
        if !claimed.contains_key(&f) {
            units.push(Unit { name: rel(&f), paths: vec![f], base: Some(base.to_path_buf()) });
        }
    }
    units.sort_by(|a, b| a.name.cmp(&b.name));
    units
}

/// Threads for `--jobs 0`: one per core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Run `work` on every unit, `jobs` at a time, and hand each result to `emit` in the units'
/// order as soon as it and every one before it are done. `emit` returning `false` stops the
/// run (a closed output).
pub fn each<R: Send>(
    units: &[Unit],
    jobs: usize,
    work: impl Fn(&Unit) -> R + Sync,
    mut emit: impl FnMut(&Unit, R) -> bool,
) {
    let jobs = jobs.max(1);
    let window = 2 * jobs;
    let next = AtomicUsize::new(0);
    // Results waiting to be written, by unit index, and the index to write next.
    let state = Mutex::new((BTreeMap::<usize, R>::new(), 0usize, false));
    let changed = Condvar::new();
    std::thread::scope(|scope| {
        let mut started = 0;
        for _ in 0..jobs.min(units.len()) {
            let spawned = std::thread::Builder::new().name("arbor-unit".into()).spawn_scoped(scope, || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= units.len() {
                    return;
                }
                // Wait while the window ahead of the writer is full.
                {
                    let mut st = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    while i >= st.1 + window && !st.2 {
                        st = changed.wait(st).unwrap_or_else(std::sync::PoisonError::into_inner);
                    }
                    if st.2 {
                        return;
                    }
                }
                let r = work(&units[i]);
                let mut st = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                st.0.insert(i, r);
                changed.notify_all();
            });
            started += usize::from(spawned.is_ok());
        }
        for (written, unit) in units.iter().enumerate() {
            let r = if started == 0 {
                // No worker could be started: this thread does the work itself.
                work(unit)
            } else {
                let mut st = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                loop {
                    if let Some(r) = st.0.remove(&written) {
                        break r;
                    }
                    st = changed.wait(st).unwrap_or_else(std::sync::PoisonError::into_inner);
                }
            };
            let go_on = emit(unit, r);
            let mut st = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            st.1 = written + 1;
            st.2 = !go_on;
            changed.notify_all();
            if !go_on {
                break;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, first: &str) {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, format!("{first}\n")).unwrap();
    }

    #[test]
    fn a_folder_splits_into_sessions_with_their_children() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        // Copilot: a folder per session.
        write(root, "state-b/events.jsonl", r#"{"type":"session.start","data":{}}"#);
        write(root, "state-a/events.jsonl", r#"{"type":"session.start","data":{}}"#);
        // dsh: a root, a child and a grandchild by their headers; an orphan alone.
        write(root, "r.jsonl", r#"{"type":"session","version":0,"id":"R"}"#);
        write(root, "c1.jsonl", r#"{"type":"session","version":0,"id":"C1","parentSession":"R"}"#);
        write(root, "c2.jsonl", r#"{"type":"session","version":0,"id":"C2","parentSession":"C1"}"#);
        write(root, "o.jsonl", r#"{"type":"session","version":0,"id":"O","parentSession":"GONE"}"#);
        // Claude Code: a session file, its folder of sub-agents, and a 2.0 agent file beside it.
        write(root, "s1.jsonl", r#"{"type":"user","sessionId":"s1","uuid":"u"}"#);
        write(root, "s1/subagents/agent-x.jsonl", r#"{"type":"user","sessionId":"s1","uuid":"v"}"#);
        write(root, "agent-y.jsonl", r#"{"type":"user","sessionId":"s1","uuid":"w"}"#);
        // Codex: a thread, its sub-agent named by `thread_spawn`, and a thread alone.
        let meta = |id: &str, source: &str| {
            format!(
                r#"{{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{{"id":"{id}","source":{source}}}}}"#
            )
        };
        write(root, "rollout-t.jsonl", &meta("T", r#""cli""#));
        write(root, "rollout-k.jsonl", &meta("K", r#"{"subagent":{"thread_spawn":{"parent_thread_id":"T"}}}"#));
        write(root, "rollout-u.jsonl", &meta("U", r#""cli""#));
        std::fs::write(root.join("notes.txt"), "not a log").unwrap();
        let units = units(&[root.to_path_buf()]);
        let names: Vec<(&str, Vec<String>)> = units
            .iter()
            .map(|u| {
                let rel = u.paths.iter().map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
                (u.name.as_str(), rel.collect())
            })
            .collect();
        assert_eq!(
            names,
            vec![
                ("o.jsonl", vec!["o.jsonl".to_owned()]),
                ("r.jsonl", vec!["c1.jsonl".into(), "c2.jsonl".into(), "r.jsonl".into()]),
                ("rollout-t.jsonl", vec!["rollout-k.jsonl".into(), "rollout-t.jsonl".into()]),
                ("rollout-u.jsonl", vec!["rollout-u.jsonl".into()]),
                ("s1.jsonl", vec!["agent-y.jsonl".into(), "s1.jsonl".into(), "s1".into()]),
                ("state-a", vec!["state-a".into()]),
                ("state-b", vec!["state-b".into()]),
            ]
        );
        assert!(units.iter().all(|u| u.base.as_deref() == Some(root)));
    }

    #[test]
    fn results_come_in_order_whatever_order_they_finish_in() {
        let units: Vec<Unit> =
            (0..40).map(|i| Unit { name: format!("{i:02}"), paths: Vec::new(), base: None }).collect();
        let mut seen = Vec::new();
        each(
            &units,
            3,
            |u| {
                // Later units finish first.
                let n: u64 = u.name.parse().unwrap();
                std::thread::sleep(std::time::Duration::from_millis((40 - n) % 7));
                n
            },
            |_, n| {
                seen.push(n);
                true
            },
        );
        assert_eq!(seen, (0..40).collect::<Vec<u64>>());
        // Stopping early stops the workers.
        let mut count = 0;
        each(
            &units,
            2,
            |_| (),
            |_, _| {
                count += 1;
                count < 5
            },
        );
        assert_eq!(count, 5);
    }
}
