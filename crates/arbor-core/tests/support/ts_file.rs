//! The committed TypeScript files that ts-rs generates for the UI, shared by the engine's test
//! (`crates/arbor-core/tests/ts_bindings.rs`) and the app's (`tests/app_ts_bindings.rs`), which
//! include this file by path.

use std::path::Path;

/// A generated file: `header`, `imports`, then each declaration exported, one blank line apart.
pub fn file_of(header: &str, imports: &str, decls: &[String]) -> String {
    let mut out = String::from(header);
    out.push_str(imports);
    for d in decls {
        out.push_str("export ");
        out.push_str(d.trim());
        out.push_str("\n\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// Fails when the committed file at `path` differs from `want` (line endings aside); with
/// `ARBOR_UPDATE_BINDINGS` set, writes `want` there first. `update` is the command that does that.
pub fn check(path: &Path, want: &str, update: &str) {
    if std::env::var_os("ARBOR_UPDATE_BINDINGS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, want).unwrap();
    }
    let got = std::fs::read_to_string(path).unwrap_or_default().replace("\r\n", "\n");
    assert!(got == want, "{} is out of date: run {update}\n--- generated ---\n{want}", path.display());
}
