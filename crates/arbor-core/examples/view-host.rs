//! The view's side of the app's IPC, for the UI's browser tests (ui/tests/browser.mjs), which run
//! the UI in Chromium with Tauri's IPC mocked: the mock hands the commands that ask for pages of
//! the open log to this process, so that the pages the UI draws are the engine's own
//! (`arbor_core::view`), made from the report each test gives.
//!
//! One JSON request a line on stdin, `{"id": 1, "key": "page-1", "cmd": "...", "args": {...}}`;
//! one answer a line on stdout, `{"id": 1, "ok": ...}` or `{"id": 1, "err": {"code", "message"}}`.
//! `open` (args `{"report": ...}`) makes the view of `key` and answers its summary, `close`
//! lets it go; the other commands are the app's (src-tauri/src/commands.rs), with the same
//! arguments, asked of the view of `key`; `loading` trees are answered from the open one. A
//! request's arguments are read straight into the types asked for (a report of a million spans
//! is one request).
use std::collections::HashMap;
use std::io::{BufRead, Write};

use arbor_core::report::{Place, Report};
use arbor_core::view::{Axis, FindingsFilter, HitQuery, View, WindowQuery};
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

fn answer(
    views: &mut HashMap<String, View>,
    revision: &mut u64,
    key: &str,
    cmd: &str,
    args: &Args,
) -> Result<Value, (String, String)> {
    if cmd == "open" {
        let report: Report = args.get("report")?;
        *revision += 1;
        let view = View::from_report(report, *revision);
        let summary = json!(view.summary());
        views.insert(key.to_owned(), view);
        return Ok(summary);
    }
    if cmd == "close" {
        views.remove(key);
        return Ok(Value::Null);
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
        let reply = match answer(&mut views, &mut revision, &request.key, &request.cmd, &args) {
            Ok(ok) => json!({"id": request.id, "ok": ok}),
            Err((code, message)) => json!({"id": request.id, "err": {"code": code, "message": message}}),
        };
        let mut out = stdout.lock();
        let _ = writeln!(out, "{reply}");
        let _ = out.flush();
    }
}
