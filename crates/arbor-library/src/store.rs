//! The library on disk: one SQLite file holding each session's summary, the usage its reports
//! sum, the files it was read from (size, modification time, identity), and its transcript's
//! text in an FTS5 index (SPEC 6.1).
//!
//! SQLite (rusqlite, bundled) because one file holds it all, an update is one transaction (a
//! library is never half written: a crash leaves the one before), FTS5 ranks hits by bm25, and
//! the bundled build needs no system library on any OS. The schema's version is the file's
//! `PRAGMA user_version`: a file of another version, or one SQLite cannot read, is rebuilt and
//! the open says so (`Library::notice`), never trusted.
//!
//! An update stats the files each stored session was read from: a session whose files are all
//! as they were is kept as it is; one whose files changed, and every new one, is analysed again
//! (several at once, each on one thread); a session no longer given is dropped.

use crate::summary::{summarize_report, Booked, Summary};
use arbor_core::report::{Outcome, Report, Usage};
use arbor_core::transcript::PartKind;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// The schema's version, in `PRAGMA user_version`. 2: a log read whole keeps a summary per root
/// session (`sessions`), so a project's resumed sessions book their replays once. 3: the text
/// index is filled once per entry, not by a trigger per item, and apart from the summaries
/// (`Library::index`), so that a library's sessions are there at the speed of their analysis.
/// 4: an item's `owner` (its session) is no foreign key: the item goes with its entry as its
/// session does, and a session's deletion checked every item for its own (no index on `owner`):
/// an update after one file grew took 5.3 s of CPU on a library of 9.8 million items.
/// 5: an entry keeps `quick`, the few stamps that show it changed when its sub-agents are all
/// settled (`Library::update`), and `heads` keeps each Claude Code file's first ids by its stamp
/// (`Library::entries_of_places`): an open with nothing changed stated 151,038 files and read
/// 10,000 heads at 10,000 sessions.
/// 6: a Gemini CLI session's `<session_context>` message is no turn, and its project is the folder
/// the CLI wrote in `.project_root`: summaries made before count one turn more and name the
/// folder's hash.
/// 7: a Codex sub-agent's rollout is read with its parent's (`heads.codex` keeps each rollout's
/// links): a library made before lists it as a session of its own, and its parent's summary
/// without it.
pub const SCHEMA: i64 = 7;

/// Characters of one transcript part kept in the full-text index (a tool's result can be
/// megabytes; its first 32 K characters are what a person searches for).
pub const TEXT_BUDGET: usize = 32 * 1024;

const CREATE: &str = "
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    paths TEXT NOT NULL,
    folder TEXT NOT NULL,
    files TEXT NOT NULL,
    quick TEXT,
    indexed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE heads (
    path TEXT PRIMARY KEY,
    stamp TEXT NOT NULL,
    uuid TEXT,
    session TEXT,
    codex TEXT
);
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    entry INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    members TEXT NOT NULL,
    summary TEXT NOT NULL
);
CREATE INDEX sessions_entry ON sessions(entry);
CREATE TABLE booked (
    session INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    time REAL,
    model TEXT,
    usage TEXT NOT NULL
);
CREATE INDEX booked_session ON booked(session);
CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    entry INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    owner INTEGER NOT NULL,
    session TEXT NOT NULL,
    item INTEGER NOT NULL,
    file TEXT NOT NULL,
    line INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX items_entry ON items(entry);
CREATE VIRTUAL TABLE texts USING fts5(text, content='items', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER items_out AFTER DELETE ON items BEGIN
    INSERT INTO texts(texts, rowid, text) VALUES ('delete', old.id, old.text);
END;
";

/// What to keep in the library: a session's file or folder (its name in the library), the
/// paths it is read from (itself; or, for a folder split as `arbor analyze --each` splits it,
/// its files), and the folder it was found in (its project when the log names no working
/// folder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: PathBuf,
    pub paths: Vec<PathBuf>,
    pub folder: String,
}

impl Entry {
    /// A session read from its own path alone (a place's: a Claude Code session file brings
    /// its sub-agents along, a folder is read whole).
    pub fn one(path: PathBuf, folder: String) -> Entry {
        Entry { paths: vec![path.clone()], path, folder }
    }

    /// The library's entries for the logs found in the harnesses' places: a Claude Code
    /// project's sessions as `claude_project` groups them, every other log an entry of its own.
    /// The projects are grouped a core each at once (each session file's head is read).
    pub fn of_places(found: Vec<crate::places::Found>) -> Vec<Entry> {
        Entry::of_places_knowing(found, &Heads::default()).0
    }

    /// `of_places`, the heads of the files `known` holds with the same stamp not read again;
    /// with the heads of every Claude Code file now there (`Heads::changed` when they differ).
    pub fn of_places_knowing(found: Vec<crate::places::Found>, known: &Heads) -> (Vec<Entry>, Heads) {
        // In order: an entry, or (the first time one is met) a project to group.
        let mut slots: Vec<Result<Entry, (PathBuf, String)>> = Vec::new();
        let mut projects: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
        // The session files' stamps as finding them stated them.
        let stated: std::collections::HashMap<PathBuf, (u64, i128, u64)> =
            found.iter().filter_map(|f| Some((f.path.clone(), f.stamp?))).collect();
        let mut rollouts: Vec<(PathBuf, String)> = Vec::new();
        for f in found {
            if f.harness == crate::places::Harness::Codex {
                rollouts.push((f.path, f.folder));
                continue;
            }
            let project = f.path.parent().filter(|_| f.harness == crate::places::Harness::ClaudeCode);
            match project {
                Some(dir) => {
                    if projects.insert(dir.to_path_buf()) {
                        slots.push(Err((dir.to_path_buf(), f.folder)));
                    }
                }
                None => slots.push(Ok(Entry::one(f.path, f.folder))),
            }
        }
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        let grouped = par_map(&slots, jobs, |slot| match slot {
            Ok(_) => (Vec::new(), Vec::new()),
            Err((dir, folder)) => Entry::claude_project_knowing(dir, folder, known, &stated),
        });
        let mut heads = Heads::default();
        let mut entries = Vec::new();
        for (slot, (g, h)) in slots.into_iter().zip(grouped) {
            match slot {
                Ok(e) => entries.push(e),
                Err(_) => entries.extend(g),
            }
            heads.map.extend(h);
        }
        let (threads, h) = Entry::codex_threads(rollouts, known, &stated);
        entries.extend(threads);
        heads.map.extend(h);
        heads.changed = heads.map != known.map;
        (entries, heads)
    }

