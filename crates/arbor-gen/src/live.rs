//! `arbor-gen --live RATE`: write a generated log the way a running agent does, for following
//! (SPEC 5 Follow): its lines appended at about RATE lines a second, a folder's files growing
//! together (each file appears with its first line, so sub-agent files appear mid-run), and some
//! lines written in two pieces (the reader must wait for the newline).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Every this-many-th line is written in two pieces, a moment apart.
const SPLIT_EVERY: u64 = 10;
/// Writes are batched this often.
const TICK: Duration = Duration::from_millis(10);

/// The files of `src` (a file, or a folder walked recursively), relative to it, in name order.
fn files_of(src: &Path) -> std::io::Result<Vec<PathBuf>> {
    if src.is_file() {
        return Ok(vec![PathBuf::new()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for e in std::fs::read_dir(src.join(&rel))? {
            let e = e?;
            let r = rel.join(e.file_name());
            if e.file_type()?.is_dir() {
                stack.push(r);
            } else {
                out.push(r);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Append `src`'s lines to `dst` (a file, or a folder for a folder) at about `rate` lines a
/// second. Returns the lines written.
pub fn replay(src: &Path, dst: &Path, rate: f64) -> std::io::Result<u64> {
    let rels = files_of(src)?;
    let mut texts: Vec<(PathBuf, Vec<u8>, usize)> = Vec::new();
    for rel in rels {
        let from = if rel.as_os_str().is_empty() { src.to_path_buf() } else { src.join(&rel) };
        let to = if rel.as_os_str().is_empty() { dst.to_path_buf() } else { dst.join(&rel) };
        texts.push((to, std::fs::read(from)?, 0));
    }
    let start = Instant::now();
    let mut written = 0u64;
    loop {
        // The file furthest behind (by the share of it written) gets the next line.
        let next = texts
            .iter()
            .enumerate()
            .filter(|(_, (_, t, at))| *at < t.len())
            .min_by(|a, b| {
                let share = |x: &(PathBuf, Vec<u8>, usize)| x.2 as f64 / x.1.len() as f64;
                share(a.1).total_cmp(&share(b.1))
            })
            .map(|(i, _)| i);
        let Some(i) = next else { return Ok(written) };
        let (to, text, at) = &mut texts[i];
        let end = memchr::memchr(b'\n', &text[*at..]).map_or(text.len(), |n| *at + n + 1);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&*to)?;
        let line = &text[*at..end];
        written += 1;
        if written.is_multiple_of(SPLIT_EVERY) && line.len() > 2 {
            let half = line.len() / 2;
            f.write_all(&line[..half])?;
            f.flush()?;
            std::thread::sleep(Duration::from_millis(2));
            f.write_all(&line[half..])?;
        } else {
            f.write_all(line)?;
        }
        *at = end;
        // Keep to the rate: sleep whole ticks while ahead of it.
        let due = Duration::from_secs_f64(written as f64 / rate.max(0.001));
        let elapsed = start.elapsed();
        if due > elapsed + TICK {
            std::thread::sleep(due - elapsed);
        }
    }
}
