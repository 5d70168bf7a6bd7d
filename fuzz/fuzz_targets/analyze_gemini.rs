//! A Gemini CLI `chats/` folder through the whole pipeline; nothing is lost (`targets::analyze_gemini`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("arbor-fuzz-gemini-{}", std::process::id()));
    targets::analyze_gemini(data, &dir);
});
