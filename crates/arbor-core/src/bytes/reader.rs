//! The reader owns bytes: which files an opened path stands for, decompression, and lines.
//!
//! It yields each line with its 1-based number and byte offset (in the decompressed stream) and
//! whether it ended with a newline. It never interprets content, and holds one line (`Lines`) or one
//! block of whole lines (`LineBlocks`, about a megabyte) at a time.
//! `raw_line` reads one line back by offset, so the index never keeps line text.
//!
//! A line is a record, with one exception that keeps a pretty-printed JSON file readable: a line
//! that is only `{` or `[` (blanks around it allowed) opens a **multi-line value**, and the lines
//! up to the one where its brackets close (a string-aware count, `Framing`) are one record at the
//! line where it opens. A whole-file JSON document (Gemini CLI's older sessions, OpenCode's
//! `storage/` tree) is so one record at line 1, and what follows the value is read as lines again.
//! Line numbers go on counting every line of the file, and such a record is read back by its
//! offset as it was read (`read_piece`). A JSON Lines record never is a lone bracket, so no JSON
//! Lines file reads differently.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::rows;

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
    path_text(p)
}

/// How a report names a path: its text with `/` separators, unique and reversible even when the
/// name is not Unicode (two such files once printed as one name, each bad byte a U+FFFD). On
/// Unix a byte that is not part of valid UTF-8 is written `\xNN` (two lowercase hex digits) and
/// a backslash, which is then no separator, `\\`; on Windows a backslash is a separator (`/`)
/// and an unpaired surrogate of a UTF-16 name is written `\u{dNNN}`. Every other character is
/// itself. To read a name back: `\\` is a backslash, `\xNN` the byte NN, `\u{…}` that code unit.
pub fn path_text(p: &Path) -> String {
    os_text(p.as_os_str())
}

/// `path_text` of one name (a path's component, a file name).
pub fn os_text(name: &std::ffi::OsStr) -> String {
    #[cfg(unix)]
    {
        use std::fmt::Write;
        use std::os::unix::ffi::OsStrExt;
        let mut out = String::with_capacity(name.len());
        for chunk in name.as_bytes().utf8_chunks() {
            for c in chunk.valid().chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    c => out.push(c),
                }
            }
            for b in chunk.invalid() {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
        out
    }
    #[cfg(windows)]
    {
        use std::fmt::Write;
        use std::os::windows::ffi::OsStrExt;
        let mut out = String::with_capacity(name.len());
        for c in char::decode_utf16(name.encode_wide()) {
            match c {
                Ok('\\') => out.push('/'),
                Ok(c) => out.push(c),
                Err(e) => {
                    let _ = write!(out, "\\u{{{:x}}}", e.unpaired_surrogate());
                }
            }
        }
        out
    }
    #[cfg(not(any(unix, windows)))]
    {
        name.to_string_lossy().replace('\\', "/")
    }
}

/// Whether a file name is one a folder walk reads: a log extension, maybe zstd-compressed.
pub fn is_log_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let base = lower.strip_suffix(".zst").or_else(|| lower.strip_suffix(".zstd")).unwrap_or(&lower);
    LOG_EXTENSIONS.iter().any(|ext| base.ends_with(&format!(".{ext}")))
}

/// Whether a file name is a store of rows a folder walk reads (its content then says whether it
/// is one): OpenCode's database, `opencode.db` or a release channel's `opencode-<channel>.db`.
/// Other databases in a folder (a harness's `session.db`) are not logs and are not read.
pub fn is_store_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "opencode.db" || (lower.starts_with("opencode-") && lower.ends_with(".db"))
}

/// Whether a path is there to read: a file or folder, or one tree of a store
/// (`<store>/<session id>`, `rows::scoped`).
pub fn exists(path: &Path) -> bool {
    path.exists() || rows::scoped(path).is_some()
}

/// Expand the paths a user opened into the files to read, in a stable order: paths in the order
/// given, a folder's files sorted by their relative path. Folders are walked without following
/// symbolic links to folders, so a link loop cannot trap the walk.
///
/// Each file is read once: a path given again, a folder inside another folder given, and a log
/// file inside a folder given (which the folder's walk reads) are left out, so that opening a
/// folder and one of its files does not read that file twice (its sessions would be reported
/// as reused ids). Paths are compared as the file system resolves them.
pub fn expand(paths: &[PathBuf]) -> (Vec<InputFile>, Vec<Unreadable>) {
    let paths = distinct(paths);
    let mut files = Vec::new();
    let mut bad = Vec::new();
    for p in paths.iter().copied() {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                // With several paths opened, a folder's files are named under the folder's own name
                // so that two folders' `session.jsonl` stay apart.
                let prefix = if paths.len() > 1 { p.file_name().map(|n| format!("{}/", os_text(n))) } else { None };
                walk(p, prefix.as_deref().unwrap_or(""), &mut files, &mut bad)
            }
            Ok(_) => files.push(InputFile { path: p.clone(), display: display_of(p), from_folder: false }),
            // One tree of a store (`<store>/<session id>`): read as a file.
            Err(_) if rows::scoped(p).is_some() => {
                files.push(InputFile { path: p.clone(), display: display_of(p), from_folder: false })
            }
            Err(e) => bad.push(Unreadable { display: display_of(p), reason: e.to_string() }),
        }
    }
    (files, bad)
}

/// The paths of `expand` that add files: see there.
fn distinct(paths: &[PathBuf]) -> Vec<&PathBuf> {
    if paths.len() < 2 {
        return paths.iter().collect();
    }
    let real: Vec<PathBuf> = paths.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())).collect();
    let folder: Vec<bool> = real.iter().map(|p| p.is_dir()).collect();
    let log_name = |p: &Path| p.file_name().is_some_and(|n| is_log_name(&n.to_string_lossy()));
    (0..paths.len())
        .filter(|&i| {
            let again = real[..i].contains(&real[i]);
            let inside = (0..paths.len()).any(|j| {
                folder[j] && real[j] != real[i] && real[i].starts_with(&real[j]) && (folder[i] || log_name(&real[i]))
            });
            !again && !inside
        })
        .map(|i| &paths[i])
        .collect()
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
            } else if is_log_name(&entry.file_name().to_string_lossy())
                || is_store_name(&entry.file_name().to_string_lossy())
            {
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
    Ok(Box::new(BufReader::with_capacity(1 << 16, open_unbuffered(path)?)))
}

/// `open` without a buffer of its own, for a reader that reads in blocks (`LineBlocks`): a
/// plain file's reads then go straight from the kernel into the block.
pub fn open_unbuffered(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    open_stream(path).map(|o| o.stream)
}

