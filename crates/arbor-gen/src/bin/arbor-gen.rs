//! `arbor-gen`: write a deterministic, realistic agent-harness log for tests and benchmarks.
//!
//! `arbor-gen --format dsh-rpc --size 1G --depth 4 --fanout 3 --seed 1 [--faults 0.001] -o FILE`
//! (`--format dsh-session-folder` writes a folder of durable logs to `-o DIR`; `--sessions N`
//! writes N independent logs of `--size` each into `-o DIR`, seeds `--seed` to `--seed + N - 1`,
//! as a Copilot `session-state/` for copilot-events: `DIR/<k>/events.jsonl`, else
//! `DIR/<k>.jsonl`). Prints what it wrote, and the findings the engine must report, as one JSON
//! object on stderr.

use arbor_gen::claude_code::{self, Layout};
use arbor_gen::{
    generate, generate_codex_tree, generate_dsh_session_folder, generate_gemini_tree, parse_size, Format, GenOptions,
    GenStats,
};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str =
    "usage: arbor-gen [--format dsh-rpc|dsh-session|dsh-session-folder|copilot-events|copilot-rpc|codex|
                           claude-code|claude-code-flat|claude-code-inline|gemini-cli|opencode|opencode-tree]
                 [--size 10M] [--depth 2] [--fanout 2] [--seed 1] [--faults 0.0] [--sessions N] [-o FILE|DIR]
  --size      target size (K, M, G are binary units); the log ends a few KB past it
  --faults    the chance of each injected fault at each place it can happen (0: a clean log)
  --sessions  write N independent logs into -o DIR (copilot-events: DIR/<k>/events.jsonl, like a
              Copilot session-state/; other formats: DIR/<k>.jsonl), seeds --seed.. --seed+N-1
  -o          output file (stdout when absent), or the folder for dsh-session-folder, codex (a
              sessions/YYYY/MM/DD tree of rollouts), the claude-code project folders (sub-agents
              in <session>/subagents/, beside the sessions, or inline), gemini-cli (a
              tmp/<project>/chats tree, sub-agents in chats/<root session id>/) and --sessions;
              OpenCode's database file (opencode) or the folder of its storage/ tree (opencode-tree)
  --live R    write the log to -o as a running agent does: about R lines a second, a folder's
              files growing together, some lines in two pieces (for following it)
  --turns N   the claude-code formats: one root session of N turns, whatever --size (with
              --depth 0, a long transcript with no sub-agents: 20,000 turns are ~100,000 items)";

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
    let mut sessions: Option<u64> = None;
    let mut codex = false;
    let mut gemini = false;
    let mut opencode: Option<arbor_gen::opencode::Store> = None;
    let mut claude: Option<Layout> = None;
    let mut out: Option<PathBuf> = None;
    let mut live: Option<f64> = None;
    let mut turns: Option<u64> = None;
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
                if v == "codex" {
                    codex = true;
                } else if v == "gemini-cli" {
                    gemini = true;
                } else if v == "opencode" {
                    opencode = Some(arbor_gen::opencode::Store::Database);
                } else if v == "opencode-tree" {
                    opencode = Some(arbor_gen::opencode::Store::Tree);
                } else if let Some(layout) = Layout::from_id(&v) {
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
            "--sessions" => sessions = Some(val()?.parse().map_err(|e| format!("--sessions: {e}"))?),
            "-o" | "--output" => out = Some(PathBuf::from(val()?)),
            "--live" => live = Some(val()?.parse().map_err(|e| format!("--live: {e}"))?),
            "--turns" => turns = Some(val()?.parse().map_err(|e| format!("--turns: {e}"))?),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    // With --live, every format's log is generated whole beside nothing the reader sees, then
    // written out to -o at the rate.
    let live = match live {
        Some(rate) => {
            let dst = out.take().ok_or("--live needs -o FILE|DIR")?;
            let scratch = tempfile_dir()?;
            out = Some(scratch.join("log"));
            Some((rate, dst, scratch))
        }
        None => None,
    };
    let replay = |live: Option<(f64, PathBuf, PathBuf)>| -> Result<(), String> {
        let Some((rate, dst, scratch)) = live else { return Ok(()) };
        let lines =
            arbor_gen::live::replay(&scratch.join("log"), &dst, rate).map_err(|e| format!("{}: {e}", dst.display()));
        let _ = std::fs::remove_dir_all(&scratch);
        eprintln!("arbor-gen: wrote {} lines to {}", lines?, dst.display());
        Ok(())
    };
    if turns.is_some() && claude.is_none() {
        return Err("--turns is for the claude-code formats".into());
    }
    if let Some(layout) = claude {
        let dir = out.ok_or("a claude-code project needs -o DIR")?;
        let stats = match turns {
            Some(n) => claude_code::generate_session(&opts, layout, &dir, n),
            None => claude_code::generate_project(&opts, layout, &dir),
        }
        .map_err(|e| format!("{}: {e}", dir.display()))?;
        eprintln!("{}", stats.to_json(&opts, layout));
        return replay(live);
    }
    if let Some(store) = opencode {
        let path = out.ok_or("opencode needs -o FILE (the database) or -o DIR (opencode-tree)")?;
        let o = arbor_gen::generate_opencode(&opts, store, &path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut json = stats_json(&opts, &o.stats);
        let id = if store == arbor_gen::opencode::Store::Database { "opencode" } else { "opencode-tree" };
        json = json.replacen(&format!("\"format\":\"{}\"", opts.format.id()), &format!("\"format\":\"{id}\""), 1);
        let tokens = format!(
            ",\"usage\":{{\"input\":{},\"output\":{},\"cache_read\":{},\"cache_write\":{},\"cost\":{}}}}}",
            o.input, o.output, o.cache_read, o.cache_write, o.cost
        );
        json = json.trim_end().strip_suffix('}').map(|j| format!("{j}{tokens}")).unwrap_or(json);
        eprintln!("{json}");
        return replay(live);
    }
    if codex {
        let dir = out.ok_or("codex needs -o DIR")?;
        let tree = generate_codex_tree(&opts, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut json = stats_json(&opts, &tree.stats);
        json = json.replacen(&format!("\"format\":\"{}\"", opts.format.id()), "\"format\":\"codex\"", 1);
        eprintln!("{json}");
        return replay(live);
    }
    if gemini {
        let dir = out.ok_or("gemini-cli needs -o DIR")?;
        let tree = generate_gemini_tree(&opts, &dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut json = stats_json(&opts, &tree.stats);
        json = json.replacen(&format!("\"format\":\"{}\"", opts.format.id()), "\"format\":\"gemini-cli\"", 1);
        eprintln!("{json}");
        return replay(live);
    }
    if live.is_some() {
        let src = out.clone().expect("the scratch log");
        let stats = if folder {
            generate_dsh_session_folder(&opts, &src).map_err(|e| e.to_string())?
        } else {
            let mut f = std::fs::File::create(&src).map_err(|e| e.to_string())?;
            generate(&opts, &mut f).map_err(|e| e.to_string())?
        };
        eprintln!("{}", stats_json(&opts, &stats));
        return replay(live);
    }
    let stats = if let Some(n) = sessions {
        let dir = out.ok_or("--sessions needs -o DIR")?;
        many(&opts, n, &dir).map_err(|e| format!("{}: {e}", dir.display()))?
    } else if folder {
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

/// A scratch folder of this process's own under the system's temporary folder.
fn tempfile_dir() -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("arbor-gen-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// `--sessions N`: N logs of one format, each its own session tree, seeds counting up.
fn many(opts: &GenOptions, n: u64, dir: &std::path::Path) -> std::io::Result<GenStats> {
    let mut total = GenStats::default();
    let width = n.saturating_sub(1).to_string().len();
    for k in 0..n {
        let one = GenOptions { seed: opts.seed.wrapping_add(k), ..opts.clone() };
        let path = if opts.format == Format::CopilotEvents {
            let folder = dir.join(format!("{k:0width$}"));
            std::fs::create_dir_all(&folder)?;
            folder.join("events.jsonl")
        } else {
            std::fs::create_dir_all(dir)?;
            dir.join(format!("{k:0width$}.jsonl"))
        };
        let s = generate(&one, &mut std::fs::File::create(path)?)?;
        total.add(&s);
    }
    Ok(total)
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
