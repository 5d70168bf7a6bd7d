//! The commit a binary is built from, for `--version` and the app's title. Shared by the CLI's
//! build script and the app's (`src-tauri/build.rs` includes this file).
//!
//! `ARBOR_COMMIT` in the build's environment wins (a source tarball has no `.git`, and a packager
//! can say which commit it came from); otherwise `git rev-parse --short HEAD`; otherwise nothing,
//! and the version is said without a commit. Cargo is told to run the script again when HEAD or
//! the branch it names moves (the paths come from git, so a worktree's `.git` file works too).

use std::path::Path;
use std::process::Command;

/// Sets `ARBOR_COMMIT` (the short hash, or empty) and `ARBOR_LONG_VERSION` (`0.1.0 (ab3c362)`,
/// or just the version) for the crate being built.
pub fn emit() {
    println!("cargo:rerun-if-env-changed=ARBOR_COMMIT");
    let commit = match std::env::var("ARBOR_COMMIT") {
        Ok(c) => c.trim().to_owned(),
        Err(_) => from_git().unwrap_or_default(),
    };
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let long = if commit.is_empty() { version } else { format!("{version} ({commit})") };
    println!("cargo:rustc-env=ARBOR_COMMIT={commit}");
    println!("cargo:rustc-env=ARBOR_LONG_VERSION={long}");
}

fn git(args: &[&str]) -> Option<String> {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let out = Command::new("git").args(args).current_dir(dir).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (!s.is_empty()).then_some(s)
}

fn from_git() -> Option<String> {
    let commit = git(&["rev-parse", "--short", "HEAD"])?;
    // Run again when HEAD moves to another branch or commit, when the branch it names gets a new
    // commit, and when refs are packed (the branch then lives in packed-refs).
    let mut watched = vec![git(&["rev-parse", "--git-path", "HEAD"])];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git(&["rev-parse", "--git-path", &branch]));
    }
    watched.push(git(&["rev-parse", "--git-path", "packed-refs"]));
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    for path in watched.into_iter().flatten() {
        let path = Path::new(&dir).join(path);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    Some(commit)
}