/// A file opened for reading its lines, with what was learnt opening it.
pub struct Opened {
    pub stream: Box<dyn Read + Send>,
    /// A decoded stream, not the file's own bytes: zstd-compressed (by its magic bytes), or a
    /// SQLite database rendered as lines (`rows`). Its offsets cannot be sought in the file.
    pub zstd: bool,
    /// The file's size on disk.
    pub len: u64,
}

/// `open_unbuffered`, saying whether the file is zstd and how large it is, with one `open`.
pub fn open_stream(path: &Path) -> io::Result<Opened> {
    let (raw, len) = open_raw(path)?;
    Ok(match raw {
        Raw::Plain(f) => Opened { stream: Box::new(f), zstd: false, len },
        Raw::Zstd(f) => Opened { stream: Box::new(zstd::stream::read::Decoder::new(f)?), zstd: true, len },
        Raw::Rows(r) | Raw::Tree(r) => Opened { stream: Box::new(r), zstd: true, len },
    })
}

/// A file opened as what its first bytes say it is: its own bytes, zstd-compressed, or a SQLite
/// database rendered as lines; or a path naming one tree of a store (`rows::scoped`), rendered.
enum Raw {
    Plain(File),
    Zstd(File),
    Rows(rows::Rows),
    /// One tree of a store, rendered.
    Tree(rows::Rows),
}

/// `Raw` at its start, and the size of the file on disk (a tree's: its store's).
fn open_raw(path: &Path) -> io::Result<(Raw, u64)> {
    let mut f = match File::open(path) {
        Ok(f) => f,
        Err(e) => {
            let Some((store, session)) = rows::scoped(path) else { return Err(e) };
            let len = std::fs::metadata(store).map_or(u64::MAX, |m| m.len());
            return Ok((Raw::Tree(rows::open_tree(store, session)?), len));
        }
    };
    let len = f.metadata().map_or(u64::MAX, |m| m.len());
    let mut magic = [0u8; 16];
    let n = read_magic(&mut f, &mut magic)?;
    if n >= 4 && magic[..4] == ZSTD_MAGIC {
        Ok((Raw::Zstd(f), len))
    } else if rows::is_sqlite_head(&magic[..n]) {
        drop(f);
        Ok((Raw::Rows(rows::open(path)?), len))
    } else {
        Ok((Raw::Plain(f), len))
    }
}

/// The file's first bytes, read without moving its position: at its start still after. Where
/// the system reads at an offset (`pread`), that is one call instead of a read and a seek back
/// (a folder of 20,000 small files opens each two or three times).
#[cfg(unix)]
fn read_magic(f: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    fill(buf, |rest, at| f.read_at(rest, at as u64))
}

#[cfg(not(unix))]
fn read_magic(f: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let n = read_up_to(f, buf)?;
    f.seek(SeekFrom::Start(0))?;
    Ok(n)
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    fill(buf, |rest, _| r.read(rest))
}

/// Fills `buf` by `read(the rest of it, how much is filled)` until it is full or a read gives
/// nothing (the end), retrying an interrupted read; how much it filled.
fn fill(buf: &mut [u8], mut read: impl FnMut(&mut [u8], usize) -> io::Result<usize>) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match read(&mut buf[n..], n) {
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

/// Whether a line (without its line end) opens a multi-line value: it is only `{` or `[`, with
/// blanks around it.
pub fn opens_value(line: &[u8]) -> bool {
    matches!(line.trim_ascii(), b"{" | b"[")
}

/// Where a multi-line JSON value stands after the bytes fed so far: its bracket depth outside
/// strings. It closes when the depth first comes back to zero; what follows on that line is
/// part of the record (a value followed by anything else then fails to parse, and is reported).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Framing {
    depth: u32,
    in_string: bool,
    escaped: bool,
    closed: bool,
}

impl Framing {
    /// A value already closed: a plain line, which ends at its first newline.
    const CLOSED: Framing = Framing { depth: 0, in_string: false, escaped: false, closed: true };

    /// Feed the next bytes of the value (from its opening bracket on); nothing after it closed
    /// counts.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.closed {
                return;
            }
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    self.closed = self.depth == 0;
                }
                _ => {}
            }
        }
    }

    /// Whether the value's brackets have closed.
    pub fn closed(&self) -> bool {
        self.closed
    }
}

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
    max_line: usize,
}

impl<R: BufRead> Lines<R> {
    pub fn new(reader: R) -> Self {
        Self::with_max_line(reader, MAX_LINE)
    }

    /// With a longest line of one's own (the tests use small ones).
    pub fn with_max_line(reader: R, max_line: usize) -> Self {
        Lines { reader, buf: Vec::with_capacity(4096), number: 0, offset: 0, max_line }
    }

    /// Bytes consumed so far (decompressed).
    pub fn bytes_read(&self) -> u64 {
        self.offset
    }

    /// The next line, `Ok(None)` at the end. An I/O error (a corrupt zstd frame, a read failure)
    /// ends the stream; the caller reports it at the line where it happened. A line that opens a
    /// multi-line value is given with the lines up to its close, as one (module docs).
    pub fn next_line(&mut self) -> io::Result<Option<LineRef<'_>>> {
        self.buf.clear();
        let mut overlong = false;
        let (mut total, mut terminated) = self.physical(&mut overlong, None)?;
        if total == 0 {
            return Ok(None);
        }
        let mut lines = 1;
        let mut offset = self.offset;
        let bom = |buf: &[u8]| bom_len(offset, buf);
        if terminated && !overlong {
            let line = trim_line_end(&self.buf);
            if opens_value(&line[bom(line)..]) {
                let mut framing = Framing::default();
                framing.feed(line);
                loop {
                    let (k, t) = self.physical(&mut overlong, Some(&mut framing))?;
                    if k == 0 {
                        // The stream ended with the value open: a document still being written.
                        terminated = false;
                        break;
                    }
                    (total, lines) = (total + k, lines + 1);
                    if !t || framing.closed() {
                        terminated = t && framing.closed();
                        break;
                    }
                }
            }
        }
        self.number += lines;
        let number = self.number + 1 - lines;
        self.offset += total as u64;
        let end = if overlong { 0 } else { trim_line_end(&self.buf).len() };
        let bom = bom(&self.buf[..end]);
        offset += bom as u64;
        Ok(Some(LineRef { number, offset, bytes: &self.buf[bom..end], terminated, overlong }))
    }

    /// Read one physical line on into `buf` (not kept once the record is past the longest
    /// kept: `overlong`), feeding `framing`; the bytes it took and whether it ended in a newline.
    fn physical(&mut self, overlong: &mut bool, mut framing: Option<&mut Framing>) -> io::Result<(usize, bool)> {
        let mut total = 0;
        loop {
            let avail = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                return Ok((total, false));
            }
            let (take, found) = match memchr::memchr(b'\n', avail) {
                Some(i) => (i + 1, true),
                None => (avail.len(), false),
            };
            if let Some(f) = framing.as_deref_mut() {
                f.feed(&avail[..take]);
            }
            if !*overlong {
                if self.buf.len() + take > self.max_line + 2 {
                    *overlong = true;
                    self.buf = Vec::with_capacity(4096);
                } else {
                    self.buf.extend_from_slice(&avail[..take]);
                }
            }
            total += take;
            self.reader.consume(take);
            if found {
                return Ok((total, true));
            }
        }
    }
}

