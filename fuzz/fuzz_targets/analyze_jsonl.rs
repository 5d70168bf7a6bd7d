//! The whole pipeline on a plain `.jsonl` file; nothing is lost (`targets::analyze_jsonl`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("arbor-fuzz-{}.jsonl", std::process::id()));
    targets::analyze_jsonl(data, &path);
});
