//! What `arbor check` prints for CI, apart from the format: which findings fail the check, and
//! where each input file is relative to the `--root` that CI annotates (a repository checkout).
//!
//! The report names a file as the user gave it, or relative to the folder they opened; a CI
//! consumer wants it relative to the repository root, so each input's real path is placed under
//! `--root` here. The formats themselves (`sarif`, `junit`, `github`, JSON lines, the terminal
//! summary) only render a `Check`.

use arbor_core::finding::Finding;
use arbor_core::report::{Diagnostic, Report, Severity};
use arbor_core::Analysis;
use clap::ValueEnum;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

/// Which findings make `arbor check` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Any error finding.
    Error,
    /// Any error or warning finding.
    Warning,
    /// None: exit 0 whenever the input was read.
    Never,
}

impl FailOn {
    /// True when a finding of this severity fails the check.
    pub fn fails(self, s: Severity) -> bool {
        match self {
            FailOn::Error => s == Severity::Error,
            FailOn::Warning => s != Severity::Info,
            FailOn::Never => false,
        }
    }

    /// True when a finding of this severity is a failed test in JUnit XML: what fails the check,
    /// and errors still with `--fail-on never` (which lenient CI shows without failing on).
    pub fn is_failure(self, s: Severity) -> bool {
        self.fails(s) || s == Severity::Error
    }
}

/// An input file as CI names it.
pub struct Artifact {
    /// The report's name for it (`inputs[].file`, `at.file`).
    pub display: String,
    /// Its format id, or `unknown`.
    pub format: String,
    /// Relative to the root with `/` separators, or absolute when it lies outside the root.
    pub path: String,
    /// `path` as a URI reference: percent-encoded, relative to the root, or a `file://` URI.
    pub uri: String,
    pub under_root: bool,
}

/// The report's findings with the files they are in, ready for a CI format.
pub struct Check<'a> {
    pub files: Vec<Artifact>,
    /// Each finding with the index of its file in `files`.
    pub findings: Vec<(usize, &'a Diagnostic)>,
    /// The root as a `file://` URI ending in `/`.
    pub root_uri: String,
    pub fail_on: FailOn,
}

impl<'a> Check<'a> {
    /// The check of `analysis`, whose `report()` is `report`.
    pub fn new(analysis: &Analysis, report: &'a Report, root: &Path, fail_on: FailOn) -> Check<'a> {
        let root = real(root);
        // The analysis lists its files in the order of the report's `inputs`.
        let mut files: Vec<Artifact> = report
            .inputs
            .iter()
            .zip(&analysis.files)
            .map(|(i, f)| artifact(&root, &i.file, &i.format, &f.path))
            .collect();
        let findings = report
            .diagnostics
            .iter()
            .zip(owners(analysis, report))
            .map(|(d, owner)| {
                let i = owner.or_else(|| files.iter().position(|f| f.display == d.at.file)).unwrap_or_else(|| {
                    files.push(artifact(&root, &d.at.file, "unknown", Path::new(&d.at.file)));
                    files.len() - 1
                });
                (i, d)
            })
            .collect();
        Check { files, findings, root_uri: root_uri(&root), fail_on }
    }

    /// How many findings have each severity: errors, warnings, infos.
    pub fn counts(&self) -> (usize, usize, usize) {
        let n = |s| self.findings.iter().filter(|(_, d)| d.severity == s).count();
        (n(Severity::Error), n(Severity::Warning), n(Severity::Info))
    }

    /// True when some finding fails the check (`--fail-on`).
    pub fn failed(&self) -> bool {
        self.findings.iter().any(|(_, d)| self.fail_on.fails(d.severity))
    }
}

/// The root as a `file://` URI ending in `/`.
pub fn root_uri(root: &Path) -> String {
    format!("{}/", file_uri(&real(root)).trim_end_matches('/'))
}

/// The index of the file each of the report's diagnostics is in. The report names a file, and two
/// files share a name when two opened folders have the same name (`a/logs/`, `b/logs/`); the
/// analysis's own findings know the file. The report's diagnostics are those findings sorted by
/// place, a few left out (boundary findings a durable log supersedes), so walking both in step
/// pairs each diagnostic with its finding. `None` where a diagnostic has no such finding: then the
/// first file of that name stands for it.
fn owners(analysis: &Analysis, report: &Report) -> Vec<Option<usize>> {
    let mut found: Vec<&Finding> = analysis.cx.findings.list.iter().collect();
    found.sort_by_key(|f| f.at);
    let name = |f: &Finding| analysis.files.get(f.at.file as usize).map(|i| i.display.as_str());
    let mut next = found.into_iter();
    report
        .diagnostics
        .iter()
        .map(|d| {
            next.by_ref()
                .find(|f| {
                    f.code.as_str() == d.code
                        && f.at.line == d.at.line
                        && f.message == *d.message.as_str()
                        && name(f) == Some(d.at.file.as_str())
                })
                .map(|f| f.at.file as usize)
        })
        .collect()
}

fn artifact(root: &Path, display: &str, format: &str, path: &Path) -> Artifact {
    let abs = real(path);
    let (path, uri, under_root) = match abs.strip_prefix(root) {
        Ok(rel) => {
            let parts: Vec<&std::ffi::OsStr> = rel.components().map(|c| c.as_os_str()).collect();
            let path = parts.iter().map(|p| arbor_core::reader::os_text(p)).collect::<Vec<_>>().join("/");
            (path, parts.iter().map(|p| encode_bytes(&os_bytes(p), false)).collect::<Vec<_>>().join("/"), true)
        }
        Err(_) => (slashed(&abs), file_uri(&abs), false),
    };
    Artifact { display: display.to_owned(), format: format.to_owned(), path, uri, under_root }
}

/// An absolute path with symbolic links resolved when it exists (code scanning cannot show a
/// result in a file it reaches through a link), else made absolute by its components alone.
fn real(p: &Path) -> PathBuf {
    if let Ok(r) = std::fs::canonicalize(p) {
        return strip_verbatim(r);
    }
    let joined = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(p) };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Windows' canonical paths start with `\\?\`; a URI wants the plain drive path.
fn strip_verbatim(p: PathBuf) -> PathBuf {
    match p.to_str().and_then(|s| s.strip_prefix(r"\\?\")) {
        Some(s) if !s.starts_with("UNC") => PathBuf::from(s),
        _ => p,
    }
}

fn slashed(p: &Path) -> String {
    arbor_core::reader::path_text(p)
}

/// A name's bytes as a URI encodes them: as they are on Unix (a name that is not UTF-8 keeps its
/// bytes, `%FF`), its UTF-8 with `/` separators elsewhere.
fn os_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        name.as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy().replace('\\', "/").into_bytes()
    }
}