/// A record's bytes without its line end (`\n`, `\r\n`), as the readers give them; bytes that
/// end in no newline are kept whole.
fn trim_line_end(bytes: &[u8]) -> &[u8] {
    match bytes.strip_suffix(b"\n") {
        Some(b) => b.strip_suffix(b"\r").unwrap_or(b),
        None => bytes,
    }
}

/// The length of a UTF-8 byte-order mark that starts a stream's first line (at offset 0), else 0.
/// The mark is not part of the line: line 1 starts after it, so that its offset is where its bytes
/// are and reading it back at that offset gives the same bytes.
fn bom_len(offset: u64, line: &[u8]) -> usize {
    if offset == 0 {
        line.len() - without_bom(line).len()
    } else {
        0
    }
}

/// A file's first bytes without the UTF-8 byte-order mark that may start them: what reads a
/// file's head or first line outside the line reader (detection's survey, a title) sees line 1
/// as the reader gives it.
pub fn without_bom(head: &[u8]) -> &[u8] {
    head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head)
}

/// How a line ended: with a newline, at the end of the stream, or past the longest line kept
/// (with its newline, or with the stream ended inside it: a followed log's line still being
/// written waits for its end as a short one does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnd {
    Newline,
    EndOfFile,
    Overlong,
    OverlongAtEnd,
}

impl LineEnd {
    /// Past the longest line kept: its bytes were skipped.
    pub fn overlong(self) -> bool {
        matches!(self, LineEnd::Overlong | LineEnd::OverlongAtEnd)
    }
}

/// One line of a `Block`: its number, its stream offset, where its bytes are in the block (without
/// the line ending; empty for an overlong line), and how it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub number: u64,
    pub offset: u64,
    pub start: usize,
    pub end: usize,
    pub how: LineEnd,
}

/// Reads land on this boundary (a cache line).
const ALIGN: usize = 64;
/// Reads ask for whole pages while they fit.
const PAGE: usize = 4096;

/// Whole lines read as one block. The buffer and the span list are reused from block to block.
#[derive(Debug, Default)]
pub struct Block {
    /// The bytes read; only the spans' ranges mean anything (the rest is stale).
    pub bytes: Vec<u8>,
    pub lines: Vec<Span>,
    /// Stream bytes consumed up to the end of this block's last line.
    pub read_to: u64,
}

/// The lines of a stream, read in blocks of whole lines straight into each block's own buffer:
/// one copy out of the kernel (or the decompressor) and none after, where `Lines` copies every
/// line twice more. The same lines as `Lines` yields, with the same numbers, offsets, line-end
/// trimming and overlong rule; a line longer than the longest kept is skipped without being held.
pub struct LineBlocks<R> {
    reader: R,
    /// Bytes a block is filled to before it is handed over.
    target: usize,
    /// Lines a block holds at most (their parsed forms are held together downstream).
    max_lines: usize,
    max_line: usize,
    number: u64,
    /// Stream offset of the first byte not yet in a line.
    offset: u64,
    /// The start of a line that the previous block ended inside.
    carry: Vec<u8>,
    /// A multi-line value open at the start of `carry`.
    value: Option<Pending>,
    done: bool,
}

/// A multi-line value being read: its framing, the lines it has so far, and how many of its
/// bytes (from its start) were fed.
#[derive(Debug, Clone, Copy)]
struct Pending {
    framing: Framing,
    lines: u64,
    fed: usize,
}

impl<R: Read> LineBlocks<R> {
    pub fn new(reader: R) -> Self {
        Self::with_sizes(reader, 1 << 20, 1 << 16, MAX_LINE)
    }

    /// With a block size, a line count and a longest line of one's own (the tests use small ones).
    pub fn with_sizes(reader: R, target: usize, max_lines: usize, max_line: usize) -> Self {
        LineBlocks {
            reader,
            target: target.max(1),
            max_lines: max_lines.max(1),
            max_line,
            number: 0,
            offset: 0,
            carry: Vec::new(),
            value: None,
            done: false,
        }
    }

    /// A stream that starts `offset` bytes into its file, after `lines` lines (a followed file
    /// read from where reading stopped): numbers and offsets continue from there.
    pub fn starting_at(mut self, offset: u64, lines: u64) -> Self {
        self.offset = offset;
        self.number = lines;
        self
    }

