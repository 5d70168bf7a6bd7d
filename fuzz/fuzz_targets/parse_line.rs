//! One line through the lenient wire shapes, then the format vote (`targets::parse_line`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::parse_line(data));
