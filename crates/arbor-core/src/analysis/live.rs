//! Following logs as they are written (SPEC 5 Follow): an analysis that can be continued.
//!
//! A `Live` reads its files once, as `analyze` does, but keeps each file's state machine
//! unfinished, with where its last whole line ended. `update` reads only what was appended since
//! (and the files that appeared in its folders), feeding each file's machine its new lines; a
//! line still being written waits for its newline. `snapshot` finishes a copy: the kept machines
//! see the unfinished lines and the files' ends, and the formats settle what crosses files, so
//! the snapshot is what a fresh read of the files as they are now gives; what finishing added
//! (open turns at the end, a truncated last line, links that later files may change) is marked
//! provisional. A file that shrank, was replaced or went away cannot be continued: everything is
//! read again from the start, with a `file-rewritten` finding; so is a file that went away and is
//! made again at its path (the follower watches its folder for the name).
//!
//! This module decides nothing about formats and watches nothing: the caller says when to
//! look (a file watcher in the app and in `arbor watch`).

use crate::analysis::{read_all, settle, Analysis, FileInfo, KeptFile, Lineage, Observer};
use crate::ctx::Ctx;
use crate::finding::{Code, Loc};
use crate::reader::{self, Block, LineBlocks, LineEnd};
use std::path::{Path, PathBuf};

/// What a file was when it was last read, to tell growth from a rewrite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    len: u64,
    /// The file's identity (device and inode on Unix, volume serial number and file index on
    /// Windows); a replaced file has a new one.
    id: (u64, u64),
    /// Read as a decoded stream (zstd, or a database rendered as lines): it is read again whole
    /// when it changes.
    compressed: bool,
    /// A SQLite database's write-ahead log (`-wal`), by its length and modification time: a
    /// store in WAL mode changes there while the database file may stay as it was.
    wal: Option<(u64, std::time::SystemTime)>,
}

fn seen(path: &Path) -> Option<Seen> {
    // One tree of a store (`<store>/<session id>`) is its store's file.
    let decoded = reader::is_decoded(path);
    let path = crate::bytes::rows::file_of(path);
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let id = {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    };
    // NTFS's 64-bit file index carries a sequence number that changes when its record is used for
    // another file, so a file deleted and made again at its path has a new one; a creation time
    // would not do (NTFS gives a file made again under a deleted one's name within 15 s the old
    // file's creation time: "file system tunneling"). The file is open only while this is read.
    #[cfg(windows)]
    let id = {
        let info = winapi_util::file::information(std::fs::File::open(path).ok()?).ok()?;
        (info.volume_serial_number(), info.file_index())
    };
    #[cfg(not(any(unix, windows)))]
    let id = (0, 0);
    let wal = crate::bytes::rows::is_sqlite(path).then(|| {
        let [wal, _] = crate::bytes::rows::companions(path);
        std::fs::metadata(wal)
            .ok()
            .map_or((0, std::time::UNIX_EPOCH), |w| (w.len(), w.modified().unwrap_or(std::time::UNIX_EPOCH)))
    });
    Some(Seen { len: m.len(), id, compressed: decoded, wal })
}

/// What one `update` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    /// Files that grew, by their names in the report.
    pub grown: Vec<String>,
    /// Files that appeared in the folders followed.
    pub appeared: Vec<String>,
    /// Bytes read.
    pub bytes: u64,
    /// Why everything was read again from the start, when it was.
    pub reread: Option<String>,
    /// A file was truncated, replaced or went away (the reading again left a `file-rewritten`
    /// finding); else it was read again only because a file's first lines grew.
    pub rewritten: bool,
}

impl Change {
    pub fn is_empty(&self) -> bool {
        self.grown.is_empty() && self.appeared.is_empty() && self.reread.is_none()
    }
}

