//! `arbor sessions` and `arbor usage` (SPEC 6.1, 6.2): every session on this machine, or in the
//! paths given, one summary a line, searched through their transcripts; and the usage they add
//! up to by day, week, month, session, model or project. The library is `arbor_library`'s: with
//! no path it is the one on disk (`ARBOR_LIBRARY`, else the platform's data folder), brought up
//! to date with this machine's places first; paths given are read into a library in memory, so
//! that they never change the machine's.

use arbor_core::report::Usage;
use arbor_library::places::{self, Env};
use arbor_library::store::{self, Entry, Library};
use arbor_library::summary::{Clock, Summary};
use arbor_library::usage::{self, By};
use jiff::tz::TimeZone;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Sort {
    /// Newest first
    Start,
    /// Most tokens first
    Tokens,
    /// Most cost first
    Cost,
    /// Longest first
    Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Report {
    Daily,
    Weekly,
    Monthly,
    Session,
    Model,
    Project,
}

pub struct Query {
    pub json: bool,
    pub search: Option<String>,
    pub sort: Sort,
    pub project: Option<String>,
    pub since: Option<String>,
    pub limit: usize,
    /// `--before`: search only items indexed before this one.
    pub before: Option<i64>,
}

/// The library of `paths`, or of this machine's places when none is given; a notice (a
/// library rebuilt) on stderr.
fn library(paths: &[PathBuf]) -> Result<Library, ExitCode> {
    crate::tune_allocator();
    let jobs = crate::batch::default_jobs();
    let (mut lib, entries) = if paths.is_empty() {
        let Some(file) = store::default_path() else {
            return Err(crate::fail("no folder for the library: set ARBOR_LIBRARY to a file"));
        };
        let mut lib = Library::open(&file).map_err(|e| crate::fail(&e.to_string()))?;
        let entries =
            lib.entries_of_places(places::logs(&Env::from_process())).map_err(|e| crate::fail(&e.to_string()))?;
        (lib, entries)
    } else {
        for p in paths {
            if !arbor_core::reader::exists(p) {
                return Err(crate::fail(&format!("no such file or folder: {}", p.display())));
            }
        }
        let entries = entries_of(crate::batch::units(paths), paths);
        (Library::in_memory().map_err(|e| crate::fail(&e.to_string()))?, entries)
    };
    if let Some(n) = &lib.notice {
        eprintln!("arbor: {n}");
    }
    lib.update(&entries, jobs).map_err(|e| crate::fail(&e.to_string()))?;
    Ok(lib)
}

/// The library's entries for the units of the paths given: a Claude Code project folder's
/// sessions as `Entry::claude_project` groups them (a resume with the chain it replays, so that
/// the replay counts once: SPEC 6.2), and Codex rollouts as `Entry::codex_threads` does (a
/// sub-agent's with its parent's), as `Entry::of_places` makes the machine's; every other unit
/// is an entry of its own.
fn entries_of(units: Vec<crate::batch::Unit>, given: &[PathBuf]) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    let mut projects: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    let mut rollouts: Vec<(PathBuf, String)> = Vec::new();
    for u in units {
        let Some(first) = u.paths.first().cloned() else { continue };
        if u.paths.len() == 1 && is_codex_rollout(&first) {
            let folder = folder_of(&first);
            rollouts.push((first, folder));
            continue;
        }
        let project = first
            .parent()
            .filter(|_| first.is_file() && !given.contains(&first) && is_claude_code(&first))
            .map(Path::to_path_buf);
        match project {
            Some(dir) => {
                if projects.insert(dir.clone()) {
                    out.extend(Entry::claude_project(&dir, &folder_of(&dir)));
                }
            }
            None => {
                let folder = folder_of(&first);
                out.push(Entry { path: first, paths: u.paths, folder });
            }
        }
    }
    // Codex rollouts as the machine's are grouped: a sub-agent's with its parent's.
    out.extend(Entry::codex_threads(rollouts, &Default::default(), &Default::default()).0);
    out
}

