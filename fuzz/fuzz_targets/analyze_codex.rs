//! A folder of Codex rollouts through the whole pipeline; nothing is lost (`targets::analyze_codex`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("arbor-fuzz-codex-{}", std::process::id()));
    targets::analyze_codex(data, &dir);
});