/// Numbers for `Lineage`: `Live`s and snapshots draw from one count.
static NUMBERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_number() -> u64 {
    NUMBERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// An analysis that follows its files as they grow.
pub struct Live {
    /// Its number (`Lineage::live`).
    number: u64,
    paths: Vec<PathBuf>,
    cx: Ctx,
    files: Vec<FileInfo>,
    /// Per file (by index): its kept machine, when it was read in a known format.
    kept: Vec<Option<KeptFile>>,
    seen: Vec<Option<Seen>>,
    /// Per file: it had fewer lines than detection reads and no format claimed it, so it may
    /// still be claimed once it grows.
    undetected: Vec<bool>,
    /// Reads again from the start so far (each leaves a `file-rewritten` finding).
    rewrites: Vec<String>,
}

impl Live {
    /// Read `paths` to follow them.
    pub fn open(paths: &[PathBuf], observer: &mut dyn Observer) -> Live {
        let mut kept = Vec::new();
        let read = read_all(paths, observer, Some(&mut kept), crate::analysis::Threads::PerCore);
        Live::of_read(paths, read.cx, read.files, kept)
    }

    /// Read `paths` as `analyze` does (the observer is told the same progress and deltas, and
    /// stops it the same way), keeping what following them needs: the analysis of the files as
    /// they are, and a `Live` that goes on from there, so that following them later reads only
    /// what is appended after. The `Live` is `None` when the observer stopped the reading.
    /// Both are held at once: it costs the context twice over.
    pub fn analyze(paths: &[PathBuf], observer: &mut dyn Observer) -> (Analysis, Option<Live>) {
        let mut kept = Vec::new();
        let mut read = read_all(paths, observer, Some(&mut kept), crate::analysis::Threads::PerCore);
        let live = Live::of_read(paths, std::mem::take(&mut read.cx), std::mem::take(&mut read.files), kept);
        if read.cancelled {
            let mut a = live.finish();
            a.cancelled = true;
            return (a, None);
        }
        // What a one-shot read gives: nothing in it is provisional until the log is followed.
        let mut a = live.snapshot();
        a.provisional = None;
        read.tell_end(&a.cx, &a.files, observer);
        (a, Some(live))
    }

    fn of_read(paths: &[PathBuf], cx: Ctx, files: Vec<FileInfo>, kept: Vec<Option<KeptFile>>) -> Live {
        let mut live = Live {
            number: next_number(),
            paths: paths.to_vec(),
            cx,
            files,
            kept,
            seen: Vec::new(),
            undetected: Vec::new(),
            rewrites: Vec::new(),
        };
        live.kept.resize_with(live.files.len(), || None);
        live.seen = live.files.iter().map(|f| seen(&f.path)).collect();
        live.undetected = live.files.iter().map(|f| f.format.is_none() && Self::may_be_claimed(&f.path)).collect();
        live
    }

    /// Whether a file no format claimed may still be claimed when it grows: it had fewer lines
    /// than detection reads.
    fn may_be_claimed(path: &Path) -> bool {
        let Ok(r) = reader::open(path) else { return false };
        let mut lines = reader::Lines::new(r);
        let mut n = 0;
        while let Ok(Some(_)) = lines.next_line() {
            n += 1;
            if n >= crate::formats::DETECT_LINES {
                return false;
            }
        }
        true
    }

    /// The files being followed (those read and those that may yet be claimed), and the folders
    /// given, for a watcher.
    pub fn watched(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self.paths.iter().filter(|p| p.is_dir()).cloned().collect();
        out.extend(
            self.files
                .iter()
                .enumerate()
                .filter(|(i, _)| self.kept[*i].is_some() || self.undetected[*i])
                .map(|(_, f)| f.path.clone()),
        );
        out
    }

    /// The paths it follows, as given.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    pub fn files(&self) -> &[FileInfo] {
        &self.files
    }

    /// The context as read so far, unfinished (every finding in it is final).
    pub fn context(&self) -> &Ctx {
        &self.cx
    }

    /// Read what was appended to the files since, and the files that appeared in the folders
    /// given. A file that shrank, was replaced or went away (or one whose reading could change
    /// with more first lines) is not continued: everything is read again from the start.
    pub fn update(&mut self, observer: &mut dyn Observer) -> Change {
        let mut change = Change::default();
        // What the paths stand for now.
        let (inputs, unreadable) = reader::expand(&self.paths);
        // What formats learn while planning is for a first reading; files that appear are read
        // into the context as it is.
        let mut plan = crate::formats::Plan {
            files: inputs
                .into_iter()
                .map(|input| crate::formats::Planned { input, skip: None, format: None })
                .collect(),
            exts: Default::default(),
        };
        for format in crate::formats::FORMATS {
            format.reader.plan(&mut plan);
        }
        let mut order: Vec<String> = unreadable.iter().map(|u| u.display.clone()).collect();
        order.extend(plan.files.iter().map(|p| p.input.display.clone()));
        let known: crate::intern::HashMap<String, usize> =
            self.files.iter().enumerate().map(|(i, f)| (f.display.clone(), i)).collect();
        let now: crate::intern::HashSet<&str> = order.iter().map(String::as_str).collect();
        let known_before = known.len();
        // A file that went away is in no report of the folder: read again without it (one in no
        // known format too, whose `unknown-format` finding would stay behind; it was no log, so
        // it was not rewritten).
        if let Some(gone) = self.files.iter().find(|f| !now.contains(f.display.as_str())) {
            let (why, rewritten) = (format!("`{}` went away", gone.display), gone.format.is_some());
            self.reread(why, rewritten, &mut change, observer);
            return change;
        }
        // Files that were set aside by their format's plan, or claimed by none, and are now
        // read otherwise.
        for p in &plan.files {
            if let Some(&i) = known.get(&p.input.display) {
                let was_skipped =
                    self.files[i].format.is_some() && self.kept[i].is_none() && self.files[i].records == 0;
                // A file its format claims by its place (a sidecar whose transcript appeared
                // since) that was read otherwise.
                let claimed = p.format.is_some_and(|f| !self.files[i].format.is_some_and(|g| std::ptr::eq(f, g)));
                if claimed || (p.skip.is_some() != was_skipped && self.files[i].format.is_some()) {
                    let why = format!("the folder's plan for `{}` changed", p.input.display);
                    self.reread(why, false, &mut change, observer);
                    return change;
                }
            }
        }
        // Growth, or a rewrite.
        for i in 0..self.files.len() {
            let path = self.files[i].path.clone();
            let (before, after) = (self.seen[i], seen(&path));
            let Some(after) = after else {
                // A file given by its own path that went away (one in a folder given is no longer
                // listed, and was seen above): read again, so that the report says so.
                if self.kept[i].is_some() && before.is_some() {
                    let why = format!("`{}` went away", self.files[i].display);
                    self.reread(why, true, &mut change, observer);
                    return change;
                }
                continue;
            };
            if before == Some(after) {
                continue;
            }
            let display = self.files[i].display.clone();
            let Some(kept) = &self.kept[i] else {
                if before.is_none() {
                    // It could not be read (it went away, and was read again without it) and is
                    // there again at its path: read it, as a fresh read would.
                    self.reread(format!("`{display}` was made again"), true, &mut change, observer);
                    return change;
                }
                self.seen[i] = Some(after);
                if self.undetected[i] && before.is_some_and(|b| after.len > b.len) {
                    self.reread(format!("`{display}` grew and may now be read"), false, &mut change, observer);
                    return change;
                }
                // Replaced or cut, it is another file, which a fresh read would detect again (it
                // may be a log now). Growing, a file judged to be no log stays unread.
                if before.is_some_and(|b| b.id != after.id || after.len < b.len) {
                    self.reread(format!("`{display}` changed and may now be read"), false, &mut change, observer);
                    return change;
                }
                continue;
            };
            let read_to = kept.tail.as_ref().map_or(kept.consumed, |t| t.read_to);
            // A database's rendering is no longer than the file, nor does it grow at its end:
            // only another file at its path is a rewrite.
            let rewritten = before.is_some_and(|b| b.id != after.id) || (after.wal.is_none() && after.len < read_to);
            if rewritten || after.compressed || kept.head_open {
                let why = if rewritten {
                    format!("`{display}` was truncated or replaced")
                } else if after.wal.is_some() {
                    format!("`{display}` (a database) changed")
                } else if after.compressed {
                    format!("`{display}` (compressed) changed")
                } else {
                    format!("`{display}` grew while its first lines could still change how it is read")
                };
                self.reread(why, rewritten, &mut change, observer);
                return change;
            }
            if after.len == read_to {
                self.seen[i] = Some(after);
                continue;
            }
            match self.feed(i) {
                Ok(n) => {
                    change.bytes += n;
                    change.grown.push(display);
                    self.seen[i] = Some(after);
                }
                Err(e) => {
                    self.reread(format!("`{display}` could not be read on: {e}"), true, &mut change, observer);
                    return change;
                }
            }
        }
        // Files that appeared: read after the others, ranked where a fresh read would put them.
        let appeared: Vec<crate::formats::Planned> =
            plan.files.into_iter().filter(|p| !known.contains_key(&p.input.display)).collect();
        debug_assert_eq!(known_before, self.files.len());
        if !appeared.is_empty() {
            for planned in appeared {
                let display = planned.input.display.clone();
                change.bytes +=
                    std::fs::metadata(crate::bytes::rows::file_of(&planned.input.path)).map_or(0, |m| m.len());
                crate::analysis::read_one(&mut self.cx, &mut self.files, &mut self.kept, planned, observer);
                let i = self.files.len() - 1;
                self.seen.push(seen(&self.files[i].path));
                self.undetected.push(self.files[i].format.is_none() && Self::may_be_claimed(&self.files[i].path));
                change.appeared.push(display);
            }
            let rank: crate::intern::HashMap<&str, u32> =
                order.iter().enumerate().map(|(r, d)| (d.as_str(), r as u32)).collect();
            let ranks: Vec<u32> = self
                .files
                .iter()
                .enumerate()
                .map(|(i, f)| rank.get(f.display.as_str()).copied().unwrap_or(i as u32))
                .collect();
            self.cx.ranks.clone_from(&ranks);
            self.cx.graph.set_ranks(ranks);
        }
        change
    }

    /// Route what was appended to file `i`: its whole lines into its machine, the unfinished last
    /// one kept aside. The bytes read.
    fn feed(&mut self, i: usize) -> std::io::Result<u64> {
        use std::io::{Seek, SeekFrom};
        let kept = self.kept[i].as_mut().expect("a kept file");
        let mut f = std::fs::File::open(&self.files[i].path)?;
        f.seek(SeekFrom::Start(kept.consumed))?;
        let start = kept.consumed;
        let mut blocks = LineBlocks::new(f).starting_at(kept.consumed, kept.lines);
        let mut block = Block::default();
        kept.tail = None;
        let file = i as u32;
        while blocks.next_block(&mut block)? {
            // A last line with no newline yet waits for it; one past the longest line kept is
            // held without its bytes, and skipped again from its start when more comes, so
            // that it stays one line however many pieces it is written in.
            let last = *block.lines.last().expect("a block has lines");
            let tail = matches!(last.how, LineEnd::EndOfFile | LineEnd::OverlongAtEnd).then(|| {
                block.lines.pop();
                let bytes = block.bytes[last.start..last.end].to_vec();
                let read_to =
                    if last.how == LineEnd::EndOfFile { last.offset + bytes.len() as u64 } else { block.read_to };
                Block { lines: vec![reader::Span { start: 0, end: bytes.len(), ..last }], read_to, bytes }
            });
            if let Some(l) = block.lines.last() {
                kept.lines = l.number;
                kept.consumed = tail.as_ref().map_or(block.read_to, |t| t.lines[0].offset);
            }
            if !block.lines.is_empty() {
                block = feed(&mut kept.machine, &mut self.cx, &mut self.files[i], file, std::mem::take(&mut block));
            }
            if let Some(t) = tail {
                kept.consumed = t.lines[0].offset;
                kept.tail = Some(t);
            }
        }
        let read_to = kept.tail.as_ref().map_or(kept.consumed, |t| t.read_to);
        self.files[i].bytes = read_to;
        Ok(read_to - start)
    }

    /// Read everything again from the start, and say why (with a finding when a file was
    /// rewritten).
    fn reread(&mut self, why: String, rewritten: bool, change: &mut Change, observer: &mut dyn Observer) {
        let rewrites = std::mem::take(&mut self.rewrites);
        *self = Live::open(&self.paths.clone(), observer);
        self.rewrites = rewrites;
        if rewritten {
            self.rewrites.push(why.clone());
        }
        change.reread = Some(why);
        change.rewritten = rewritten;
    }

    /// The analysis as a fresh read of the files as they are now gives it, with what depends on
    /// their ends marked provisional (`Analysis::provisional`).
    pub fn snapshot(&self) -> Analysis {
        let mut cx = self.cx.clone();
        let mut files = self.files.clone();
        let first_provisional = cx.findings.list.len();
        let lineage = Lineage {
            live: self.number,
            snapshot: next_number(),
            ids: cx.ids.len(),
            records: cx.records.len(),
            lines: self.kept.iter().map(|k| k.as_ref().map_or(u64::MAX, |k| k.lines)).collect(),
        };
        for (i, k) in self.kept.iter().enumerate() {
            match k {
                // Its unfinished last line is routed into a copy of the machine, which ends.
                Some(k) if k.tail.is_some() => finish_file(&mut cx, &mut files, i, &mut k.clone()),
                // Else what the machine's end adds is made without a copy of it.
                Some(k) => {
                    cx.graph.set_place(Loc { file: i as u32, line: k.lines });
                    k.machine.finish_copy(&mut cx);
                }
                None => {}
            }
        }
        settle(&mut cx);
        note_rewrites(&self.rewrites, &mut cx, files.len());
        let mut a = Analysis::new(cx, files, false);
        a.provisional = Some(first_provisional);
        a.lineage = Some(lineage);
        a
    }

    /// The analysis of the files as they are now, the following ended.
    pub fn finish(self) -> Analysis {
        let Live { mut cx, mut files, kept, rewrites, .. } = self;
        finish_into(&mut cx, &mut files, kept);
        note_rewrites(&rewrites, &mut cx, files.len());
        Analysis::new(cx, files, false)
    }
}