/// Whether a file is a Codex rollout: its first line a `session_meta` (the thread's links).
fn is_codex_rollout(path: &Path) -> bool {
    path.is_file() && store::first_line(path).as_deref().and_then(arbor_core::formats::thread_head).is_some()
}

/// Whether a file's first lines are Claude Code's.
fn is_claude_code(path: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = arbor_core::reader::open(path) else { return false };
    let mut head = Vec::new();
    let _ = file.take(1 << 16).read_to_end(&mut head);
    let lines = head.split(|&b| b == b'\n').take(arbor_core::formats::DETECT_LINES);
    arbor_core::formats::detect(lines).is_some_and(|f| f.id == "claude-code")
}

fn folder_of(path: &Path) -> String {
    let folder = if path.is_dir() { Some(path) } else { path.parent() };
    folder.and_then(|f| f.file_name()).map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
}

/// An RFC 3339 time (UTC, milliseconds) of epoch milliseconds.
fn rfc3339(ms: Option<f64>) -> Option<String> {
    ms.and_then(|t| jiff::Timestamp::from_millisecond(t as i64).ok()).map(|t| format!("{t:.3}"))
}

/// `--since`: an RFC 3339 time, or a date (its midnight in the local zone).
fn since_ms(text: &str) -> Result<f64, String> {
    if let Ok(t) = text.parse::<jiff::Timestamp>() {
        return Ok(t.as_millisecond() as f64);
    }
    let date: jiff::civil::Date =
        text.parse().map_err(|_| format!("--since `{text}`: a date (2026-12-01) or an RFC 3339 time"))?;
    let zoned = date.to_zoned_datetime(TimeZone::system()).map_err(|e| format!("--since `{text}`: {e}"))?;
    Ok(zoned.timestamp().as_millisecond() as f64)
}

pub fn sessions(paths: &[PathBuf], q: Query) -> ExitCode {
    let since = match q.since.as_deref().map(since_ms).transpose() {
        Ok(s) => s,
        Err(e) => return crate::fail(&e),
    };
    let mut lib = match library(paths) {
        Ok(l) => l,
        Err(code) => return code,
    };
    // The text index is made when a search needs it (a list and the usage reports do not).
    if q.search.is_some() {
        if let Err(e) = lib.index(crate::batch::default_jobs()) {
            return crate::fail(&e.to_string());
        }
    }
    let all = match lib.summaries() {
        Ok(s) => s,
        Err(e) => return crate::fail(&e.to_string()),
    };
    let keep = |s: &Summary| {
        q.project.as_deref().is_none_or(|p| s.project.contains(p))
            && since.is_none_or(|t| s.end.or(s.start).is_some_and(|e| e >= t))
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if let Some(text) = &q.search {
        let kept: std::collections::HashSet<&str> = all.iter().filter(|s| keep(s)).map(|s| s.path.as_str()).collect();
        match lib.search_before(text, q.limit.saturating_mul(4).max(q.limit), q.before) {
            Ok(found) => {
                // Older items were not searched (the newest that hold the words were enough):
                // said, with how to go on, never left out silently.
                if let Some(older) = found.older {
                    eprintln!(
                        "arbor: searched the newest items that hold every word; older ones were not: \
                         add --before {older} to search them"
                    );
                }
                write_hits(&mut out, found.hits.iter().filter(|h| kept.contains(h.path.as_str())).take(q.limit), q.json)
            }
            Err(e) => return crate::fail(&e.to_string()),
        }
    } else {
        let mut list: Vec<&Summary> = all.iter().filter(|s| keep(s)).collect();
        let key = |s: &Summary| -> f64 {
            match q.sort {
                Sort::Start => s.start.unwrap_or(f64::NEG_INFINITY),
                Sort::Tokens => s.usage.tokens() as f64,
                Sort::Cost => s.usage.cost.unwrap_or(0.0),
                Sort::Duration => s.duration.unwrap_or(0.0),
            }
        };
        list.sort_by(|a, b| key(b).total_cmp(&key(a)).then_with(|| a.path.cmp(&b.path)));
        write_sessions(&mut out, &list, q.json)
    };
    done(written.and_then(|_| out.flush()))
}

fn done(written: std::io::Result<()>) -> ExitCode {
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => crate::fail(&format!("cannot write: {e}")),
        _ => ExitCode::SUCCESS,
    }
}

