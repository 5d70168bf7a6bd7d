//! Logs written on Windows read as the same logs written on Linux: every file of each format the
//! generator writes, made again with CRLF line ends and a UTF-8 byte-order mark, must give the
//! engine's report of the LF files, but for the file sizes (`inputs[].bytes`) and the folder the
//! files are in.

use arbor_gen::claude_code::{generate_project, Layout};
use arbor_gen::{generate, generate_codex_tree, generate_dsh_session_folder, Format, GenOptions};
use serde_json::Value;
use std::path::Path;

fn opts(format: Format, fault_rate: f64) -> GenOptions {
    GenOptions { format, target_bytes: 200 << 10, depth: 3, fanout: 3, seed: 7, fault_rate }
}

/// Every file under `from`, copied under `to` with CRLF line ends and a byte-order mark.
fn as_windows_writes(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
            as_windows_writes(&entry.path(), &dest);
            continue;
        }
        let lf = std::fs::read(entry.path()).unwrap();
        assert!(!lf.contains(&b'\r'), "{}: the generator wrote a CR", entry.path().display());
        let mut crlf = b"\xEF\xBB\xBF".to_vec();
        for &b in &lf {
            if b == b'\n' {
                crlf.push(b'\r');
            }
            crlf.push(b);
        }
        std::fs::write(dest, crlf).unwrap();
    }
}

/// The report of what is under `dir`, with `dir` written as `DIR` and the file sizes left out.
fn report(dir: &Path) -> Value {
    let report = arbor_core::analyze(&[dir.to_path_buf()], &mut ()).report();
    let json = serde_json::to_string(&report).unwrap();
    let root = serde_json::to_string(&dir.display().to_string()).unwrap();
    let json = json.replace(root.trim_matches('"'), "DIR");
    let mut v: Value = serde_json::from_str(&json).unwrap();
    for input in v["inputs"].as_array_mut().unwrap() {
        input["bytes"] = Value::Null;
    }
    v
}

fn same_report(what: &str, write: impl Fn(&Path)) {
    let (lf, crlf) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write(lf.path());
    as_windows_writes(lf.path(), crlf.path());
    let (a, b) = (report(lf.path()), report(crlf.path()));
    assert!(!a["inputs"].as_array().unwrap().is_empty(), "{what}: nothing was read");
    if a != b {
        let (a, b) = (serde_json::to_string_pretty(&a).unwrap(), serde_json::to_string_pretty(&b).unwrap());
        let first = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
        let around = |s: &str| s.lines().skip(first.saturating_sub(5)).take(12).collect::<Vec<_>>().join("\n");
        panic!("{what}: CRLF and a BOM read otherwise than LF; LF:\n{}\nCRLF:\n{}", around(&a), around(&b));
    }
}

#[test]
fn each_single_file_format_reads_the_same_with_crlf_and_a_bom() {
    for format in Format::ALL {
        for faults in [0.0, 0.05] {
            same_report(&format!("{} faults {faults}", format.id()), |dir| {
                let mut f = std::fs::File::create(dir.join(format!("{}.jsonl", format.id()))).unwrap();
                generate(&opts(format, faults), &mut f).unwrap();
            });
        }
    }
}

#[test]
fn dsh_session_folders_read_the_same_with_crlf_and_a_bom() {
    same_report("dsh-session folder", |dir| {
        generate_dsh_session_folder(&opts(Format::DshSession, 0.05), dir).unwrap();
    });
}

#[test]
fn claude_code_projects_read_the_same_with_crlf_and_a_bom() {
    for layout in Layout::ALL {
        same_report(layout.id(), |dir| {
            generate_project(&opts(Format::DshRpc, 0.05), layout, dir).unwrap();
        });
    }
}

#[test]
fn codex_trees_read_the_same_with_crlf_and_a_bom() {
    same_report("codex", |dir| {
        generate_codex_tree(&opts(Format::DshRpc, 0.05), dir).unwrap();
    });
}
