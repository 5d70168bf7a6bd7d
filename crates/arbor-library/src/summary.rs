//! One session's summary (SPEC 6.1), made from its own analysis and nothing else: the report
//! `arbor analyze --json` prints for the same files gives the same title, harness, turns,
//! sub-agents, tokens, cost, findings and outcome (`tests/summary.rs` holds them equal over the
//! corpus), and the records' wire times give its start and end.
//!
//! Two facts are not in the report and are read here from the log's head, as the app's title
//! is: the title (what the format reads there, `Format::about`) and the working folder (the
//! `cwd` its harness writes in its first lines), which names the project. A session whose log
//! has no clock gets its files' modification time, marked `clock: "mtime"`.
//!
//! It also keeps the usage the reports by day, week and month need (`Booked`): each turn's
//! tokens at the turn's start, what the session counted outside its turns at the session's
//! start; and the report's per-model totals.

use arbor_core::report::{Report, Severity, Usage};
use arbor_core::Analysis;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// Findings by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Findings {
    pub error: u64,
    pub warning: u64,
    pub info: u64,
}

/// Where a session's times come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    /// The first and last timestamps its records carry.
    Log,
    /// The log has no clock: its files' latest modification time, start and end alike.
    Mtime,
    /// Neither.
    None,
}

/// One session (a root and its sub-agents, as its place holds them) in a line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The session in the library: its `path`, or `path#session` where several roots of one log
    /// share the path.
    pub key: String,
    /// What to open: the session's file or folder (then `session` is the one to select).
    pub path: String,
    /// What to open when `path` alone is not the whole session: every file it was read from
    /// (a Codex thread's rollout with its sub-agents', a resumed Claude Code chain's files),
    /// `path` first. Empty when `path` is all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// The root session's id (the first root, when a log holds several).
    pub session: Option<String>,
    pub title: Option<String>,
    /// The log's working folder, else the folder it was found in.
    pub project: String,
    /// `cwd` or `folder`: what `project` is.
    pub project_from: String,
    /// The format its analysis read it in (`claude-code`, `codex`, `copilot-events`, …).
    pub harness: Option<String>,
    /// Epoch milliseconds.
    pub start: Option<f64>,
    pub end: Option<f64>,
    pub clock: Clock,
    /// Milliseconds from start to end.
    pub duration: Option<f64>,
    /// The root sessions' turns.
    pub turns: u64,
    /// Sessions under the roots, and how deep the deepest is.
    pub subagents: u64,
    pub depth: u32,
    /// Every count once, by section 4's rules (the report's `usage.total`), with the priced
    /// part's cost and what is unpriced.
    pub usage: Usage,
    pub findings: Findings,
    /// The root's last outcome: its last run's, else its last wait's, else its last turn's
    /// reason.
    pub outcome: Option<String>,
    pub files: u64,
    pub bytes: u64,
}

/// Tokens booked at a time (for the reports by day, week and month) or to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Booked {
    /// Epoch milliseconds, or none when the log has no clock.
    pub time: Option<f64>,
    pub model: Option<String>,
    pub usage: Usage,
}

/// A summary with what the usage reports need.
#[derive(Debug, Clone, PartialEq)]
pub struct Summarized {
    pub summary: Summary,
    /// The report's sessions it sums up: its root and every session under it.
    pub sessions: Vec<String>,
    /// By time: each root or sub-agent turn at its start, the rest of each session at its
    /// session's start.
    pub by_time: Vec<Booked>,
    /// By model, from the report's `usage.models`.
    pub by_model: Vec<Booked>,
}

/// How far into a log its working folder is looked for.
const HEAD: u64 = 1 << 16;

/// The summaries of what `analysis` read from `path`, found in `folder`: one per root session
/// (each with the sessions under it), in the report's order; one, with no session, for a log
/// that has none. Reading a folder whole (a Claude Code project) and splitting it by root here,
/// rather than reading each session's files alone, is what books a resumed session's replayed
/// chain once, where it was first written (SPEC 2.4, 6.2): read alone, a resume counts its
/// replay as its own.
pub fn summarize(path: &Path, folder: &str, analysis: &Analysis) -> Vec<Summarized> {
    summarize_report(path, folder, analysis, &analysis.report())
}

