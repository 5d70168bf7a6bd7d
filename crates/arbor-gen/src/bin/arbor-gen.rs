//! `arbor-gen`: write a deterministic, realistic agent-harness log for tests and benchmarks.
//!
//! `arbor-gen --format dsh-rpc --size 1G --depth 4 --fanout 3 --seed 1 [--faults 0.001] -o FILE`
//! (`--format dsh-session-folder` writes a folder of durable logs to `-o DIR`). Prints what it
//! wrote, and the findings the engine must report, as one JSON object on stderr.

use arbor_gen::claude_code::{self, Layout};
use arbor_gen::{generate, generate_dsh_session_folder, parse_size, Format, GenOptions, GenStats};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: arbor-gen [--format dsh-rpc|dsh-session|dsh-session-folder|copilot-events|copilot-rpc|
                           claude-code|claude-code-flat|claude-code-inline]
                 [--size 10M] [--depth 2] [--fanout 2] [--seed 1] [--faults 0.0] [-o FILE|DIR]
  --size      target size (K, M, G are binary units); the log ends a few KB past it
  --faults    the chance of each injected fault at each place it can happen (0: a clean log)
  -o          output file (stdout when absent), or the folder for dsh-session-folder and the
              claude-code project folders (sub-agents in <session>/subagents/, beside the
              sessions, or inline)";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("arbor-gen: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let mut opts = GenOptions { target_bytes: 10 << 20, ..GenOptions::default() };
    let mut folder = false;
    let mut claude: Option<Layout> = None;
    let mut out: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or_else(|| format!("`{a}` needs a value"));
        match a.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            "--format" => {
                let v = val()?;
                if let Some(layout) = Layout::from_id(&v) {
                    claude = Some(layout);
                } else if v == "dsh-session-folder" {
                    folder = true;
                    opts.format = Format::DshSession;
                } else {
                    opts.format = Format::from_id(&v).ok_or_else(|| format!("unknown format `{v}`"))?;
                }
            }
            "--size" => {
                let v = val()?;
                opts.target_bytes = parse_size(&v).ok_or_else(|| format!("bad size `{v}`"))?;
            }
            "--depth" => opts.depth = val()?.parse().map_err(|e| format!("--depth: {e}"))?,
            "--fanout" => opts.fanout = val()?.parse().map_err(|e| format!("--fanout: {e}"))?,
            "--seed" => opts.seed = val()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--faults" => opts.fault_rate = val()?.parse().map_err(|e| format!("--faults: {e}"))?,
            "-o" | "--output" => out = Some(PathBuf::from(val()?)),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if let Some(layout) = claude {
        let dir = out.ok_or("a claude-code project needs -o DIR")?;
        let stats =
            claude_code::generate_project(&opts, layout, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        eprintln!("{}", stats.to_json(&opts, layout));
        return Ok(());
    }
    let stats = if folder {
        let dir = out.ok_or("dsh-session-folder needs -o DIR")?;
        generate_dsh_session_folder(&opts, &dir).map_err(|e| format!("{}: {e}", dir.display()))?
    } else if let Some(path) = out {
        let mut f = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        generate(&opts, &mut f).map_err(|e| format!("{}: {e}", path.display()))?
    } else {
        let stdout = std::io::stdout();
        let mut lock = stdout.lock();
        match generate(&opts, &mut lock).and_then(|s| lock.flush().map(|_| s)) {
            Ok(s) => s,
            // A reader that stops early (`| head`) is not an error.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            Err(e) => return Err(format!("stdout: {e}")),
        }
    };
    eprintln!("{}", stats_json(&opts, &stats));
    Ok(())
}

fn stats_json(opts: &GenOptions, s: &GenStats) -> String {
    let findings: serde_json::Map<String, serde_json::Value> =
        s.findings.iter().map(|(k, v)| (k.to_string(), (*v).into())).collect();
    serde_json::json!({
        "format": opts.format.id(),
        "seed": opts.seed,
        "bytes": s.bytes,
        "lines": s.lines,
        "records": s.records,
        "malformed": s.malformed,
        "files": s.files,
        "sessions": s.sessions,
        "runs": s.runs,
        "root_turns": s.root_turns,
        "turns": s.turns,
        "max_depth": s.max_depth,
        "findings": findings,
    })
    .to_string()
}
