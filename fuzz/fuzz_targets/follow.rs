//! A folder followed through random appends, cuts, truncations, rewrites and deletions reads, at
//! the end, as a one-shot read of the final files (`targets::follow`).
#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("arbor-fuzz-follow-{}", std::process::id()));
    targets::follow(data, &dir);
});