/// `summarize`, with the analysis's report made already.
pub fn summarize_report(path: &Path, folder: &str, analysis: &Analysis, report: &Report) -> Vec<Summarized> {
    let groups = Groups::of(report, analysis);
    let several = groups.roots.len() > 1;
    let mut out = Vec::with_capacity(groups.roots.len().max(1));
    for g in 0..groups.roots.len().max(1) {
        out.push(summarize_group(path, folder, analysis, report, &groups, g, several));
    }
    out
}

/// The report's sessions split by root: each session's group, and what each group holds.
struct Groups {
    /// Each group's root, as an index into `report.sessions` (none: a log with no session).
    roots: Vec<usize>,
    /// Each report session's group.
    of_session: Vec<usize>,
    /// Each interned symbol's group, where it names a report session.
    of_sym: Vec<Option<usize>>,
    /// Each file's group: that of its first record that belongs to a session (else the first).
    of_file: Vec<usize>,
    /// What each group's records hold.
    acc: Vec<Acc>,
}

/// A group's records: the first and last wire times, the files they are in (in file order), and
/// the file of its root's first record.
struct Acc {
    start: f64,
    end: f64,
    files: Vec<usize>,
    root_file: Option<usize>,
}

impl Groups {
    fn of(report: &Report, analysis: &Analysis) -> Groups {
        let n = report.sessions.len();
        let index: std::collections::HashMap<&str, usize> =
            report.sessions.iter().enumerate().map(|(i, s)| (s.id.as_str(), i)).collect();
        // A session's top: its root when the report names one, else the last of its parents that
        // was loaded (a sub-agent whose parent is not, a cycle cut where it closes).
        let top = |mut i: usize| -> usize {
            if let Some(&r) = report.sessions[i].root.as_deref().and_then(|r| index.get(r)) {
                return r;
            }
            for _ in 0..n {
                match report.sessions[i].parent.as_deref().and_then(|p| index.get(p)) {
                    Some(&p) if p != i => i = p,
                    _ => break,
                }
            }
            i
        };
        let mut roots: Vec<usize> = Vec::new();
        let mut of_session = vec![0; n];
        for (i, slot) in of_session.iter_mut().enumerate() {
            let t = top(i);
            *slot = match roots.iter().position(|&r| r == t) {
                Some(g) => g,
                None => {
                    roots.push(t);
                    roots.len() - 1
                }
            };
        }
        // Each report session's symbol: its id interned, else (an id shown as `id@format`) the
        // symbol shown by that name.
        let ids = &analysis.cx.ids;
        let mut of_sym: Vec<Option<usize>> = vec![None; ids.len()];
        let mut root_syms: Vec<Option<u32>> = vec![None; roots.len()];
        let mut unfound: Vec<usize> = Vec::new();
        for (i, s) in report.sessions.iter().enumerate() {
            match ids.get(&s.id).filter(|&sym| ids.name(sym) == s.id) {
                Some(sym) => of_sym[sym.0 as usize] = Some(of_session[i]),
                None => unfound.push(i),
            }
        }
        if !unfound.is_empty() {
            for sym in 0..ids.len() as u32 {
                if let Some(&i) = index.get(ids.name(arbor_core::intern::Sym(sym))) {
                    of_sym[sym as usize] = Some(of_session[i]);
                }
            }
        }
        for (g, &r) in roots.iter().enumerate() {
            let id = report.sessions[r].id.as_str();
            root_syms[g] = ids
                .get(id)
                .filter(|&sym| ids.name(sym) == id)
                .map(|sym| sym.0)
                .or_else(|| (0..ids.len() as u32).find(|&sym| ids.name(arbor_core::intern::Sym(sym)) == id));
        }
        let mut groups = Groups { roots, of_session, of_sym, of_file: Vec::new(), acc: Vec::new() };
        groups.of_file = (0..analysis.files.len() as u32)
            .map(|f| {
                analysis
                    .cx
                    .records_of(f)
                    .flatten()
                    .find_map(|i| analysis.cx.records.get(i).and_then(|r| groups.sym(r.session)))
                    .unwrap_or(0)
            })
            .collect();
        // One pass over the records: each group's times, files and its root's first record.
        let mut acc: Vec<Acc> = (0..groups.roots.len().max(1))
            .map(|_| Acc { start: f64::INFINITY, end: f64::NEG_INFINITY, files: Vec::new(), root_file: None })
            .collect();
        for f in 0..analysis.files.len() {
            let own = groups.of_file[f];
            if let Some(a) = acc.get_mut(own) {
                a.files.push(f);
            }
            for i in analysis.cx.records_of(f as u32).flatten() {
                let Some(r) = analysis.cx.records.get(i) else { continue };
                let g = groups.sym(r.session).unwrap_or(own);
                let Some(a) = acc.get_mut(g) else { continue };
                if a.files.last() != Some(&f) {
                    a.files.push(f);
                }
                if !r.time.is_nan() {
                    a.start = a.start.min(r.time);
                    a.end = a.end.max(r.time);
                }
                if a.root_file.is_none() && root_syms.get(g).copied().flatten() == Some(r.session) {
                    a.root_file = Some(f);
                }
            }
        }
        groups.acc = acc;
        groups
    }

