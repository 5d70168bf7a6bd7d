//! The lists of the app's commands that are kept by hand agree with the table they follow
//! (`src-tauri/src/command_list.rs`, `arbor_app::COMMANDS`; the invoke handler and build.rs's
//! declaration are made from it): the `#[tauri::command]`s written in `src-tauri/src/commands/`,
//! the permissions of `capabilities/`, the commands `ui/src/lib/ipc.ts` types and calls, and those
//! the UI's browser tests ask of the view host (`crates/arbor-core/examples/view-host.rs`). A
//! command added to one and not the others fails here, with what is missing where.

use std::collections::BTreeSet;
use std::path::Path;

use arbor_app::COMMANDS;

/// What the main window may call besides the app's commands, and what of `ipc.ts` uses it.
const PLUGIN_PERMISSIONS: &[(&str, &str)] = &[
    ("core:event:allow-listen", "onDroppedPaths listens for files dragged onto the window"),
    ("core:event:allow-unlisten", "onDroppedPaths stops listening"),
    ("dialog:allow-open", "chooseFiles and chooseFolder"),
    ("dialog:allow-save", "chooseExportFile"),
];

/// Commands of the table that `ipc.ts` does not call, and why (a command for another caller).
const NOT_CALLED_BY_THE_UI: &[(&str, &str)] = &[];

/// What the view host answers that is its own and not an app command, and why.
const VIEW_HOST_ONLY: &[(&str, &str)] = &[
    ("open", "takes the report a test gives and makes its view (the app reads files: open_paths)"),
    ("close", "lets the view of a closed page go"),
    ("summary", "the view's summary, which the app answers only as open_paths' and open_sample's result"),
];

fn read(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn table() -> BTreeSet<String> {
    let table: BTreeSet<String> = COMMANDS.iter().map(|c| c.to_string()).collect();
    assert_eq!(table.len(), COMMANDS.len(), "a command is twice in the table");
    table
}

fn set<'a>(names: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    names.into_iter().map(str::to_owned).collect()
}

/// Fails unless `found` (what `place` holds) is `want`, saying what is missing and what is extra.
fn same(place: &str, want: &BTreeSet<String>, found: &BTreeSet<String>) {
    let missing: Vec<_> = want.difference(found).collect();
    let extra: Vec<_> = found.difference(want).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{place} and the table of commands (src-tauri/src/command_list.rs) differ:\n  \
         missing there: {missing:?}\n  there and not in the table: {extra:?}"
    );
}

/// The names in `text` between each `open` and the next `close`.
fn between<'a>(text: &'a str, open: &'a str, close: char) -> impl Iterator<Item = &'a str> {
    text.split(open).skip(1).filter_map(move |rest| rest.split_once(close).map(|(name, _)| name))
}

#[test]
fn every_command_written_is_in_the_table() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src-tauri/src/commands");
    let mut written = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        // The function after each attribute: `pub fn name` or `pub async fn name`, then `(` or `<`.
        for after in text.split("#[tauri::command]").skip(1) {
            let (_, rest) =
                after.split_once("fn ").unwrap_or_else(|| panic!("{}: a command with no fn", path.display()));
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            assert!(written.insert(name.clone()), "two commands named {name}");
        }
    }
    same("the #[tauri::command]s of src-tauri/src/commands/", &table(), &written);
}

#[test]
fn the_capability_grants_the_table_and_nothing_else() {
    let files: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("capabilities"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, ["default.json"], "another capability grants more: name its permissions here");
    let capability: serde_json::Value = serde_json::from_str(&read("capabilities/default.json")).unwrap();
    let permissions: Vec<&str> = capability["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap_or_else(|| panic!("a permission with scopes, {p}: name it here")))
        .collect();
    let (plugins, app): (Vec<&str>, Vec<&str>) = permissions.into_iter().partition(|p| p.contains(':'));
    let granted: BTreeSet<String> = app
        .iter()
        .map(|p| p.strip_prefix("allow-").unwrap_or_else(|| panic!("{p} is not a command's allow- permission")))
        .map(|p| p.replace('-', "_"))
        .collect();
    same("capabilities/default.json", &table(), &granted);
    same("capabilities/default.json's plugin permissions", &set(PLUGIN_PERMISSIONS.iter().map(|p| p.0)), &set(plugins));
}

#[test]
fn ipc_ts_types_and_calls_every_command_of_the_table_and_no_other() {
    let ipc = read("ui/src/lib/ipc.ts");
    // The `Commands` interface: a command's arguments and answer, a line each.
    let (_, typed) = ipc.split_once("interface Commands {\n").expect("ipc.ts has no interface Commands");
    let (typed, _) = typed.split_once("\n}\n").unwrap();
    let typed: Vec<&str> = typed.lines().filter_map(|l| l.trim().split_once(": {").map(|(name, _)| name)).collect();
    same("ipc.ts's interface Commands", &table(), &set(typed));
    // Every command goes through `call`, the one `invoke`.
    let invokes = ipc.matches("invoke(").count() + ipc.matches("invoke<").count();
    assert_eq!(invokes, 1, "ipc.ts invokes other than through call(\"<command>\", ...)");
    let not_called = set(NOT_CALLED_BY_THE_UI.iter().map(|c| c.0));
    let called: BTreeSet<String> = table().difference(&not_called).cloned().collect();
    same("ipc.ts's call(\"...\")s", &called, &set(between(&ipc, "call(\"", '"')));
}

#[test]
fn the_view_host_answers_commands_of_the_table_and_its_own() {
    let host = read("crates/arbor-core/examples/view-host.rs");
    // `if cmd == "open"`, and the arms of `match cmd { "tree_rows" => ... }`.
    let compared = between(&host, "cmd == \"", '"');
    let arms = host.lines().filter_map(|l| l.trim().strip_prefix('"')?.split_once("\" =>").map(|(name, _)| name));
    let answered = set(compared.chain(arms));
    let own = set(VIEW_HOST_ONLY.iter().map(|c| c.0));
    let commands: BTreeSet<String> = answered.difference(&own).cloned().collect();
    let table = table();
    let unknown: Vec<_> = commands.difference(&table).collect();
    assert!(unknown.is_empty(), "the view host answers commands the app does not have: {unknown:?}");
    let gone: Vec<_> = own.difference(&answered).collect();
    assert!(gone.is_empty(), "the view host no longer answers {gone:?}: take them out of VIEW_HOST_ONLY");
}