    /// Codex rollouts (each with the folder it was found in) as entries: a sub-agent's rollout
    /// with its parent's, each tree one entry whose path is its root's (SPEC 2.5: a child's
    /// thread stands under its parent only when both are read). A rollout's parent is the one
    /// its first line names (`thread-spawn`); for a sub-agent whose first line names none, a
    /// rollout here whose later lines started it (`activity`), else the one rollout here that
    /// entered review mode within a second before a review sub-agent started (`time-window`),
    /// as `settle` links them; only the rollouts that ran when such a sub-agent started are read
    /// for those lines. A rollout's links are taken from `known` when its stamp is the one there.
    /// A rollout nothing here links stays an entry of its own.
    pub fn codex_threads(
        rollouts: Vec<(PathBuf, String)>,
        known: &Heads,
        stated: &std::collections::HashMap<PathBuf, (u64, i128, u64)>,
    ) -> (Vec<Entry>, Vec<(String, Head)>) {
        use arbor_core::formats::{thread_head, THREAD_REVIEW_WINDOW_MS};
        let mut rollouts = rollouts;
        rollouts.sort();
        rollouts.dedup_by(|a, b| a.0 == b.0);
        let keys: Vec<String> = rollouts.iter().map(|r| arbor_core::reader::path_text(&r.0)).collect();
        let mut heads: Vec<Head> = rollouts
            .iter()
            .zip(&keys)
            .map(|((path, _), key)| {
                let (size, mtime, ino) = match stated.get(path) {
                    Some(&s) => s,
                    None => {
                        let Stamp(_, size, mtime, ino) = stamp_of(path, String::new());
                        (size, mtime, ino)
                    }
                };
                match known.map.get(key) {
                    Some(h) if (h.size, h.mtime, h.ino) == (size, mtime, ino) && h.codex.is_some() => h.clone(),
                    _ => {
                        let head = first_line(path).as_deref().and_then(thread_head);
                        let codex = Some(Threaded { head, body: None });
                        Head { size, mtime, ino, uuid: None, session: None, codex }
                    }
                }
            })
            .collect();
        let thread: Vec<Option<arbor_core::formats::ThreadHead>> =
            heads.iter().map(|h| h.codex.as_ref().and_then(|c| c.head.clone())).collect();
        let mut by_id: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (i, t) in thread.iter().enumerate() {
            if let Some(t) = t {
                by_id.entry(t.id.as_str()).or_insert(i);
            }
        }
        let mut parent: Vec<Option<usize>> = thread
            .iter()
            .enumerate()
            .map(|(i, t)| t.as_ref()?.parent.as_deref().and_then(|p| by_id.get(p).copied()).filter(|&p| p != i))
            .collect();
        // Sub-agents whose first line names no parent, and when each started.
        let unlinked: Vec<(usize, f64)> = thread
            .iter()
            .enumerate()
            .filter_map(|(c, t)| t.as_ref().filter(|t| t.subagent && t.parent.is_none())?.start.map(|s| (c, s)))
            .collect();
        if !unlinked.is_empty() {
            // The rollouts that ran when one of them started (began before it, written since) are
            // read for the lines that would link it: those only, once each.
            let began: Vec<f64> =
                thread.iter().map(|t| t.as_ref().and_then(|t| t.start).unwrap_or(f64::NEG_INFINITY)).collect();
            let written: Vec<f64> = heads.iter().map(|h| h.mtime as f64 / 1e6).collect();
            for j in 0..heads.len() {
                let ran = unlinked
                    .iter()
                    .any(|&(c, start)| c != j && began[j] <= start && written[j] >= start - THREAD_REVIEW_WINDOW_MS);
                if let Some(codex) = heads[j].codex.as_mut().filter(|x| ran && x.body.is_none()) {
                    codex.body = Some(rollout_body(&rollouts[j].0));
                }
            }
            // Who started whom, and every review's time with its rollout.
            let mut started: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
            let mut reviews: Vec<(f64, usize)> = Vec::new();
            for (j, h) in heads.iter().enumerate() {
                let Some(body) = h.codex.as_ref().and_then(|x| x.body.as_ref()) else { continue };
                for child in &body.started {
                    started.entry(child.as_str()).or_insert(j);
                }
                reviews.extend(body.reviews.iter().map(|&r| (r, j)));
            }
            reviews.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for &(c, start) in &unlinked {
                let t = thread[c].as_ref().expect("an unlinked sub-agent has a head");
                // Its activity first; else the one rollout whose review window it started in.
                let by_activity = started.get(t.id.as_str()).copied().filter(|&j| j != c);
                let by_window = || {
                    let from = reviews.partition_point(|r| r.0 < start - THREAD_REVIEW_WINDOW_MS);
                    let to = reviews.partition_point(|r| r.0 <= start).max(from);
                    let mut owners: Vec<usize> = reviews[from..to].iter().map(|r| r.1).filter(|&j| j != c).collect();
                    owners.dedup();
                    (t.review && owners.len() == 1).then(|| owners[0])
                };
                parent[c] = by_activity.or_else(by_window);
            }
        }
        // Each rollout under the root of its parents (a cycle stops where it started).
        let root = |mut i: usize| {
            for _ in 0..heads.len() {
                match parent[i] {
                    Some(p) if p != i => i = p,
                    _ => break,
                }
            }
            i
        };
        let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = std::collections::BTreeMap::new();
        for i in 0..heads.len() {
            groups.entry(root(i)).or_default().push(i);
        }
        let entries = groups
            .into_iter()
            .map(|(r, members)| {
                let mut paths = vec![rollouts[r].0.clone()];
                paths.extend(members.into_iter().filter(|&m| m != r).map(|m| rollouts[m].0.clone()));
                Entry { path: rollouts[r].0.clone(), paths, folder: rollouts[r].1.clone() }
            })
            .collect();
        let kept = keys.into_iter().zip(heads).collect();
        (entries, kept)
    }

    /// A Claude Code project folder's entries: each session file with the files that must be
    /// read with it. A resumed session's file replays the chain it resumes, from its first line
    /// (SPEC 2.4), and that replay counts once, where it was first written, only when both files
    /// are read together (read alone, a resume counts it again); so the session files whose
    /// first line with a `uuid` is the same one are one entry. A 2.0 `agent-*.jsonl` beside them
    /// goes with the session its first line names (`sessionId`); a session's own
    /// `<session>/subagents/` comes along when its file is read. Everything else stays apart,
    /// so that an update reads again only the chain that changed.
    pub fn claude_project(dir: &Path, folder: &str) -> Vec<Entry> {
        Entry::claude_project_knowing(dir, folder, &Heads::default(), &Default::default()).0
    }

    /// `claude_project`, a file's head taken from `known` when its stamp is the one there (a
    /// file's stamp from `stated` when it is there, else stated); with the heads of its files.
    fn claude_project_knowing(
        dir: &Path,
        folder: &str,
        known: &Heads,
        stated: &std::collections::HashMap<PathBuf, (u64, i128, u64)>,
    ) -> (Vec<Entry>, Vec<(String, Head)>) {
        let Ok(list) = std::fs::read_dir(dir) else { return (Vec::new(), Vec::new()) };
        let mut sessions: Vec<(PathBuf, Head)> = Vec::new();
        let mut agents: Vec<(PathBuf, Head)> = Vec::new();
        let mut heads: Vec<(String, Head)> = Vec::new();
        for e in list.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !arbor_core::reader::is_log_name(&name) {
                continue;
            }
            let path = e.path();
            let (size, mtime, ino) = match stated.get(&path) {
                Some(&s) => s,
                None => {
                    // The entry's own metadata: a stat relative to the folder, no path walked again.
                    let Ok(meta) = e.metadata() else { continue };
                    if !meta.is_file() {
                        continue;
                    }
                    stamp_parts(&meta)
                }
            };
            let key = arbor_core::reader::path_text(&path);
            let head = match known.map.get(&key) {
                Some(h) if (h.size, h.mtime, h.ino) == (size, mtime, ino) => h.clone(),
                _ => {
                    let (uuid, session) = head_ids(&path);
                    Head { size, mtime, ino, uuid, session, codex: None }
                }
            };
            heads.push((key, head.clone()));
            if name.starts_with("agent-") {
                agents.push((path, head))
            } else {
                sessions.push((path, head))
            }
        }
        sessions.sort_by(|a, b| a.0.cmp(&b.0));
        agents.sort_by(|a, b| a.0.cmp(&b.0));
        // Sessions by the first uuid of their chain; each group in the order of its first file.
        let mut by_chain: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut groups: Vec<Vec<PathBuf>> = Vec::new();
        let mut by_stem: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for (s, head) in sessions {
            let g = match head.uuid.as_ref().and_then(|u| by_chain.get(u)) {
                Some(&g) => g,
                None => {
                    groups.push(Vec::new());
                    if let Some(u) = head.uuid {
                        by_chain.insert(u, groups.len() - 1);
                    }
                    groups.len() - 1
                }
            };
            if let Some(stem) = log_stem(&s) {
                by_stem.insert(stem, g);
            }
            groups[g].push(s);
        }
        for (a, head) in agents {
            match head.session.and_then(|sid| by_stem.get(&sid).copied()) {
                Some(g) => groups[g].push(a),
                None => groups.push(vec![a]),
            }
        }
        let entries = groups
            .into_iter()
            .filter_map(|paths| {
                let path = paths.first()?.clone();
                Some(Entry { path, paths, folder: folder.to_owned() })
            })
            .collect();
        (entries, heads)
    }
}