    fn sym(&self, s: u32) -> Option<usize> {
        self.of_sym.get(s as usize).copied().flatten()
    }

    /// The group of a report session named `id`.
    fn session(&self, report: &Report, id: &str) -> Option<usize> {
        report.sessions.iter().position(|s| s.id == id).map(|i| self.of_session[i])
    }
}

fn summarize_group(
    path: &Path,
    folder: &str,
    analysis: &Analysis,
    report: &Report,
    groups: &Groups,
    g: usize,
    several: bool,
) -> Summarized {
    let root = groups.roots.get(g).map(|&r| &report.sessions[r]);
    let in_group = |i: usize| groups.of_session[i] == g;
    let acc = &groups.acc[g];
    let (start, end, files) = (acc.start, acc.end, &acc.files);
    let root_file = acc.root_file;
    let mut clock = Clock::Log;
    let (mut start, mut end) = (start, end);
    if start > end {
        match latest_mtime(files.iter().map(|&f| analysis.files[f].path.as_path())) {
            Some(t) => (start, end, clock) = (t, t, Clock::Mtime),
            None => clock = Clock::None,
        }
    }
    let (start, end) = if clock == Clock::None { (None, None) } else { (Some(start), Some(end)) };
    let first = root_file
        .or(files.first().copied())
        .map(|f| analysis.files[f].path.clone())
        .unwrap_or_else(|| path.to_path_buf());
    // What to open: the log given; or, where it holds several roots, the root's own file when
    // that file alone brings every file of the group along (a Claude Code session file and its
    // `<session>/subagents/` folder), so that opening one session reads that session only.
    // A Claude Code project read whole opens each session so, even when it holds one.
    let own = first.with_extension("");
    let alone = files.iter().all(|&f| {
        let p = &analysis.files[f].path;
        *p == first || p.starts_with(&own)
    });
    let root_format_is = |id: &str| root_file.is_some_and(|f| analysis.files[f].format.is_some_and(|x| x.id == id));
    let claude = root_format_is("claude-code");
    let open = if alone && (several || (claude && path.is_dir())) { first.as_path() } else { path };
    // An OpenCode store keeps each session's title and folder on its session row, not in the
    // file's head: read from that row (read-only, as the engine reads it).
    // The older `storage/` tree keeps it in the session's own file (`session/<project>/<id>.json`).
    let row = root.and_then(|r| match arbor_core::bytes::rows::is_sqlite(&first) {
        true => store_session(&first, &r.id),
        false if root_format_is("opencode") => files
            .iter()
            .map(|&f| analysis.files[f].path.as_path())
            .filter(|p| p.parent().and_then(Path::parent).and_then(Path::file_name).is_some_and(|d| d == "session"))
            .find_map(|p| tree_session(p, &r.id)),
        false => None,
    });
    let (row_title, row_folder) = row.unwrap_or_default();
    let gemini = root_format_is("gemini-cli");
    let named = row_folder.or_else(|| cwd(open, &first)).map(|c| (c, "cwd"));
    let (project, project_from) = match named.or_else(|| gemini.then(|| gemini_project(&first)).flatten()) {
        Some(p) => p,
        // A root among several: the folder its own file is in.
        None if several => (
            first
                .parent()
                .and_then(Path::file_name)
                .map_or_else(|| folder.to_string(), |f| f.to_string_lossy().into_owned()),
            "folder",
        ),
        None => (folder.to_string(), "folder"),
    };
    let (usage, by_model) = group_usage(analysis, groups, g);
    let mut findings = Findings::default();
    for d in &report.diagnostics {
        let of = d.session.as_deref().and_then(|s| groups.session(report, s)).or_else(|| {
            let f = analysis.files.iter().position(|f| f.display == d.at.file)?;
            Some(groups.of_file[f])
        });
        if of.unwrap_or(0) == g {
            match d.severity {
                Severity::Error => findings.error += 1,
                Severity::Warning => findings.warning += 1,
                Severity::Info => findings.info += 1,
            }
        }
    }
    let path_text = arbor_core::reader::path_text(open);
    // A session of a store opens as its own tree (`<store>/<session id>`): only its rows are
    // read, not every session the store holds.
    let tree = root
        .filter(|_| arbor_core::bytes::rows::is_sqlite(&first))
        .map(|r| arbor_core::reader::path_text(&first.join(&r.id)));
    let summary = Summary {
        key: match root {
            // Several roots in one file (a database): each is its own entry.
            Some(r) if several && (open != first.as_path() || row_title.is_some()) => format!("{path_text}#{}", r.id),
            _ => path_text.clone(),
        },
        path: path_text,
        paths: tree.into_iter().collect(),
        session: root.map(|r| r.id.clone()),
        title: row_title.as_deref().and_then(arbor_core::formats::about_line).or_else(|| {
            title(open, &first, root_file.or(files.first().copied()).and_then(|f| analysis.files[f].format))
        }),
        project,
        project_from: project_from.to_string(),
        harness: files.iter().find_map(|&f| analysis.files[f].format).map(|f| f.id.to_string()),
        start,
        end,
        clock,
        duration: start.zip(end).map(|(s, e)| e - s),
        turns: root.map_or(0, |r| report.turns.iter().filter(|t| t.session == r.id).count() as u64),
        subagents: (0..report.sessions.len()).filter(|&i| in_group(i)).count().saturating_sub(1) as u64,
        depth: (0..report.sessions.len())
            .filter(|&i| in_group(i))
            .filter_map(|i| report.sessions[i].depth)
            .max()
            .unwrap_or(0),
        usage,
        findings,
        outcome: root.and_then(|r| outcome(report, r)),
        files: files.len() as u64,
        bytes: files.iter().map(|&f| analysis.files[f].bytes).sum(),
    };
    let by_time = book_by_time(report, start, in_group);
    let sessions = (0..report.sessions.len()).filter(|&i| in_group(i)).map(|i| report.sessions[i].id.clone()).collect();
    Summarized { summary, sessions, by_time, by_model }
}

