//! `arbor-bare-parse PATH...`: the floor for `arbor analyze`: read each file line by line with a
//! `BufReader` and validate each line's JSON with serde_json into `IgnoredAny`, nothing else. A
//! folder stands for the `*.jsonl` files under it (a Codex sessions tree), read one after another.
//! Prints `lines valid invalid bytes` so the benchmark can check that it did the work.

use serde::de::IgnoredAny;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The files a path stands for: itself, or the `*.jsonl` files under a folder, in path order.
fn files(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !path.is_dir() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for p in entries {
        if p.is_dir() || p.extension().is_some_and(|x| x == "jsonl") {
            files(&p, out)?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        eprintln!("usage: arbor-bare-parse PATH...");
        return ExitCode::from(2);
    }
    let mut paths = Vec::new();
    for a in &args {
        if let Err(e) = files(Path::new(a), &mut paths) {
            eprintln!("arbor-bare-parse: {a}: {e}");
            return ExitCode::from(2);
        }
    }
    let (mut lines, mut valid, mut invalid, mut bytes) = (0u64, 0u64, 0u64, 0u64);
    let mut line = Vec::with_capacity(1 << 12);
    for path in paths {
        let file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("arbor-bare-parse: {}: {e}", path.display());
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
                    eprintln!("arbor-bare-parse: {}: {e}", path.display());
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
