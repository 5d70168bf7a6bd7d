//! `arbor export --markdown FILE | --html FILE PATH... [--session ID]`: one session (and its
//! sub-agents, as `--subagents` says) written to share (SPEC 6.4). The writing is the engine's
//! (`arbor_core::share`), the same the app's Export… previews and saves.

use arbor_core::share::{ShareOptions, Subagents};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(paths: &[PathBuf], session: Option<&str>, options: ShareOptions, file: &Path) -> ExitCode {
    let to_stdout = file.as_os_str() == "-";
    if to_stdout && options.subagents == Subagents::Files {
        return crate::fail("--subagents files writes files beside the export: give a FILE, not `-`");
    }
    let analysis = match crate::transcript::read_for(paths, session) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let session = match session {
        Some(s) => s.to_owned(),
        None => match analysis.root_sessions().as_slice() {
            [one] => (*one).to_owned(),
            roots => {
                let shown: Vec<&str> = roots.iter().take(8).copied().collect();
                let more = if roots.len() > 8 { format!(" and {} more", roots.len() - 8) } else { String::new() };
                return crate::fail(&format!(
                    "the log holds {} root sessions: name one with --session ({}{more})",
                    roots.len(),
                    crate::summary::visible(&shown.join(", "))
                ));
            }
        },
    };
    let written = if to_stdout {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        analysis.share(&session, &options, &mut out, None, u64::MAX).and_then(|s| out.flush().map(|_| s))
    } else {
        analysis.share_file(&session, &options, file)
    };
    std::mem::forget(analysis);
    match written {
        Ok(Some(shared)) => {
            let to = if to_stdout { "stdout".to_owned() } else { file.display().to_string() };
            let files = match shared.files.len() {
                0 => String::new(),
                n => format!(", and {n} sub-agent {} beside it", if n == 1 { "file" } else { "files" }),
            };
            eprintln!(
                "arbor export: {} {} and {} items to {to}{files}",
                shared.sessions,
                if shared.sessions == 1 { "session" } else { "sessions" },
                shared.rows
            );
            ExitCode::SUCCESS
        }
        Ok(None) => crate::fail(&format!(
            "no session `{}` in what was read (`arbor analyze` lists the sessions)",
            crate::summary::visible(&session)
        )),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("arbor export: cannot write {}: {e}", file.display());
            ExitCode::from(1)
        }
    }
}