/// A Claude Code file's first ids (`head_ids`) as they were read at a stamp (size, modification
/// time, identity): read again only when the file is no longer as it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    size: u64,
    mtime: i128,
    ino: u64,
    uuid: Option<String>,
    session: Option<String>,
    /// A Codex rollout's links (`codex_threads`).
    codex: Option<Threaded>,
}

/// What the library keeps of a Codex rollout to group it with its parent's: its first line's
/// links, and, once some sub-agent with no parent named needed them, its later lines'.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct Threaded {
    head: Option<arbor_core::formats::ThreadHead>,
    body: Option<arbor_core::formats::ThreadBody>,
}

/// The heads of Claude Code files and Codex rollouts, by path (`Library::heads`, `Entry::of_places_knowing`).
#[derive(Debug, Clone, Default)]
pub struct Heads {
    map: std::collections::HashMap<String, Head>,
    /// Not the ones they were made from: to be kept.
    pub changed: bool,
}

impl Heads {
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// A log file's name without its extensions (`a.jsonl.zst` → `a`).
fn log_stem(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    Some(name.split('.').next().unwrap_or(&name).to_owned())
}

/// The first `uuid` a Claude Code file's lines carry, and its first `sessionId`, from its head.
fn head_ids(path: &Path) -> (Option<String>, Option<String>) {
    use std::io::{BufRead, Read};
    let Ok(file) = arbor_core::reader::open(path) else { return (None, None) };
    let mut lines = std::io::BufReader::new(file.take(1 << 16));
    let (mut uuid, mut session) = (None, None);
    let mut line = Vec::new();
    while uuid.is_none() && lines.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) {
            let text = |k: &str| v.get(k).and_then(|x| x.as_str()).filter(|x| !x.is_empty()).map(str::to_owned);
            session = session.or_else(|| text("sessionId"));
            uuid = text("uuid");
        }
        line.clear();
    }
    (uuid, session)
}

/// A file's first line (at most 64 KiB of it), as the engine's reader opens the file (a `.zst`
/// decompressed): what a log's place among others is read from.
pub fn first_line(path: &Path) -> Option<Vec<u8>> {
    use std::io::{BufRead, Read};
    let file = arbor_core::reader::open(path).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(file.take(1 << 16)).read_until(b'\n', &mut line).ok()?;
    Some(line)
}

/// What a Codex rollout's lines say of other threads (`arbor_core::formats::thread_body_line`),
/// only the lines that name one of its markers parsed.
fn rollout_body(path: &Path) -> arbor_core::formats::ThreadBody {
    use std::io::BufRead;
    let mut body = arbor_core::formats::ThreadBody::default();
    let Ok(file) = arbor_core::reader::open(path) else { return body };
    let finders: Vec<memchr::memmem::Finder> =
        arbor_core::formats::THREAD_BODY_MARKERS.iter().map(|m| memchr::memmem::Finder::new(m.as_bytes())).collect();
    let mut lines = std::io::BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::new();
    while lines.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
        if finders.iter().any(|f| f.find(&line).is_some()) {
            arbor_core::formats::thread_body_line(&line, &mut body);
        }
        line.clear();
    }
    body
}

/// A file as it was when read: its name, size, modification time (ns) and identity (the inode
/// on Unix; 0 where the OS gives none that is stable).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Stamp(String, u64, i128, u64);

fn stamp(path: &Path) -> Stamp {
    stamp_of(path, arbor_core::reader::path_text(path))
}

fn stamp_of(path: &Path, name: String) -> Stamp {
    let Ok(m) = std::fs::metadata(path) else { return Stamp(name, u64::MAX, 0, 0) };
    let (size, mtime, id) = stamp_parts(&m);
    Stamp(name, size, mtime, id)
}

/// A file's size (0 for a folder), modification time (ns) and identity, as a stamp keeps them.
pub(crate) fn stamp_parts(m: &std::fs::Metadata) -> (u64, i128, u64) {
    let mtime = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    #[cfg(unix)]
    let id = std::os::unix::fs::MetadataExt::ino(m);
    #[cfg(not(unix))]
    let id = 0;
    (if m.is_dir() { 0 } else { m.len() }, mtime, id)
}

/// Whether the file a stamp names is as it was (its size, time and identity; its name is not
/// made again).
fn unchanged(s: &Stamp) -> bool {
    let now = stamp_of(Path::new(&s.0), String::new());
    (now.1, now.2, now.3) == (s.1, s.2, s.3)
}

/// Whether every file stamped is as it was: a stamp `fresh` holds by it, the others stated.
/// (Stating a folder's files relative to it, `fstatat`, cost as much: 260 against 247 ms of
/// CPU for an open at 10,000 sessions, the folders' opens eating the path walks saved.)
fn all_unchanged(stamps: &[Stamp], fresh: &std::collections::HashMap<String, (u64, i128, u64)>) -> bool {
    stamps.iter().all(|s| match fresh.get(&s.0) {
        Some(&now) => now == (s.1, s.2, s.3),
        None => unchanged(s),
    })
}

/// `f` of each of `items`, in their order, `jobs` threads at once, each taking every `jobs`-th
/// (runs of them were uneven: a place's entries come together, and Claude Code's have tens of
/// files each).
fn par_map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let jobs = jobs.max(1).min(items.len() / 64 + 1);
    if jobs == 1 {
        return items.iter().map(f).collect();
    }
    std::thread::scope(|scope| {
        let f = &f;
        let parts: Vec<_> = (0..jobs)
            .map(|k| scope.spawn(move || items.iter().skip(k).step_by(jobs).map(f).collect::<Vec<R>>()))
            .collect();
        let mut parts: Vec<_> =
            parts.into_iter().map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)).into_iter()).collect();
        (0..items.len()).filter_map(|i| parts[i % jobs].next()).collect()
    })
}

/// One transcript part, as the index keeps it.
#[derive(Debug, Clone, PartialEq)]
struct Item {
    session: String,
    item: u32,
    file: String,
    line: u64,
    kind: &'static str,
    text: String,
}

/// A session read for the library.
struct Read {
    entry: Entry,
    stamps: Vec<Stamp>,
    /// The stamps that show a change when the entry's sub-agents are all settled (`quick`).
    quick: Option<Vec<Stamp>>,
    /// A summary per root session, with what it booked and the sessions it sums up.
    sessions: Vec<(Summary, Vec<Booked>, Vec<String>)>,
}

/// What an update did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Updated {
    /// Sessions read (new or changed).
    pub read: usize,
    /// Sessions kept as they were.
    pub kept: usize,
    /// Sessions no longer there, dropped.
    pub dropped: usize,
}

/// A full-text hit: the session, the transcript item (its 0-based row), and its file:line.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Hit {
    /// What to open: the path of the summary its session is under.
    pub path: String,
    /// The summary's `paths`: every file to open when `path` alone is not the whole session.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    pub session: String,
    pub item: u32,
    pub file: String,
    pub line: u64,
    /// `prompt`, `text`, `tool-call`, … (the transcript's part kinds).
    pub kind: String,
    /// The text around the match, with the matched terms between `[` and `]`.
    pub snippet: String,
    /// bm25: lower is better.
    pub rank: f64,
}

