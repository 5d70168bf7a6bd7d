//! The view's side of the app's IPC, for the UI's browser tests (ui/tests/browser.mjs), which run
//! the UI in Chromium with Tauri's IPC mocked: the mock hands the commands that ask for pages of
//! the open log to this process, so that the pages the UI draws are the engine's own
//! (`arbor_core::view`), made from the report each test gives.
//!
//! One JSON request a line on stdin, `{"id": 1, "key": "page-1", "cmd": "...", "args": {...}}`;
//! one answer a line on stdout, `{"id": 1, "ok": ...}` or `{"id": 1, "err": {"code", "message"}}`.
//! `open` (args `{"report": ...}`, or `{"paths": [...]}` to read logs as the app does) makes the
//! view of `key` and answers its summary, `close`
//! lets it go; a view opened from paths answers the transcript commands too (`transcript_page`,
//! `transcript_part`, `transcript_find`, `transcript_locate`) from its analysis; the other commands are the app's (src-tauri/src/commands.rs), with the same
//! arguments, asked of the view of `key`; `loading` trees are answered from the open one. A
//! request's arguments are read straight into the types asked for (a report of a million spans
//! is one request).
use std::collections::HashMap;
use std::io::{BufRead, Write};

use arbor_core::report::{Place, Report};
use arbor_core::transcript::{Index, Show};
use arbor_core::view::{Axis, FindingsFilter, HitQuery, View, WindowQuery};
use arbor_core::Analysis;
use serde_json::value::RawValue;
use serde_json::{json, Value};

#[derive(serde::Deserialize)]
struct Request<'a> {
    id: Value,
    key: String,
    cmd: String,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
}

/// A request's arguments, each read when asked for.
struct Args<'a>(HashMap<&'a str, &'a RawValue>);

impl Args<'_> {
    fn get<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<T, (String, String)> {
        let raw = self.0.get(name).map_or("null", |r| r.get());
        serde_json::from_str(raw).map_err(|e| ("bad-request".to_owned(), format!("{name}: {e}")))
    }
}

/// What is open under a key: its view, and the analysis when it was read from paths (its
/// transcripts are read back from the files, as the app reads them; the last session's index kept).
struct Opened {
    analysis: Option<Analysis>,
    index: Option<(String, Index)>,
}

/// The transcript commands of a view opened from paths, as `src-tauri/src/commands/transcript.rs`
/// answers them (texts cut at 4,000 characters).
fn transcript(o: &mut Opened, cmd: &str, args: &Args) -> Result<Value, (String, String)> {
    let Some(a) = o.analysis.as_ref() else {
        return Err(("unknown-command".to_owned(), "a view of a report has no transcripts".to_owned()));
    };
    let session: String = args.get("session")?;
    if o.index.as_ref().is_none_or(|(s, _)| *s != session) {
        let index =
            a.transcript_index(&session).ok_or_else(|| ("no-session".to_owned(), format!("no session {session}")))?;
        o.index = Some((session.clone(), index));
    }
    let Some((_, i)) = o.index.as_ref() else { unreachable!("kept above") };
    let n = |name: &str| -> Result<u32, (String, String)> { args.get(name) };
    Ok(match cmd {
        "transcript_page" => json!(a.transcript_page(i, n("from")?, n("limit")?.min(500), 4000)),
        "transcript_part" => json!(a.transcript_part(i, n("row")?, n("part")? as usize)),
        "transcript_find" => {
            let (from, limit): (Option<u32>, Option<u32>) = (args.get("from")?, args.get("limit")?);
            let (query, show) = (args.get::<String>("query")?, args.get::<Show>("show")?);
            json!(a.transcript_find_in(i, &query, show, from.unwrap_or(0), limit.unwrap_or(u32::MAX)))
        }
        _ => {
            let place: Place = args.get("place")?;
            let row = a.find_record(&place.file, place.line).and_then(|r| i.row_near(r)).unwrap_or(0);
            json!({"session": session, "row": row})
        }
    })
}