    /// Fill `block` with the next lines: `Ok(false)`, with no lines, at the end of the stream. An
    /// I/O error ends the stream; the lines of the block before it are kept in `block`.
    pub fn next_block(&mut self, block: &mut Block) -> io::Result<bool> {
        block.lines.clear();
        block.read_to = self.offset;
        if self.done {
            return Ok(false);
        }
        let buf = &mut block.bytes;
        // The buffer's length is how much of it was ever initialised: a reused buffer is not
        // cleared again, so bytes are read straight into it.
        let want = self.target.max(self.carry.len() + self.target / 4 + 1) + ALIGN;
        if buf.len() < want {
            buf.resize(want, 0);
        }
        // The carried bytes go where they end on a cache-line boundary, so that the reads after
        // them land aligned: the kernel copies a page-aligned read into a misaligned buffer at a
        // third of the speed (measured: 0.72 s against 0.23 s of system time per GiB).
        let pad = (ALIGN - (buf.as_ptr() as usize + self.carry.len()) % ALIGN) % ALIGN;
        buf[pad..pad + self.carry.len()].copy_from_slice(&self.carry);
        let mut filled = pad + self.carry.len();
        self.carry.clear();
        let (mut line_start, mut scan) = (pad, pad + self.value.map_or(0, |v| v.fed));
        let result = loop {
            while block.lines.len() < self.max_lines {
                let Some(i) = memchr::memchr(b'\n', &buf[scan..filled]) else {
                    scan = filled;
                    break;
                };
                let nl = scan + i;
                scan = nl + 1;
                let opens = self.value.is_none() && self.opens_value(&buf[line_start..nl + 1]);
                match &mut self.value {
                    Some(v) => {
                        v.framing.feed(&buf[line_start + v.fed..nl + 1]);
                        (v.lines, v.fed) = (v.lines + 1, nl + 1 - line_start);
                        if !v.framing.closed() {
                            continue;
                        }
                        let lines = v.lines;
                        self.value = None;
                        self.push_span(&mut block.lines, buf, line_start, nl + 1, true, lines);
                    }
                    None if opens => {
                        let mut framing = Framing::default();
                        framing.feed(&buf[line_start..nl + 1]);
                        self.value = Some(Pending { framing, lines: 1, fed: nl + 1 - line_start });
                        continue;
                    }
                    None => self.push_line(&mut block.lines, buf, line_start, nl + 1, true),
                }
                line_start = nl + 1;
            }
            let full = filled >= self.target || buf.len() - filled < PAGE;
            if block.lines.len() >= self.max_lines || (full && !block.lines.is_empty()) {
                break Ok(());
            }
            if filled - line_start > self.max_line + 2 {
                // Too long to keep: skip to its end, holding nothing.
                // A plain line is a value that closes at its first newline.
                let v = self.value.take().unwrap_or(Pending { framing: Framing::CLOSED, lines: 0, fed: 0 });
                let skipped = self.skip_overlong(buf, line_start, filled - line_start, v, &mut block.lines);
                match skipped {
                    Ok(Some(rest)) => {
                        filled = line_start + rest;
                        scan = line_start;
                        continue;
                    }
                    Ok(None) => break Ok(()),
                    Err(e) => break Err(e),
                }
            }
            if filled == buf.len() {
                if !block.lines.is_empty() {
                    break Ok(());
                }
                // One line fills the buffer: grow it, up to what the longest line needs.
                let grown = (buf.len() * 2).min(line_start + self.max_line + 3 + self.target).max(buf.len() + 1);
                buf.resize(grown, 0);
            }
            // Whole pages while they fit, so that the stream stays page-aligned too.
            let room = buf.len() - filled;
            let ask = if room >= PAGE { room - room % PAGE } else { room };
            match self.reader.read(&mut buf[filled..filled + ask]) {
                Ok(0) => {
                    if let Some(v) = self.value.take() {
                        // The stream ended with the value open: a document still being written.
                        let lines = v.lines + u64::from(line_start + v.fed < filled);
                        self.push_span(&mut block.lines, buf, line_start, filled, false, lines);
                        line_start = filled;
                    } else if line_start < filled {
                        self.push_line(&mut block.lines, buf, line_start, filled, false);
                        line_start = filled;
                    }
                    self.done = true;
                    break Ok(());
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.done = true;
                    break Err(e);
                }
            }
        };
        self.carry.extend_from_slice(&buf[line_start..filled]);
        block.read_to = self.offset;
        result.map(|()| !block.lines.is_empty())
    }

    /// Whether the line `line` (with its newline), which starts at `self.offset`, opens a
    /// multi-line value: a lone bracket, not itself past the longest line kept.
    fn opens_value(&self, line: &[u8]) -> bool {
        line.len() <= self.max_line + 2 && opens_value(&line[bom_len(self.offset, line)..])
    }

    /// A line of `buf[start..end]` (`end` past its newline when `terminated`).
    fn push_line(&mut self, lines: &mut Vec<Span>, buf: &[u8], start: usize, end: usize, terminated: bool) {
        self.push_span(lines, buf, start, end, terminated, 1)
    }

    /// A record of `buf[start..end]` that spans `count` lines (a multi-line value: its lines
    /// from the one that opens it; `terminated` when it closed and its last line has a newline).
    fn push_span(&mut self, lines: &mut Vec<Span>, buf: &[u8], start: usize, end: usize, terminated: bool, count: u64) {
        let total = end - start;
        let number = self.number + 1;
        self.number += count;
        let offset = self.offset;
        self.offset += total as u64;
        if total > self.max_line + 2 {
            let how = if terminated { LineEnd::Overlong } else { LineEnd::OverlongAtEnd };
            lines.push(Span { number, offset, start, end: start, how });
            return;
        }
        let how = if terminated { LineEnd::Newline } else { LineEnd::EndOfFile };
        let e = start + trim_line_end(&buf[start..end]).len();
        let bom = bom_len(offset, &buf[start..e]);
        lines.push(Span { number, offset: offset + bom as u64, start: start + bom, end: e, how });
    }

    /// Read past the end of an overlong record whose first `held` bytes are at `buf[start..]`
    /// (a line, or a multi-line value `v`: past the line where it closes, counting its lines),
    /// reusing that space. `Some(n)`: the record is pushed and the `n` bytes read after it are at
    /// `buf[start..]`; `None`: the stream ended inside it (the record is pushed).
    fn skip_overlong(
        &mut self,
        buf: &mut [u8],
        start: usize,
        held: usize,
        mut v: Pending,
        lines: &mut Vec<Span>,
    ) -> io::Result<Option<usize>> {
        v.framing.feed(&buf[start + v.fed..start + held]);
        let mut total = held as u64;
        let mut partial = held > v.fed;
        let push = |me: &mut Self, lines: &mut Vec<Span>, total: u64, count: u64, how: LineEnd| {
            lines.push(Span { number: me.number + 1, offset: me.offset, start, end: start, how });
            me.number += count;
            me.offset += total;
        };
        loop {
            let n = match self.reader.read(&mut buf[start..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.done = true;
                    return Err(e);
                }
            };
            if n == 0 {
                push(self, lines, total, v.lines + u64::from(partial), LineEnd::OverlongAtEnd);
                self.done = true;
                return Ok(None);
            }
            let mut from = 0;
            while let Some(i) = memchr::memchr(b'\n', &buf[start + from..start + n]) {
                let nl = from + i;
                v.framing.feed(&buf[start + from..start + nl + 1]);
                (v.lines, partial, from) = (v.lines + 1, false, nl + 1);
                if v.framing.closed() {
                    push(self, lines, total + from as u64, v.lines, LineEnd::Overlong);
                    buf.copy_within(start + from..start + n, start);
                    return Ok(Some(n - from));
                }
            }
            v.framing.feed(&buf[start + from..start + n]);
            partial |= from < n;
            total += n as u64;
        }
    }
}

/// A buffered reader of a plain file whose buffer starts on a cache line and is filled in whole
/// pages from page-aligned offsets: the kernel copies a page-aligned read into a misaligned
/// buffer (`BufReader`'s has no alignment) at a third of the speed.
struct AlignedReader {
    f: File,
    buf: Vec<u8>,
    /// Where the aligned part of `buf` starts.
    pad: usize,
    /// Bytes of the file held (`buf[pad..pad + filled]`), and how many of them are consumed.
    filled: usize,
    pos: usize,
    /// The file offset of `buf[pad]`.
    base: u64,
}