#[derive(Debug)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        Error(format!("library: {e}"))
    }
}

/// The library file: `ARBOR_LIBRARY` when set, else `library.sqlite3` in the platform's local
/// data folder's `arbor/` (`~/.local/share`, `~/Library/Application Support`, `%LOCALAPPDATA%`).
pub fn default_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ARBOR_LIBRARY").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    dirs::data_local_dir().map(|d| d.join("arbor").join("library.sqlite3"))
}

/// How long an open or a write waits for another process's hold on the library.
const BUSY: std::time::Duration = std::time::Duration::from_secs(30);

pub struct Library {
    conn: Connection,
    /// Why the library was rebuilt when it was opened (corrupt, or of another version).
    pub notice: Option<String>,
    /// Files stated a moment ago by `entries_of_places` (the Claude Code files' heads'
    /// stamps): the next `update` takes their stamps from here rather than stating them again.
    fresh: std::collections::HashMap<String, (u64, i128, u64)>,
}

impl Library {
    /// Opens the library at `path`, made when missing; rebuilt, with a notice, when it cannot
    /// be read or is of another schema.
    pub fn open(path: &Path) -> Result<Library, Error> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error(format!("cannot make {}: {e}", dir.display())))?;
        }
        let existed = path.exists();
        // Another process (the app, another `arbor sessions`) may hold the file a moment (a WAL
        // being checkpointed as its last reader closes): wait for it as for a write, and a library
        // still busy is an error, never one to rebuild.
        let opened = Connection::open(path).and_then(|c| {
            c.busy_timeout(BUSY)?;
            let v: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
            Ok((v, c))
        });
        if let Err(rusqlite::Error::SqliteFailure(e, _)) = &opened {
            if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) {
                return Err(Error(format!("the library at {} is busy: {e}", path.display())));
            }
        }
        let notice = match opened.map_err(Error::from) {
            Ok((v, conn)) if v == SCHEMA => return Library::ready(conn, None),
            Ok((0, conn)) if !existed || is_empty(&conn)? => return Library::made(conn, None),
            Ok((v, _)) => format!("the library at {} is of schema {v}, not {SCHEMA}: rebuilt", path.display()),
            Err(e) => format!("the library at {} could not be read ({e}): rebuilt", path.display()),
        };
        for tail in ["", "-wal", "-shm", "-journal"] {
            let mut p = path.as_os_str().to_owned();
            p.push(tail);
            let _ = std::fs::remove_file(PathBuf::from(p));
        }
        Library::made(Connection::open(path)?, Some(notice))
    }

    /// A library in memory (for paths given on the command line, which are not this machine's
    /// places).
    pub fn in_memory() -> Result<Library, Error> {
        Library::made(Connection::open_in_memory()?, None)
    }

    fn made(conn: Connection, notice: Option<String>) -> Result<Library, Error> {
        conn.execute_batch(CREATE)?;
        conn.pragma_update(None, "user_version", SCHEMA)?;
        Library::ready(conn, notice)
    }

    fn ready(conn: Connection, notice: Option<String>) -> Result<Library, Error> {
        // The app and `arbor sessions` may update the same library at once: one waits.
        conn.busy_timeout(BUSY)?;
        conn.pragma_update(None, "foreign_keys", true)?;
        crate::rank::register(&conn)?;
        // WAL: readers (the app's list) go on while an update writes.
        let _ = conn.pragma_update(None, "journal_mode", "WAL");
        // A library whose tables were damaged after its header: the first read says so.
        conn.query_row("SELECT count(*) FROM entries", [], |r| r.get::<_, i64>(0))?;
        Ok(Library { conn, notice, fresh: Default::default() })
    }

    /// The library's entries for the logs found in the harnesses' places (`Entry::of_places`),
    /// each Claude Code file's head read only when the file is not as the library last saw it;
    /// the heads kept for the next time when they changed.
    pub fn entries_of_places(&mut self, found: Vec<crate::places::Found>) -> Result<Vec<Entry>, Error> {
        let known = self.heads()?;
        let (entries, heads) = Entry::of_places_knowing(found, &known);
        if heads.changed {
            self.keep_heads(&known, &heads)?;
        }
        self.fresh = heads.map.into_iter().map(|(path, h)| (path, (h.size, h.mtime, h.ino))).collect();
        Ok(entries)
    }

    /// The heads the library keeps.
    pub fn heads(&self) -> Result<Heads, Error> {
        let mut q = self.conn.prepare("SELECT path, stamp, uuid, session, codex FROM heads")?;
        let rows = q.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        })?;
        let mut heads = Heads::default();
        for row in rows {
            let (path, stamp, uuid, session, codex) = row?;
            // A stamp (or a rollout's links) that does not read is a head read again.
            let codex = match codex.map(|c| serde_json::from_str::<Threaded>(&c)) {
                Some(Ok(c)) => Some(c),
                Some(Err(_)) => continue,
                None => None,
            };
            if let Ok((size, mtime, ino)) = serde_json::from_str::<(u64, i128, u64)>(&stamp) {
                heads.map.insert(path, Head { size, mtime, ino, uuid, session, codex });
            }
        }
        Ok(heads)
    }

    /// `now` kept in place of `known`: the heads added, changed or gone, in one transaction.
    fn keep_heads(&mut self, known: &Heads, now: &Heads) -> Result<(), Error> {
        let tx = self.conn.transaction()?;
        {
            let mut del = tx.prepare_cached("DELETE FROM heads WHERE path = ?1")?;
            for path in known.map.keys().filter(|p| !now.map.contains_key(*p)) {
                del.execute([path])?;
            }
            let mut put = tx.prepare_cached(
                "INSERT OR REPLACE INTO heads (path, stamp, uuid, session, codex) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (path, h) in now.map.iter().filter(|(p, h)| known.map.get(*p) != Some(h)) {
                put.execute(params![
                    path,
                    json(&(h.size, h.mtime, h.ino)),
                    h.uuid,
                    h.session,
                    h.codex.as_ref().map(json)
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Brings the library up to `entries`: new and changed ones read (`jobs` at once), gone
    /// ones dropped, the rest kept, in one transaction.
    pub fn update(&mut self, entries: &[Entry], jobs: usize) -> Result<Updated, Error> {
        let fresh = std::mem::take(&mut self.fresh);
        let stored: Vec<(i64, String, String, String)> = {
            // `files` read only where there is no `quick`: it names every file, and its pages
            // were a tenth of an open's time.
            let mut q = self.conn.prepare("SELECT id, path, paths, coalesce(quick, files) FROM entries")?;
            let rows = q.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        let wanted: std::collections::HashMap<String, &Entry> =
            entries.iter().map(|e| (arbor_core::reader::path_text(&e.path), e)).collect();
        let mut done = Updated::default();
        let mut gone = Vec::new();
        let mut kept = std::collections::HashSet::new();
        // An entry is kept when it is still wanted with the same files (a resume that joined a
        // chain makes its entry again) and its stamps are as they were: its `quick` ones when it
        // has them (its sub-agents all settled: a few per session), else every file's (151,000
        // files for 10,000 sessions), `jobs` at once.
        let same = par_map(&stored, jobs, |(_, path, paths, stamps)| {
            let Some(entry) = wanted.get(path) else { return false };
            let same_paths = serde_json::from_str::<Vec<String>>(paths).is_ok_and(|p| {
                p.len() == entry.paths.len()
                    && p.iter().zip(&entry.paths).all(|(a, b)| *a == arbor_core::reader::path_text(b))
            });
            same_paths
                && serde_json::from_str::<Vec<Stamp>>(stamps)
                    .is_ok_and(|stamps| !stamps.is_empty() && all_unchanged(&stamps, &fresh))
        });
        for ((id, path, ..), same) in stored.iter().zip(same) {
            if same {
                kept.insert(path.as_str());
                done.kept += 1;
            } else {
                gone.push(*id);
                if !wanted.contains_key(path) {
                    done.dropped += 1;
                }
            }
        }
        let todo: Vec<&Entry> =
            entries.iter().filter(|e| !kept.contains(arbor_core::reader::path_text(&e.path).as_str())).collect();
        let tx = self.conn.transaction()?;
        for id in gone {
            tx.execute("DELETE FROM entries WHERE id = ?1", [id])?;
        }
        let mut written: Result<(), Error> = Ok(());
        in_parallel(
            &todo,
            jobs,
            |entry, threads| read(entry, threads),
            |r| {
                if written.is_ok() {
                    written = insert(&tx, &r);
                    done.read += 1;
                }
            },
        );
        written?;
        tx.commit()?;
        Ok(done)
    }

    /// Indexes the text of every entry not yet indexed (`jobs` at once), a few entries a
    /// transaction so that searches go on meanwhile; returns how many it indexed. A search finds
    /// what is indexed: `arbor sessions --search` indexes first, the app after listing.
    pub fn index(&mut self, jobs: usize) -> Result<usize, Error> {
        let todo: Vec<(i64, Entry)> = {
            let mut q =
                self.conn.prepare("SELECT id, path, paths, folder FROM entries WHERE indexed = 0 ORDER BY path")?;
            let rows = q.query_map([], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?))
            })?;
            let mut out = Vec::new();
            for row in rows {
                let (id, path, paths, folder) = row?;
                let paths: Vec<String> = serde_json::from_str(&paths).unwrap_or_default();
                let entry =
                    Entry { path: PathBuf::from(path), paths: paths.into_iter().map(PathBuf::from).collect(), folder };
                out.push((id, entry));
            }
            out
        };
        let (mut done, mut failed): (usize, Option<Error>) = (0, None);
        let mut batch: Vec<(i64, Vec<Item>)> = Vec::new();
        let mut write = |batch: &[(i64, Vec<Item>)]| {
            if failed.is_none() {
                match self.index_batch(batch) {
                    Ok(n) => done += n,
                    Err(e) => failed = Some(e),
                }
            }
        };
        in_parallel(
            &todo,
            jobs,
            |(id, entry), threads| (*id, items(entry, threads)),
            |got| {
                batch.push(got);
                if batch.len() >= INDEX_BATCH {
                    write(&std::mem::take(&mut batch));
                }
            },
        );
        write(&batch);
        failed.map_or(Ok(done), Err)
    }

    /// Entries' items into the index, in one transaction; an entry changed meanwhile (gone or
    /// read again) is left alone.
    fn index_batch(&mut self, batch: &[(i64, Vec<Item>)]) -> Result<usize, Error> {
        let tx = self.conn.transaction()?;
        let mut done = 0;
        for (id, items) in batch {
            let owners: Vec<(i64, Vec<String>)> = {
                let mut q = tx.prepare_cached("SELECT id, members FROM sessions WHERE entry = ?1 ORDER BY id")?;
                let rows = q.query_map([id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
                let mut out = Vec::new();
                for row in rows {
                    let (sid, members) = row?;
                    out.push((sid, serde_json::from_str(&members).unwrap_or_default()));
                }
                out
            };
            let Some(first) = owners.first().map(|o| o.0) else { continue };
            let changed = tx.execute("UPDATE entries SET indexed = 1 WHERE id = ?1 AND indexed = 0", [id])?;
            if changed == 0 {
                continue;
            }
            let mut i = tx.prepare_cached(
                "INSERT INTO items (entry, owner, session, item, file, line, kind, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for item in items {
                let owner = owners.iter().find(|o| o.1.contains(&item.session)).map_or(first, |o| o.0);
                i.execute(params![
                    id,
                    owner,
                    item.session,
                    item.item,
                    item.file,
                    item.line as i64,
                    item.kind,
                    item.text
                ])?;
            }
            // The entry's texts into the index in one statement: FTS5 writes its pending terms
            // out at every statement's savepoint, so a row at a time (a trigger per item) wrote
            // the index out once per item, two thirds of a build's instructions.
            tx.execute("INSERT INTO texts(rowid, text) SELECT id, text FROM items WHERE entry = ?1", [id])?;
            done += 1;
        }
        tx.commit()?;
        Ok(done)
    }

    /// Every summary, by key.
    pub fn summaries(&self) -> Result<Vec<Summary>, Error> {
        // Sorted here: SQLite sorted the summaries' text through a temporary file.
        let mut q = self.conn.prepare("SELECT summary FROM sessions")?;
        let rows = q.query_map([], |r| r.get::<_, String>(0))?;
        let mut out: Vec<Summary> = Vec::new();
        for r in rows {
            out.push(serde_json::from_str(&r?).map_err(|e| Error(format!("library: a summary: {e}")))?);
        }
        out.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(out)
    }

    /// The usage booked by time (`model` none) and by model (`time` none), with each one's
    /// session key (`Summary::key`).
    pub fn booked(&self) -> Result<Vec<(String, Booked)>, Error> {
        let mut q = self
            .conn
            .prepare("SELECT s.key, b.time, b.model, b.usage FROM booked b JOIN sessions s ON s.id = b.session")?;
        let rows = q.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<f64>>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for r in rows {
            let (path, time, model, usage) = r?;
            let usage: Usage = serde_json::from_str(&usage).map_err(|e| Error(format!("library: usage: {e}")))?;
            out.push((path, Booked { time, model, usage }));
        }
        Ok(out)
    }

    /// The transcript items whose text matches every word of `text`, best first (bm25, as
    /// `rank::arbor_rank` works it out), at most `limit`, of the newest items that hold them
    /// (`search_before`: which ones, and how to go on to older ones).
    pub fn search(&self, text: &str, limit: usize) -> Result<Vec<Hit>, Error> {
        Ok(self.search_before(text, limit, None)?.hits)
    }

    /// The best `limit` matches of `text` among items indexed before item `before` (all items
    /// when none), and the oldest item searched when older ones were not (`Hits::older`: what
    /// to pass as `before` to go on). Of a word in more than `RANKED` items, the `RANKED`
    /// indexed last are ranked. A word of several tokens (`src/lib.rs`: a phrase) is looked for
    /// in a window of the newest items that hold all its tokens, `PHRASE_WINDOW` of them, four
    /// times as many while fewer than `limit` match, all at last: FTS5 checks the tokens'
    /// positions in every item that holds them all, 1.9 million items for `src/lib.rs` in a
    /// library of 10,000 sessions, where 3,311 hold the phrase.
    pub fn search_before(&self, text: &str, limit: usize, before: Option<i64>) -> Result<Hits, Error> {
        self.search_window(text, limit, before, PHRASE_WINDOW)
    }

    /// `search_before`, a phrase's first window `window` items.
    pub fn search_window(&self, text: &str, limit: usize, before: Option<i64>, window: usize) -> Result<Hits, Error> {
        let query = match_query(text);
        if query.is_empty() {
            return Ok(Hits::default());
        }
        let top = before.unwrap_or(i64::MAX);
        if let Some(tokens) = phrase_tokens(text) {
            let window = window.max(1);
            let newest: i64 = self.conn.query_row("SELECT coalesce(max(id), 0) FROM items", [], |r| r.get(0))?;
            let last = newest.min(top.saturating_sub(1));
            // Each word's items, for the rank's IDF: its matches among the `window` newest items
            // that hold its tokens, and as many per item numbered in the rest (bm25 counts every
            // match, a walk of every item holding a common word's tokens).
            let mut counts = Vec::new();
            // The first window: as many items as a page of the sparsest word's matches takes, at
            // the density its count saw (a round that finds too few is a walk wasted).
            let mut first = window;
            for w in text.split_whitespace() {
                let own = phrase_tokens(w).unwrap_or_else(|| match_query(w));
                let from = self.nth_newest(&own, window, top)?;
                let n: i64 = self
                    .conn
                    .prepare_cached("SELECT count(*) FROM texts WHERE texts MATCH ?1 AND rowid >= ?2 AND rowid < ?3")?
                    .query_row(params![match_query(w), from.unwrap_or(i64::MIN), top], |r| r.get(0))?;
                if from.is_some() {
                    let needed = (window as f64 * limit as f64 * 1.25 / n.max(1) as f64).min(1e12) as usize;
                    first = first.max(needed);
                }
                counts.push(match from {
                    Some(f) => {
                        let span = last.saturating_sub(f).saturating_add(1).max(1);
                        (n as f64 * newest.max(1) as f64 / span as f64).max(n as f64).to_string()
                    }
                    None => n.to_string(),
                });
            }
            let counts = counts.join(",");
            let mut window = first;
            loop {
                let floor = self.nth_newest(&tokens, window, top)?;
                let hits = self.ranked(&query, limit, floor.unwrap_or(i64::MIN), top, Some(&counts))?;
                if hits.len() >= limit || floor.is_none() {
                    return Ok(Hits { hits, older: floor });
                }
                window = window.saturating_mul(4);
            }
        }
        // The lowest item of the ranked set: the `RANKED`-th newest match, none when fewer match.
        // Ranking every match of a common word cost as much as the library is big (a score per
        // item, and bm25 counts every match first): seconds at 10,000 sessions. FTS5 walks a
        // term's items newest first at once, and takes a rowid range as its own.
        let floor = self.nth_newest(&query, RANKED, top)?;
        let hits = self.ranked(&query, limit, floor.unwrap_or(i64::MIN), top, None)?;
        Ok(Hits { hits, older: floor })
    }

    /// `search`, ranking the `ranked` matches indexed last at most (all of them when fewer match).
    pub fn search_ranking(&self, text: &str, limit: usize, ranked: usize) -> Result<Vec<Hit>, Error> {
        let query = match_query(text);
        if query.is_empty() {
            return Ok(Vec::new());
        }
        let floor = self.nth_newest(&query, ranked, i64::MAX)?;
        self.ranked(&query, limit, floor.unwrap_or(i64::MIN), i64::MAX, None)
    }

    /// The `n`-th newest item matching `query` below item `top`; none when fewer match.
    fn nth_newest(&self, query: &str, n: usize, top: i64) -> Result<Option<i64>, Error> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT rowid FROM texts WHERE texts MATCH ?1 AND rowid < ?3 ORDER BY rowid DESC LIMIT 1 OFFSET ?2",
            )?
            .query_row(params![query, n.max(1) as i64 - 1, top], |r| r.get(0))
            .optional()?)
    }

    /// The best `limit` matches of `query` among items `from..top`, ranked with the phrases'
    /// item counts `counts` (`rank`'s `"c0,c1,…"`; none: counted).
    fn ranked(&self, query: &str, limit: usize, from: i64, top: i64, counts: Option<&str>) -> Result<Vec<Hit>, Error> {
        // The best `limit` by rank first, and only theirs joined and given a snippet: SQLite works
        // out every column of every match before it sorts, and a snippet or a join per match of a
        // common word cost more than the ranking (a query's max 62 -> 26 ms on a 28k-item library).
        // CROSS JOIN: the best first, each looked up in the index by its rowid; SQLite otherwise
        // walked every match of the word for the join (2 s of a common word's 2.3 at 9.8M items).
        let mut q = self.conn.prepare_cached(
            "WITH best(id, r) AS (SELECT rowid, arbor_rank(texts, ?5) FROM texts
                                  WHERE texts MATCH ?1 AND rowid >= ?3 AND rowid < ?4 ORDER BY 2, 1 LIMIT ?2)
             SELECT json_extract(s.summary, '$.path'), i.session, i.item, i.file, i.line, i.kind,
                    snippet(texts, 0, '[', ']', '…', 16), best.r, json_extract(s.summary, '$.paths')
             FROM best CROSS JOIN texts ON texts.rowid = best.id JOIN items i ON i.id = best.id
                  JOIN sessions s ON s.id = i.owner
             WHERE texts MATCH ?1 ORDER BY best.r, best.id",
        )?;
        let rows = q.query_map(params![query, limit as i64, from, top, counts], |r| {
            Ok(Hit {
                path: r.get(0)?,
                session: r.get(1)?,
                item: r.get(2)?,
                file: r.get(3)?,
                line: r.get::<_, i64>(4)? as u64,
                kind: r.get(5)?,
                snippet: r.get(6)?,
                rank: r.get(7)?,
                paths: r.get::<_, Option<String>>(8)?.and_then(|p| serde_json::from_str(&p).ok()).unwrap_or_default(),
            })
        })?;
        let mut hits: Vec<Hit> = rows.collect::<Result<_, _>>()?;
        for h in &mut hits {
            // A hit in a store's session opens the tree its place is in (`<store>/<root id>`,
            // `items`); one indexed with the whole store's line (before trees), the whole store.
            let in_store = |p: &str| Path::new(p).parent() == Some(Path::new(&h.path));
            if in_store(&h.file) {
                h.paths = vec![h.file.clone()];
            } else if h.paths.len() == 1 && in_store(&h.paths[0]) {
                h.paths.clear();
            }
        }
        Ok(hits)
    }
}

