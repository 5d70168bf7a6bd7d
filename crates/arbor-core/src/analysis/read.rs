//! Reading every input: the plan (each format adds, orders or sets aside files), then each file
//! read in plan order (detected, its machine made by its format, routed), then each format
//! settles what crosses files.

use crate::ctx::Ctx;
use crate::finding::{Code, Loc};
use crate::formats::{FileStart, FormatInfo, FORMATS};
use crate::reader::{self};
use std::path::PathBuf;

use super::ahead::{Ahead, Fetched, ReadAhead, SMALL_FILE};
use super::delta::{DeltaMark, Observer, Progress};
use super::flow::{small_blocks, spawn_reader, Chunk, KeptFile, Recycle, Route, Source};
use super::value::{worker_threads, Analysis, FileInfo, Threads};

/// Analyze the given files and folders. Paths that cannot be read become findings; the rest loads.
pub fn analyze(paths: &[PathBuf], observer: &mut dyn Observer) -> Analysis {
    analyze_with(paths, observer, Threads::PerCore)
}

/// `analyze` with the threads it may start.
pub fn analyze_with(paths: &[PathBuf], observer: &mut dyn Observer, threads: Threads) -> Analysis {
    let mut read = read_all(paths, observer, None, threads);
    let mut cx = std::mem::take(&mut read.cx);
    settle(&mut cx);
    // The formats' cross-file evidence (`Ctx::ext`) is for settling, and the files planned
    // (`Ctx::planned`) for reading. A one-shot analysis settles once and lets them go before the
    // report is built beside them: a 1 GiB Claude Code project's line index alone is 10.6 MB.
    // A followed log (`live`) keeps its own.
    cx.exts = Default::default();
    cx.planned = Default::default();
    // Every record is made: the index gives back what its last chunk grew by and did not use,
    // before the report is built beside it.
    cx.records.shrink_to_fit();
    let files = std::mem::take(&mut read.files);
    read.tell_end(&cx, &files, observer);
    let mut a = Analysis::new(cx, files, read.cancelled);
    a.threads = threads;
    a
}

impl ReadAll {
    /// Tells `observer` how the reading ended, once `cx` is its context settled: the last
    /// progress (with the sessions and findings) and what the deltas had not said yet.
    pub(crate) fn tell_end(&mut self, cx: &Ctx, files: &[FileInfo], observer: &mut dyn Observer) {
        self.progress.sessions = cx.graph.len();
        self.progress.findings = cx.findings.list.len();
        observer.progress(&self.progress);
        if observer.wants_deltas() {
            observer.delta(self.mark.take(cx, |f| files.get(f).map(|i| i.display.as_str()), &self.progress));
        }
    }
}

/// Once every file is read: each format settles what crosses files.
pub(crate) fn settle(cx: &mut Ctx) {
    cx.graph.settling();
    for format in FORMATS {
        format.reader.settle(cx);
    }
}

/// What reading every file leaves, before the formats settle.
pub(crate) struct ReadAll {
    pub(crate) cx: Ctx,
    pub(crate) files: Vec<FileInfo>,
    pub(crate) cancelled: bool,
    pub(super) mark: DeltaMark,
    pub(super) progress: Progress,
}

