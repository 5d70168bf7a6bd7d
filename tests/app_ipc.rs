//! The app's IPC surface, exercised through Tauri's mock runtime: the real command handlers, the
//! real capability checks from `capabilities/`, and no window or display.

use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::WebviewWindowBuilder;

/// Builds the app on the mock runtime with its `main` window, as the capabilities expect.
fn main_window() -> (tauri::App<tauri::test::MockRuntime>, tauri::WebviewWindow<tauri::test::MockRuntime>) {
    let app = arbor_app::app_builder(mock_builder())
        .build(tauri::generate_context!())
        .expect("the app builds on the mock runtime");
    let window = WebviewWindowBuilder::new(&app, "main", Default::default()).build().expect("the main window builds");
    (app, window)
}

/// Invokes `cmd` with a JSON body from the app's own origin, as the web UI would.
fn invoke(window: &tauri::WebviewWindow<tauri::test::MockRuntime>, cmd: &str, body: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(body),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|body| body.deserialize::<Value>().expect("a JSON answer"))
}

#[test]
fn engine_info_reports_the_engine_version_and_every_format() {
    let (_app, window) = main_window();
    let info = invoke(&window, "engine_info", Value::Object(Default::default())).expect("engine_info is allowed");
    assert_eq!(info["version"], arbor_core::VERSION);
    let ids: Vec<&str> = info["formats"].as_array().unwrap().iter().map(|f| f["id"].as_str().unwrap()).collect();
    let expected: Vec<&str> = arbor_core::FORMATS.iter().map(|f| f.id).collect();
    assert_eq!(ids, expected);
    assert!(ids.contains(&"dsh-rpc"));
}

#[test]
fn a_plugin_command_the_capabilities_do_not_grant_is_refused() {
    let (_app, window) = main_window();
    // The app never saves files through the dialog, so `dialog:allow-save` is not granted.
    let refused = invoke(&window, "plugin:dialog|save", serde_json::json!({"options": {}}));
    assert!(refused.is_err(), "dialog save must be refused, got {refused:?}");
}

#[test]
fn an_unknown_command_is_refused() {
    let (_app, window) = main_window();
    assert!(invoke(&window, "no_such_command", Value::Object(Default::default())).is_err());
}
