//! The whole pipeline on a `.jsonl.zst` file, valid or corrupt frames (`targets::analyze_zst`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("arbor-fuzz-{}.jsonl.zst", std::process::id()));
    targets::analyze_zst(data, &path);
});
