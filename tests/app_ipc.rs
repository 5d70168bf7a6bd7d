//! The app's IPC surface, exercised through Tauri's mock runtime: the real command handlers, the
//! real capability checks from `capabilities/`, and no window or display. Inputs are the engine's
//! conformance cases (`tests/conformance/cases`), so these tests read the same logs users do.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow, WebviewWindowBuilder};

use arbor_app::commands::load::LaunchPaths;

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases").join(name).join("input")
}

/// Builds the app on the mock runtime with its `main` window, as the capabilities expect. Its
/// settings file is a fresh one in a temporary folder.
fn main_window(launch: &[&str]) -> (App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.json");
    // The folder outlives the test (the app may write to it until it is dropped).
    std::mem::forget(dir);
    window_with_settings(launch, settings)
}

fn window_with_settings(launch: &[&str], settings: PathBuf) -> (App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let launch = LaunchPaths(launch.iter().map(|s| s.to_string()).collect());
    let app = arbor_app::app_builder(mock_builder(), launch, Some(settings))
        .build(tauri::generate_context!())
        .expect("the app builds on the mock runtime");
    let window = WebviewWindowBuilder::new(&app, "main", Default::default()).build().expect("the main window builds");
    (app, window)
}

/// A channel id as the web UI sends it; on the mock runtime its messages go nowhere (the streaming
/// itself is tested in src-tauri/src/commands/load.rs).
const CHANNEL: &str = "__CHANNEL__:1";

/// The origin the app's own pages are served from (what the capabilities call local).
const APP_ORIGIN: &str = if cfg!(windows) { "http://tauri.localhost" } else { "tauri://localhost" };

/// Invokes `cmd` with a JSON body from the app's own origin, as the web UI would.
fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str, body: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: APP_ORIGIN.parse().unwrap(),
        body: InvokeBody::Json(body),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|body| body.deserialize::<Value>().expect("a JSON answer"))
}

/// Opens `paths` and answers the summary.
fn open(window: &WebviewWindow<MockRuntime>, paths: &[PathBuf]) -> Value {
    invoke(window, "open_paths", json!({"paths": paths, "onEvent": CHANNEL})).expect("open_paths is allowed")
}