thread_local! {
    /// The last `AlignedReader` buffer this thread let go: reading back the texts of a folder of
    /// small files made (and zeroed) one for each file.
    static SPARE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl AlignedReader {
    fn new(f: File, size: usize) -> Self {
        let size = size.div_ceil(PAGE).max(1) * PAGE;
        let mut buf = SPARE.with(|s| std::mem::take(&mut *s.borrow_mut()));
        // A larger one serves as well: the reads ask for no more than they need.
        if buf.len() < size + ALIGN {
            buf = vec![0u8; size + ALIGN];
        }
        let pad = (ALIGN - buf.as_ptr() as usize % ALIGN) % ALIGN;
        AlignedReader { f, buf, pad, filled: 0, pos: 0, base: 0 }
    }

    fn size(&self) -> usize {
        self.buf.len() - ALIGN
    }

    /// Move to `offset`: within what is held when it is there, else by reading again from the
    /// page it is on, as far as the page that holds `until` (the buffer's size at most; reading
    /// on past it then takes whole buffers again).
    fn seek_to(&mut self, offset: u64, until: u64) -> io::Result<()> {
        if let Some(at) = offset.checked_sub(self.base).filter(|&d| d <= self.filled as u64) {
            self.pos = at as usize;
            return Ok(());
        }
        let page = offset - offset % PAGE as u64;
        self.f.seek(SeekFrom::Start(page))?;
        (self.base, self.filled, self.pos) = (page, 0, 0);
        let want = usize::try_from(until.saturating_sub(page)).unwrap_or(usize::MAX).max(1);
        self.fill(want.div_ceil(PAGE).saturating_mul(PAGE).min(self.size()))?;
        self.pos = ((offset - page) as usize).min(self.filled);
        Ok(())
    }

    /// Read up to `len` bytes into the empty buffer.
    fn fill(&mut self, len: usize) -> io::Result<()> {
        let pad = self.pad;
        self.filled = loop {
            match self.f.read(&mut self.buf[pad..pad + len]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                r => break r?,
            }
        };
        Ok(())
    }
}

impl Read for AlignedReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let held = self.fill_buf()?;
        let n = held.len().min(out.len());
        out[..n].copy_from_slice(&held[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for AlignedReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.filled {
            self.base += self.filled as u64;
            (self.filled, self.pos) = (0, 0);
            self.fill(self.size())?;
        }
        Ok(&self.buf[self.pad + self.pos..self.pad + self.filled])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.filled);
    }
}

/// Read one piece from where `r` is into `buf`; how many bytes of the stream it took.
fn read_piece(r: &mut dyn BufRead, what: Piece, buf: &mut Vec<u8>) -> io::Result<usize> {
    match what {
        Piece::Line => {
            let mut k = r.take(MAX_LINE as u64).read_until(b'\n', buf)?;
            if buf.ends_with(b"\n") && opens_value(buf) {
                // A multi-line value: its lines up to the one where it closes.
                let mut framing = Framing::default();
                framing.feed(buf);
                while !framing.closed() && buf.len() <= MAX_LINE {
                    let from = buf.len();
                    let more = r.take(MAX_LINE as u64).read_until(b'\n', buf)?;
                    if more == 0 {
                        break;
                    }
                    framing.feed(&buf[from..]);
                    k += more;
                }
                // An element of a document's array reads back without the comma after it.
                while buf.last().is_some_and(|&b| b.is_ascii_whitespace() || b == b',') && framing.closed() {
                    buf.pop();
                }
            }
            while buf.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
                buf.pop();
            }
            Ok(k)
        }
        Piece::Bytes(len) => {
            buf.resize(len as usize, 0);
            r.read_exact(buf).map(|()| len as usize)
        }
    }
}

/// Read back the line that starts at `offset` of the (decompressed) file.
pub fn raw_line_at(path: &Path, offset: u64) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    match back(path)? {
        Back::Plain(mut f, _) => {
            f.seek(SeekFrom::Start(offset))?;
            read_piece(&mut BufReader::new(f), Piece::Line, &mut out)?;
        }
        Back::Whole(bytes) => {
            let mut c = io::Cursor::new(&bytes[..]);
            c.set_position(offset.min(bytes.len() as u64));
            read_piece(&mut c, Piece::Line, &mut out)?;
        }
        Back::Stream(mut dec) => {
            io::copy(&mut (&mut dec).take(offset), &mut io::sink())?;
            read_piece(&mut dec, Piece::Line, &mut out)?;
        }
    }
    Ok(out)
}

/// A tree of a store (`rows::scoped`) rendered whole, kept for the next read-back of it while
/// its store is as it was: a rendering cannot be sought, so each read-back made it again from
/// its start, and a tree's transcripts read back a page at a time (the Library indexing one)
/// rendered it once a page. One kept at a time, of at most `KEEP_DECODED` bytes; a larger one
/// is read as a stream, as a whole store's is (its report reads its texts back in one pass).
static DECODED: std::sync::Mutex<Option<Decoded>> = std::sync::Mutex::new(None);

/// The most bytes of a tree's rendering kept (`DECODED`).
const KEEP_DECODED: usize = 64 << 20;

/// A rendering held whole, shared by the read-backs that use it.
#[derive(Clone)]
struct Held(std::sync::Arc<Vec<u8>>);

impl std::ops::Deref for Held {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

struct Decoded {
    path: PathBuf,
    stamp: Stamp,
    /// None until it is read back a second time as it is: a one-shot reading (`arbor analyze`
    /// reads its texts back in one pass) holds nothing.
    bytes: Option<Held>,
}

/// What a file is read back from: the file itself (and its size), a decoded stream held whole
/// (`DECODED`), or a decoded stream from its start.
enum Back {
    Plain(File, u64),
    Whole(Held),
    Stream(Box<dyn BufRead>),
}

/// `path` opened to read back from: a tree's rendering kept, else the file as `open_raw` opens it.
fn back(path: &Path) -> io::Result<Back> {
    if let Some(bytes) = kept(path) {
        return Ok(Back::Whole(bytes));
    }
    Ok(match open_raw(path)? {
        (Raw::Plain(f), len) => Back::Plain(f, len),
        (Raw::Zstd(f), _) => Back::Stream(Box::new(BufReader::new(zstd::stream::read::Decoder::new(f)?))),
        (Raw::Rows(r), _) => Back::Stream(Box::new(BufReader::new(r))),
        (Raw::Tree(r), _) => decoded(path, r)?,
    })
}

/// What a store's file and its `-wal` are now: a kept rendering is of the store as it was then.
/// With the database's file change counter (its header's bytes 24 to 27, which every write
/// transaction outside WAL mode changes): a write may keep the file's size and land within the
/// same tick of its modification time.
fn store_stamp(path: &Path) -> Stamp {
    let file = rows::file_of(path);
    let [wal, _] = rows::companions(file);
    let of = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.len(), m.modified().unwrap_or(std::time::UNIX_EPOCH)));
    let mut head = [0u8; 28];
    let counter = File::open(file)
        .and_then(|mut f| f.read_exact(&mut head))
        .ok()
        .map(|()| u32::from_be_bytes([head[24], head[25], head[26], head[27]]));
    (of(file), of(&wal), counter)
}