/// When a word of `text` is a phrase of several tokens: every token of every word as an FTS5
/// query of them all (a superset of the words' matches, found without checking positions).
/// None when each word is one token, or a word holds what is not ASCII (where the tokenizer's
/// split is not this one's, and a token cut in two would find too little).
fn phrase_tokens(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.iter().any(|w| !w.is_ascii()) {
        return None;
    }
    let split = |w: &str| -> Vec<String> {
        w.split(|c: char| !c.is_ascii_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_owned).collect()
    };
    if !words.iter().any(|w| split(w).len() > 1) {
        return None;
    }
    let tokens: Vec<String> = words.iter().flat_map(|w| split(w)).map(|t| format!("\"{t}\"")).collect();
    (!tokens.is_empty()).then(|| tokens.join(" "))
}

/// A search's hits, and where it stopped.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Hits {
    pub hits: Vec<Hit>,
    /// Items indexed before this one were not searched (the newest that hold the words were
    /// enough to rank): `Library::search_before` with it searches them.
    pub older: Option<i64>,
}

fn is_empty(conn: &Connection) -> Result<bool, Error> {
    let n: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
    Ok(n == 0)
}

/// Each word of what a person typed as an FTS5 phrase (quotes doubled), all of them required:
/// their text is never FTS5 syntax.
pub fn match_query(text: &str) -> String {
    text.split_whitespace().map(|w| format!("\"{}\"", w.replace('"', "\"\""))).collect::<Vec<_>>().join(" ")
}

