//! The whole pipeline on an OpenCode SQLite store made from the input, or a corrupt database
//! (`targets::analyze_opencode`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("arbor-fuzz-{}-opencode.db", std::process::id()));
    targets::analyze_opencode(data, &path);
});
