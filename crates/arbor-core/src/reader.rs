//! The reader owns bytes: which files an opened path stands for, decompression, and lines.
//!
//! It yields each line with its 1-based number and byte offset (in the decompressed stream) and
//! whether it ended with a newline. It never interprets content and never holds more than one line.
//! `raw_line` reads one line back by offset, so the index never keeps line text.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The extensions a folder is searched for (SPEC.md section 1), before an optional `.zst`/`.zstd`.
const LOG_EXTENSIONS: &[&str] = &["jsonl", "ndjson", "json", "log"];

/// One file to read: where it is, and how reports name it.
#[derive(Debug, Clone)]
pub struct InputFile {
    pub path: PathBuf,
    /// The path as given, or relative to the opened folder, with `/` separators.
    pub display: String,
    /// True when the file came from walking a folder (unknown formats are then skipped quietly).
    pub from_folder: bool,
}

/// A path that could not be opened or listed.
#[derive(Debug, Clone)]
pub struct Unreadable {
    pub display: String,
    pub reason: String,
}

fn display_of(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

fn is_log_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let base = lower.strip_suffix(".zst").or_else(|| lower.strip_suffix(".zstd")).unwrap_or(&lower);
    LOG_EXTENSIONS.iter().any(|ext| base.ends_with(&format!(".{ext}")))
}

/// Expand the paths a user opened into the files to read, in a stable order: paths in the order
/// given, a folder's files sorted by their relative path. Folders are walked without following
/// symbolic links to folders, so a link loop cannot trap the walk.
pub fn expand(paths: &[PathBuf]) -> (Vec<InputFile>, Vec<Unreadable>) {
    let mut files = Vec::new();
    let mut bad = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                // With several paths opened, a folder's files are named under the folder's own name
                // so that two folders' `session.jsonl` stay apart.
                let prefix =
                    if paths.len() > 1 { p.file_name().map(|n| format!("{}/", n.to_string_lossy())) } else { None };
                walk(p, prefix.as_deref().unwrap_or(""), &mut files, &mut bad)
            }
            Ok(_) => files.push(InputFile { path: p.clone(), display: display_of(p), from_folder: false }),
            Err(e) => bad.push(Unreadable { display: display_of(p), reason: e.to_string() }),
        }
    }
    (files, bad)
}

fn walk(root: &Path, prefix: &str, files: &mut Vec<InputFile>, bad: &mut Vec<Unreadable>) {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                bad.push(Unreadable { display: display_of(&dir), reason: e.to_string() });
                continue;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_dir() {
                stack.push(path);
            } else if is_log_name(&entry.file_name().to_string_lossy()) {
                // A symlink to a file is read; a symlink to a folder is not walked.
                if ft.is_symlink() && path.is_dir() {
                    continue;
                }
                let rel = path.strip_prefix(root).unwrap_or(&path);
                found.push(InputFile { display: format!("{prefix}{}", display_of(rel)), path, from_folder: true });
            }
        }
    }
    found.sort_by(|a, b| a.display.cmp(&b.display));
    files.extend(found);
}

/// Open a file for reading its lines, decompressing zstd when its first bytes say so.
pub fn open(path: &Path) -> io::Result<Box<dyn BufRead + Send>> {
    let mut f = File::open(path)?;
    let mut magic = [0u8; 4];
    let n = read_up_to(&mut f, &mut magic)?;
    f.seek(SeekFrom::Start(0))?;
    if n == 4 && magic == ZSTD_MAGIC {
        let dec = zstd::stream::read::Decoder::new(f)?;
        Ok(Box::new(BufReader::with_capacity(1 << 16, dec)))
    } else {
        Ok(Box::new(BufReader::with_capacity(1 << 16, f)))
    }
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The longest line kept. A longer one is skipped to its end without being held (a zstd bomb of
/// one endless line must not take memory in proportion to its expansion) and is reported.
pub const MAX_LINE: usize = 128 << 20;

/// One line as read: its number, its offset, its bytes without the line ending.
#[derive(Debug)]
pub struct LineRef<'a> {
    pub number: u64,
    pub offset: u64,
    pub bytes: &'a [u8],
    /// False only for a last line with no final newline.
    pub terminated: bool,
    /// Longer than `MAX_LINE`: `bytes` is empty and the line was skipped.
    pub overlong: bool,
}

/// Lines of one stream, one buffer reused for all of them.
pub struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    number: u64,
    offset: u64,
}