fn kind_name(kind: PartKind) -> &'static str {
    match kind {
        PartKind::Prompt => "prompt",
        PartKind::Text => "text",
        PartKind::Reasoning => "reasoning",
        PartKind::ToolCall => "tool-call",
        PartKind::ToolResult => "tool-result",
        PartKind::Spawn => "spawn",
        PartKind::Received => "received",
        PartKind::Compaction => "compaction",
        PartKind::Notice => "notice",
        PartKind::Usage => "usage",
        PartKind::Image => "image",
    }
}

/// `work` on each of `todo`, `jobs` at once on threads of their own, each result handed to
/// `take` on this thread as it comes; with fewer items than jobs, each reads on every core.
fn in_parallel<T: Sync, R: Send>(
    todo: &[T],
    jobs: usize,
    work: impl Fn(&T, arbor_core::Threads) -> R + Sync,
    mut take: impl FnMut(R),
) {
    let threads = if todo.len() < jobs { arbor_core::Threads::PerCore } else { arbor_core::Threads::Caller };
    let next = AtomicUsize::new(0);
    let (send, recv) = mpsc::sync_channel::<R>(jobs.max(1) * 2);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1).min(todo.len().max(1)) {
            let send = send.clone();
            let (next, work) = (&next, &work);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = todo.get(i) else { break };
                if send.send(work(item, threads)).is_err() {
                    break;
                }
            });
        }
        drop(send);
        for r in recv {
            take(r);
        }
    });
}