/// Read every file of `paths`, in plan order, with the threads `threads` allows. With `keep`,
/// each file's state machine is kept unfinished there (by file index), to be fed what is
/// appended later.
pub(crate) fn read_all(
    paths: &[PathBuf],
    observer: &mut dyn Observer,
    mut keep: Option<&mut Vec<Option<KeptFile>>>,
    threads: Threads,
) -> ReadAll {
    let (inputs, unreadable) = reader::expand(paths);
    let mut plan = crate::formats::Plan {
        files: inputs.into_iter().map(|input| crate::formats::Planned { input, skip: None, format: None }).collect(),
        exts: Default::default(),
    };
    for format in FORMATS {
        format.reader.plan(&mut plan);
    }
    let crate::formats::Plan { files: planned, exts } = plan;
    let mut cx = Ctx { exts, ..Ctx::default() };
    let mut files: Vec<FileInfo> = Vec::with_capacity(unreadable.len() + planned.len());
    for u in unreadable {
        let file = files.len() as u32;
        files.push(FileInfo {
            path: PathBuf::from(&u.display),
            display: u.display.clone(),
            format: None,
            records: 0,
            bad_lines: 0,
            bytes: 0,
            zstd: false,
        });
        cx.findings.add(
            Code::UnreadableInput,
            Loc { file, line: 0 },
            None,
            format!("cannot read `{}`: {}", u.display, u.reason),
        );
    }
    // Every planned file's entry is made at once, its path and name moved into it: the plan's
    // list goes before the first file is read, and deltas name files from the entries. A folder
    // of 20,000 session files held each path five times over while it was read (the plan, its
    // names for deltas, the read-ahead threads' list, a format's survey): 10 MB of the heap's
    // 97 MB peak on a 1 GiB Claude Code project.
    let first = files.len();
    let mut steps = Vec::with_capacity(planned.len());
    let mut paths = Vec::with_capacity(planned.len());
    for crate::formats::Planned { input, skip, format } in planned {
        paths.push(skip.is_none().then(|| input.path.clone()));
        steps.push((skip, format));
        files.push(FileInfo::of(input));
    }
    cx.planned = paths.into();
    let mut progress = Progress {
        files_total: steps.len(),
        bytes_total: cx.planned.iter().flatten().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum(),
        ..Progress::default()
    };
    let mut cancelled = false;
    let mut mark = DeltaMark::default();
    // A folder's small files are read and parsed ahead by threads of their own (`ReadAhead`).
    let ahead = std::sync::Arc::new(Ahead::default());
    let mut reading_ahead = Vec::new();
    if threads == Threads::PerCore && steps.len() > 1 {
        let claimed: std::sync::Arc<[_]> = steps.iter().map(|s| s.1).collect();
        for _ in 0..worker_threads() {
            let (shared, paths, claimed) = (ahead.clone(), cx.planned.clone(), claimed.clone());
            let spawned =
                std::thread::Builder::new().name("arbor-ahead".into()).spawn(move || shared.work(&paths, &claimed));
            reading_ahead.extend(spawned.ok());
        }
    }
    for (index, (skip, claimed)) in steps.into_iter().enumerate() {
        // The file as a read-ahead thread left it, or `None` for this thread to open.
        let ahead = if reading_ahead.is_empty() { None } else { ahead.take(index) };
        let file = (first + index) as u32;
        if let Some(skip) = skip {
            files[file as usize].format = Some(skip.format);
            cx.findings.add(skip.code, Loc { file, line: 1 }, None, skip.message);
            progress.files_done += 1;
            continue;
        }
        // Deltas name the files read so far: those before this one, and this one (its entry is
        // the reading's to fill).
        let this = observer.wants_deltas().then(|| files[file as usize].display.clone());
        let (done, rest) = files.split_at_mut(file as usize);
        let name = |f: usize| done.get(f).map(|i| i.display.as_str()).or(this.as_deref().filter(|_| f == done.len()));
        let mut tell = |cx: &Ctx, p: &Progress| {
            observer.progress(p) && (!observer.wants_deltas() || observer.delta(mark.take(cx, name, p)))
        };
        let slot = keep.as_deref_mut().map(|k| {
            k.resize_with(file as usize + 1, || None);
            &mut k[file as usize]
        });
        let how = How { threads, keep: slot, claimed, ahead };
        if !read_file(&mut cx, file, &mut rest[0], &mut progress, &mut tell, how) {
            cancelled = true;
            // The files not come to are not part of what was read.
            files.truncate(file as usize + 1);
            break;
        }
        progress.files_done += 1;
    }
    ahead.close();
    for t in reading_ahead {
        let _ = t.join();
    }
    ReadAll { cx, files, cancelled, mark, progress }
}

/// Read one more file into `cx` (a followed folder's new file), keeping its machine in `kept`
/// (by file index); its findings and sessions are part of `cx` at once.
pub(crate) fn read_one(
    cx: &mut Ctx,
    files: &mut Vec<FileInfo>,
    kept: &mut Vec<Option<KeptFile>>,
    planned: crate::formats::Planned,
    observer: &mut dyn Observer,
) {
    let crate::formats::Planned { input, skip, format: claimed } = planned;
    let file = files.len() as u32;
    files.push(FileInfo::of(input));
    kept.resize_with(files.len(), || None);
    if let Some(skip) = skip {
        files[file as usize].format = Some(skip.format);
        cx.findings.add(skip.code, Loc { file, line: 1 }, None, skip.message);
        return;
    }
    let mut progress = Progress::default();
    let mut tell = |_: &Ctx, p: &Progress| observer.progress(p);
    let slot = Some(&mut kept[file as usize]);
    let how = How { threads: Threads::PerCore, keep: slot, claimed, ahead: None };
    read_file(cx, file, &mut files[file as usize], &mut progress, &mut tell, how);
}