type Stamp = (Option<(u64, std::time::SystemTime)>, Option<(u64, std::time::SystemTime)>, Option<u32>);

/// The rendering of `path` kept from its last read-back, when its store is as it was.
fn kept(path: &Path) -> Option<Held> {
    let kept = DECODED.lock().unwrap_or_else(|e| e.into_inner());
    let d = kept.as_ref().filter(|d| d.path == path)?;
    let bytes = d.bytes.clone()?;
    (d.stamp == store_stamp(path)).then_some(bytes)
}

/// Each piece read from a rendering held whole.
fn each_in(bytes: &[u8], pieces: &[(u64, Piece)], piece: &mut Vec<u8>, each: &mut impl FnMut(usize, Option<&[u8]>)) {
    for (i, &(o, what)) in pieces.iter().enumerate() {
        piece.clear();
        let mut c = io::Cursor::new(bytes);
        c.set_position(o.min(bytes.len() as u64));
        let took = (o < bytes.len() as u64).then(|| read_piece(&mut c, what, piece).ok()).flatten();
        each(i, took.map(|_| &piece[..]));
    }
}

/// `r`, the rendering of the tree `path`, to read back from: a stream the first time; read whole
/// and kept when it is read back again as it was and small enough.
fn decoded(path: &Path, r: rows::Rows) -> io::Result<Back> {
    let stamp = store_stamp(path);
    let mut kept = DECODED.lock().unwrap_or_else(|e| e.into_inner());
    let again = kept.as_ref().is_some_and(|d| d.path == path && d.stamp == stamp);
    if !again {
        *kept = Some(Decoded { path: path.to_path_buf(), stamp, bytes: None });
        return Ok(Back::Stream(Box::new(BufReader::new(r))));
    }
    drop(kept);
    let mut r = r;
    let mut bytes = Vec::new();
    (&mut r).take(KEEP_DECODED as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > KEEP_DECODED {
        return Ok(Back::Stream(Box::new(BufReader::new(io::Cursor::new(bytes).chain(r)))));
    }
    bytes.shrink_to_fit();
    let bytes = Held(std::sync::Arc::new(bytes));
    *DECODED.lock().unwrap_or_else(|e| e.into_inner()) =
        Some(Decoded { path: path.to_path_buf(), stamp, bytes: Some(bytes.clone()) });
    Ok(Back::Whole(bytes))
}

/// Whether a file is zstd-compressed (by its magic bytes); `false` when it cannot be read.
pub fn is_zstd(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    File::open(path).and_then(|mut f| read_up_to(&mut f, &mut magic)).is_ok_and(|n| n == 4 && magic == ZSTD_MAGIC)
}

/// Whether a file is read as a decoded stream rather than as its own bytes: zstd-compressed, or
/// a SQLite database rendered as lines (`rows`). Its offsets cannot be sought in the file, and
/// what it says may change without the file growing.
pub fn is_decoded(path: &Path) -> bool {
    let mut magic = [0u8; 16];
    match File::open(path) {
        Ok(mut f) => read_up_to(&mut f, &mut magic)
            .is_ok_and(|n| (n >= 4 && magic[..4] == ZSTD_MAGIC) || rows::is_sqlite_head(&magic[..n])),
        Err(_) => rows::scoped(path).is_some(),
    }
}

/// What to read back at an offset: the line that starts there (without its line end, cut at
/// `MAX_LINE`), or so many bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    Line,
    Bytes(u32),
}

impl Drop for AlignedReader {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        SPARE.with(|s| *s.borrow_mut() = buf);
    }
}

