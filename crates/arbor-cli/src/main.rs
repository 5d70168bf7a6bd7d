//! `arbor`: the Arbor engine for terminals and CI.
//!
//! `arbor analyze [--json] PATH...` prints the report (SPEC section 4) or a summary for people;
//! `arbor check PATH...` prints the findings (as text, JSON lines, SARIF, JUnit XML or GitHub
//! workflow commands) and exits 1 when one fails the check, 2 when nothing could be read;
//! `arbor explain [CODE]` explains finding codes from the engine's catalog; `arbor completions
//! SHELL` prints a completion script. The command line is clap's (errors exit 2). All I/O on
//! behalf of the user happens here; the engine only reads what it is given.

mod check;
mod github;
mod junit;
mod sarif;
mod summary;
mod transcript;
mod watch;

use arbor_core::explain;
use arbor_core::finding::Code;
use check::{Check, FailOn};
use clap::builder::PossibleValuesParser;
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "arbor",
    version = arbor_core::VERSION,
    about = "Inspect the saved session logs of AI agent harnesses: the delegation tree, replies and findings",
    arg_required_else_help = true,
    after_help = "Exit status: 0 when the input was read; `arbor check` 1 when a finding fails the check; \
                  2 when no input can be read or the arguments are wrong."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the report: the delegation tree, the root replies and the findings (exit 0 when read)
    Analyze {
        /// Print the JSON report (SPEC section 4) instead of the summary
        #[arg(long)]
        json: bool,
        /// Token prices to reckon costs at, over the bundled table: a JSON file of Arbor's shape
        /// ({"source", "date", "prices": {"model": [input, output, cache read, cache write]}},
        /// US dollars per token) or LiteLLM's model_prices_and_context_window.json
        #[arg(long, value_name = "FILE")]
        prices: Option<PathBuf>,
        /// Log files or folders (folders are read recursively)
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Print the findings for CI and exit 1 when one fails the check (see --fail-on)
    #[command(after_help = "Exit status: 0 when no finding fails the check; 1 when one does; 2 when no input \
                            can be read in a known format (the findings are printed first), when a path does not \
                            exist, or when the arguments are wrong.")]
    Check {
        /// text: by severity, for people; json: one report diagnostic (a JSON object) a line;
        /// sarif: SARIF 2.1.0 (GitHub code scanning); junit: JUnit XML, a test case per file;
        /// github: GitHub Actions workflow commands (annotations)
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Which findings make the check fail (exit 1)
        #[arg(long, value_enum, default_value_t = FailOn::Error, value_name = "SEVERITY")]
        fail_on: FailOn,
        /// The folder that sarif, junit and github paths are relative to: the repository checkout
        /// [default: the current folder]
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Log files or folders (folders are read recursively)
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Print one session's transcript: its prompts, messages, tool calls and results, the
    /// sub-agents it spawned and what they answered, with file:line, turn, step and tokens
    Transcript {
        /// The session (or sub-agent) id, as the report names it
        #[arg(long, value_name = "ID")]
        session: String,
        /// One JSON object a line: each part of each row, with its place, turn, step and tokens
        #[arg(long)]
        json: bool,
        /// Cut each text to this many characters (0: never cut)
        #[arg(long, value_name = "CHARS", default_value_t = 0)]
        width: usize,
        /// Log files or folders (folders are read recursively)
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Follow logs as they are written: print findings as they are found (and, with --json, new
    /// sessions, settled runs and ended turns), then exit as `check` does
    #[command(after_help = "Exit status: as `arbor check` (0, 1 when a finding fails the check, 2 when nothing \
                            can be read), when the logs stop growing for --idle or on Ctrl+C.")]
    Watch {
        /// One JSON object a line: {"event": "finding" | "session" | "run" | "turn", ...}
        #[arg(long)]
        json: bool,
        /// Stop when the logs have not grown for this long (such as 30s, 2m, 500ms) [default: never]
        #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
        idle: Option<std::time::Duration>,
        /// Which findings make the exit status 1
        #[arg(long, value_enum, default_value_t = FailOn::Error, value_name = "SEVERITY")]
        fail_on: FailOn,
        /// Log files or folders (folders are read recursively, and files appearing in them are read)
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Explain a finding code: why it matters, what a naive reader does, how to fix it (no CODE:
    /// list every code)
    Explain {
        /// A finding code, such as ancestry-cycle
        #[arg(value_parser = codes(), hide_possible_values = true)]
        code: Option<String>,
        /// Print Markdown (every code: the page docs/findings.md)
        #[arg(long, conflicts_with = "json")]
        markdown: bool,
        /// Print JSON: the explanation, or the whole catalog as an array
        #[arg(long)]
        json: bool,
    },
    /// Print a shell completion script (for example: arbor completions bash > ~/.local/share/bash-completion/completions/arbor)
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
    Sarif,
    Junit,
    Github,
}

fn codes() -> PossibleValuesParser {
    PossibleValuesParser::new(Code::ALL.iter().map(|c| c.as_str()))
}

/// A duration such as `30s`, `2m`, `500ms` or `1h` (a bare number is seconds).
fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: f64 = n.parse().map_err(|_| format!("`{s}` is not a duration (such as 30s, 2m, 500ms)"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "" | "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("`{s}`: the unit must be ms, s, m or h")),
    };
    std::time::Duration::try_from_secs_f64(secs).map_err(|e| format!("`{s}`: {e}"))
}

/// A set of strings (what `arbor watch` has printed).
pub(crate) type HashSetStr = std::collections::HashSet<String>;

pub(crate) fn fail(msg: &str) -> ExitCode {
    eprintln!("arbor: {msg}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Analyze { json, prices, paths } => {
            let prices = match prices.map(|p| read_prices(&p)).transpose() {
                Ok(p) => p,
                Err(e) => return fail(&e),
            };
            run(&paths, if json { Output::Json } else { Output::Summary }, prices)
        }
        Command::Check { format, fail_on, root, paths } => {
            let root = match root.map_or_else(std::env::current_dir, Ok) {
                Ok(r) if r.is_dir() => r,
                Ok(r) => return fail(&format!("--root is not a folder: {}", r.display())),
                Err(e) => return fail(&format!("cannot read the current folder: {e}")),
            };
            run(&paths, Output::Check { format, fail_on, root }, None)
        }
        Command::Transcript { session, json, width, paths } => transcript::print(&paths, &session, json, width),
        Command::Watch { json, idle, fail_on, paths } => watch::run(&paths, json, idle, fail_on),
        Command::Explain { code, markdown, json } => print_explanation(code.as_deref(), markdown, json),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "arbor", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
    }
}

fn print_explanation(code: Option<&str>, markdown: bool, json: bool) -> ExitCode {
    // clap has checked that a code given is one of the catalog's.
    let one = code.and_then(explain::find);
    let sev = |e: &explain::Explanation| explain::severity(e.severity);
    let text = match (one, markdown, json) {
        (Some(e), _, true) => serde_json::to_string_pretty(&e).unwrap_or_default() + "\n",
        (None, _, true) => serde_json::to_string_pretty(&explain::catalog()).unwrap_or_default() + "\n",
        (Some(e), true, _) => e.section(),
        (None, true, _) => explain::markdown(),
        (Some(e), false, false) => {
            format!("{} ({}, SPEC {})\n{}\n\n{}", e.code, sev(&e), e.spec, e.title, e.text())
        }
        (None, false, false) => {
            let all = explain::catalog();
            let width = all.iter().map(|e| e.code.len()).max().unwrap_or(0);
            let mut s = String::new();
            for e in &all {
                s.push_str(&format!("{:width$}  {:7}  {}\n", e.code, sev(e), e.title));
            }
            s.push_str("\n`arbor explain CODE` explains one.\n");
            s
        }
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => fail(&format!("cannot write: {e}")),
        _ => ExitCode::SUCCESS,
    }
}

/// Keep freed heap memory instead of returning it to the kernel at once. The engine's parse
/// threads allocate and free a few megabytes of parsed lines per chunk of input; with glibc's
/// defaults each arena was trimmed and grown again for every chunk, and the page faults cost
/// about as much system time as reading the file. A 16 MiB trim threshold (and a fixed mmap
/// threshold, which otherwise moves) keeps a few chunks' worth mapped.
pub(crate) fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; it is called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 16 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}

enum Output {
    /// `analyze --json`
    Json,
    /// `analyze`
    Summary,
    Check {
        format: Format,
        fail_on: FailOn,
        root: PathBuf,
    },
}

/// A price file over the bundled table.
fn read_prices(path: &std::path::Path) -> Result<std::sync::Arc<arbor_core::prices::PriceTable>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mine = arbor_core::prices::PriceTable::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(std::sync::Arc::new(arbor_core::prices::PriceTable::bundled().overridden_by(mine)))
}

fn run(paths: &[PathBuf], output: Output, prices: Option<std::sync::Arc<arbor_core::prices::PriceTable>>) -> ExitCode {
    tune_allocator();
    for p in paths {
        if !p.exists() {
            return fail(&format!("no such file or folder: {}", p.display()));
        }
    }
    let mut analysis = arbor_core::analyze(paths, &mut ());
    analysis.prices = prices;
    let readable = analysis.files.iter().any(|f| f.format.is_some());
    // Stdout is line-buffered: a report of many lines needs its own buffer.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut failed = false;
    let written = match output {
        // Written straight from the analysis: the whole `Report` is never held in memory.
        Output::Json => analysis.write_report_json(&mut out).map_err(std::io::Error::from).and_then(|_| writeln!(out)),
        Output::Summary => summary::full(&mut out, &analysis.report()),
        Output::Check { format, fail_on, root } => {
            let report = analysis.report();
            let check = Check::new(&analysis, &report, &root, fail_on);
            failed = check.failed();
            match format {
                Format::Text => summary::findings(&mut out, &report),
                Format::Json => check::json_lines(&mut out, &check),
                Format::Sarif => sarif::write(&mut out, &check),
                Format::Junit => junit::write(&mut out, &check),
                Format::Github => github::write(&mut out, &check),
            }
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
    if failed {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn severities_name_themselves_as_reports_do() {
        use arbor_core::report::Severity::*;
        for s in [Error, Warning, Info] {
            assert_eq!(serde_json::to_value(s).unwrap(), arbor_core::explain::severity(s));
        }
    }
}
