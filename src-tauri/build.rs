//! Build script: generates the Tauri context from the root `tauri.conf.json` and the root
//! `capabilities/`, and declares the app's own commands (the table in `src/command_list.rs`) so
//! that each one needs an explicit permission in a capability (an undeclared command would be
//! allowed everywhere).

// The table of commands lib.rs makes its invoke handler from (a module here too: `include!` would
// refuse the file's `//!` paragraph). Cargo runs this script again when the table changes.
#[path = "src/command_list.rs"]
mod command_list;

// The commit the app's title names beside the version, as `arbor --version` does.
#[path = "../crates/arbor-cli/build/commit.rs"]
mod commit;

fn main() {
    commit::emit();
    let manifest = tauri_build::AppManifest::new().commands(command_list::COMMANDS);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest))
        .expect("tauri-build failed (see tauri.conf.json and capabilities/)");
}