impl<R: BufRead> Lines<R> {
    pub fn new(reader: R) -> Self {
        Lines { reader, buf: Vec::with_capacity(4096), number: 0, offset: 0 }
    }

    /// Bytes consumed so far (decompressed).
    pub fn bytes_read(&self) -> u64 {
        self.offset
    }

    /// The next line, `Ok(None)` at the end. An I/O error (a corrupt zstd frame, a read failure)
    /// ends the stream; the caller reports it at the line where it happened.
    pub fn next_line(&mut self) -> io::Result<Option<LineRef<'_>>> {
        self.buf.clear();
        let (mut total, mut terminated, mut overlong) = (0usize, false, false);
        loop {
            let avail = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                break;
            }
            let (take, found) = match memchr::memchr(b'\n', avail) {
                Some(i) => (i + 1, true),
                None => (avail.len(), false),
            };
            if !overlong {
                if self.buf.len() + take > MAX_LINE + 2 {
                    overlong = true;
                    self.buf = Vec::with_capacity(4096);
                } else {
                    self.buf.extend_from_slice(&avail[..take]);
                }
            }
            total += take;
            self.reader.consume(take);
            if found {
                terminated = true;
                break;
            }
        }
        if total == 0 {
            return Ok(None);
        }
        self.number += 1;
        let offset = self.offset;
        self.offset += total as u64;
        let mut end = self.buf.len();
        if terminated && !overlong {
            end -= 1;
            if end > 0 && self.buf[end - 1] == b'\r' {
                end -= 1;
            }
        }
        Ok(Some(LineRef { number: self.number, offset, bytes: &self.buf[..end], terminated, overlong }))
    }
}

/// Read back the line that starts at `offset` of the (decompressed) file.
pub fn raw_line_at(path: &Path, offset: u64) -> io::Result<Vec<u8>> {
    let mut f = File::open(path)?;
    let mut magic = [0u8; 4];
    let n = read_up_to(&mut f, &mut magic)?;
    let mut out = Vec::new();
    if n == 4 && magic == ZSTD_MAGIC {
        f.seek(SeekFrom::Start(0))?;
        let mut dec = BufReader::new(zstd::stream::read::Decoder::new(f)?);
        io::copy(&mut (&mut dec).take(offset), &mut io::sink())?;
        dec.read_until(b'\n', &mut out)?;
    } else {
        f.seek(SeekFrom::Start(offset))?;
        BufReader::new(f).read_until(b'\n', &mut out)?;
    }
    while matches!(out.last(), Some(b'\n' | b'\r')) {
        out.pop();
    }
    Ok(out)
}

/// Whether a file is zstd-compressed (by its magic bytes); `false` when it cannot be read.
pub fn is_zstd(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    File::open(path).and_then(|mut f| read_up_to(&mut f, &mut magic)).is_ok_and(|n| n == 4 && magic == ZSTD_MAGIC)
}

