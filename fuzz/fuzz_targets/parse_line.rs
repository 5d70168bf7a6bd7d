//! One line through the lenient wire shapes (`wire::parse_line` parses the nested payloads the
//! format modules read), then the format vote. Each line of the input is also tried alone.
#![no_main]

use arbor_core::wire::parse_line;
use libfuzzer_sys::fuzz_target;

fn one(bytes: &[u8]) {
    if let Some(line) = parse_line(bytes) {
        let _ = arbor_core::detect::vote(&line);
        // Touch every field the parse produced.
        let _ = format!("{line:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    one(data);
    for l in data.split(|b| *b == b'\n') {
        one(l);
    }
});