/// A group's tokens, in all and per model, priced as the report prices them: each model's
/// tokens summed over the group's sessions, then costed (what no report session holds counts in
/// the first group, so that the groups add up to the report's total).
fn group_usage(analysis: &Analysis, groups: &Groups, g: usize) -> (Usage, Vec<Booked>) {
    let mut models: std::collections::BTreeMap<&str, Usage> = std::collections::BTreeMap::new();
    for (s, model, u) in analysis.cx.usage.by_model() {
        if groups.sym(s.0).unwrap_or(0) == g {
            models.entry(model).or_default().add(&u);
        }
    }
    let prices = match &analysis.prices {
        Some(p) => p.as_ref(),
        None => arbor_core::prices::PriceTable::bundled_ref(),
    };
    let mut total = Usage::default();
    let mut by_model = Vec::with_capacity(models.len());
    for (m, u) in models {
        let u = prices.costed(m, u);
        total.add_costed(&u);
        by_model.push(Booked { time: None, model: Some(m.to_owned()), usage: u });
    }
    (total, by_model)
}

/// The root's last run's outcome, else its last wait's, else its last turn's reason.
fn outcome(report: &Report, root: &arbor_core::report::Session) -> Option<String> {
    let word = |v: serde_json::Value| v.as_str().map(str::to_owned);
    if let Some(run) = root.runs.last() {
        return serde_json::to_value(run.outcome).ok().and_then(word);
    }
    if let Some(wait) = report.waits.iter().rev().find(|w| w.root == root.id) {
        return serde_json::to_value(wait.outcome).ok().and_then(word);
    }
    report.turns.iter().rev().find(|t| t.session == root.id).and_then(|t| t.reason.clone())
}

