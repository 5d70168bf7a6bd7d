//! The engine's JSON string text against serde_json (`targets::json_text`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::json_text(data));
