//! Format detection on raw bytes: the file's lines, as the reader splits them, vote.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let lines: Vec<&[u8]> = data.split(|b| *b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l)).collect();
    let _ = arbor_core::detect::detect(lines.iter().copied());
    for l in &lines {
        if let Some(line) = arbor_core::wire::parse_line(l) {
            let _ = arbor_core::detect::vote(&line);
        }
    }
});