/// Read back a piece of the (decompressed) file at each offset, in one forward pass over a file
/// opened once: `pieces` must be in ascending order of offset. `each` is given every piece in
/// turn (by its index in `pieces`); `None` for one that cannot be read (the file changed since,
/// or a zstd stream cannot go back to it). Only one piece is held at a time.
pub fn each_piece_at(
    path: &Path,
    pieces: &[(u64, Piece)],
    mut each: impl FnMut(usize, Option<&[u8]>),
) -> io::Result<()> {
    let mut piece = Vec::new();
    let mut dec = match back(path)? {
        Back::Whole(bytes) => {
            each_in(&bytes, pieces, &mut piece, &mut each);
            return Ok(());
        }
        Back::Plain(f, len) => {
            // A read takes the pieces that follow one another closely (a forward seek within the
            // buffer costs no system call) and stops before a wide gap: a system call costs about
            // as much as copying `JOIN` bytes. Copilot's replies are a few kilobytes apart, a
            // dsh-rpc log's tens of kilobytes: reading the whole file back cost them the same.
            // No larger than the file: a folder of small files read back one buffer each.
            let mut r = AlignedReader::new(f, usize::try_from(len).unwrap_or(usize::MAX).clamp(PAGE, 256 << 10));
            let until = read_windows(pieces);
            for (i, &(o, what)) in pieces.iter().enumerate() {
                piece.clear();
                let took = r.seek_to(o, until[i]).and_then(|()| read_piece(&mut r, what, &mut piece)).ok();
                each(i, took.map(|_| &piece[..]));
            }
            return Ok(());
        }
        Back::Stream(dec) => dec,
    };
    let mut pos = 0u64;
    for (i, &(o, what)) in pieces.iter().enumerate() {
        if o < pos {
            each(i, None);
            continue;
        }
        io::copy(&mut (&mut dec).take(o - pos), &mut io::sink())?;
        piece.clear();
        match read_piece(&mut dec, what, &mut piece) {
            Ok(k) => {
                pos = o + k as u64;
                each(i, Some(&piece));
            }
            // The stream ended inside the piece: so are the pieces after it.
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                pos = u64::MAX;
                each(i, None);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A gap between pieces below which one read takes both: about what a system call costs, in
/// bytes copied.
const JOIN: u64 = 4 << 10;

/// Bytes a line read back is expected to take (most are shorter; a longer one reads on).
const LINE_GUESS: u64 = 2 << 10;

/// For each piece (ascending offsets), where a read that starts at it should end: past the last
/// piece of its run, pieces closer than `JOIN` to the one before them.
fn read_windows(pieces: &[(u64, Piece)]) -> Vec<u64> {
    let end = |&(o, what): &(u64, Piece)| match what {
        Piece::Line => o.saturating_add(LINE_GUESS),
        Piece::Bytes(len) => o.saturating_add(u64::from(len)),
    };
    let mut until = vec![0; pieces.len()];
    let mut run_end = 0;
    for i in (0..pieces.len()).rev() {
        let joined = pieces.get(i + 1).is_some_and(|next| next.0 < end(&pieces[i]).saturating_add(JOIN));
        run_end = if joined { run_end.max(end(&pieces[i])) } else { end(&pieces[i]) };
        until[i] = run_end;
    }
    until
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
    use proptest::prelude::*;

    /// A file given twice, a log file inside a folder also given, and a folder inside another
    /// are read once, named as the folder alone names them; a file the walk would not read
    /// (not a log's name) is still read when given.
    #[test]
    fn expand_reads_each_file_once() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("logs");
        std::fs::create_dir_all(top.join("sub")).unwrap();
        for name in ["a.jsonl", "sub/b.jsonl", "notes.txt"] {
            std::fs::write(top.join(name), "{}\n").unwrap();
        }
        let names = |paths: &[PathBuf]| -> Vec<String> { expand(paths).0.into_iter().map(|f| f.display).collect() };
        let alone = names(std::slice::from_ref(&top));
        assert_eq!(alone, ["a.jsonl", "sub/b.jsonl"]);
        assert_eq!(names(&[top.clone(), top.join("a.jsonl"), top.join("sub")]), alone);
        assert_eq!(names(&[top.join("sub"), top.join("./")]), alone, "a folder inside a later one");
        let a = top.join("a.jsonl");
        assert_eq!(names(&[a.clone(), a.clone()]).len(), 1);
        assert_eq!(names(&[a.clone(), top.join("sub/../a.jsonl")]).len(), 1, "the same file by another path");
        let with_notes = names(&[top.clone(), top.join("notes.txt")]);
        assert_eq!(with_notes.len(), 3, "{with_notes:?}");
    }

    /// A reader that hands out its bytes in the given piece sizes, as pipes and decoders do.
    struct Pieces<'a> {
        data: &'a [u8],
        sizes: Vec<usize>,
        i: usize,
    }

    impl Read for Pieces<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let want = self.sizes.get(self.i % self.sizes.len().max(1)).copied().unwrap_or(7).max(1);
            self.i += 1;
            let n = want.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// Number, offset, bytes and end of each line.
    type Seen = Vec<(u64, u64, Vec<u8>, LineEnd)>;

    fn by_lines(data: &[u8], max_line: usize) -> Seen {
        let mut lines = Lines::with_max_line(BufReader::with_capacity(16, data), max_line);
        let mut out = Vec::new();
        while let Some(l) = lines.next_line().unwrap() {
            let how = match (l.overlong, l.terminated) {
                (true, true) => LineEnd::Overlong,
                (true, false) => LineEnd::OverlongAtEnd,
                (false, true) => LineEnd::Newline,
                (false, false) => LineEnd::EndOfFile,
            };
            out.push((l.number, l.offset, l.bytes.to_vec(), how));
        }
        out
    }

    fn by_blocks(r: impl Read, target: usize, max_lines: usize, max_line: usize) -> (Seen, u64) {
        let mut blocks = LineBlocks::with_sizes(r, target, max_lines, max_line);
        let (mut out, mut block, mut read_to) = (Vec::new(), Block::default(), 0);
        while blocks.next_block(&mut block).unwrap() {
            assert!(block.lines.len() <= max_lines);
            for s in &block.lines {
                out.push((s.number, s.offset, block.bytes[s.start..s.end].to_vec(), s.how));
            }
            assert!(block.read_to >= read_to);
            read_to = block.read_to;
        }
        (out, read_to)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]
        #[test]
        fn line_blocks_yield_the_lines_that_lines_yields(
            data in proptest::collection::vec(
                prop_oneof![Just(b'a'), Just(b'{'), Just(b'}'), Just(b'"'), Just(b'\\'), Just(b'\r'), Just(b'\n')],
                0..300,
            ),
            sizes in proptest::collection::vec(1usize..40, 1..6),
            target in 1usize..64,
            max_lines in 1usize..8,
            max_line in 0usize..24,
        ) {
            let want = by_lines(&data, max_line);
            let (got, read_to) = by_blocks(Pieces { data: &data, sizes, i: 0 }, target, max_lines, max_line);
            prop_assert_eq!(got, want);
            prop_assert_eq!(read_to, data.len() as u64);
        }
    }

    #[test]
    fn line_blocks_skip_an_overlong_line_without_holding_it() {
        let mut data = b"{\"a\":1}\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', 10_000));
        data.extend_from_slice(b"\r\n{\"b\":2}\n");
        let mut blocks = LineBlocks::with_sizes(&data[..], 64, 100, 100);
        let mut block = Block::default();
        let mut got = Vec::new();
        while blocks.next_block(&mut block).unwrap() {
            assert!(block.bytes.len() < 1024, "the buffer grew to {}", block.bytes.len());
            got.extend(block.lines.iter().map(|s| (s.number, s.offset, s.how, block.bytes[s.start..s.end].to_vec())));
        }
        assert_eq!(
            got,
            vec![
                (1, 0, LineEnd::Newline, b"{\"a\":1}".to_vec()),
                (2, 8, LineEnd::Overlong, vec![]),
                (3, 10_010, LineEnd::Newline, b"{\"b\":2}".to_vec()),
            ]
        );
    }

    /// A pretty-printed document is one record at the line where it opens; the lines after it
    /// are lines again, numbered on; a value still open at the end is one record that ended
    /// there; every record reads back by its offset as it was read.
    #[test]
    fn a_multi_line_value_is_one_record_at_its_first_line() {
        let doc = "{\n  \"a\": \"}\\\"{\",\n  \"m\": [\n    {\n      \"id\": 1\n    },\n    {\"id\": 2}\n  ]\n}\n";
        let data = format!("\u{feff}{doc}{{\"b\":2}}\n[\r\n 1,\r\n 2\r\n]\n  {{\n\"open\": [\n");
        let data = data.as_bytes();
        let doc_bytes = doc.trim_end().as_bytes().to_vec();
        let want = vec![
            (1, 3, doc_bytes.clone(), LineEnd::Newline),
            (10, 3 + doc.len() as u64, b"{\"b\":2}".to_vec(), LineEnd::Newline),
            (11, 11 + doc.len() as u64, b"[\r\n 1,\r\n 2\r\n]".to_vec(), LineEnd::Newline),
            (15, 25 + doc.len() as u64, b"  {\n\"open\": [".to_vec(), LineEnd::EndOfFile),
        ];
        assert_eq!(by_lines(data, 1000), want);
        for target in [1, 5, 64, 4096] {
            assert_eq!(by_blocks(data, target, 8, 1000), (want.clone(), data.len() as u64), "blocks of {target}");
        }
        // Past the longest record kept: skipped whole, the lines after it numbered on.
        let skipped = by_blocks(data, 4, 8, 20);
        assert_eq!(skipped.0[0], (1, 0, vec![], LineEnd::Overlong));
        assert_eq!(skipped.0[1].0, 10);
        assert_eq!(skipped.0, by_lines(data, 20));

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.json");
        std::fs::write(&path, data).unwrap();
        assert_eq!(raw_line_at(&path, 3).unwrap(), doc_bytes);
        assert_eq!(raw_line_numbered(&path, 11).unwrap().unwrap(), b"[\r\n 1,\r\n 2\r\n]");
        // An element of the document's array, read back at its own offset, without its comma.
        let element = 3 + doc.find("    {").unwrap() as u64;
        let mut got = Vec::new();
        each_piece_at(&path, &[(element, Piece::Line)], |_, b| got = b.unwrap().to_vec()).unwrap();
        assert_eq!(got, b"    {\n      \"id\": 1\n    }");
        assert!(serde_json::from_slice::<serde_json::Value>(&got).is_ok());
    }

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

    /// A byte-order mark before line 1 is not part of it, by either reader; one further on is.
    #[test]
    fn a_byte_order_mark_at_the_start_is_not_part_of_line_one() {
        let data = b"\xEF\xBB\xBF{\"a\":1}\r\n\xEF\xBB\xBF{}\n";
        let want = vec![
            (1, 3, b"{\"a\":1}".to_vec(), LineEnd::Newline),
            (2, 12, b"\xEF\xBB\xBF{}".to_vec(), LineEnd::Newline),
        ];
        assert_eq!(by_lines(data, 100), want);
        assert_eq!(by_blocks(&data[..], 4, 8, 100), (want, data.len() as u64));
    }

    #[test]
    fn folder_names_are_filtered_by_extension() {
        assert!(is_log_name("a.jsonl"));
        assert!(is_log_name("A.NDJSON.zst"));
        assert!(is_log_name("x.log.zstd"));
        assert!(!is_log_name("workspace.yaml"));
        assert!(!is_log_name("session.db"));
    }

    /// A read stops before a wide gap and goes on for pieces it did not expect to be so long: a
    /// line longer than a line's guess, a range longer than the buffer.
    #[test]
    fn pieces_read_back_whole_past_the_window_read_for_them() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = Vec::new();
        let mut lines = Vec::new();
        for i in 0..400usize {
            lines.push(text.len() as u64);
            let len = if i % 50 == 7 { 40_000 + i } else { i % 90 };
            text.extend_from_slice(format!("{i} {}\n", "y".repeat(len)).as_bytes());
        }
        let plain = dir.path().join("b.jsonl");
        std::fs::write(&plain, &text).unwrap();
        let mut pieces: Vec<(u64, Piece)> = lines.iter().step_by(7).map(|&o| (o, Piece::Line)).collect();
        pieces.push((lines[57], Piece::Line));
        pieces.push((3, Piece::Bytes(300_000)));
        pieces.push((lines[300] + 1, Piece::Bytes(5)));
        pieces.sort_by_key(|p| p.0);
        let mut got = vec![None; pieces.len()];
        each_piece_at(&plain, &pieces, |i, b| got[i] = b.map(<[u8]>::to_vec)).unwrap();
        for ((o, what), got) in pieces.iter().zip(got) {
            let from = &text[*o as usize..];
            let want = match what {
                Piece::Line => from.split(|&b| b == b'\n').next().unwrap().to_vec(),
                Piece::Bytes(n) => from[..*n as usize].to_vec(),
            };
            assert_eq!(got.as_deref(), Some(&want[..]), "at {o}");
        }
        // Runs: pieces closer than JOIN share a read; a wide gap starts another.
        let near = [(0, Piece::Bytes(10)), (100, Piece::Bytes(10)), (50_000, Piece::Line), (50_100, Piece::Bytes(7))];
        assert_eq!(read_windows(&near), [110, 110, 50_000 + LINE_GUESS, 50_107]);
    }

    #[test]
    fn pieces_read_back_across_buffers_from_plain_and_zstd_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = Vec::new();
        let mut starts = Vec::new();
        for i in 0..40_000usize {
            starts.push(text.len() as u64);
            text.extend_from_slice(format!("line {i} {}\r\n", "x".repeat(i % 61)).as_bytes());
        }
        let plain = dir.path().join("a.jsonl");
        std::fs::write(&plain, &text).unwrap();
        let packed = dir.path().join("a.jsonl.zst");
        std::fs::write(&packed, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
        // Byte ranges near and far apart, across the buffer's ends (256 KiB), one repeated (a
        // backward seek for the plain reader), one past the end; and whole lines between them.
        let end = text.len() as u64;
        let mut pieces: Vec<(u64, Piece)> = (1..end - 40).step_by(7_919).map(|o| (o, Piece::Bytes(40))).collect();
        pieces.extend([(262_141, Piece::Bytes(10)), (262_141, Piece::Bytes(10)), (524_287, Piece::Bytes(3))]);
        pieces.extend([(end - 5, Piece::Bytes(5)), (end + 9, Piece::Bytes(4))]);
        pieces.extend((0..starts.len()).step_by(997).chain([starts.len() - 1]).map(|k| (starts[k], Piece::Line)));
        pieces.sort_by_key(|p| p.0);
        let line_of = |o: u64| starts.iter().position(|&s| s == o).unwrap();
        let want: Vec<Option<Vec<u8>>> = pieces
            .iter()
            .map(|&(o, p)| match p {
                Piece::Line => Some(format!("line {} {}", line_of(o), "x".repeat(line_of(o) % 61)).into_bytes()),
                Piece::Bytes(n) => text.get(o as usize..o as usize + n as usize).map(<[u8]>::to_vec),
            })
            .collect();
        for p in [&plain, &packed] {
            let mut got = vec![None; pieces.len()];
            each_piece_at(p, &pieces, |i, b| got[i] = b.map(<[u8]>::to_vec)).unwrap();
            let mut want = want.clone();
            if p == &packed {
                // A stream cannot go back: a piece that starts before the end of the one before
                // it (inside the line just read, or the repeated range) reads as missing.
                let mut pos = 0u64;
                for (w, &(o, piece)) in want.iter_mut().zip(&pieces) {
                    if o < pos {
                        *w = None;
                        continue;
                    }
                    pos = match (piece, &w) {
                        (Piece::Line, Some(l)) => o + l.len() as u64 + 2,
                        (Piece::Bytes(n), Some(_)) => o + u64::from(n),
                        (_, None) => u64::MAX,
                    };
                }
                assert!(want.iter().filter(|w| w.is_none()).count() > 2, "the stream case has pieces it cannot reach");
            }
            assert!(
                got == want,
                "{}: {} of {} pieces differ",
                p.display(),
                got.iter().zip(&want).filter(|(a, b)| a != b).count(),
                want.len()
            );
        }
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