fn usage_json(u: &Usage) -> serde_json::Value {
    let mut v = serde_json::json!({
        "input": u.input, "output": u.output, "cache_read": u.cache_read, "cache_write": u.cache_write,
        "tokens": u.tokens(), "cost": u.cost,
    });
    if let Some(un) = &u.unpriced {
        v["unpriced"] = serde_json::json!({"tokens": un.tokens, "models": un.models});
    }
    v
}

/// One session as `--json` prints it: the summary's fields, times in RFC 3339 (what
/// `SessionLine` writes, held equal by its test).
#[cfg(test)]
fn session_json(s: &Summary) -> serde_json::Value {
    let mut v = serde_json::json!({
        "key": s.key, "path": s.path, "session": s.session, "title": s.title, "project": s.project,
        "project_from": s.project_from, "harness": s.harness,
        "start": rfc3339(s.start), "end": rfc3339(s.end), "clock": s.clock, "duration_ms": s.duration,
        "turns": s.turns, "subagents": s.subagents, "depth": s.depth, "usage": usage_json(&s.usage),
        "findings": s.findings, "outcome": s.outcome, "files": s.files, "bytes": s.bytes,
    });
    if !s.paths.is_empty() {
        v["paths"] = serde_json::json!(s.paths);
    }
    v
}