/// One entry analysed (`threads`) and summarized.
fn read(entry: &Entry, threads: arbor_core::Threads) -> Read {
    let analysis = arbor_core::analyze_with(&entry.paths, &mut (), threads);
    let report = analysis.report();
    let mut summarized = summarize_report(&entry.path, &entry.folder, &analysis, &report);
    // A session opened by its entry's path alone would not be the one summarized when the entry
    // reads more (a Codex thread's sub-agents' rollouts, a resumed chain): its paths say so.
    if entry.paths.len() > 1 || entry.paths.first() != Some(&entry.path) {
        let path = arbor_core::reader::path_text(&entry.path);
        for s in summarized.iter_mut().filter(|s| s.summary.path == path) {
            s.summary.paths = entry.paths.iter().map(|p| arbor_core::reader::path_text(p)).collect();
        }
    }
    // What was given (a folder's time changes when a file appears in it), then what was read.
    let mut stamps: Vec<Stamp> = Vec::new();
    for p in std::iter::once(&entry.path).chain(&entry.paths).chain(analysis.files.iter().map(|f| &f.path)) {
        let s = stamp(p);
        if !stamps.iter().any(|t| t.0 == s.0) {
            stamps.push(s);
        }
        // A database in WAL mode (OpenCode's store) changes in its `-wal` before its own file
        // does: that is stamped too (a missing one as missing).
        if arbor_core::bytes::rows::is_sqlite(p) {
            let [wal, _] = arbor_core::bytes::rows::companions(p);
            stamps.push(stamp(&wal));
        }
    }
    let quick = quick(entry, &analysis, &report, &stamps);
    let sessions = summarized
        .into_iter()
        .map(|s| (s.summary, s.by_time.into_iter().chain(s.by_model).collect(), s.sessions))
        .collect();
    Read { entry: entry.clone(), stamps, quick, sessions }
}

/// The stamps that show whether a Claude Code entry changed, when fewer than all its files' are
/// enough: its own files' (the session files and 2.0 `agent-*.jsonl` it was given) and the
/// folders its other files (its sub-agents', `<session>/subagents/…`) are in, up to its project.
///
/// Enough when every sub-agent's run has ended in a line of its parent (SPEC 2.4: the spawn
/// call's `tool_result`, or a background spawn's `<task-notification>`) and no sub-agent file
/// was written after the last of the entry's own files: Claude Code writes a sub-agent's file
/// only between the parent's spawn call and its result (a `SendMessage` that resumes one is a
/// call of the parent too), so a settled sub-agent's file grows only after its parent's file
/// did; the compaction agent's run has no call and is settled when it stopped (the parent
/// writes its `compact_boundary` after the summary, and the times say the parent wrote last);
/// and a file added or removed changes its folder's time. A sub-agent still running (no
/// result yet: its file grows while its parent waits), one linked by nothing, or another format
/// (whose writers were not verified so) is checked file by file, as before.
///
/// A Gemini CLI session the same way: its sub-agents' files are `chats/<root session>/<agent>.jsonl`
/// (every depth there), each written while its agent runs, between the parent's call and the
/// call's result (SPEC 2.6); so the session file and its `chats/<root session>/` folder are
/// stamped once every sub-agent returned and none was written after the session file. (At
/// 10,000 sessions the Gemini CLI sub-agent files were 11,885 of the 22,000 files an open stated.)
fn quick(entry: &Entry, analysis: &arbor_core::Analysis, report: &Report, stamps: &[Stamp]) -> Option<Vec<Stamp>> {
    let all = |id: &str| analysis.files.iter().all(|f| f.format.is_none_or(|f| f.id == id));
    let (claude, gemini) = (all("claude-code"), all("gemini-cli"));
    if analysis.files.is_empty() || !(claude || gemini) || entry.paths.iter().any(|p| !p.is_file()) {
        return None;
    }
    // The compaction agent (`agent-acompact-*`) has no spawn call: the parent's
    // `compact_boundary` and summary follow its summary, so it is settled once it stopped.
    let compaction = |s: &arbor_core::report::Session| s.label.as_deref() == Some("compaction");
    let settled = report.sessions.iter().filter(|s| s.parent.is_some()).all(|s| {
        !s.runs.is_empty()
            && s.runs.iter().all(|r| r.outcome != Outcome::Open && (r.received.is_some() || compaction(s)))
    });
    if !settled {
        return None;
    }
    let own: Vec<String> =
        std::iter::once(&entry.path).chain(&entry.paths).map(|p| arbor_core::reader::path_text(p)).collect();
    let newest_own = stamps.iter().filter(|s| own.contains(&s.0)).map(|s| s.2).max()?;
    let project = entry.path.parent()?;
    // A Claude Code session's own folder (`<project>/<session>/`) holds more than its sub-agents
    // (tool results): its `subagents/` is stamped, not it (a `subagents/` removed is a folder
    // missing). A Gemini CLI session's `chats/<root session>/` holds its sub-agents only: stamped.
    let tops: Vec<PathBuf> = match claude {
        true => entry.paths.iter().filter_map(|p| log_stem(p)).map(|s| project.join(s)).collect(),
        false => report.sessions.iter().filter(|s| s.parent.is_none()).map(|s| project.join(&s.id)).collect(),
    };
    let unstamped: &[PathBuf] = if claude { &tops } else { &[] };
    let mut quick: Vec<Stamp> = stamps.iter().filter(|s| own.contains(&s.0)).cloned().collect();
    for s in stamps.iter().filter(|s| !own.contains(&s.0)) {
        // Missing, written after the entry's own files, or not in a session's own folder (where
        // no folder's time would tell of it): checked file by file.
        let inside = tops.iter().any(|t| Path::new(&s.0).starts_with(t));
        if s.1 == u64::MAX || s.2 > newest_own || !inside {
            return None;
        }
        let mut dir = Path::new(&s.0).parent();
        while let Some(d) = dir.filter(|d| d.starts_with(project) && *d != project && !unstamped.iter().any(|t| t == d))
        {
            let name = arbor_core::reader::path_text(d);
            if !quick.iter().any(|q| q.0 == name) {
                quick.push(stamp_of(d, name));
            }
            dir = d.parent();
        }
    }
    Some(quick)
}

/// Rows read back per page.
const PAGE: u32 = 256;

/// Matches ranked at most by a search: beyond, the ones indexed last (`Library::search`). At most
/// `rank::COUNT_CAP`, so that a query with fewer matches is ranked as bm25 ranks it.
pub const RANKED: usize = 20_000;

/// Items that hold every token of a phrase searched first (`Library::search_before`).
pub const PHRASE_WINDOW: usize = 20_000;

/// Entries indexed a transaction.
const INDEX_BATCH: usize = 16;