/// The ids of the open tree's rows, in order.
fn tree_ids(window: &WebviewWindow<MockRuntime>) -> Vec<String> {
    let page =
        invoke(window, "tree_rows", json!({"of": "open", "offset": 0, "limit": 500})).expect("tree_rows is allowed");
    page["rows"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect()
}

/// The start of a session's first run, as the inspector is shown it.
fn first_run_start(window: &WebviewWindow<MockRuntime>, id: &str) -> Value {
    let detail = invoke(window, "session_detail", json!({"id": id})).expect("session_detail is allowed");
    detail["runs"][0]["start"].clone()
}

#[test]
fn engine_info_reports_the_engine_version_and_every_format() {
    let (_app, window) = main_window(&[]);
    let info = invoke(&window, "engine_info", json!({})).expect("engine_info is allowed");
    assert_eq!(info["version"], arbor_core::VERSION);
    assert_eq!(info["commit"], env!("ARBOR_COMMIT"), "the commit `arbor --version` names too");
    let ids: Vec<&str> = info["formats"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap()).collect();
    let expected: Vec<&str> = arbor_core::FORMATS.iter().map(|f| f.id).collect();
    assert_eq!(ids, expected);
    assert!(ids.contains(&"dsh-rpc"));
}

#[test]
fn launch_paths_hands_back_the_command_line_paths() {
    let (_app, window) = main_window(&["a.jsonl", "logs/"]);
    assert_eq!(invoke(&window, "launch_paths", json!({})).unwrap(), json!(["a.jsonl", "logs/"]));
}

#[test]
fn open_paths_keeps_the_log_open_and_raw_line_reads_its_places() {
    let (_app, window) = main_window(&[]);
    let file = case("dsh-rpc-two-level").join("run.jsonl");
    let summary = open(&window, std::slice::from_ref(&file));
    assert_eq!(summary["inputs"][0]["format"], "dsh-rpc");
    assert_eq!((summary["sessions"].as_u64(), summary["waits"].as_u64()), (Some(3), Some(1)));
    assert_eq!(tree_ids(&window), ["root", "kid", "grand"]);

    // A run's start place, as the tree hands it to the inspector, reads back the exact line.
    let start = &first_run_start(&window, "kid");
    let line = invoke(&window, "raw_line", json!({"file": start["file"], "line": start["line"]})).unwrap();
    let want = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .nth(start["line"].as_u64().unwrap() as usize - 1)
        .unwrap()
        .to_owned();
    assert_eq!(line, json!(want));
    assert_eq!(invoke(&window, "raw_line", json!({"file": start["file"], "line": 100_000})).unwrap(), Value::Null);
}

#[test]
fn records_around_names_the_neighbours_of_a_place() {
    let (_app, window) = main_window(&[]);
    let err = invoke(&window, "records_around", json!({"file": "run.jsonl", "line": 1, "before": 2, "after": 2}));
    assert_eq!(err.unwrap_err()["code"], "not-open");
    open(&window, &[case("dsh-rpc-two-level").join("run.jsonl")]);
    let start = &first_run_start(&window, "kid");
    let (name, line) = (start["file"].clone(), start["line"].as_u64().unwrap());
    let around =
        invoke(&window, "records_around", json!({"file": name, "line": line, "before": 2, "after": 3})).unwrap();
    let around = around.as_array().unwrap();
    let at = around.iter().position(|r| r["line"] == line).expect("the record itself is among them");
    assert!(at <= 2 && around.len() - at - 1 <= 3, "{around:?}");
    assert!(around.len() > 1, "{around:?}");
    let lines: Vec<u64> = around.iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert!(lines.windows(2).all(|w| w[0] < w[1]), "wire order: {lines:?}");
    for r in around {
        assert_eq!(r["file"], name);
        assert!(r["kind"].is_string() && r["index"].is_u64(), "{r}");
    }
    // A line with no record on it has no neighbours; a file that is not open is refused.
    let none = invoke(&window, "records_around", json!({"file": name, "line": 100_000, "before": 2, "after": 2}));
    assert_eq!(none.unwrap(), json!([]));
    let err = invoke(&window, "records_around", json!({"file": "/etc/passwd", "line": 1, "before": 2, "after": 2}));
    assert_eq!(err.unwrap_err()["code"], "not-open");
}

#[test]
fn raw_line_refuses_files_that_are_not_open() {
    let (_app, window) = main_window(&[]);
    let err = invoke(&window, "raw_line", json!({"file": "/etc/passwd", "line": 1})).unwrap_err();
    assert_eq!(err["code"], "not-open");
    open(&window, &[case("dsh-session-folder")]);
    assert_eq!(invoke(&window, "raw_line", json!({"file": "/etc/passwd", "line": 1})).unwrap_err()["code"], "not-open");
    assert_eq!(
        invoke(&window, "raw_line", json!({"file": "../../../../Cargo.toml", "line": 1})).unwrap_err()["code"],
        "not-open"
    );
    // Places in a folder are relative to it.
    assert!(invoke(&window, "raw_line", json!({"file": "root.jsonl", "line": 1})).unwrap().is_string());
}

#[test]
fn open_paths_errors_cross_as_code_and_message() {
    let (_app, window) = main_window(&[]);
    let err = invoke(&window, "open_paths", json!({"paths": [], "onEvent": CHANNEL})).unwrap_err();
    assert_eq!(err["code"], "no-paths");
    let err =
        invoke(&window, "open_paths", json!({"paths": ["/no/such/arbor/log.jsonl"], "onEvent": CHANNEL})).unwrap_err();
    assert_eq!(err["code"], "load-failed");
    assert!(err["message"].as_str().is_some_and(|m| !m.is_empty()), "{err}");
}

#[test]
fn open_sample_shows_recursive_delegation_and_its_raw_lines() {
    let (_app, window) = main_window(&[]);
    let summary = invoke(&window, "open_sample", json!({"onEvent": CHANNEL})).expect("open_sample is allowed");
    let rows = invoke(&window, "tree_rows", json!({"of": "open", "offset": 0, "limit": 100})).unwrap();
    assert!(rows["rows"].as_array().unwrap().iter().any(|r| r["depth"].as_u64() >= Some(2)), "{rows}");
    // The same sessions in another order, asked for with the rows; an order it does not know is refused.
    let ids = |page: &serde_json::Value| {
        let mut ids: Vec<String> = page["rows"].as_array().unwrap().iter().map(|r| r["id"].to_string()).collect();
        ids.sort();
        ids
    };
    let sorted =
        invoke(&window, "tree_rows", json!({"of": "open", "offset": 0, "limit": 100, "order": "subtree-tokens"}))
            .unwrap();
    assert_eq!(ids(&sorted), ids(&rows));
    assert!(invoke(&window, "tree_rows", json!({"of": "open", "offset": 0, "limit": 100, "order": "by-mood"})).is_err());
    let first = &summary["inputs"][0]["file"];
    assert!(invoke(&window, "raw_line", json!({"file": first, "line": 1})).unwrap().is_string());
}

#[test]
fn search_stops_at_its_limit_and_goes_on_when_asked() {
    let (_app, window) = main_window(&[]);
    let search = |query: &str, limit: u32| {
        invoke(&window, "search", json!({"query": query, "limit": limit, "onEvent": CHANNEL}))
    };
    assert_eq!(search("kid", 10).unwrap_err()["code"], "not-open");
    open(&window, &[case("dsh-rpc-two-level")]);
    // "kid" is a session and a dozen lines: one hit, then more, then to the end.
    assert_eq!(search("kid", 1).unwrap(), json!("limit"));
    let more = |limit: u32| invoke(&window, "search_more", json!({"limit": limit, "onEvent": CHANNEL}));
    assert_eq!(more(2).unwrap(), json!("limit"));
    assert_eq!(more(1000).unwrap(), json!("done"));
    assert_eq!(more(1).unwrap_err()["code"], "no-search", "nothing left to go on with");
    assert_eq!(search("zzz-nothing", 10).unwrap(), json!("done"));
    assert_eq!(search("  ", 10).unwrap(), json!("done"));
    // A cancelled search cannot be gone on with.
    assert_eq!(search("kid", 1).unwrap(), json!("limit"));
    invoke(&window, "cancel_search", json!({})).expect("cancel_search is allowed");
    assert_eq!(more(1).unwrap_err()["code"], "no-search");
}

#[test]
fn the_open_log_answers_pages_of_its_views() {
    let (_app, window) = main_window(&[]);
    let ask = |cmd: &str, args: Value| invoke(&window, cmd, args);
    assert_eq!(
        ask("findings_page", json!({"filter": {"text": "", "hidden": [], "session": null}, "offset": 0, "limit": 10}))
            .unwrap_err()["code"],
        "not-open"
    );
    assert_eq!(
        ask("tree_rows", json!({"of": "loading", "offset": 0, "limit": 10})).unwrap_err()["code"],
        "not-loading"
    );
    open(&window, &[case("dsh-rpc-bad-ancestry")]);
    let findings = ask(
        "findings_page",
        json!({"filter": {"text": "ancestry", "hidden": [], "session": null}, "offset": 0, "limit": 10}),
    )
    .unwrap();
    assert!(findings["matched"].as_u64() > Some(0), "{findings}");
    let item = findings["rows"].as_array().unwrap().iter().find(|r| r["kind"] == "item").unwrap();
    let at = &item["diagnostic"]["at"];
    let here = ask("findings_at", json!({"file": at["file"], "line": at["line"]})).unwrap();
    assert!(here.as_array().unwrap().iter().any(|d| d["code"] == item["diagnostic"]["code"]), "{here}");
    // Collapsing a root hides its subtree; revealing a descendant opens it again.
    let rows = tree_ids(&window);
    let spot = ask("tree_set_open", json!({"of": "open", "id": "x", "open": false})).unwrap();
    assert_eq!(spot["index"], json!(rows.iter().position(|r| r == "x")));
    assert!(!tree_ids(&window).contains(&"z".to_owned()));
    let spot = ask("tree_reveal", json!({"of": "open", "id": "z"})).unwrap();
    assert_eq!(spot["total"].as_u64(), Some(rows.len() as u64));
    assert_eq!(tree_ids(&window), rows);
    let waits = ask("waits_page", json!({"offset": 0, "limit": 10})).unwrap();
    let replies = ask("replies_page", json!({"offset": 0, "limit": 10})).unwrap();
    assert!(waits["total"].is_u64() && replies["total"].is_u64());
    assert_eq!(ask("session_detail", json!({"id": "nobody"})).unwrap(), Value::Null);
    // The timeline: its axis and domain, a window of its lanes, what is under a point, where a lane is.
    let info = ask("timeline_info", json!({"axis": "time"})).unwrap();
    assert_eq!(info["axis"], "wire");
    let q = json!({"axis": "wire", "first": 0, "last": 50, "start": info["min"], "end": info["max"], "width": 800.0});
    let window_ = ask("timeline_window", json!({"query": q})).unwrap();
    assert_eq!(window_["lanes"].as_array().unwrap().len() as u64, info["lanes"].as_u64().unwrap());
    let hit =
        ask("timeline_hit", json!({"query": {"axis": "wire", "lane": 1, "x": null, "slop": 1.0, "band": "lane"}}))
            .unwrap();
    assert!(hit["text"].is_string(), "{hit}");
    let located = ask("timeline_locate", json!({"axis": "wire", "session": "x", "place": null})).unwrap();
    assert!(located["lane"].is_u64(), "{located}");
}

#[test]
fn naive_dropped_pages_the_notifications_a_direct_parent_filter_loses() {
    let (_app, window) = main_window(&[]);
    let args = json!({"root": "root", "file": "run.jsonl", "line": 2, "offset": 0, "limit": 5});
    assert_eq!(invoke(&window, "naive_dropped", args.clone()).unwrap_err()["code"], "not-open");
    open(&window, &[case("dsh-rpc-two-level")]);
    let waits = invoke(&window, "waits_page", json!({"offset": 0, "limit": 1})).unwrap();
    let wait = &waits["items"][0]["wait"];
    let args = json!({"root": wait["root"], "file": wait["start"]["file"], "line": wait["start"]["line"], "offset": 3, "limit": 5});
    let page = invoke(&window, "naive_dropped", args).expect("naive_dropped is allowed");
    let dropped = wait["notifications"].as_u64().unwrap() - wait["naive"]["notifications"].as_u64().unwrap();
    assert_eq!((page["total"].as_u64(), page["offset"].as_u64()), (Some(dropped), Some(3)), "{page}");
    let lines: Vec<u64> = page["records"].as_array().unwrap().iter().map(|r| r["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [10, 11, 12, 13, 14], "kid's and grand's lines, from the fourth");
    let args =
        json!({"root": "kid", "file": wait["start"]["file"], "line": wait["start"]["line"], "offset": 0, "limit": 5});
    assert_eq!(invoke(&window, "naive_dropped", args).unwrap_err()["code"], "no-such-wait");
}

#[test]
fn cancel_load_is_allowed_when_nothing_loads() {
    let (_app, window) = main_window(&[]);
    invoke(&window, "cancel_load", json!({})).expect("cancel_load is allowed");
}

#[test]
fn found_logs_answers_a_list() {
    let (_app, window) = main_window(&[]);
    assert!(invoke(&window, "found_logs", json!({})).expect("found_logs is allowed").is_array());
}

#[test]
fn the_ui_may_listen_for_dropped_files() {
    let (_app, window) = main_window(&[]);
    let args = json!({"event": "tauri://drag-drop", "target": {"kind": "Webview", "label": "main"}, "handler": 7});
    invoke(&window, "plugin:event|listen", args).expect("listening for drops is granted");
}

#[test]
fn a_plugin_command_the_capabilities_do_not_grant_is_refused() {
    let (_app, window) = main_window(&[]);
    // The app opens and saves files through the dialog (Export…) but shows no message boxes
    // through it, so `dialog:allow-message` is not granted.
    let refused = invoke(&window, "plugin:dialog|message", json!({"message": "hi"}));
    assert!(refused.is_err(), "dialog message must be refused, got {refused:?}");
}

#[test]
fn an_unknown_command_is_refused() {
    let (_app, window) = main_window(&[]);
    assert!(invoke(&window, "no_such_command", json!({})).is_err());
}

#[test]
fn settings_are_kept_by_the_app_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("settings.json");
    {
        let (_app, window) = window_with_settings(&[], file.clone());
        let first = invoke(&window, "settings", json!({})).expect("settings is allowed");
        assert_eq!(first, json!({"recent": [], "theme": "system", "notice": null}));
        let recent = invoke(&window, "remember_opened", json!({"paths": ["/logs/a.jsonl", "/logs/b"]})).unwrap();
        assert_eq!(recent[0]["paths"], json!(["/logs/a.jsonl", "/logs/b"]));
        invoke(&window, "set_theme", json!({"theme": "dark"})).unwrap();
        let key = json!(["/logs/a.jsonl", "/logs/b"]);
        invoke(&window, "save_view_state", json!({"key": key, "view": {"session": "kid", "tab": "replies"}})).unwrap();
        assert!(invoke(&window, "set_theme", json!({"theme": "purple"})).is_err(), "an unknown theme is refused");
    }
    let (_app, window) = window_with_settings(&[], file);
    let again = invoke(&window, "settings", json!({})).unwrap();
    assert_eq!(again["theme"], "dark");
    assert_eq!(again["recent"][0]["paths"], json!(["/logs/a.jsonl", "/logs/b"]));
    let view = invoke(&window, "view_state", json!({"key": ["/logs/a.jsonl", "/logs/b"]})).unwrap();
    assert_eq!(view, json!({"session": "kid", "tab": "replies"}));
    assert_eq!(invoke(&window, "view_state", json!({"key": ["/elsewhere"]})).unwrap(), Value::Null);
}

#[test]
fn a_corrupt_settings_file_is_reported_once_and_reset() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("settings.json");
    std::fs::write(&file, b"{\"recent\": [tru").unwrap();
    let (_app, window) = window_with_settings(&[], file.clone());
    let first = invoke(&window, "settings", json!({})).unwrap();
    assert!(first["notice"].as_str().unwrap().contains("could not be read"), "{first}");
    assert_eq!(first["recent"], json!([]));
    assert_eq!(invoke(&window, "settings", json!({})).unwrap()["notice"], Value::Null);
    assert!(dir.path().join("settings.json.corrupt").exists());
}

#[test]
fn the_web_view_cannot_name_a_settings_file() {
    // The store plugin's `load` took a path from the page; the app's settings commands take none,
    // and no store plugin command exists any more.
    let (_app, window) = main_window(&[]);
    for (cmd, body) in [
        ("plugin:store|load", json!({"path": "/etc/passwd"})),
        ("plugin:store|set", json!({"rid": 1, "key": "k", "value": 1})),
        ("plugin:store|save", json!({"rid": 1})),
    ] {
        assert!(invoke(&window, cmd, body).is_err(), "{cmd} must be refused");
    }
}

/// Findings page rows that are findings: (code, provisional).
fn finding_items(window: &WebviewWindow<MockRuntime>) -> Vec<(String, bool)> {
    let filter = json!({"text": "", "hidden": [], "session": null});
    let page = invoke(window, "findings_page", json!({"filter": filter, "offset": 0, "limit": 500})).unwrap();
    page["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "item")
        .map(|r| (r["diagnostic"]["code"].as_str().unwrap().to_owned(), r["provisional"] == json!(true)))
        .collect()
}

/// Polls `probe` for up to ten seconds (the watcher's events come on its own thread).
fn eventually(what: &str, mut probe: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !probe() {
        assert!(std::time::Instant::now() < deadline, "{what} did not happen");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A copy of a case's `run.jsonl` being written: empty until `append(from, to)` writes the case's
/// lines `from..to` to it.
struct GrowingLog {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
    lines: Vec<String>,
}

impl GrowingLog {
    fn of(name: &str) -> GrowingLog {
        let text = std::fs::read_to_string(case(name).join("run.jsonl")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        GrowingLog { _dir: dir, path, lines: text.lines().map(str::to_owned).collect() }
    }

    /// The two-level case's run up to its grandchild's start: its first 8 lines (the root and
    /// its child) written.
    fn started() -> GrowingLog {
        let log = GrowingLog::of("dsh-rpc-two-level");
        log.append(0, 8);
        log
    }

    fn append(&self, from: usize, to: usize) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&self.path).unwrap();
        for l in &self.lines[from..to] {
            writeln!(f, "{l}").unwrap();
        }
    }
}

#[test]
fn a_followed_log_grows_in_the_open_view_until_follow_is_turned_off() {
    let (_app, window) = main_window(&[]);
    let log = GrowingLog::started();
    let (path, lines) = (log.path.clone(), &log.lines);
    let append = |from: usize, to: usize| log.append(from, to);
    let first = open(&window, std::slice::from_ref(&path));
    assert_eq!(tree_ids(&window), ["root", "kid"]);
    let state = invoke(&window, "follow_state", json!({})).expect("follow_state is allowed");
    assert_eq!((state["following"].clone(), state["recent"].clone()), (json!(false), json!(true)), "{state}");
    let state = invoke(&window, "set_follow", json!({"on": true})).expect("set_follow is allowed");
    assert_eq!(state["following"], json!(true));

    // The grandchild starts, its turn still open: it appears, and the end-dependent findings
    // are provisional.
    append(8, 12);
    eventually("the grandchild appearing", || tree_ids(&window).contains(&"grand".to_owned()));
    let summary = invoke(&window, "tree_rows", json!({"of": "open", "offset": 0, "limit": 10})).unwrap();
    assert!(summary["revision"].as_u64() > first["revision"].as_u64(), "a new revision: {summary}");
    let findings = finding_items(&window);
    assert!(findings.iter().any(|(_, p)| *p), "some finding is provisional while followed: {findings:?}");

    // The run ends: what depended on the open end goes.
    append(12, lines.len());
    eventually("the run's end being read", || finding_items(&window).iter().all(|(_, p)| !p));
    assert_eq!(tree_ids(&window), ["root", "kid", "grand"]);

    // Deleted while followed: what the engine says about it, and the app still answers.
    std::fs::remove_file(&path).unwrap();
    eventually("the deletion being read", || {
        let filter = json!({"text": "", "hidden": [], "session": null});
        let page = invoke(&window, "findings_page", json!({"filter": filter, "offset": 0, "limit": 500})).unwrap();
        page.to_string().contains("went away") || page.to_string().contains("file-rewritten")
    });

    // Off: nothing more is read.
    invoke(&window, "set_follow", json!({"on": false})).unwrap();
    append(0, 8);
    std::thread::sleep(std::time::Duration::from_millis(400));
    assert_eq!(invoke(&window, "follow_state", json!({})).unwrap()["following"], json!(false));
}

/// A followed log's view grows with it: a session collapsed before stays collapsed as its
/// sub-agent runs on under it (hidden), the tree's order stays the one chosen, and every session
/// answers as a view made of the whole log would.
#[test]
fn a_followed_logs_view_keeps_what_was_collapsed_and_its_order_as_it_grows() {
    let (_app, window) = main_window(&[]);
    let log = GrowingLog::started();
    let (path, lines) = (log.path.clone(), &log.lines);
    // Up to the grandchild's start: its turn is open.
    log.append(8, 12);
    open(&window, std::slice::from_ref(&path));
    invoke(&window, "tree_rows", json!({"of": "open", "offset": 0, "limit": 10, "order": "subtree-tokens"})).unwrap();
    let spot = invoke(&window, "tree_set_open", json!({"of": "open", "id": "kid", "open": false})).unwrap();
    assert_eq!(spot["total"], json!(2));
    invoke(&window, "set_follow", json!({"on": true})).unwrap();
    log.append(12, lines.len());
    // The grandchild's run is read to its end (its outcome is known) while hidden.
    eventually("the grandchild's end being read", || {
        invoke(&window, "session_detail", json!({"id": "grand"})).is_ok_and(|d| d["runs"][0]["outcome"] == json!("ok"))
    });
    let page = invoke(&window, "tree_rows", json!({"of": "open", "offset": 0, "limit": 10})).unwrap();
    let rows: Vec<(String, bool)> = page["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap().to_owned(), r["collapsed"] == json!(true)))
        .collect();
    assert_eq!(rows, [("root".to_owned(), false), ("kid".to_owned(), true)], "{page}");
    let spot = invoke(&window, "tree_reveal", json!({"of": "open", "id": "grand"})).unwrap();
    assert_eq!(spot["total"], json!(3));
    // What each session says is what a view of the whole log says.
    let whole = arbor_core::view::View::from_report(arbor_core::analyze_paths(std::slice::from_ref(&path)).unwrap(), 1);
    for id in ["root", "kid", "grand"] {
        let detail = invoke(&window, "session_detail", json!({"id": id})).unwrap();
        assert_eq!(detail, serde_json::to_value(whole.session(id).unwrap()).unwrap(), "{id}");
    }
    invoke(&window, "set_follow", json!({"on": false})).unwrap();
}

/// Cancel stops a follow with the load it cancels (the page turns its switch off), and says so:
/// it used to stop the following thread while `follow_state` still said it followed.
#[test]
fn cancel_stops_following_and_follow_state_says_so() {
    let (_app, window) = main_window(&[]);
    let log = GrowingLog::started();
    let path = log.path.clone();
    open(&window, std::slice::from_ref(&path));
    assert_eq!(invoke(&window, "set_follow", json!({"on": true})).unwrap()["following"], json!(true));
    invoke(&window, "cancel_load", json!({})).unwrap();
    assert_eq!(invoke(&window, "follow_state", json!({})).unwrap()["following"], json!(false));
    // What was open stays open, and can be followed again.
    assert_eq!(tree_ids(&window), ["root", "kid"]);
    assert_eq!(invoke(&window, "set_follow", json!({"on": true})).unwrap()["following"], json!(true));
    log.append(8, 12);
    eventually("the grandchild appearing", || tree_ids(&window).contains(&"grand".to_owned()));
}

/// Writes `with` over the first `what` of `path`, in place (the same length: the file neither
/// grows nor shrinks, so only reading it again from the start could notice).
fn change_in_place(path: &std::path::Path, what: &str, with: &str) {
    use std::io::{Seek, SeekFrom, Write};
    assert_eq!(what.len(), with.len());
    let text = std::fs::read_to_string(path).unwrap();
    let at = text.find(what).unwrap() as u64;
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start(at)).unwrap();
    f.write_all(with.as_bytes()).unwrap();
}

#[test]
fn turning_follow_on_reads_only_what_was_appended_since_the_log_was_opened() {
    let (_app, window) = main_window(&[]);
    let log = GrowingLog::started();
    let (path, lines) = (log.path.clone(), &log.lines);
    let append = |from: usize, to: usize| log.append(from, to);
    open(&window, std::slice::from_ref(&path));
    assert_eq!(tree_ids(&window), ["root", "kid"]);
    // The root's status line now names another session: a reading from the start would show it.
    change_in_place(&path, r#"{"sessionId":"root","status""#, r#"{"sessionId":"rooT","status""#);
    invoke(&window, "set_follow", json!({"on": true})).unwrap();
    append(8, 12);
    eventually("the grandchild appearing", || tree_ids(&window).contains(&"grand".to_owned()));
    assert_eq!(tree_ids(&window), ["root", "kid", "grand"], "only the appended lines were read");

    // Off and on again: it goes on from what it had read, still.
    invoke(&window, "set_follow", json!({"on": false})).unwrap();
    change_in_place(&path, r#"{"sessionId":"kid","event""#, r#"{"sessionId":"kiD","event""#);
    invoke(&window, "set_follow", json!({"on": true})).unwrap();
    append(12, lines.len());
    eventually("the run's end being read", || finding_items(&window).iter().all(|(_, p)| !p));
    assert_eq!(tree_ids(&window), ["root", "kid", "grand"]);
}

/// A log the user left followed is read to be followed however long ago it was written (turning
/// Follow on reads only what was appended), and a log they left unfollowed is read without what
/// following needs however recent it is (turning Follow on reads it again from the start).
#[test]
fn a_logs_saved_follow_choice_decides_how_it_is_read() {
    let (_app, window) = main_window(&[]);
    let log = GrowingLog::started();
    let path = log.path.clone();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().write(true).open(&path).unwrap().set_modified(hour_ago).unwrap();
    let choose = |follow: bool| {
        let view = json!({"key": [path], "view": {"follow": follow}});
        invoke(&window, "save_view_state", view).unwrap();
    };
    choose(true);
    open(&window, std::slice::from_ref(&path));
    assert_eq!(invoke(&window, "follow_state", json!({})).unwrap()["recent"], json!(false));
    change_in_place(&path, r#"{"sessionId":"root","status""#, r#"{"sessionId":"rooT","status""#);
    invoke(&window, "set_follow", json!({"on": true})).unwrap();
    log.append(8, 12);
    eventually("the grandchild appearing", || tree_ids(&window).contains(&"grand".to_owned()));
    assert_eq!(tree_ids(&window), ["root", "kid", "grand"], "only the appended lines were read");
    invoke(&window, "set_follow", json!({"on": false})).unwrap();

    // Left unfollowed, and written a moment ago: Follow reads it all again (the view shows what
    // it read with the next change).
    choose(false);
    open(&window, std::slice::from_ref(&path));
    assert_eq!(invoke(&window, "follow_state", json!({})).unwrap()["recent"], json!(true));
    change_in_place(&path, r#"{"sessionId":"kid","event""#, r#"{"sessionId":"kiD","event""#);
    invoke(&window, "set_follow", json!({"on": true})).unwrap();
    log.append(12, log.lines.len());
    eventually("the log being read again", || tree_ids(&window).contains(&"kiD".to_owned()));
}

#[test]
fn a_session_transcript_pages_its_items_and_a_place_opens_its_item() {
    let (_app, window) = main_window(&[]);
    let ask = |cmd: &str, args: Value| invoke(&window, cmd, args);
    assert_eq!(
        ask("transcript_page", json!({"session": "root", "from": 0, "limit": 10})).unwrap_err()["code"],
        "not-open"
    );
    open(&window, &[case("dsh-rpc-two-level")]);
    let page =
        ask("transcript_page", json!({"session": "root", "from": 1, "limit": 1})).expect("transcript_page is allowed");
    assert_eq!((page["total"].as_u64(), page["from"].as_u64()), (Some(5), Some(1)), "{page}");
    let row = &page["rows"][0];
    assert_eq!((row["at"]["line"].as_u64(), row["parts"][0]["kind"].as_str()), (Some(6), Some("spawn")), "{row}");
    assert_eq!(row["parts"][0]["child"], "kid");
    let text = ask("transcript_part", json!({"session": "root", "row": 3, "part": 0})).unwrap();
    assert_eq!(text, "kid answer");
    assert_eq!(
        ask("transcript_page", json!({"session": "nobody", "from": 0, "limit": 1})).unwrap_err()["code"],
        "no-session"
    );
    // A place opens the item of the session whose record is there: line 17 is kid's, the reply
    // it received from grand.
    let spot = ask("transcript_locate", json!({"session": null, "place": {"file": "run.jsonl", "line": 17}})).unwrap();
    assert_eq!(spot, json!({"session": "kid", "row": 2}));
    // A line between two items (root's step end) opens the one before it (its tool result).
    let spot =
        ask("transcript_locate", json!({"session": "root", "place": {"file": "run.jsonl", "line": 25}})).unwrap();
    assert_eq!(spot, json!({"session": "root", "row": 3}));
    // Find: the rows whose text holds the query in any case; with none, every row a filter keeps.
    let find =
        |query: &str, show: &str| ask("transcript_find", json!({"session": "root", "query": query, "show": show}));
    // Row 2 is what root received from kid, row 3 the tool result it came in.
    assert_eq!(find("KID ANSWER", "all").expect("transcript_find is allowed"), json!([2, 3]));
    assert_eq!(find("", "all").unwrap(), json!([0, 1, 2, 3, 4]));
    assert_eq!(find("no such text in any row", "all").unwrap(), json!([]));
    // What was said: what came back from the child and root's own answer (not the call, the
    // spawn or the bare result); without results, all but row 3; no errors.
    assert_eq!(find("", "talk").unwrap(), json!([2, 4]));
    assert_eq!(find("", "no-results").unwrap(), json!([0, 1, 2, 4]));
    assert_eq!(find("kid", "errors").unwrap(), json!([]));
    assert!(find("", "nothing-of-the-kind").is_err(), "a filter it does not know");
}

#[test]
fn export_writes_otlp_json_where_it_is_told() {
    let (_app, window) = main_window(&[]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.otlp.json");
    assert_eq!(invoke(&window, "export_otel", json!({"path": path})).unwrap_err()["code"], "not-open");
    open(&window, &[case("dsh-rpc-two-level")]);
    let done = invoke(&window, "export_otel", json!({"path": path})).expect("export_otel is allowed");
    assert_eq!(done["path"], path.to_str().unwrap());
    assert_eq!(done["traces"], 1);
    assert!(done["spans"].as_u64() >= Some(3), "{done}");
    let first: Value = serde_json::from_str(std::fs::read_to_string(&path).unwrap().lines().next().unwrap()).unwrap();
    assert!(first["resourceSpans"].is_array(), "{first}");
    let bad = dir.path().join("no-such-folder/out.json");
    assert_eq!(invoke(&window, "export_otel", json!({"path": bad})).unwrap_err()["code"], "export-failed");
}

#[test]
fn compare_runs_reads_both_sides_at_once_and_says_what_the_engine_says() {
    let (_app, window) = main_window(&[]);
    let a = case("copilot-events-saved").join("events.jsonl");
    let text = std::fs::read_to_string(&a).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("events.jsonl");
    std::fs::write(&b, text.replace(r#""Root summary.""#, r#""Root summary, changed.""#)).unwrap();
    let side = |p: &Path| json!({"paths": [p], "session": null});
    let got = invoke(&window, "compare_runs", json!({"a": side(&a), "b": side(&b), "ignore": []})).unwrap();
    // What the engine compares of the two logs read one after the other.
    let x = arbor_core::analyze(std::slice::from_ref(&a), &mut ());
    let y = arbor_core::analyze(std::slice::from_ref(&b), &mut ());
    let (rx, ry) = (x.top_sessions()[0].to_owned(), y.top_sessions()[0].to_owned());
    let (head, pairs) = x.compare(&rx, &y, &ry, &[]).unwrap().into_head();
    assert_eq!(got, serde_json::to_value(&head).unwrap());
    assert_eq!(got["divergence"]["what"], "reply");
    assert_eq!(got["pairs"], pairs.len());
    // Its pairs, a window at a time: the engine's, in its order.
    let mut paged = Vec::new();
    for offset in (0..pairs.len() as u32).step_by(2) {
        let page = invoke(&window, "compare_pairs", json!({"offset": offset, "limit": 2})).unwrap();
        assert_eq!((page["total"].as_u64(), page["offset"].as_u64()), (Some(pairs.len() as u64), Some(offset as u64)));
        paged.extend(page["rows"].as_array().unwrap().iter().cloned());
    }
    assert_eq!(serde_json::Value::Array(paged), serde_json::to_value(&pairs).unwrap());
    let past = invoke(&window, "compare_pairs", json!({"offset": 99, "limit": 2})).unwrap();
    assert_eq!(past["rows"], json!([]));
    // A missing side is said, A's first when both are.
    let gone = dir.path().join("gone.jsonl");
    let err = invoke(&window, "compare_runs", json!({"a": side(&a), "b": side(&gone), "ignore": []})).unwrap_err();
    assert_eq!(err["code"], "not-found");
    assert!(err["message"].as_str().unwrap().contains("gone.jsonl"), "{err}");
    let gone_a = dir.path().join("gone-a.jsonl");
    let err = invoke(&window, "compare_runs", json!({"a": side(&gone_a), "b": side(&gone), "ignore": []})).unwrap_err();
    assert!(err["message"].as_str().unwrap().contains("gone-a.jsonl"), "{err}");
}