/// Each turn's tokens at its start (else the session's start); what each session counted
/// beyond its turns at the session's start.
fn book_by_time(report: &Report, start: Option<f64>, keep: impl Fn(usize) -> bool) -> Vec<Booked> {
    let mut out = Vec::new();
    for (_, s) in report.sessions.iter().enumerate().filter(|(i, _)| keep(*i)) {
        let Some(total) = &s.usage else { continue };
        let mut rest = total.clone();
        let mut first_time: Option<f64> = None;
        for t in report.turns.iter().filter(|t| t.session == s.id) {
            first_time = first_time.or(t.start_time);
            let Some(u) = &t.usage else { continue };
            subtract(&mut rest, u);
            out.push(Booked { time: t.start_time.or(start), model: None, usage: u.clone() });
        }
        let at = s.runs.first().and_then(|r| r.start_time).or(first_time).or(start);
        if rest.tokens() > 0 || rest.cost.is_some_and(|c| c.abs() > 1e-12) {
            out.push(Booked { time: at, model: None, usage: rest });
        }
    }
    out
}

fn subtract(rest: &mut Usage, u: &Usage) {
    rest.input = rest.input.saturating_sub(u.input);
    rest.output = rest.output.saturating_sub(u.output);
    rest.cache_read = rest.cache_read.saturating_sub(u.cache_read);
    rest.cache_write = rest.cache_write.saturating_sub(u.cache_write);
    if let (Some(r), Some(c)) = (rest.cost.as_mut(), u.cost) {
        *r -= c;
    }
    if let (Some(r), Some(c)) = (rest.unpriced.as_mut(), &u.unpriced) {
        r.tokens = r.tokens.saturating_sub(c.tokens);
    }
    if rest.unpriced.as_ref().is_some_and(|u| u.tokens == 0) {
        rest.unpriced = None;
    }
}

fn latest_mtime<'a>(paths: impl Iterator<Item = &'a Path>) -> Option<f64> {
    paths
        .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max()
        .and_then(|t: SystemTime| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as f64)
}

/// The title as the app shows it: Copilot's workspace summary, else what the first file's format
/// reads in its head.
fn title(path: &Path, first: &Path, format: Option<&arbor_core::formats::FormatInfo>) -> Option<String> {
    if path.is_dir() {
        if let Some(t) = yaml_field(&path.join("workspace.yaml"), "summary") {
            return arbor_core::formats::about_line(&t);
        }
    }
    // Its format reads its head, as the app's tree titles it (every format asked of every line
    // of a 64 KiB head cost more than the rest of the summary).
    arbor_core::formats::about_file(first, format)
}

/// An OpenCode session's row in its store: its title (its first prompt while the title is
/// OpenCode's placeholder) and its folder (`directory`).
fn store_session(db: &Path, id: &str) -> Option<(Option<String>, Option<String>)> {
    let c = arbor_core::bytes::rows::connect(db).ok()?;
    let (title, folder) = c
        .query_row("SELECT title, directory FROM session WHERE id = ?1", [id], |r| {
            Ok((r.get::<_, Option<String>>(0)?, r.get::<_, Option<String>>(1)?))
        })
        .ok()?;
    Some((store_title(&c, id, title), folder))
}