fn answer(
    views: &mut HashMap<String, View>,
    opened: &mut HashMap<String, Opened>,
    revision: &mut u64,
    key: &str,
    cmd: &str,
    args: &Args,
) -> Result<Value, (String, String)> {
    if cmd == "open" {
        *revision += 1;
        // Paths are read as the app reads them (the view then names roots by their files' titles).
        let paths: Option<Vec<std::path::PathBuf>> = args.get("paths")?;
        let (view, analysis) = match paths {
            Some(paths) => {
                let analysis = arbor_core::analyze(&paths, &mut ());
                let view = View::of_analysis(&analysis, *revision, &|| true)
                    .ok_or_else(|| ("cancelled".to_owned(), "the view was not made".to_owned()))?;
                (view, Some(analysis))
            }
            None => (View::from_report(args.get::<Report>("report")?, *revision), None),
        };
        opened.insert(key.to_owned(), Opened { analysis, index: None });
        let summary = json!(view.summary());
        views.insert(key.to_owned(), view);
        return Ok(summary);
    }
    if cmd == "close" {
        views.remove(key);
        opened.remove(key);
        return Ok(Value::Null);
    }
    if cmd.starts_with("transcript_") {
        let o = opened.get_mut(key).ok_or_else(|| ("not-open".to_owned(), "no log is open".to_owned()))?;
        return transcript(o, cmd, args);
    }
    let v = views.get_mut(key).ok_or_else(|| ("not-open".to_owned(), "no log is open".to_owned()))?;
    let a = |name: &str| -> Result<u32, (String, String)> { args.get(name) };
    let id = || -> Result<String, (String, String)> { args.get("id") };
    let out = match cmd {
        "summary" => json!(v.summary()),
        "tree_rows" => {
            if let Some(order) = args.get("order")? {
                v.set_tree_order(order);
            }
            json!(v.tree_page(a("offset")?, a("limit")?))
        }
        "tree_set_open" => json!(v.tree_set_open(&id()?, args.get("open")?)),
        "tree_reveal" => json!(v.tree_reveal(&id()?)),
        "findings_page" => {
            let filter: FindingsFilter = args.get("filter")?;
            json!(v.findings(&filter, a("offset")?, a("limit")?))
        }
        "findings_at" => {
            let place = Place { file: args.get("file")?, line: args.get("line")? };
            json!(v.findings_at(&place))
        }
        "session_detail" => json!(v.session(&id()?)),
        "waits_page" => json!(v.waits(a("offset")?, a("limit")?)),
        "replies_page" => json!(v.replies(a("offset")?, a("limit")?)),
        "usage_page" => json!(v.usage_page(args.get("sort")?, a("offset")?, a("limit")?)),
        "timeline_info" => json!(v.timeline_info(args.get::<Axis>("axis")?)),
        "timeline_open" => json!(v.timeline_open(args.get("axis")?, a("first")?, a("last")?, args.get("width")?)),
        "timeline_window" => json!(v.timeline_window(&args.get::<WindowQuery>("query")?)),
        "timeline_hit" => json!(v.timeline_hit(&args.get::<HitQuery>("query")?)),
        "timeline_locate" => {
            let session: Option<String> = args.get("session")?;
            let place: Option<Place> = args.get("place")?;
            json!(v.timeline_locate(args.get("axis")?, session.as_deref(), place.as_ref()))
        }
        _ => return Err(("unknown-command".to_owned(), format!("the view host has no command {cmd}"))),
    };
    Ok(out)
}

fn main() {
    let mut views: HashMap<String, View> = HashMap::new();
    let mut opened: HashMap<String, Opened> = HashMap::new();
    let mut revision = 0;
    let stdout = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let request: Request = match serde_json::from_str(&line) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("view-host: a request that is not one: {e}");
                continue;
            }
        };
        let args = Args(request.args.and_then(|a| serde_json::from_str(a.get()).ok()).unwrap_or_default());
        let reply = match answer(&mut views, &mut opened, &mut revision, &request.key, &request.cmd, &args) {
            Ok(ok) => json!({"id": request.id, "ok": ok}),
            Err((code, message)) => json!({"id": request.id, "err": {"code": code, "message": message}}),
        };
        let mut out = stdout.lock();
        let _ = writeln!(out, "{reply}");
        let _ = out.flush();
    }
}