/// A `file-rewritten` finding for each read again from the start, at the first file.
fn note_rewrites(rewrites: &[String], cx: &mut Ctx, files: usize) {
    // A finding is placed in a file: with none left (every file went away) there is none to
    // place it in, and the report says nothing is open.
    if files == 0 {
        return;
    }
    for why in rewrites {
        cx.findings.add(
            Code::FileRewritten,
            Loc { file: 0, line: 0 },
            None,
            format!("{why} while it was followed: everything open was read again from the start"),
        );
    }
}

/// Finish each kept machine, then let the formats settle.
fn finish_into(cx: &mut Ctx, files: &mut [FileInfo], kept: Vec<Option<KeptFile>>) {
    for (i, k) in kept.into_iter().enumerate() {
        if let Some(mut k) = k {
            finish_file(cx, files, i, &mut k);
        }
    }
    settle(cx);
}

/// Finish file `i`'s kept machine: its unfinished last line first, then its end.
fn finish_file(cx: &mut Ctx, files: &mut [FileInfo], i: usize, k: &mut KeptFile) {
    let file = i as u32;
    if let Some(tail) = k.tail.take() {
        let line = tail.lines[0].number;
        feed(&mut k.machine, cx, &mut files[i], file, tail);
        k.lines = line;
    }
    cx.graph.set_place(Loc { file, line: k.lines });
    k.machine.finish(cx);
}

/// Feed a kept machine a block of whole lines, counting them into the file's entry; the block is
/// given back to be filled again.
fn feed(
    machine: &mut Box<dyn crate::formats::Routed>,
    cx: &mut Ctx,
    info: &mut FileInfo,
    file: u32,
    block: Block,
) -> Block {
    let mut counts = crate::formats::LineCounts { records: info.records, bad_lines: info.bad_lines };
    let block = machine.feed(cx, &mut counts, file, block);
    info.records = counts.records;
    info.bad_lines = counts.bad_lines;
    block
}
