//! `arbor`: the Arbor engine for terminals and CI.
//!
//! `arbor analyze [--json] PATH...` prints the report (SPEC section 4) or a summary for people;
//! `arbor check PATH...` prints the findings and exits 1 when any is an error, 2 when nothing could
//! be read. All I/O on behalf of the user happens here; the engine only reads what it is given.

mod summary;

use arbor_core::report::Severity;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: arbor analyze [--json] PATH...   print the report (--json: the JSON report)
       arbor check PATH...             print findings; exit 1 on any error, 2 when nothing can be read
       arbor --version";

fn fail(msg: &str) -> ExitCode {
    eprintln!("arbor: {msg}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match cmd.as_str() {
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        "-V" | "--version" => {
            println!("arbor {}", arbor_core::VERSION);
            ExitCode::SUCCESS
        }
        "analyze" | "check" => {
            let mut json = false;
            let mut paths = Vec::new();
            for a in &args[1..] {
                match a.as_str() {
                    "--json" if cmd == "analyze" => json = true,
                    "--" => {}
                    s if s.starts_with('-') && s.len() > 1 => {
                        return fail(&format!("unknown option `{s}` for `{cmd}`\n{USAGE}"))
                    }
                    s => paths.push(PathBuf::from(s)),
                }
            }
            if paths.is_empty() {
                return fail(&format!("`{cmd}` needs at least one PATH\n{USAGE}"));
            }
            run(cmd == "check", json, &paths)
        }
        other => fail(&format!("unknown command `{other}`\n{USAGE}")),
    }
}

/// Keep freed heap memory instead of returning it to the kernel at once. The engine's parse
/// threads allocate and free a few megabytes of parsed lines per chunk of input; with glibc's
/// defaults each arena was trimmed and grown again for every chunk, and the page faults cost
/// about as much system time as reading the file. A 16 MiB trim threshold (and a fixed mmap
/// threshold, which otherwise moves) keeps a few chunks' worth mapped.
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; it is called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 16 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}

fn run(check: bool, json: bool, paths: &[PathBuf]) -> ExitCode {
    tune_allocator();
    for p in paths {
        if !p.exists() {
            return fail(&format!("no such file or folder: {}", p.display()));
        }
    }
    let analysis = arbor_core::analyze(paths, &mut ());
    let readable = analysis.files.iter().any(|f| f.format.is_some());
    // Stdout is line-buffered: a report of many lines needs its own buffer.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut errors = false;
    let written = if json {
        // Written straight from the analysis: the whole `Report` is never held in memory.
        analysis.write_report_json(&mut out).map_err(std::io::Error::from).and_then(|_| writeln!(out))
    } else {
        let report = analysis.report();
        errors = report.diagnostics.iter().any(|d| d.severity == Severity::Error);
        if check {
            summary::findings(&mut out, &report)
        } else {
            summary::full(&mut out, &report)
        }
    };
    let written = written.and_then(|_| out.flush());
    // The process ends here: freeing the analysis piece by piece would only cost time.
    std::mem::forget(analysis);
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return fail(&format!("cannot write the report: {e}"));
        }
    }
    if !readable {
        eprintln!("arbor: nothing could be read in a known format");
        return ExitCode::from(2);
    }
    if check && errors {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
