//! The built-in sample: what the app opens when no path is given.
//!
//! Two logs, kept as a conformance case (`tests/conformance/cases/builtin-sample`) so their expected
//! report is checked like any other case: a deepseek-harness recording with delegation three levels
//! deep, a reused child id whose old run settles late and balanced boundaries; and a Copilot SDK
//! recording where a sub-agent's error and idle would end a naive waiter.

use std::io;
use std::path::{Path, PathBuf};

/// The sample's folder name when written out.
pub const SAMPLE_NAME: &str = "arbor-sample";

/// The sample's files: name and content.
pub const FILES: &[(&str, &str)] = &[
    ("copilot-sdk.jsonl", include_str!("../../../tests/conformance/cases/builtin-sample/input/copilot-sdk.jsonl")),
    ("delegation.jsonl", include_str!("../../../tests/conformance/cases/builtin-sample/input/delegation.jsonl")),
];

/// Write the sample under `dir` (as `dir/arbor-sample/`) and return that folder, so that the
/// sample is read like any log and its raw lines can be shown.
pub fn write_to(dir: &Path) -> io::Result<PathBuf> {
    let folder = dir.join(SAMPLE_NAME);
    std::fs::create_dir_all(&folder)?;
    for (name, text) in FILES {
        let path = folder.join(name);
        // Rewrite only when different, so an open sample is not touched under a reader.
        if std::fs::read_to_string(&path).ok().as_deref() != Some(*text) {
            std::fs::write(&path, text)?;
        }
    }
    Ok(folder)
}