/// Tokens for people: 1234, 12.3K, 4.5M.
fn tokens(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=999_999 => format!("{:.1}K", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// "$6.27", "$6.27 + 1.2M unpriced", "1.2M unpriced", or "" with no tokens.
fn cost(u: &Usage) -> String {
    let unpriced = u.unpriced.as_ref().filter(|x| x.tokens > 0).map(|x| format!("{} unpriced", tokens(x.tokens)));
    match (u.cost, unpriced) {
        (Some(c), Some(x)) => format!("${c:.2} + {x}"),
        (Some(c), None) => format!("${c:.2}"),
        (None, Some(x)) => x,
        (None, None) => String::new(),
    }
}

fn duration(ms: Option<f64>) -> String {
    let Some(ms) = ms else { return String::new() };
    let s = (ms / 1000.0).round() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

fn local(ms: Option<f64>) -> String {
    ms.and_then(|t| jiff::Timestamp::from_millisecond(t as i64).ok())
        .map(|t| t.to_zoned_datetime(TimeZone::system()).strftime("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_default()
}

/// `session_json`'s object written straight from the summary (its keys in the same, sorted
/// order): 10,000 sessions made a `serde_json::Value` each, a tenth of an open's time.
#[derive(serde::Serialize)]
struct SessionLine<'a> {
    bytes: u64,
    clock: arbor_library::summary::Clock,
    depth: u32,
    duration_ms: Option<f64>,
    end: Option<String>,
    files: u64,
    findings: FindingsLine,
    harness: &'a Option<String>,
    key: &'a str,
    outcome: &'a Option<String>,
    path: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    paths: &'a [String],
    project: &'a str,
    project_from: &'a str,
    session: &'a Option<String>,
    start: Option<String>,
    subagents: u64,
    title: &'a Option<String>,
    turns: u64,
    usage: UsageLine<'a>,
}

#[derive(serde::Serialize)]
struct FindingsLine {
    error: u64,
    info: u64,
    warning: u64,
}

#[derive(serde::Serialize)]
struct UsageLine<'a> {
    cache_read: u64,
    cache_write: u64,
    cost: Option<f64>,
    input: u64,
    output: u64,
    tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    unpriced: Option<UnpricedLine<'a>>,
}

#[derive(serde::Serialize)]
struct UnpricedLine<'a> {
    models: &'a [String],
    tokens: u64,
}

impl<'a> SessionLine<'a> {
    fn of(s: &'a Summary) -> SessionLine<'a> {
        let u = &s.usage;
        SessionLine {
            bytes: s.bytes,
            clock: s.clock,
            depth: s.depth,
            duration_ms: s.duration,
            end: rfc3339(s.end),
            files: s.files,
            findings: FindingsLine { error: s.findings.error, info: s.findings.info, warning: s.findings.warning },
            harness: &s.harness,
            key: &s.key,
            outcome: &s.outcome,
            path: &s.path,
            paths: &s.paths,
            project: &s.project,
            project_from: &s.project_from,
            session: &s.session,
            start: rfc3339(s.start),
            subagents: s.subagents,
            title: &s.title,
            turns: s.turns,
            usage: UsageLine {
                cache_read: u.cache_read,
                cache_write: u.cache_write,
                cost: u.cost,
                input: u.input,
                output: u.output,
                tokens: u.tokens(),
                unpriced: u.unpriced.as_ref().map(|x| UnpricedLine { models: &x.models, tokens: x.tokens }),
            },
        }
    }
}

fn write_sessions(out: &mut impl Write, list: &[&Summary], json: bool) -> std::io::Result<()> {
    if json {
        for s in list {
            serde_json::to_writer(&mut *out, &SessionLine::of(s))?;
            writeln!(out)?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "{:16}  {:>8}  {:14}  {:>5}  {:>4}  {:>7}  {:>18}  {:>8}  {:9}  PROJECT · TITLE",
        "START", "DURATION", "HARNESS", "TURNS", "SUBS", "TOKENS", "COST", "E/W/I", "OUTCOME"
    )?;
    let mut total = Usage::default();
    for s in list {
        total.add_costed(&s.usage);
        let mark = if s.clock == Clock::Mtime { "~" } else { " " };
        let f = s.findings;
        let line = format!(
            "{:16}{mark} {:>8}  {:14}  {:>5}  {:>4}  {:>7}  {:>18}  {:>8}  {:9}  {} · {}",
            local(s.start),
            duration(s.duration),
            s.harness.as_deref().unwrap_or("?"),
            s.turns,
            s.subagents,
            tokens(s.usage.tokens()),
            cost(&s.usage),
            format!("{}/{}/{}", f.error, f.warning, f.info),
            s.outcome.as_deref().unwrap_or(""),
            s.project,
            s.title.as_deref().unwrap_or(""),
        );
        // Titles, projects and outcomes are the logs' text: shown, never sent to the terminal.
        writeln!(out, "{}", crate::summary::safe(&line, 400))?;
    }
    writeln!(
        out,
        "{} sessions, {} tokens, {}{}",
        list.len(),
        tokens(total.tokens()),
        cost(&total),
        if list.iter().any(|s| s.clock == Clock::Mtime) { " (~: the file's time, the log has no clock)" } else { "" }
    )
}

fn write_hits<'a>(out: &mut impl Write, hits: impl Iterator<Item = &'a store::Hit>, json: bool) -> std::io::Result<()> {
    for h in hits {
        if json {
            serde_json::to_writer(&mut *out, h)?;
            writeln!(out)?;
        } else {
            let head = format!("{}:{} {} item {} {}", h.file, h.line, h.session, h.item, h.kind);
            writeln!(out, "{}", crate::summary::visible(&head))?;
            writeln!(out, "    {}", crate::summary::safe(&h.snippet.replace('\n', " "), 400))?;
        }
    }
    Ok(())
}

pub fn usage(report: Report, paths: &[PathBuf], json: bool, timezone: Option<&str>) -> ExitCode {
    let tz = match timezone {
        Some(name) => match TimeZone::get(name) {
            Ok(tz) => tz,
            Err(e) => return crate::fail(&format!("--timezone `{name}`: {e}")),
        },
        None => TimeZone::system(),
    };
    let lib = match library(paths) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let (summaries, booked) = match (lib.summaries(), lib.booked()) {
        (Ok(s), Ok(b)) => (s, b),
        (Err(e), _) | (_, Err(e)) => return crate::fail(&e.to_string()),
    };
    let by = match report {
        Report::Daily => By::Daily,
        Report::Weekly => By::Weekly,
        Report::Monthly => By::Monthly,
        Report::Session => By::Session,
        Report::Model => By::Model,
        Report::Project => By::Project,
    };
    let lines = usage::report(by, &summaries, &booked, &tz);
    let mut total = Usage::default();
    for l in &lines {
        total.add_costed(&l.usage);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = (|| -> std::io::Result<()> {
        if json {
            for l in &lines {
                let v = serde_json::json!({"key": l.key, "sessions": l.sessions, "usage": usage_json(&l.usage)});
                serde_json::to_writer(&mut out, &v)?;
                writeln!(out)?;
            }
            let v = serde_json::json!({"total": {"sessions": summaries.len(), "usage": usage_json(&total)}});
            serde_json::to_writer(&mut out, &v)?;
            return writeln!(out);
        }
        let width = lines.iter().map(|l| l.key.chars().count()).max().unwrap_or(5).clamp(5, 80);
        writeln!(
            out,
            "{:width$}  {:>8}  {:>10}  {:>10}  {:>12}  {:>12}  {:>12}  COST",
            "KEY", "SESSIONS", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "TOTAL"
        )?;
        let row = |out: &mut dyn Write, key: &str, n: u64, u: &Usage| {
            let line = format!(
                "{key:width$}  {n:>8}  {:>10}  {:>10}  {:>12}  {:>12}  {:>12}  {}",
                u.input,
                u.output,
                u.cache_read,
                u.cache_write,
                u.tokens(),
                cost(u)
            );
            writeln!(out, "{}", crate::summary::safe(&line, 400))
        };
        for l in &lines {
            row(&mut out, &l.key, l.sessions, &l.usage)?;
        }
        row(&mut out, "total", summaries.len() as u64, &total)?;
        writeln!(out, "days, weeks and months in {}", tz.iana_name().unwrap_or("the local time zone"))
    })();
    done(written.and_then(|_| out.flush()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session line is written as `session_json` makes it, byte for byte, with and without
    /// what is optional.
    #[test]
    fn a_session_line_is_session_json() {
        let line = r#"{"key":"k","path":"/p/a.jsonl","session":"s","title":"t \"q\" <b>","project":"/w","project_from":"cwd","harness":"claude-code","start":1764000000123.0,"end":1764000100456.5,"clock":"log","duration":100333.5,"turns":3,"subagents":2,"depth":1,"usage":{"input":1,"output":2,"cache_read":3,"cache_write":4,"cost":0.25,"unpriced":{"tokens":7,"models":["m1","m2"]}},"findings":{"error":1,"warning":2,"info":3},"outcome":"end_turn","files":4,"bytes":5000}"#;
        let full: Summary = serde_json::from_str(line).unwrap();
        let mut bare = full.clone();
        (bare.session, bare.title, bare.harness, bare.start, bare.end, bare.duration, bare.outcome) =
            (None, None, None, None, None, None, None);
        bare.usage.cost = None;
        bare.usage.unpriced = None;
        bare.clock = Clock::Mtime;
        for s in [&full, &bare] {
            let want = serde_json::to_string(&session_json(s)).unwrap();
            assert_eq!(serde_json::to_string(&SessionLine::of(s)).unwrap(), want);
        }
    }
}