/// One entry analysed (`threads`) and its transcripts read back, each part an item. A store's
/// are read tree by tree (`<store>/<root id>`), as its rows and hits open them: a tree's
/// rendering is read back from memory, where the whole store's was rendered again for every
/// transcript page (a 183 MB store did not finish in 13 minutes). A session that only messages
/// name (no `session` row) is a tree of its own (`rows::roots`).
fn items(entry: &Entry, threads: arbor_core::Threads) -> Vec<Item> {
    if let [store] = &entry.paths[..] {
        if arbor_core::bytes::rows::is_sqlite(store) {
            if let Ok(roots) = arbor_core::bytes::rows::roots(store) {
                return roots.iter().flat_map(|r| items_of(entry, &[store.join(r)], threads)).collect();
            }
        }
    }
    items_of(entry, &entry.paths, threads)
}

/// The items of `paths`, read for `entry`.
fn items_of(entry: &Entry, paths: &[PathBuf], threads: arbor_core::Threads) -> Vec<Item> {
    let analysis = arbor_core::analyze_with(paths, &mut (), threads);
    let mut items = Vec::new();
    let mut indexes: Vec<_> = analysis.transcript_indexes().into_iter().collect();
    indexes.sort_by(|a, b| a.0.cmp(b.0));
    for (session, index) in indexes {
        let mut from = 0;
        while (from as usize) < index.len() {
            let page = analysis.transcript_page(&index, from, PAGE, TEXT_BUDGET);
            for row in page.rows {
                for part in row.parts {
                    let mut text = part.text;
                    if let Some(tool) = part.tool {
                        text = format!("{tool} {text}");
                    }
                    if text.trim().is_empty() {
                        continue;
                    }
                    items.push(Item {
                        session: session.to_string(),
                        item: row.row,
                        file: file_path(entry, &row.at.file),
                        line: row.at.line,
                        kind: kind_name(part.kind),
                        text,
                    });
                }
            }
            from += PAGE;
        }
    }
    items
}

/// A file as a hit names it: a path that opens it (the report names a folder's files relative
/// to the folder).
fn file_path(entry: &Entry, display: &str) -> String {
    if entry.paths.len() == 1 && entry.path.is_dir() {
        arbor_core::reader::path_text(&entry.path.join(display))
    } else {
        display.to_owned()
    }
}

fn insert(tx: &rusqlite::Transaction<'_>, r: &Read) -> Result<(), Error> {
    let path = arbor_core::reader::path_text(&r.entry.path);
    let existing: Option<i64> =
        tx.query_row("SELECT id FROM entries WHERE path = ?1", [&path], |row| row.get(0)).optional()?;
    if let Some(id) = existing {
        tx.execute("DELETE FROM entries WHERE id = ?1", [id])?;
    }
    let paths: Vec<String> = r.entry.paths.iter().map(|p| arbor_core::reader::path_text(p)).collect();
    tx.execute(
        "INSERT INTO entries (path, paths, folder, files, quick) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![path, json(&paths), r.entry.folder, json(&r.stamps), r.quick.as_ref().map(json)],
    )?;
    let id = tx.last_insert_rowid();
    let mut s = tx.prepare_cached("INSERT INTO sessions (entry, key, members, summary) VALUES (?1, ?2, ?3, ?4)")?;
    let mut b = tx.prepare_cached("INSERT INTO booked (session, time, model, usage) VALUES (?1, ?2, ?3, ?4)")?;
    for (summary, booked, members) in &r.sessions {
        s.execute(params![id, summary.key, json(members), json(summary)])?;
        let row = tx.last_insert_rowid();
        for booked in booked {
            b.execute(params![row, booked.time, booked.model, json(&booked.usage)])?;
        }
    }
    Ok(())
}

/// What the tables keep as JSON text.
fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library of `n` items in one session: item `i` holds `src/lib.rs` as a phrase when
    /// `i % every == 0`, else its tokens apart (`rs of lib in src`), so that every item holds
    /// every token.
    fn phrases(n: usize, every: usize) -> Library {
        let lib = Library::in_memory().unwrap();
        let c = &lib.conn;
        c.execute("INSERT INTO entries (path, paths, folder, files) VALUES ('e', '[\"e\"]', 'f', '[]')", []).unwrap();
        c.execute("INSERT INTO sessions (entry, key, members, summary) VALUES (1, 'e', '[]', '{\"path\":\"e\"}')", [])
            .unwrap();
        for i in 0..n {
            let text = if i % every == 0 {
                format!("item {i} opens src/lib.rs")
            } else {
                format!("item {i}: rs of lib in src")
            };
            c.execute(
                "INSERT INTO items (entry, owner, session, item, file, line, kind, text) VALUES (1, 1, 's', ?1, 'e', ?1, 'text', ?2)",
                params![i as i64, text],
            )
            .unwrap();
        }
        c.execute("INSERT INTO texts(rowid, text) SELECT id, text FROM items", []).unwrap();
        lib
    }

    /// A phrase is looked for in the newest items that hold its tokens first: the hits real
    /// ones, the older items said (`older`), and going on from there finds every other match
    /// once, none lost; with a window as large as the library, the ranks are bm25's.
    #[test]
    fn a_phrase_is_searched_newest_first_and_goes_on_to_the_older_items() {
        let lib = phrases(3_000, 50);
        let matches = 3_000 / 50;
        let all = lib.search_window("src/lib.rs", 1_000, None, 1_000_000).unwrap();
        assert_eq!(all.older, None, "all searched");
        assert_eq!(all.hits.len(), matches);
        let bm25 = lib.search_ranking("src/lib.rs", 1_000, RANKED).unwrap();
        assert_eq!(all.hits, bm25, "a window of everything ranks as bm25");

        // 100 items hold 2 matches: asked for 5, the first window is sized for 5 and a quarter
        // at that density (312 items, 7 matches), and it stops there.
        let first = lib.search_window("src/lib.rs", 5, None, 100).unwrap();
        assert_eq!(first.hits.len(), 5);
        let older = first.older.expect("older items were not searched");
        let window_items = 3_000 - older + 1;
        assert_eq!(window_items, 312, "the window the count's density asks for");
        assert!(first.hits.iter().all(|h| h.item % 50 == 0 && h.item as i64 >= older - 1), "{:?}", first.hits);
        assert!(first.hits.iter().all(|h| h.snippet.contains("[src/lib.rs]")), "{:?}", first.hits);
        // Going on from there, page after page: every match once.
        let mut seen: Vec<u32> = Vec::new();
        let mut before = None;
        loop {
            let page = lib.search_window("src/lib.rs", 5, before, 100).unwrap();
            let items: Vec<u32> = page.hits.iter().map(|h| h.item).collect();
            // The page's hits are the best of what it searched; the window's other matches are
            // not lost: the next page starts where this one's window ends, below `older`.
            let window: Vec<u32> = lib
                .search_window("src/lib.rs", 1_000, before, 1_000_000)
                .unwrap()
                .hits
                .iter()
                .map(|h| h.item)
                .filter(|&i| page.older.is_none_or(|o| i as i64 >= o - 1))
                .collect();
            assert!(items.iter().all(|i| window.contains(i)));
            seen.extend(window);
            match page.older {
                Some(o) => before = Some(o),
                None => break,
            }
        }
        seen.sort_unstable();
        let want: Vec<u32> = (0..3_000).filter(|i| i % 50 == 0).collect();
        assert_eq!(seen, want, "every match once over the pages");
        // A word of one token is not windowed: the newest RANKED matches, as before.
        assert_eq!(lib.search_before("item", 5, None).unwrap().older, None);
        assert_eq!(phrase_tokens("src/lib.rs cargo"), Some("\"src\" \"lib\" \"rs\" \"cargo\"".into()));
        assert_eq!(phrase_tokens("cargo test"), None);
        assert_eq!(phrase_tokens("café/x"), None, "not ASCII: not split here");
    }
}
