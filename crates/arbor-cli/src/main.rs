//! `arbor`: the Arbor engine for terminals and CI.
//!
//! `arbor analyze [--json] PATH...` prints the report (SPEC section 4) or a summary for people;
//! `arbor check PATH...` prints the findings (as text, JSON lines, SARIF, JUnit XML or GitHub
//! workflow commands) and exits 1 when one fails the check, 2 when nothing could be read;
//! `arbor explain [CODE]` explains finding codes from the engine's catalog; `arbor completions
//! SHELL` prints a completion script. The command line is clap's (errors exit 2). All I/O on
//! behalf of the user happens here; the engine only reads what it is given.

mod batch;
mod changes;
mod check;
mod diff;
mod export;
mod github;
mod junit;
mod sarif;
mod sessions;
mod share;
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
    // The workspace version and the commit it was built from (build.rs).
    version = env!("ARBOR_LONG_VERSION"),
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
        #[command(flatten)]
        each: Each,
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
        #[command(flatten)]
        each: Each,
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
    /// Print what each agent changed: every file a tool call wrote or edited, per session, with
    /// whether it applied and the diff of the edited parts (SPEC 6.5)
    Changes {
        /// Only this session (or sub-agent) and its subtree, as the report names it
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// One JSON object a line: each edit's session, path, place, turn, step, tool, kind,
        /// whether it applied, and its diff
        #[arg(long, conflicts_with = "patch")]
        json: bool,
        /// The edits as one unified diff a person can read (each edit's session and place on a
        /// line of its own before it)
        #[arg(long)]
        patch: bool,
        /// Log files or folders (folders are read recursively)
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Compare two runs: their delegation trees aligned root to root and child to child, each
    /// pair's deltas (duration, turns, steps, tool calls, tokens, cost, outcome, findings), the
    /// sessions on one side only, totals, and the first place their conversations part (SPEC 6.3)
    #[command(after_help = "Sub-agents are aligned in order of spawn by what each is: its label (agent type), else \
                            the text of its task. A conversation is compared item by item: prompts, replies, and tool \
                            calls by name and arguments (JSON arguments whatever the order of their keys; whitespace \
                            folded); tool results and reasoning are not compared.\n\n\
                            Exit status: 0 when the runs are the same by every measure not ignored (\"this change made \
                            no difference\"); 1 when they differ; 2 when a path cannot be read, a session is not \
                            found, or the arguments are wrong.")]
    Diff {
        /// Print the comparison as one JSON object: `a`, `b`, `same`, `pairs` (each `a`, `b`, a
        /// session id or null, `delta` and `divergence`), `divergence`, `totals`, `ignored`
        #[arg(long)]
        json: bool,
        /// The root session of A, where A holds several
        #[arg(long, value_name = "ID")]
        session_a: Option<String>,
        /// The root session of B, where B holds several
        #[arg(long, value_name = "ID")]
        session_b: Option<String>,
        /// A measure left out of whether the runs are the same (it is still shown); repeatable
        #[arg(long, value_name = "MEASURE", value_parser = measures())]
        ignore: Vec<String>,
        /// The first run: a log file or folder
        #[arg(value_name = "A")]
        a: PathBuf,
        /// The second run: a log file or folder
        #[arg(value_name = "B")]
        b: PathBuf,
    },
    /// Follow logs as they are written: print findings as they are found (and, with --json, new
    /// sessions, settled runs and ended turns), then exit as `check` does
    #[command(after_help = "What is printed stays true, or is withdrawn. A finding is printed once the engine holds \
                            it final, a turn once it can end no later (its log wrote its end, or its session's next \
                            turn began; else at the end). When a later reading no longer finds something printed \
                            (a file truncated and written again: copytruncate; a turn whose end moved; a session \
                            whose parent a later file settled), it is withdrawn: `withdrawn: ` and the line as \
                            printed, or with --json {\"event\":\"withdrawn\",\"withdrawn\":{...the event as \
                            printed...}}, then what holds now. Dropping each withdrawn event leaves, at the end, what \
                            `arbor check` reports on the finished files.\n\n\
                            Exit status: as `arbor check` (0, 1 when a finding not withdrawn fails the check, 2 when \
                            nothing can be read), when the logs stop growing for --idle or on Ctrl+C.")]
    Watch {
        /// One JSON object a line: {"event": "finding" | "session" | "run" | "turn" | "withdrawn", ...}
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
    /// Export the analysis as OpenTelemetry spans (GenAI conventions: an OTLP-JSON file, or
    /// OTLP/HTTP with protobuf to a collector or a backend), or share one session as Markdown or
    /// one self-contained HTML file (SPEC 6.4)
    #[command(group(clap::ArgGroup::new("to").required(true).args(["otlp_json", "otlp_http", "markdown", "html"])))]
    #[command(after_help = "Exit status: 0 when everything was written or accepted; 1 when the export failed \
                            (an endpoint that cannot be reached, does not answer within --timeout, answers \
                            other than 2xx or rejects spans; a file that cannot be written); 2 when no input \
                            can be read or the arguments are wrong. Headers also come from \
                            OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TRACES_HEADERS (k=v,k2=v2).")]
    Export {
        /// Write OTLP-JSON to FILE (`-`: stdout): one ExportTraceServiceRequest a line
        #[arg(long, value_name = "FILE")]
        otlp_json: Option<PathBuf>,
        /// Write the session (`--session`) as Markdown to FILE (`-`: stdout)
        #[arg(long, value_name = "FILE")]
        markdown: Option<PathBuf>,
        /// Write the session (`--session`) as one self-contained HTML file (`-`: stdout): its own
        /// styles, no script, nothing fetched, light and dark
        #[arg(long, value_name = "FILE")]
        html: Option<PathBuf>,
        /// The session to share (`arbor analyze` lists them); without it, the log's only root
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Where each sub-agent goes: in place of its spawn, summarized there (task, reply, tokens,
        /// outcome), or a file of its own beside FILE, linked from its spawn
        #[arg(long, value_enum, default_value_t = ShareSubagents::Summary)]
        subagents: ShareSubagents,
        /// Write the assistant's reasoning too
        #[arg(long)]
        reasoning: bool,
        /// Send over OTLP/HTTP with protobuf to URL (a URL without a path gets /v1/traces)
        #[arg(long, value_name = "URL")]
        otlp_http: Option<String>,
        /// A request header for --otlp-http, `Name: value` (repeatable), such as an Authorization
        #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", requires = "otlp_http")]
        headers: Vec<String>,
        /// A resource attribute, KEY=VALUE (repeatable), such as openinference.project.name=NAME
        #[arg(long = "resource", value_name = "KEY=VALUE")]
        resource: Vec<String>,
        /// Include prompts, message texts, tool arguments and results (left out by default)
        #[arg(long)]
        include_content: bool,
        /// Seconds one request may take, connecting and answering included
        #[arg(long, value_name = "SECONDS", default_value_t = 30.0, requires = "otlp_http")]
        timeout: f64,
        /// Times a request is sent again after a 429, 502, 503 or 504 answer
        #[arg(long, value_name = "N", default_value_t = 2, requires = "otlp_http")]
        retries: u32,
        /// Spans per request at most
        #[arg(long, value_name = "SPANS", default_value_t = 2000)]
        batch: usize,
        /// Log files or folders (folders are read recursively)
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// List every session on this machine (or in PATHs): when it ran, how long, its turns,
    /// sub-agents, tokens, cost, findings and outcome; or search their transcripts (--search)
    #[command(after_help = "With no PATH, the sessions are this machine's (~/.claude/projects, ~/.codex/sessions, \
                            ~/.copilot/session-state, ~/.dsh/sessions, each moved by CLAUDE_CONFIG_DIR, CODEX_HOME, \
                            COPILOT_HOME, DSH_HOME), kept in a library on disk (ARBOR_LIBRARY, else the platform's \
                            data folder) that only reads what changed since. A START marked ~ is the file's time: \
                            the log has no clock.")]
    Sessions {
        /// One JSON object a line (times in RFC 3339); with --search, one hit a line
        #[arg(long)]
        json: bool,
        /// Search the transcripts' text (prompts, replies, tool calls and results): the items
        /// holding every word, best first, each with its session, item and file:line
        #[arg(long, value_name = "TEXT")]
        search: Option<String>,
        #[arg(long, value_enum, default_value_t = sessions::Sort::Start)]
        sort: sessions::Sort,
        /// Only sessions whose project (the log's working folder, else its folder) holds P
        #[arg(long, value_name = "P")]
        project: Option<String>,
        /// Only sessions that ran on or after DATE (2026-12-01, local midnight) or an RFC 3339 time
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
        /// Hits at most, with --search
        #[arg(long, value_name = "N", default_value_t = 50)]
        limit: usize,
        /// With --search, only items indexed before ITEM: where a search that stopped at the
        /// newest matches says to go on (stderr)
        #[arg(long, value_name = "ITEM", requires = "search")]
        before: Option<i64>,
        /// Log files or folders (a folder's sessions split as --each splits them) [default: this machine's places]
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Sum the tokens and cost of every session on this machine (or in PATHs) by day, week,
    /// month, session, model or project
    Usage {
        #[arg(value_enum)]
        report: sessions::Report,
        /// One JSON object a line, then the total
        #[arg(long)]
        json: bool,
        /// The time zone days, weeks and months are in (an IANA name such as Europe/Paris) [default: the local one]
        #[arg(long, value_name = "TZ")]
        timezone: Option<String>,
        /// Log files or folders [default: this machine's places]
        #[arg(value_name = "PATH")]
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
    /// Write every shell's completion script, or the man pages, into a folder (for packagers:
    /// scripts/package)
    #[command(hide = true)]
    Generate {
        #[arg(value_enum)]
        what: Generated,
        /// The folder to write into (made when missing)
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
}

/// What `arbor generate` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Generated {
    /// arbor.bash, _arbor (zsh), arbor.fish, _arbor.ps1 (PowerShell), arbor.elv (Elvish)
    Completions,
    /// arbor.1 and a page for each command (arbor-analyze.1, …)
    Man,
}

/// Many independent sessions at once (`batch`).
#[derive(clap::Args, Debug, Clone, Copy)]
struct Each {
    /// Read each session of a folder on its own, several at once: every sub-folder is one (a
    /// Copilot session-state/<id>/), every log file directly in it another, with its sub-agents'
    /// folder and child files. Results come in the sessions' sorted order (--json: one report a
    /// line, each with its `unit`), then a total
    #[arg(long)]
    each: bool,
    /// Sessions analysed at once with --each [default: one per core]
    #[arg(long, value_name = "N", requires = "each")]
    jobs: Option<usize>,
}

/// The measures `arbor diff --ignore` may leave out, by the names the JSON's `differs` gives.
fn measures() -> PossibleValuesParser {
    PossibleValuesParser::new(arbor_core::outputs::compare::Measure::ALL.iter().map(|m| m.as_str()))
}

/// Where a shared session's sub-agents go (`arbor export --subagents`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ShareSubagents {
    Inline,
    Summary,
    Files,
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
        Command::Analyze { json, prices, each, paths } => {
            let prices = match prices.map(|p| read_prices(&p)).transpose() {
                Ok(p) => p,
                Err(e) => return fail(&e),
            };
            let output = if json { Output::Json } else { Output::Summary };
            if each.each {
                return run_each(&paths, output, each.jobs);
            }
            run(&paths, output, prices)
        }
        Command::Check { format, fail_on, root, each, paths } => {
            let root = match root.map_or_else(std::env::current_dir, Ok) {
                Ok(r) if r.is_dir() => r,
                Ok(r) => return fail(&format!("--root is not a folder: {}", r.display())),
                Err(e) => return fail(&format!("cannot read the current folder: {e}")),
            };
            if each.each {
                return run_each(&paths, Output::Check { format, fail_on, root }, each.jobs);
            }
            run(&paths, Output::Check { format, fail_on, root }, None)
        }
        Command::Transcript { session, json, width, paths } => transcript::print(&paths, &session, json, width),
        Command::Changes { session, json, patch, paths } => changes::print(&paths, session.as_deref(), json, patch),
        Command::Diff { json, session_a, session_b, ignore, a, b } => diff::run(diff::Args {
            a: &a,
            b: &b,
            session_a: session_a.as_deref(),
            session_b: session_b.as_deref(),
            json,
            ignore: ignore
                .iter()
                .filter_map(|name| arbor_core::outputs::compare::Measure::ALL.into_iter().find(|m| m.as_str() == name))
                .collect(),
        }),
        Command::Watch { json, idle, fail_on, paths } => watch::run(&paths, json, idle, fail_on),
        Command::Export { markdown, html, session, subagents, reasoning, paths, .. }
            if markdown.is_some() || html.is_some() =>
        {
            let (style, file) = match (markdown, html) {
                (Some(f), _) => (arbor_core::share::Style::Markdown, f),
                (None, Some(f)) => (arbor_core::share::Style::Html, f),
                (None, None) => unreachable!("the guard holds one"),
            };
            let subagents = match subagents {
                ShareSubagents::Inline => arbor_core::share::Subagents::Inline,
                ShareSubagents::Summary => arbor_core::share::Subagents::Summary,
                ShareSubagents::Files => arbor_core::share::Subagents::Files,
            };
            share::run(
                &paths,
                session.as_deref(),
                arbor_core::share::ShareOptions { style, subagents, reasoning },
                &file,
            )
        }
        Command::Export {
            otlp_json,
            otlp_http,
            headers,
            resource,
            include_content,
            timeout,
            retries,
            batch,
            paths,
            ..
        } => export::run(
            &paths,
            export::Export {
                json: otlp_json,
                http: otlp_http,
                headers,
                resource,
                include_content,
                timeout,
                retries,
                batch,
            },
        ),
        Command::Sessions { json, search, sort, project, since, limit, before, paths } => {
            sessions::sessions(&paths, sessions::Query { json, search, sort, project, since, limit, before })
        }
        Command::Usage { report, json, timezone, paths } => sessions::usage(report, &paths, json, timezone.as_deref()),
        Command::Explain { code, markdown, json } => print_explanation(code.as_deref(), markdown, json),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "arbor", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
        Command::Generate { what, dir } => match generate(what, &dir) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&format!("cannot write into {}: {e}", dir.display())),
        },
    }
}

/// The completion scripts or man pages the packages install, written into `dir`.
fn generate(what: Generated, dir: &std::path::Path) -> std::io::Result<()> {
    use clap_complete::Shell;
    std::fs::create_dir_all(dir)?;
    let mut cli = Cli::command();
    match what {
        Generated::Completions => {
            for shell in [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell, Shell::Elvish] {
                clap_complete::generate_to(shell, &mut cli, "arbor", dir)?;
            }
        }
        Generated::Man => clap_mangen::generate_to(cli, dir)?,
    }
    Ok(())
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
/// about as much system time as reading the file. A fixed mmap threshold (which otherwise moves)
/// and a 4 MiB trim threshold keep a chunk's worth mapped in each arena. 16 MiB, as it was, kept
/// no time but up to 16 MiB free in each thread's arena: 10 MB of a 1 GiB Claude Code project's
/// peak, whose read-ahead threads free what they parse into other arenas than the router's.
pub(crate) fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; it is called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 4 << 20);
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
        if !arbor_core::reader::exists(p) {
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

/// What one unit of `--each` gave: its output, and what the total counts.
struct Done {
    out: Vec<u8>,
    files: usize,
    readable: bool,
    sessions: usize,
    /// Errors, warnings, infos.
    counts: (usize, usize, usize),
    failed: bool,
}

/// Pretty JSON as one line: the whitespace between tokens dropped, strings kept as they are.
/// Strings are found with memchr and copied whole: a report is mostly strings and indentation.
fn compact_into(pretty: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < pretty.len() {
        let quote = memchr::memchr(b'"', &pretty[i..]).map_or(pretty.len(), |q| i + q);
        for run in pretty[i..quote].split(|b| matches!(b, b' ' | b'\n' | b'\r' | b'\t')) {
            out.extend_from_slice(run);
        }
        if quote == pretty.len() {
            break;
        }
        // To the closing quote; an escaped character (`\"` among them) does not close it.
        let mut end = quote + 1;
        loop {
            match memchr::memchr2(b'"', b'\\', pretty.get(end..).unwrap_or_default()) {
                Some(k) if pretty[end + k] == b'\\' => end += k + 2,
                Some(k) => {
                    end += k + 1;
                    break;
                }
                None => {
                    end = pretty.len();
                    break;
                }
            }
        }
        let end = end.min(pretty.len());
        out.extend_from_slice(&pretty[quote..end]);
        i = end;
    }
}

/// One unit of `--each`: analysed alone, its output made for the writer.
fn analyse_unit(unit: &batch::Unit, output: &Output) -> std::io::Result<Done> {
    let mut analysis = arbor_core::analyze_with(&unit.paths, &mut (), arbor_core::Threads::Caller);
    if let Some(base) = &unit.base {
        analysis.name_files_under(base);
    }
    let readable = analysis.files.iter().any(|f| f.format.is_some());
    let mut out = Vec::new();
    let mut failed = false;
    let sessions = analysis.cx.graph.len();
    let counts = match output {
        Output::Json => {
            let mut pretty = Vec::with_capacity(1 << 16);
            analysis.write_report_json(&mut pretty).map_err(std::io::Error::from)?;
            out.extend_from_slice(b"{\"unit\":");
            serde_json::to_writer(&mut out, &unit.name)?;
            out.push(b',');
            compact_into(pretty.get(1..).unwrap_or_default(), &mut out);
            out.push(b'\n');
            // Counted in the line itself: outside the diagnostics a `"severity":` key is nowhere,
            // and inside a string its quotes would be escaped.
            let n = |sev: &str| memchr::memmem::find_iter(&out, format!("\"severity\":\"{sev}\"").as_bytes()).count();
            (n("error"), n("warning"), n("info"))
        }
        Output::Summary => {
            let report = analysis.report();
            writeln!(out, "== {}", summary::safe(&unit.name, 300))?;
            summary::full(&mut out, &report)?;
            writeln!(out)?;
            severities(&report)
        }
        Output::Check { format, fail_on, root } => {
            let report = analysis.report();
            let check = Check::new(&analysis, &report, root, *fail_on);
            failed = check.failed();
            match format {
                Format::Text if !report.diagnostics.is_empty() => {
                    writeln!(out, "== {}", summary::safe(&unit.name, 300))?;
                    summary::findings(&mut out, &report)?;
                }
                Format::Text => {}
                Format::Json => check::json_lines(&mut out, &check)?,
                Format::Sarif => sarif::results(&mut out, &check)?,
                Format::Junit => junit::suite(&mut out, &check, &unit.name)?,
                Format::Github => github::commands(&mut out, &check)?,
            }
            check.counts()
        }
    };
    // Dropped here, on the worker: unlike a single analysis, the process goes on to other units.
    let files = analysis.files.len();
    drop(analysis);
    Ok(Done { out, files, readable, sessions, counts, failed })
}

fn count(c: &mut (usize, usize, usize), s: arbor_core::report::Severity) {
    use arbor_core::report::Severity::*;
    match s {
        Error => c.0 += 1,
        Warning => c.1 += 1,
        Info => c.2 += 1,
    }
}

fn severities(r: &arbor_core::Report) -> (usize, usize, usize) {
    let mut c = (0, 0, 0);
    for d in &r.diagnostics {
        count(&mut c, d.severity);
    }
    c
}

/// `--each`: every unit of the paths analysed on its own, `jobs` at once, written in order.
fn run_each(paths: &[PathBuf], output: Output, jobs: Option<usize>) -> ExitCode {
    tune_allocator();
    for p in paths {
        if !arbor_core::reader::exists(p) {
            return fail(&format!("no such file or folder: {}", p.display()));
        }
    }
    let units = batch::units(paths);
    let jobs = jobs.filter(|&j| j > 0).unwrap_or_else(batch::default_jobs);
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut error: Option<std::io::Error> = None;
    let (mut units_done, mut files, mut sessions, mut readable, mut failed) = (0usize, 0usize, 0usize, 0usize, false);
    let mut counts = (0, 0, 0);
    let (sarif_tail, mut sarif_first) = match &output {
        Output::Check { format: Format::Sarif, root, .. } => {
            let (head, tail) = sarif::frame(&check::root_uri(root));
            error = out.write_all(head.as_bytes()).err();
            (tail, true)
        }
        Output::Check { format: Format::Junit, .. } => {
            let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"arbor check\">\n";
            error = out.write_all(head.as_bytes()).err();
            (String::new(), true)
        }
        _ => (String::new(), true),
    };
    if error.is_none() {
        // Each unit on one thread, its engine starting none of its own: measured in BENCHMARKS.md
        // ("Many logs at once"), the dozen threads an engine starts per log cost more than a
        // 100 KB log's parse, and the units keep every core busy without them.
        batch::each(
            &units,
            jobs,
            |u| analyse_unit(u, &output),
            |_, done| {
                let done = match done {
                    Ok(d) => d,
                    Err(e) => {
                        error = Some(e);
                        return false;
                    }
                };
                if done.files == 0 {
                    return true; // a folder with no logs in it is not a session
                }
                units_done += 1;
                files += done.files;
                sessions += done.sessions;
                readable += usize::from(done.readable);
                failed |= done.failed;
                counts = (counts.0 + done.counts.0, counts.1 + done.counts.1, counts.2 + done.counts.2);
                let sarif = matches!(output, Output::Check { format: Format::Sarif, .. });
                let written = (|| {
                    if sarif && !done.out.is_empty() {
                        if !sarif_first {
                            out.write_all(b",\n")?;
                        }
                        sarif_first = false;
                    }
                    out.write_all(&done.out)
                })();
                match written {
                    Ok(()) => true,
                    Err(e) => {
                        error = Some(e);
                        false
                    }
                }
            },
        );
    }
    let (e, w, i) = counts;
    let total = format!(
        "{units_done} units ({files} files, {sessions} sessions and sub-agents): {e} errors, {w} warnings, {i} info findings"
    );
    if error.is_none() {
        error = (|| {
            match &output {
                Output::Json => writeln!(
                    out,
                    "{}",
                    serde_json::json!({"total": {
                        "units": units_done, "files": files, "sessions": sessions, "unreadable": units_done - readable,
                        "diagnostics": {"error": e, "warning": w, "info": i},
                    }})
                )?,
                Output::Summary | Output::Check { format: Format::Text, .. } => writeln!(out, "arbor: {total}")?,
                Output::Check { format: Format::Github, .. } => github::closing(&mut out, counts, files)?,
                Output::Check { format: Format::Sarif, .. } => out.write_all(sarif_tail.as_bytes())?,
                Output::Check { format: Format::Junit, .. } => writeln!(out, "</testsuites>")?,
                Output::Check { format: Format::Json, .. } => {}
            }
            out.flush()
        })()
        .err();
    }
    if let Some(e) = error {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return fail(&format!("cannot write the report: {e}"));
        }
    }
    if matches!(output, Output::Check { format: Format::Json | Format::Sarif | Format::Junit, .. }) {
        eprintln!("arbor check: {total}");
    }
    if readable == 0 {
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
    fn pretty_json_becomes_one_line_with_its_strings_untouched() {
        let v = serde_json::json!({"a": [1, {"b": "x \\\" y\\\\", "c d": "  \n "}], "e": {}, "f": [], "g": "\\"});
        let pretty = serde_json::to_vec_pretty(&v).unwrap();
        let mut one = Vec::new();
        super::compact_into(&pretty, &mut one);
        assert_eq!(one, serde_json::to_vec(&v).unwrap());
        assert!(!one.contains(&b'\n'));
    }

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
