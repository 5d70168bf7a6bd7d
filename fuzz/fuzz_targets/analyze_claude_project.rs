//! A Claude Code project folder made from the input (`targets::analyze_claude_project`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("arbor-fuzz-claude-{}", std::process::id()));
    targets::analyze_claude_project(data, &dir);
});