/// Read back the lines that start at each of `offsets` (ascending), opening the file once: a
/// seek per line for a plain file, one streaming pass for zstd. `each` is given every line in
/// turn (by its index in `offsets`), without its line end; `None` for a line that cannot be read.
/// A line longer than `MAX_LINE` is cut there. Only one line is held at a time.
pub fn each_line_at(path: &Path, offsets: &[u64], mut each: impl FnMut(usize, Option<&[u8]>)) -> io::Result<()> {
    let mut f = File::open(path)?;
    let mut magic = [0u8; 4];
    let n = read_up_to(&mut f, &mut magic)?;
    f.seek(SeekFrom::Start(0))?;
    let trim = |v: &[u8]| {
        let mut end = v.len();
        while end > 0 && matches!(v[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        end
    };
    let mut line = Vec::new();
    if n == 4 && magic == ZSTD_MAGIC {
        let mut dec = BufReader::new(zstd::stream::read::Decoder::new(f)?);
        let mut pos = 0u64;
        for (i, &o) in offsets.iter().enumerate() {
            if o < pos {
                each(i, None);
                continue;
            }
            io::copy(&mut (&mut dec).take(o - pos), &mut io::sink())?;
            line.clear();
            let k = (&mut dec).take(MAX_LINE as u64).read_until(b'\n', &mut line)?;
            pos = o + k as u64;
            each(i, Some(&line[..trim(&line)]));
        }
    } else {
        // Replies are a few kilobytes apart: a forward seek within the buffer keeps it, so most
        // lines cost no system call (a plain seek would drop the buffer every time).
        let mut r = BufReader::with_capacity(64 << 10, f);
        let mut pos = 0u64;
        for (i, &o) in offsets.iter().enumerate() {
            line.clear();
            let moved = match o.checked_sub(pos).and_then(|d| i64::try_from(d).ok()) {
                Some(d) => r.seek_relative(d).is_ok(),
                None => r.seek(SeekFrom::Start(o)).is_ok(),
            };
            let read = if moved { (&mut r).take(MAX_LINE as u64).read_until(b'\n', &mut line).ok() } else { None };
            pos = match read {
                Some(k) => o + k as u64,
                None => r.stream_position().unwrap_or(u64::MAX),
            };
            each(i, read.map(|_| &line[..trim(&line)]));
        }
    }
    Ok(())
}

/// Read back line `number` (1-based) of a file by scanning it: for callers that have no index.
pub fn raw_line_numbered(path: &Path, number: u64) -> io::Result<Option<Vec<u8>>> {
    let mut lines = Lines::new(open(path)?);
    while let Some(l) = lines.next_line()? {
        if l.number == number {
            return Ok(Some(l.bytes.to_vec()));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_numbers_offsets_and_the_missing_final_newline() {
        let data = b"{\"a\":1}\r\n\n{\"b\":2}";
        let mut lines = Lines::new(&data[..]);
        let l1 = lines.next_line().unwrap().unwrap();
        assert_eq!((l1.number, l1.offset, l1.bytes, l1.terminated), (1, 0, &b"{\"a\":1}"[..], true));
        let l2 = lines.next_line().unwrap().unwrap();
        assert_eq!((l2.number, l2.offset, l2.bytes.len()), (2, 9, 0));
        let l3 = lines.next_line().unwrap().unwrap();
        assert_eq!((l3.number, l3.offset, l3.terminated), (3, 10, false));
        assert!(lines.next_line().unwrap().is_none());
    }

    #[test]
    fn folder_names_are_filtered_by_extension() {
        assert!(is_log_name("a.jsonl"));
        assert!(is_log_name("A.NDJSON.zst"));
        assert!(is_log_name("x.log.zstd"));
        assert!(!is_log_name("workspace.yaml"));
        assert!(!is_log_name("session.db"));
    }

    #[test]
    fn raw_lines_read_back_from_plain_and_zstd_files() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"first\nsecond line\nthird";
        let plain = dir.path().join("a.jsonl");
        std::fs::write(&plain, text).unwrap();
        let packed = dir.path().join("a.jsonl.zst");
        std::fs::write(&packed, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
        for p in [&plain, &packed] {
            assert_eq!(raw_line_at(p, 6).unwrap(), b"second line");
            assert_eq!(raw_line_numbered(p, 3).unwrap().unwrap(), b"third");
        }
    }
}