/// How a file is read: with which threads, and whether its state machine is kept (a followed
/// log) or finished.
pub(crate) struct How<'k> {
    pub(super) threads: Threads,
    pub(super) keep: Option<&'k mut Option<KeptFile>>,
    /// The format that claimed the file in its plan (`Planned::format`): read as that format,
    /// without detection.
    pub(super) claimed: Option<&'static FormatInfo>,
    /// The file as a read-ahead thread left it, when one came to it.
    pub(super) ahead: Option<Fetched>,
}

/// Read one file: detect its format from its first lines and hand it to that format; `false`
/// when the observer cancelled.
pub(crate) fn read_file(
    cx: &mut Ctx,
    file: u32,
    info: &mut FileInfo,
    progress: &mut Progress,
    tell: &mut dyn FnMut(&Ctx, &Progress) -> bool,
    how: How<'_>,
) -> bool {
    let How { threads, keep, claimed, ahead } = how;
    let base_bytes = progress.bytes_read;
    let (source, recycle, head, format, threads) = match ahead {
        Some(Fetched::Read(ahead)) => {
            // Read, detected and parsed already: this thread only routes it.
            let ReadAhead { format, head, pending, parsed, end, recycle } = ahead;
            let (_, rx) = std::sync::mpsc::sync_channel(0);
            let source = Source { pending, rx, inline: None, taken: 0, end: Some(end), parsed };
            (source, Recycle::Parsed(recycle), head, format, Threads::Caller)
        }
        ahead => {
            // One open tells the file's size and whether it is zstd, and reads it (a read-ahead
            // thread opened it when one came to it).
            let opened = match ahead {
                Some(Fetched::Opened(opened)) => Ok(opened),
                _ => reader::open_stream(&info.path),
            };
            match read_head(cx, file, info, threads, claimed, opened) {
                Some(read) => read,
                None => return true,
            }
        }
    };
    let Some(format) = format else {
        let read_error = source.end.as_ref().and_then(|e| e.as_ref()).map(|e| e.to_string());
        info.bytes = source.pending.back().map_or(0, |c| c.read_to);
        let why = match (&read_error, head == 0) {
            (Some(e), _) => format!("cannot read `{}`: {e}", info.display),
            (None, true) => format!("`{}` is empty: no known format", info.display),
            (None, false) => format!("`{}` is in no known format: skipped", info.display),
        };
        let code = if read_error.is_some() && head == 0 { Code::UnreadableInput } else { Code::UnknownFormat };
        cx.findings.add(code, Loc { file, line: 1 }, None, why);
        return true;
    };
    info.format = Some(format);
    cx.set_file_scope(file, format.reader.id_space().unwrap_or(format.id));
    let machine =
        format.reader.machine(&FileStart { display: &info.display, path: &info.path, head: source.head(head) });
    Route { cx, source, recycle, head, file, info, progress, base_bytes, threads, tell, keep, format }.run(machine)
}

/// An opened file's head read and its format detected (`None`: in no known format), with the
/// threads it is read with; `None` when it could not be opened (the finding is added).
pub(crate) fn read_head(
    cx: &mut Ctx,
    file: u32,
    info: &mut FileInfo,
    threads: Threads,
    claimed: Option<&'static FormatInfo>,
    opened: std::io::Result<reader::Opened>,
) -> Option<(Source, Recycle, usize, Option<&'static FormatInfo>, Threads)> {
    let reader::Opened { stream, zstd, len } = match opened {
        Ok(r) => r,
        Err(e) => {
            cx.findings.add(
                Code::UnreadableInput,
                Loc { file, line: 0 },
                None,
                format!("cannot read `{}`: {e}", info.display),
            );
            return None;
        }
    };
    // A small file is read and parsed here: a reader thread and parse workers cost more to
    // start and stop (about 0.3 ms of CPU a file) than they save on it, and a folder of a
    // thousand small rollouts paid that a thousand times.
    info.zstd = zstd;
    let small = !zstd && len <= SMALL_FILE;
    let threads = if small { Threads::Caller } else { threads };
    let (rx, recycle, inline) = match threads {
        Threads::PerCore => {
            let (rx, recycle) = spawn_reader(stream);
            (rx, Recycle::Buffers(recycle), None)
        }
        Threads::Caller => {
            let (recycle, recycled) = std::sync::mpsc::channel::<Chunk>();
            let (_, rx) = std::sync::mpsc::sync_channel(0);
            (rx, Recycle::Buffers(recycle), Some((small_blocks(stream, len), recycled)))
        }
    };
    let mut source = Source {
        pending: std::collections::VecDeque::new(),
        rx,
        inline,
        taken: 0,
        end: None,
        parsed: Default::default(),
    };
    let (head, format) = source.detect(claimed);
    Some((source, recycle, head, format, threads))
}