/// `file:///…` for an absolute path, each segment percent-encoded.
fn file_uri(abs: &Path) -> String {
    let bytes = os_bytes(abs.as_os_str());
    let segments: Vec<String> = bytes.split(|&b| b == b'/').map(|seg| encode_bytes(seg, true)).collect();
    let joined = segments.join("/");
    if joined.starts_with('/') {
        format!("file://{joined}")
    } else {
        format!("file:///{joined}")
    }
}

/// One path segment of a URI (RFC 3986 `segment`): unreserved characters and sub-delimiters stay,
/// everything else is percent-encoded. A `:` stays only where a scheme cannot be read
/// into it (`colon`: in an absolute URI's path).
/// The segment's bytes are the name's own: UTF-8 or not (a Unix name that is not UTF-8 keeps
/// its bytes, `%FF`).
pub fn encode_bytes(segment: &[u8], colon: bool) -> String {
    let mut out = String::with_capacity(segment.len());
    for &b in segment {
        let keep = b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=@".contains(&b) || (colon && b == b':');
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `--format json`: one JSON object a line, each an entry of the report's `diagnostics`.
pub fn json_lines(out: &mut impl Write, c: &Check) -> io::Result<()> {
    for (_, d) in &c.findings {
        serde_json::to_writer(&mut *out, d)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_is_percent_encoded_as_utf8() {
        assert_eq!(encode_bytes("run 1.jsonl".as_bytes(), false), "run%201.jsonl");
        assert_eq!(encode_bytes("a:b#c?d%e".as_bytes(), false), "a%3Ab%23c%3Fd%25e");
        assert_eq!(encode_bytes("C:".as_bytes(), true), "C:");
        assert_eq!(encode_bytes("é<>\"".as_bytes(), false), "%C3%A9%3C%3E%22");
        assert_eq!(encode_bytes("a,b;c=d@e~f".as_bytes(), false), "a,b;c=d@e~f");
    }

    #[test]
    fn a_path_under_the_root_is_relative_and_one_outside_is_a_file_uri() {
        let root = Path::new("/ci/work");
        let a = artifact(root, "run.jsonl", "dsh-rpc", Path::new("/ci/work/logs/run 1.jsonl"));
        assert_eq!((a.path.as_str(), a.uri.as_str(), a.under_root), ("logs/run 1.jsonl", "logs/run%201.jsonl", true));
        let b = artifact(root, "x", "unknown", Path::new("/elsewhere/../tmp/x.jsonl"));
        assert_eq!((b.path.as_str(), b.uri.as_str(), b.under_root), ("/tmp/x.jsonl", "file:///tmp/x.jsonl", false));
    }

    #[test]
    fn fail_on_sets_which_severities_fail() {
        use Severity::*;
        let fails = |f: FailOn| [Error, Warning, Info].map(|s| f.fails(s));
        assert_eq!(fails(FailOn::Error), [true, false, false]);
        assert_eq!(fails(FailOn::Warning), [true, true, false]);
        assert_eq!(fails(FailOn::Never), [false, false, false]);
        assert!(FailOn::Never.is_failure(Error) && !FailOn::Never.is_failure(Warning));
        assert!(FailOn::Warning.is_failure(Warning) && !FailOn::Warning.is_failure(Info));
    }
}
