//! `arbor-bare-parse FILE...`: the floor for `arbor analyze`: read each file line by line with a
//! `BufReader` and validate each line's JSON with serde_json into `IgnoredAny`, nothing else.
//! Prints `lines valid invalid bytes` (over all the files) so the benchmark can check that it did
//! the work. Several files are read one after the other in one process, as `arbor analyze` reads
//! a folder (a process per file would measure process starts).

use serde::de::IgnoredAny;
use std::io::{BufRead, BufReader};
use std::process::ExitCode;

fn main() -> ExitCode {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: arbor-bare-parse FILE...");
        return ExitCode::from(2);
    }
    let (mut lines, mut valid, mut invalid, mut bytes) = (0u64, 0u64, 0u64, 0u64);
    let mut line = Vec::with_capacity(1 << 12);
    for path in &paths {
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("arbor-bare-parse: {path}: {e}");
                return ExitCode::from(2);
            }
        };
        let mut reader = BufReader::with_capacity(1 << 16, file);
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(n) => bytes += n as u64,
                Err(e) => {
                    eprintln!("arbor-bare-parse: {path}: {e}");
                    return ExitCode::from(2);
                }
            }
            lines += 1;
            match serde_json::from_slice::<IgnoredAny>(&line) {
                Ok(_) => valid += 1,
                Err(_) => invalid += 1,
            }
        }
    }
    println!("{lines} {valid} {invalid} {bytes}");
    ExitCode::SUCCESS
}
