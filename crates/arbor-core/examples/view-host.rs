//! The view's side of the app's IPC, for the UI's browser tests (ui/tests/browser.mjs), which run
//! the UI in Chromium with Tauri's IPC mocked: the mock hands the commands that ask for pages of
//! the open log to this process, so that the pages the UI draws are the engine's own
//! (`arbor_core::view`), made from the report each test gives.
//!
//! One JSON request a line on stdin, `{"id": 1, "key": "page-1", "cmd": "...", "args": {...}}`;
//! one answer a line on stdout, `{"id": 1, "ok": ...}` or `{"id": 1, "err": {"code", "message"}}`.
//! `open` (args `{"report": ...}`) makes the view of `key` and answers its summary; the other
//! commands are the app's (src-tauri/src/commands.rs), with the same arguments, asked of the
//! view of `key`; `loading` trees are answered from the open one.
use std::collections::HashMap;
use std::io::{BufRead, Write};

use arbor_core::report::{Place, Report};
use arbor_core::view::{Axis, FindingsFilter, HitQuery, View, WindowQuery};
use serde_json::{json, Value};

fn arg<T: serde::de::DeserializeOwned>(args: &Value, name: &str) -> Result<T, String> {
    serde_json::from_value(args.get(name).cloned().unwrap_or(Value::Null)).map_err(|e| format!("{name}: {e}"))
}

fn answer(
    views: &mut HashMap<String, View>,
    revision: &mut u64,
    key: &str,
    cmd: &str,
    args: &Value,
) -> Result<Value, (String, String)> {
    let bad = |m: String| ("bad-request".to_owned(), m);
    if cmd == "open" {
        let report: Report = arg(args, "report").map_err(bad)?;
        *revision += 1;
        let view = View::from_report(report, *revision);
        let summary = serde_json::to_value(view.summary()).map_err(|e| bad(e.to_string()))?;
        views.insert(key.to_owned(), view);
        return Ok(summary);
    }
    let v = views.get_mut(key).ok_or_else(|| ("not-open".to_owned(), "no log is open".to_owned()))?;
    let a = |name: &str| -> Result<u32, (String, String)> { arg(args, name).map_err(bad) };
    let id = || -> Result<String, (String, String)> { arg(args, "id").map_err(bad) };
    let out = match cmd {
        "summary" => json!(v.summary()),
        "tree_rows" => json!(v.tree_page(a("offset")?, a("limit")?)),
        "tree_set_open" => json!(v.tree_set_open(&id()?, arg(args, "open").map_err(bad)?)),
        "tree_reveal" => json!(v.tree_reveal(&id()?)),
        "findings_page" => {
            let filter: FindingsFilter = arg(args, "filter").map_err(bad)?;
            json!(v.findings(&filter, a("offset")?, a("limit")?))
        }
        "findings_at" => {
            let place = Place { file: arg(args, "file").map_err(bad)?, line: arg(args, "line").map_err(bad)? };
            json!(v.findings_at(&place))
        }
        "session_detail" => json!(v.session(&id()?)),
        "waits_page" => json!(v.waits(a("offset")?, a("limit")?)),
        "replies_page" => json!(v.replies(a("offset")?, a("limit")?)),
        "timeline_info" => json!(v.timeline_info(arg::<Axis>(args, "axis").map_err(bad)?)),
        "timeline_open" => json!(v.timeline_open(
            arg(args, "axis").map_err(bad)?,
            a("first")?,
            a("last")?,
            arg(args, "width").map_err(bad)?
        )),
        "timeline_window" => json!(v.timeline_window(&arg::<WindowQuery>(args, "query").map_err(bad)?)),
        "timeline_hit" => json!(v.timeline_hit(&arg::<HitQuery>(args, "query").map_err(bad)?)),
        "timeline_locate" => {
            let session: Option<String> = arg(args, "session").map_err(bad)?;
            let place: Option<Place> = arg(args, "place").map_err(bad)?;
            json!(v.timeline_locate(arg(args, "axis").map_err(bad)?, session.as_deref(), place.as_ref()))
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
        let request: Value = match serde_json::from_str(&line) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("view-host: a request that is not JSON: {e}");
                continue;
            }
        };
        let key = request["key"].as_str().unwrap_or_default();
        let cmd = request["cmd"].as_str().unwrap_or_default();
        let reply = match answer(&mut views, &mut revision, key, cmd, &request["args"]) {
            Ok(ok) => json!({"id": request["id"], "ok": ok}),
            Err((code, message)) => json!({"id": request["id"], "err": {"code": code, "message": message}}),
        };
        let mut out = stdout.lock();
        let _ = writeln!(out, "{reply}");
        let _ = out.flush();
    }
}
