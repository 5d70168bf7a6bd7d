//! Format detection on raw bytes (`targets::detect`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::detect(data));
