//! The whole pipeline on a plain `.jsonl` file: read, detect, normalize, graph, report. Beyond "no
//! panic", nothing is lost: every non-blank line is a record or a bad line.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("arbor-fuzz-{}.jsonl", std::process::id()));
    std::fs::write(&path, data).unwrap();
    let a = arbor_core::analyze(std::slice::from_ref(&path), &mut ());
    let r = a.report();
    let _ = serde_json::to_string(&r).unwrap();
    let input = &r.inputs[0];
    if input.format != "unknown" {
        let mut parts: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
        if data.ends_with(b"\n") {
            parts.pop();
        }
        let lines = parts.iter().filter(|l| !l.iter().all(|b| b.is_ascii_whitespace())).count() as u64;
        assert_eq!(input.records + input.bad_lines, lines, "lines lost");
        assert_eq!(a.records().len() as u64, input.records);
    }
});