/// An OpenCode session's title as its row gives it, else (OpenCode's placeholder for a title
/// never generated) its first prompt.
pub(crate) fn store_title(c: &rusqlite::Connection, id: &str, title: Option<String>) -> Option<String> {
    match title {
        Some(t) if !arbor_core::formats::opencode_default_title(&t) => Some(t),
        placeholder => first_prompt(c, id).or(placeholder),
    }
}

/// An OpenCode session's first prompt: the first text the user typed (not a synthetic part).
fn first_prompt(c: &rusqlite::Connection, id: &str) -> Option<String> {
    c.query_row(
        "SELECT json_extract(p.data, '$.text') FROM message m JOIN part p ON p.message_id = m.id
         WHERE m.session_id = ?1 AND json_extract(m.data, '$.role') = 'user'
           AND json_extract(p.data, '$.type') = 'text' AND coalesce(json_extract(p.data, '$.synthetic'), 0) = 0
           AND trim(coalesce(json_extract(p.data, '$.text'), '')) != ''
         ORDER BY m.time_created, m.id, p.id LIMIT 1",
        [id],
        |r| r.get::<_, Option<String>>(0),
    )
    .ok()
    .flatten()
}

/// An OpenCode `storage/` tree's session file: its title and folder, when it is the session `id`'s.
fn tree_session(file: &Path, id: &str) -> Option<(Option<String>, Option<String>)> {
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
    if v.get("id").and_then(|x| x.as_str()) != Some(id) {
        return None;
    }
    let text = |k: &str| v.get(k).and_then(|x| x.as_str()).filter(|x| !x.is_empty()).map(str::to_owned);
    Some((text("title"), text("directory")))
}

/// `key: value` in a small YAML file (Copilot's `workspace.yaml`).
fn yaml_field(path: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let prefix = format!("{key}:");
    let v = text.lines().find_map(|l| l.strip_prefix(prefix.as_str()))?.trim().trim_matches(['"', '\'']);
    (!v.is_empty()).then(|| v.to_string())
}

/// The working folder the log's first lines name: Claude Code's `cwd` on each line, Codex's
/// `session_meta.payload.cwd`, Copilot's `session.start` context or its `workspace.yaml`.
fn cwd(path: &Path, first: &Path) -> Option<String> {
    if path.is_dir() {
        if let Some(c) = yaml_field(&path.join("workspace.yaml"), "cwd") {
            return Some(c);
        }
    }
    let file = arbor_core::reader::open(first).ok()?;
    let mut lines = std::io::BufReader::new(file.take(HEAD));
    let mut line = Vec::new();
    while lines.read_until(b'\n', &mut line).ok()? > 0 {
        if memchr_cwd(&line) {
            if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) {
                let found = [&v, &v["payload"], &v["data"], &v["data"]["context"], &v["params"]]
                    .iter()
                    .find_map(|o| o.get("cwd").and_then(|c| c.as_str()).filter(|c| !c.is_empty()));
                if let Some(c) = found {
                    return Some(c.to_string());
                }
            }
        }
        line.clear();
    }
    None
}

/// A Gemini CLI session's project. Its files are under `tmp/<project>/chats/` (a sub-agent's in
/// `chats/<root>/`), and the CLI keeps the project's folder in `tmp/<project>/.project_root`
/// (newer versions name `<project>` by a short name, older ones by a hash of the folder): that
/// folder, else the `<project>` name.
fn gemini_project(first: &Path) -> Option<(String, &'static str)> {
    let chats = first.ancestors().skip(1).find(|a| a.file_name().is_some_and(|n| n == "chats"))?;
    let dir = chats.parent()?;
    if let Ok(root) = std::fs::read_to_string(dir.join(".project_root")) {
        if let Some(root) = root.lines().next().map(str::trim).filter(|r| !r.is_empty()) {
            return Some((root.to_string(), "cwd"));
        }
    }
    Some((dir.file_name()?.to_string_lossy().into_owned(), "folder"))
}

fn memchr_cwd(line: &[u8]) -> bool {
    line.windows(5).any(|w| w == b"\"cwd\"")
}
