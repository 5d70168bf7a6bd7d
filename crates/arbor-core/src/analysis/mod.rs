//! The driver: reads each input through the reader, detects its format, feeds its lines in wire
//! order to that format's state machine, then lets each format settle cross-file facts and
//! builds the report. It knows formats only through `formats::Format` and `formats::Machine`.
//!
//! One pass over each file; memory holds the record index (a few dozen bytes a record), the graph
//! and the findings, never line text. Progress is reported to an observer, which may cancel.

use crate::ctx::{Ctx, Records, TextRef};
use crate::finding::{Code, Loc};
use crate::formats::{detect, AheadParsed, ChunkArena, FormatInfo, Machine, Shape, DETECT_LINES, FORMATS};
use crate::intern::Sym;
use crate::reader::{self, InputFile, LineEnd, Lines};
use crate::report::{self, Place, Report};
use crate::report_parts::ReportParts;
pub mod live;

use std::path::PathBuf;

/// What the engine has done so far, for a progress bar.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, ts_rs::TS)]
pub struct Progress {
    #[ts(type = "number")]
    pub files_done: usize,
    #[ts(type = "number")]
    pub files_total: usize,
    #[ts(type = "number")]
    pub bytes_read: u64,
    #[ts(type = "number")]
    pub bytes_total: u64,
    #[ts(type = "number")]
    pub records: u64,
    #[ts(type = "number")]
    pub sessions: usize,
    #[ts(type = "number")]
    pub findings: usize,
}

/// Told of progress as the analysis goes; returning `false` from either method cancels it.
pub trait Observer {
    fn progress(&mut self, _p: &Progress) -> bool {
        true
    }

    /// What was found since the last delta. Called right after the first chunks of the first
    /// file (so a viewer can show the first sessions at once), then about every 16 MB.
    fn delta(&mut self, _d: Delta) -> bool {
        true
    }

    /// Whether `delta` reads what it is given; when not, no delta is built (each copies the
    /// names of every new session and finding).
    fn wants_deltas(&self) -> bool {
        true
    }
}

impl Observer for () {
    fn wants_deltas(&self) -> bool {
        false
    }
}

impl<F: FnMut(&Progress) -> bool> Observer for F {
    fn progress(&mut self, p: &Progress) -> bool {
        self(p)
    }

    fn wants_deltas(&self) -> bool {
        false
    }
}

#[derive(Debug, Clone)]
pub struct FileInfo {
    pub path: PathBuf,
    pub display: String,
    pub format: Option<&'static FormatInfo>,
    pub records: u64,
    pub bad_lines: u64,
    pub bytes: u64,
    /// zstd-compressed, as the file was when it was read.
    pub zstd: bool,
}

/// A finished analysis: the context the format modules filled, and the files read.
#[derive(Debug)]
pub struct Analysis {
    pub cx: Ctx,
    pub files: Vec<FileInfo>,
    pub cancelled: bool,
    /// Each file's display name as a JSON string, escaped once: every place in the report
    /// repeats it.
    pub(crate) file_names_json: Vec<String>,
    /// A snapshot of a followed log: findings from this index of `Ctx::findings` on were made
    /// when the copy was finished (the end of a file that may still grow, links that files still
    /// to come may change) and may change as the log grows.
    pub provisional: Option<usize>,
    /// The prices costs are reckoned at (`None`: the bundled table).
    pub prices: Option<std::sync::Arc<crate::prices::PriceTable>>,
    /// The threads it was read with, and the report is written with.
    pub threads: Threads,
    /// A followed log's snapshot: which `Live` made it and what of it was final then, so that a
    /// view of an earlier snapshot of the same `Live` can grow into a view of this one
    /// (`View::grow`). `None` for a one-shot analysis.
    pub(crate) lineage: Option<crate::live::Lineage>,
}

/// The threads an analysis may start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Threads {
    /// A reader thread per file, parse workers (one per core), and report formatters: one large
    /// log read as fast as the cores allow.
    #[default]
    PerCore,
    /// None: reading, parsing and the report all on the calling thread. For many small logs
    /// read at once, one per core (`arbor analyze --each`), where starting and stopping a dozen
    /// threads per log cost more than the work they shared.
    Caller,
}

/// Whole lines of a file, read straight into the block's buffer (see `reader::LineBlocks`).
type Chunk = reader::Block;

/// Where routed chunks go back.
enum Recycle {
    /// Their buffers, to the thread that reads the file, to be filled again.
    Buffers(std::sync::mpsc::Sender<Chunk>),
    /// Whole, with their parsed lines, to the read-ahead thread (`ReadAhead`): it frees the lines
    /// where it made them, and fills the buffers again. (Freed on the routing thread, every
    /// allocation went back to the other thread's heap under its lock, and the two threads spent
    /// more on that lock than routing cost.)
    Parsed(std::sync::mpsc::Sender<Box<dyn AheadParsed>>),
}

/// What the reader thread sends: chunks in order, then the end (with a read error, if any).
enum Piece {
    Chunk(Chunk),
    End(Option<std::io::Error>),
}

/// Read `input` on a thread of its own, sending chunks of whole lines through a small queue.
/// Chunks sent back on the returned sender are filled again instead of new ones being made: a
/// fresh megabyte is a megabyte of page faults and zeroing, which cost more than reading it.
fn spawn_reader(
    input: Box<dyn std::io::Read + Send>,
) -> (std::sync::mpsc::Receiver<Piece>, std::sync::mpsc::Sender<Chunk>) {
    let (tx, rx) = std::sync::mpsc::sync_channel(4);
    let (recycle, recycled) = std::sync::mpsc::channel::<Chunk>();
    let spawned = std::thread::Builder::new().name("arbor-read".into()).spawn(move || {
        let mut blocks = reader::LineBlocks::new(input);
        loop {
            // A buffer that grew for one huge line is let go rather than kept.
            let mut chunk = recycled.try_recv().ok().filter(|c| c.bytes.capacity() <= 4 << 20).unwrap_or_default();
            match blocks.next_block(&mut chunk) {
                Ok(true) => {
                    if tx.send(Piece::Chunk(chunk)).is_err() {
                        return; // the analysis was cancelled
                    }
                }
                Ok(false) => {
                    let _ = tx.send(Piece::Chunk(chunk));
                    let _ = tx.send(Piece::End(None));
                    return;
                }
                Err(e) => {
                    let _ = tx.send(Piece::Chunk(chunk));
                    let _ = tx.send(Piece::End(Some(e)));
                    return;
                }
            }
        }
    });
    if let Err(e) = spawned {
        // No thread to read with: the file reads as unreadable, with the reason.
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let _ = tx.send(Piece::End(Some(e)));
        return (rx, recycle);
    }
    (rx, recycle)
}

/// Reply texts read back for a report: a buffer per part read, and where each reply's text is.
pub(crate) struct ReplyTexts {
    /// Ascending by file and offset.
    refs: Vec<TextRef>,
    /// Per turn (`Turns::list`), the index in `refs` of its reply; `NO_TURN` for none.
    by_turn: Vec<u32>,
    /// Per reply: its part, and the start and end of its text in that part's buffer.
    spans: Vec<(u32, usize, usize)>,
    parts: Vec<String>,
}

/// Not a turn, or no reply.
const NO_TURN: u32 = u32::MAX;

impl ReplyTexts {
    /// The text of a reply; `""` for one that could not be read back.
    pub(crate) fn get(&self, r: &TextRef) -> &str {
        match self.refs.binary_search_by_key(&(r.at.file, r.offset), |t| (t.at.file, t.offset)) {
            Ok(i) => self.text(i),
            Err(_) => "",
        }
    }

    /// The text of the reply of turn `turn` (its index in `Turns::list`), without a search.
    pub(crate) fn of_turn(&self, turn: usize) -> Option<&str> {
        self.by_turn.get(turn).filter(|&&i| i != NO_TURN).map(|&i| self.text(i as usize))
    }

    fn text(&self, i: usize) -> &str {
        self.spans.get(i).map_or("", |&(part, a, b)| &self.parts[part as usize][a..b])
    }
}

/// Chunks parsed ahead of the router at most: parsed lines take about three times the bytes
/// of their chunk, and are freed as soon as they are routed.
const LOOKAHEAD: u64 = 8;

/// Parse threads; more than two cores do not help while one thread routes.
const MAX_WORKERS: usize = 3;

/// Threads for a parallel stage (parsing, reading reply texts back, formatting the report): one
/// per core, at most `MAX_WORKERS`.
fn worker_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, MAX_WORKERS)
}

/// Closes a flow when dropped.
struct CloseOnDrop<'a, S: Shape>(&'a Flow<S>);

impl<S: Shape> Drop for CloseOnDrop<'_, S> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// A file's blocks of lines, read where they are asked for (`Threads::Caller`).
type Blocks = reader::LineBlocks<Box<dyn std::io::Read + Send>>;

/// Where chunks come from, in order: those read ahead for detection, then the reader thread.
struct Source {
    pending: std::collections::VecDeque<Chunk>,
    rx: std::sync::mpsc::Receiver<Piece>,
    /// `Threads::Caller`: the blocks are read here, on demand, instead of by a reader thread
    /// (with the buffers given back through `recycle`, as that thread would).
    inline: Option<(Blocks, std::sync::mpsc::Receiver<Chunk>)>,
    /// Chunks taken so far (the sequence number of the next one).
    taken: u64,
    /// Set at the end of the stream, with the read error that ended it, if any.
    end: Option<Option<std::io::Error>>,
    /// A file read and parsed ahead (`Ahead`): its chunks, parsed, in order (then `pending` and
    /// the reader are empty, and `end` is set).
    parsed: std::collections::VecDeque<Box<dyn AheadParsed>>,
}

impl Source {
    /// Read one more chunk into `pending` (detection looks at it first); `None` at the end.
    fn read_ahead(&mut self) -> Option<&Chunk> {
        if self.end.is_some() {
            return None;
        }
        if let Some((blocks, recycled)) = &mut self.inline {
            let mut chunk = recycled
                .try_recv()
                .ok()
                .or_else(|| SPARE_CHUNKS.with(|s| s.borrow_mut().pop()))
                .filter(|c| c.bytes.capacity() <= 4 << 20)
                .unwrap_or_default();
            // The last block comes with the end of the stream, as the reader thread sends it.
            match blocks.next_block(&mut chunk) {
                Ok(true) => {}
                Ok(false) => self.end = Some(None),
                Err(e) => self.end = Some(Some(e)),
            }
            self.pending.push_back(chunk);
            return self.pending.back();
        }
        match self.rx.recv() {
            Ok(Piece::Chunk(c)) => {
                self.pending.push_back(c);
                self.pending.back()
            }
            Ok(Piece::End(e)) => {
                self.end = Some(e);
                None
            }
            Err(_) => {
                self.end = Some(None);
                None
            }
        }
    }

    /// Read the file's head (its first `DETECT_LINES` lines, or all of it) and detect its format,
    /// unless the plan named it: how many lines the head has, and the format.
    ///
    /// Detection reads the first lines of the first chunks, where they are: the chunks read ahead
    /// wait in `pending` to be routed. (Copying them out cost a copy of every line of a folder of
    /// small files: a Claude Code session file is a few dozen lines.)
    fn detect(&mut self, claimed: Option<&'static FormatInfo>) -> (usize, Option<&'static FormatInfo>) {
        let mut head = 0;
        while head < DETECT_LINES {
            let Some(c) = self.read_ahead() else { break };
            head += c.lines.len().min(DETECT_LINES - head);
        }
        (head, claimed.or_else(|| detect(self.head(head).lines())))
    }

    /// The first `len` lines of what was read ahead (the file's head, as detection read it).
    fn head(&self, len: usize) -> crate::formats::Head<'_> {
        crate::formats::Head { chunks: &self.pending, parsed: &self.parsed, len }
    }

    /// The next chunk, parsed as `S` reads it when it was parsed ahead, and its sequence number;
    /// `None` at the end.
    fn next_parsed<S: Shape>(&mut self) -> Option<(u64, Result<S::Parsed, Chunk>)> {
        if let Some(p) = self.parsed.pop_front() {
            self.taken += 1;
            return Some((self.taken - 1, Ok(crate::formats::take_ahead::<S>(p))));
        }
        self.next().map(|(seq, chunk)| (seq, Err(chunk)))
    }

    /// The next chunk and its sequence number; `None` at the end.
    fn next(&mut self) -> Option<(u64, Chunk)> {
        if self.pending.is_empty() {
            self.read_ahead()?;
        }
        let chunk = self.pending.pop_front()?;
        self.taken += 1;
        Some((self.taken - 1, chunk))
    }
}

thread_local! {
    /// `Threads::Caller`: buffers a file read on this thread leaves behind, for the next file it
    /// reads. A fresh buffer is a megabyte zeroed, ten times the work of reading a 100 KB log
    /// (8 % of `arbor analyze --each` on 10,000 of them went to that memset).
    static SPARE_CHUNKS: std::cell::RefCell<Vec<Chunk>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for Source {
    fn drop(&mut self) {
        if let Some((_, recycled)) = &self.inline {
            let left = recycled.try_iter().chain(self.pending.drain(..));
            SPARE_CHUNKS.with(|s| {
                let mut spare = s.borrow_mut();
                for c in left {
                    if spare.len() < 2 {
                        spare.push(c);
                    }
                }
            });
        }
    }
}

/// The hand-off between the parse workers and the routing thread, for a whole file.
///
/// Any thread takes the next chunk from the source, parses it, and leaves it in `ready` under
/// its sequence number; the router takes them in order, routes them, and leaves them in `routed`
/// for a worker to free (freeing parsed lines was 5 % of all instructions, and on the routing
/// thread nothing overlaps it) and to give the buffer back to the reader. There is no barrier:
/// an earlier design parsed windows of chunks and left the cores idle for an eighth of the time
/// at each window's end.
struct Flow<S: Shape> {
    source: std::sync::Mutex<Source>,
    state: std::sync::Mutex<FlowState<S>>,
    /// Signalled when a chunk is ready, one is routed, the source ends, or the flow closes.
    changed: std::sync::Condvar,
    /// Buffers go back to the reader to be filled again.
    recycle: Recycle,
    /// Arenas of freed chunks, emptied, for the next chunks parsed.
    arenas: std::sync::Mutex<Vec<bumpalo::Bump>>,
}

struct FlowState<S: Shape> {
    /// Parsed chunks by sequence number, waiting to be routed.
    ready: std::collections::BTreeMap<u64, S::Parsed>,
    /// Routed chunks waiting to be freed.
    routed: Vec<S::Parsed>,
    /// Chunks routed so far (the sequence number the router needs next).
    routed_to: u64,
    /// Chunks taken from the source so far, and whether it has ended.
    taken: u64,
    ended: bool,
    /// The router is done (or cancelled): workers free what is left and end.
    closed: bool,
}

impl<S: Shape> Default for FlowState<S> {
    fn default() -> Self {
        FlowState { ready: Default::default(), routed: Vec::new(), routed_to: 0, taken: 0, ended: false, closed: false }
    }
}

impl<S: Shape> Flow<S> {
    fn lock(&self) -> std::sync::MutexGuard<'_, FlowState<S>> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn wait<'g>(&self, st: std::sync::MutexGuard<'g, FlowState<S>>) -> std::sync::MutexGuard<'g, FlowState<S>> {
        self.changed.wait(st).unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Take the next chunk from the source and parse it into `ready`; `false` at the end.
    fn parse_next(&self) -> bool {
        let mut source = self.source.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let next = source.next_parsed::<S>();
        let taken = source.taken;
        drop(source);
        let Some((seq, next)) = next else {
            let mut st = self.lock();
            st.taken = st.taken.max(taken);
            st.ended = true;
            drop(st);
            self.changed.notify_all();
            return false;
        };
        {
            let mut st = self.lock();
            st.taken = st.taken.max(taken);
        }
        let parsed = next.unwrap_or_else(|chunk| {
            let arena = self.arenas.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop().unwrap_or_default();
            S::parse(ChunkArena { chunk, arena })
        });
        self.lock().ready.insert(seq, parsed);
        self.changed.notify_all();
        true
    }

    /// Whether a thread may take another chunk: not at the end, and not too far ahead.
    fn may_take(st: &FlowState<S>) -> bool {
        !st.ended && !st.closed && st.taken < st.routed_to + LOOKAHEAD
    }

    /// A worker: free what was routed, parse ahead, until the flow is closed.
    fn work(&self) {
        loop {
            let mut st = self.lock();
            if let Some(done) = st.routed.pop() {
                drop(st);
                self.give_back(done);
                continue;
            }
            if Self::may_take(&st) {
                drop(st);
                self.parse_next();
                continue;
            }
            if st.closed {
                return;
            }
            drop(self.wait(st));
        }
    }

    /// Free a routed chunk's lines, hand its buffer back to the reader and keep its arena.
    fn give_back(&self, done: S::Parsed) {
        let buffers = match &self.recycle {
            Recycle::Buffers(buffers) => buffers,
            Recycle::Parsed(back) => {
                let _ = back.send(crate::formats::erase::<S>(done));
                return;
            }
        };
        let ChunkArena { chunk, mut arena } = S::into_owner(done);
        let _ = buffers.send(chunk);
        arena.reset();
        self.arenas.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(arena);
    }

    /// The next chunk in order, parsed; `None` at the end. While a worker still has it, this
    /// thread parses the next chunk no one has taken instead of waiting: with more threads than
    /// cores, a waiting router left a core idle.
    fn next_in_order(&self) -> Option<S::Parsed> {
        let mut st = self.lock();
        loop {
            let want = st.routed_to;
            if let Some(p) = st.ready.remove(&want) {
                return Some(p);
            }
            if st.ended && st.taken <= want {
                return None;
            }
            if Self::may_take(&st) {
                drop(st);
                self.parse_next();
                st = self.lock();
                continue;
            }
            st = self.wait(st);
        }
    }

    /// The chunk given by `next_in_order` is routed: a worker frees it (this thread does, when
    /// there is none).
    fn routed(&self, done: S::Parsed, workers: bool) {
        let mut st = self.lock();
        st.routed_to += 1;
        if workers {
            st.routed.push(done);
            drop(st);
            self.changed.notify_all();
        } else {
            drop(st);
            self.give_back(done);
        }
    }

    /// No more routing: the workers free what is left and end.
    fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }
}

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
    mark: DeltaMark,
    progress: Progress,
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

impl FileInfo {
    /// A planned input before it is read: no format, nothing counted yet.
    fn of(input: InputFile) -> FileInfo {
        FileInfo {
            path: input.path,
            display: input.display,
            format: None,
            records: 0,
            bad_lines: 0,
            bytes: 0,
            zstd: false,
        }
    }
}

impl Analysis {
    /// A finished analysis of these files.
    pub(crate) fn new(cx: Ctx, files: Vec<FileInfo>, cancelled: bool) -> Self {
        let file_names_json = files.iter().map(|f| name_json(&f.display)).collect();
        Analysis {
            cx,
            files,
            cancelled,
            file_names_json,
            provisional: None,
            prices: None,
            threads: Threads::PerCore,
            lineage: None,
        }
    }
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

/// A file's display name as a JSON string.
fn name_json(display: &str) -> String {
    let mut json = Vec::new();
    crate::text::json::escape_into(&mut json, display);
    String::from_utf8(json).unwrap_or_default()
}

/// How a file is read: with which threads, and whether its state machine is kept (a followed
/// log) or finished.
struct How<'k> {
    threads: Threads,
    keep: Option<&'k mut Option<KeptFile>>,
    /// The format that claimed the file in its plan (`Planned::format`): read as that format,
    /// without detection.
    claimed: Option<&'static FormatInfo>,
    /// The file as a read-ahead thread left it, when one came to it.
    ahead: Option<Fetched>,
}

/// What a read-ahead thread made of a planned file.
enum Fetched {
    /// A small file, read, detected and parsed.
    Read(ReadAhead),
    /// A larger or compressed one, opened: the calling thread reads it with its own threads.
    Opened(reader::Opened),
}

/// A small file read whole, its format detected and its chunks parsed, on the read-ahead thread
/// while the calling thread routes the files before it (`read_all` on a folder).
///
/// On a folder of thousands of small sessions (a Claude Code project, a Codex tree) each file
/// was read, parsed and routed on one thread, one after the other: the second core had nothing
/// to do. Parsing is most of the work (three fifths of the instructions on a Claude Code
/// project), and routing must stay in plan order on one thread; so the next files are read and
/// parsed beside the one being routed.
struct ReadAhead {
    /// As the plan named it or detection found it; `None`: in no known format.
    format: Option<&'static FormatInfo>,
    /// How many of the first lines detection read.
    head: usize,
    /// Its chunks, when they were not parsed (no format, or one that parses where it routes).
    pending: std::collections::VecDeque<Chunk>,
    /// Its chunks parsed, in order.
    parsed: std::collections::VecDeque<Box<dyn AheadParsed>>,
    /// The read error that ended it, if any.
    end: Option<std::io::Error>,
    /// Where routed chunks go back, whole.
    recycle: std::sync::mpsc::Sender<Box<dyn AheadParsed>>,
}

/// Files the read-ahead threads may be ahead of the one being routed, at most, and the buffer
/// bytes they may hold ready (each file is up to `SMALL_FILE`, with its parsed lines beside it).
const FILES_AHEAD: usize = 32;
const BYTES_AHEAD: u64 = 4 << 20;

/// The hand-off between the read-ahead threads and the calling thread, file by file in plan
/// order, as `Flow` does it chunk by chunk: a thread reads the next file no one has taken;
/// the calling thread takes each file in order, ready or not: one not yet taken it reads itself
/// rather than wait (the threads share the work when parsing is the slower side). Either waits
/// only when the other has what it needs, so a folder of 20,000 files does not cost 40,000
/// wake-ups.
#[derive(Default)]
struct Ahead {
    state: std::sync::Mutex<AheadState>,
    changed: std::sync::Condvar,
}

#[derive(Default)]
struct AheadState {
    /// The next file no one has taken.
    next: usize,
    /// The file the calling thread wants now.
    wanted: usize,
    /// Files read ahead and not yet taken (`None`: one for the calling thread to open), and
    /// their buffers' bytes.
    ready: std::collections::BTreeMap<usize, Option<Fetched>>,
    bytes: u64,
    /// Who waits: the calling thread for `wanted`, read-ahead threads for room.
    caller_waits: bool,
    threads_waiting: usize,
    closed: bool,
}

impl Ahead {
    fn lock(&self) -> std::sync::MutexGuard<'_, AheadState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn wait<'g>(&self, st: std::sync::MutexGuard<'g, AheadState>) -> std::sync::MutexGuard<'g, AheadState> {
        self.changed.wait(st).unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A read-ahead thread: read the next file no one has taken, while there is room.
    /// `paths` are the planned files (`None`: set aside), `claimed` the format each was claimed by.
    fn work(&self, paths: &[Option<PathBuf>], claimed: &[Option<&'static FormatInfo>]) {
        let (back, returned) = std::sync::mpsc::channel::<Box<dyn AheadParsed>>();
        let mut spare = Vec::new();
        let mut st = self.lock();
        loop {
            if st.closed || st.next >= paths.len() {
                return;
            }
            let room = st.ready.is_empty() || (st.next < st.wanted + FILES_AHEAD && st.bytes < BYTES_AHEAD);
            if !room {
                st.threads_waiting += 1;
                st = self.wait(st);
                st.threads_waiting -= 1;
                continue;
            }
            let i = st.next;
            st.next += 1;
            drop(st);
            let read = paths[i].as_ref().and_then(|path| read_small(path, claimed[i], &back, &returned, &mut spare));
            st = self.lock();
            st.bytes += read.as_ref().map_or(0, Fetched::bytes);
            st.ready.insert(i, read);
            if st.caller_waits && st.wanted == i {
                self.changed.notify_all();
            }
        }
    }

    /// File `index`, as a read-ahead thread left it, or `None` for the calling thread to open
    /// (taken from the threads when none had come to it yet).
    fn take(&self, index: usize) -> Option<Fetched> {
        let mut st = self.lock();
        st.wanted = index;
        let read = loop {
            if let Some(read) = st.ready.remove(&index) {
                break read;
            }
            if st.next <= index {
                st.next = index + 1;
                break None;
            }
            st.caller_waits = true;
            st = self.wait(st);
            st.caller_waits = false;
        };
        st.bytes -= read.as_ref().map_or(0, Fetched::bytes);
        if st.threads_waiting > 0 {
            self.changed.notify_all();
        }
        read
    }

    /// No more files are wanted: the threads end.
    fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }
}

impl Fetched {
    /// The bytes its buffers hold (its parsed lines come on top).
    fn bytes(&self) -> u64 {
        let Fetched::Read(read) = self else { return 0 };
        let of = |c: &Chunk| c.bytes.capacity() as u64;
        read.pending.iter().map(of).chain(read.parsed.iter().map(|p| of(&p.owner().chunk))).sum()
    }
}

/// A small plain file read whole, detected and parsed; a compressed one or one larger than
/// `SMALL_FILE` only opened (the calling thread reads those as before); `None` for one that
/// cannot be opened (the calling thread tries again, and says why).
fn read_small(
    path: &std::path::Path,
    claimed: Option<&'static FormatInfo>,
    back: &std::sync::mpsc::Sender<Box<dyn AheadParsed>>,
    returned: &std::sync::mpsc::Receiver<Box<dyn AheadParsed>>,
    spare: &mut Vec<Chunk>,
) -> Option<Fetched> {
    // Chunks routed since come back here: their lines are freed and their buffers kept.
    for p in returned.try_iter() {
        let chunk = p.into_owner().chunk;
        if spare.len() < 4 && chunk.bytes.capacity() <= 4 << 20 {
            spare.push(chunk);
        }
    }
    let opened = reader::open_stream(path).ok()?;
    if opened.zstd || opened.len > SMALL_FILE {
        return Some(Fetched::Opened(opened));
    }
    let reader::Opened { stream, len, .. } = opened;
    let (_, rx) = std::sync::mpsc::sync_channel(0);
    let (to_self, from_self) = std::sync::mpsc::channel::<Chunk>();
    // A buffer much larger than this file would be held for nothing (by each file read ahead,
    // up to `FILES_AHEAD` of them): it is let go, and one the file's size is made.
    let fits = small_target(len) * 2 + (64 << 10);
    for c in spare.drain(..).filter(|c| c.bytes.len() <= fits) {
        let _ = to_self.send(c);
    }
    let mut source = Source {
        pending: std::collections::VecDeque::new(),
        rx,
        inline: Some((small_blocks(stream, len), from_self)),
        taken: 0,
        end: None,
        parsed: Default::default(),
    };
    // The head and the format exactly as `read_head` finds them; then the rest, when there is a
    // format to read it (a file in no known format is left where detection stopped).
    let (head, format) = source.detect(claimed);
    if format.is_some() {
        while source.read_ahead().is_some() {}
    }
    let mut pending = std::mem::take(&mut source.pending);
    let parsed = match format.and_then(|f| f.reader.parse_ahead()) {
        Some(parse) => {
            pending.drain(..).map(|chunk| parse(ChunkArena { chunk, arena: bumpalo::Bump::new() })).collect()
        }
        None => Default::default(),
    };
    let end = source.end.take().flatten();
    // Unused buffers are kept for the next file (not in this thread's spare list).
    if let Some((_, from_self)) = source.inline.take() {
        spare.extend(from_self.try_iter());
    }
    Some(Fetched::Read(ReadAhead { format, head, pending, parsed, end, recycle: back.clone() }))
}

/// A plain file up to this size is read on the calling thread (`read_file`).
const SMALL_FILE: u64 = 4 << 20;

/// Read one file: detect its format from its first lines and hand it to that format; `false`
/// when the observer cancelled.
fn read_file(
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
    format.reader.read(Reading {
        cx,
        source,
        recycle,
        head,
        file,
        info,
        progress,
        base_bytes,
        threads,
        tell,
        keep,
        format,
    })
}

/// An opened file's head read and its format detected (`None`: in no known format), with the
/// threads it is read with; `None` when it could not be opened (the finding is added).
fn read_head(
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

/// The blocks of a small file of `len` bytes read on one thread.
fn small_blocks(stream: Box<dyn std::io::Read + Send>, len: u64) -> Blocks {
    reader::LineBlocks::with_sizes(stream, small_target(len), 1 << 16, reader::MAX_LINE)
}

/// The block size for a small file of `len` bytes: a little larger than the file holds all of it
/// (reads ask for whole pages); the usual megabyte was a megabyte to zero for each file of a few
/// kilobytes.
fn small_target(len: u64) -> usize {
    usize::try_from(len).unwrap_or(usize::MAX).min(1 << 20) + 3 * 4096
}

/// One file being read, handed to its format (`Format::read`), which makes its state machine and
/// gives it to `route`.
pub struct Reading<'a> {
    cx: &'a mut Ctx,
    source: Source,
    recycle: Recycle,
    /// How many of the first lines detection read (they are the first lines of `source.pending`).
    head: usize,
    file: u32,
    info: &'a mut FileInfo,
    progress: &'a mut Progress,
    base_bytes: u64,
    threads: Threads,
    tell: &'a mut dyn FnMut(&Ctx, &Progress) -> bool,
    /// Where the state machine goes, unfinished, when the log is followed (`None`: finish it).
    keep: Option<&'a mut Option<KeptFile>>,
    format: &'static FormatInfo,
}

impl Reading<'_> {
    /// The file's name as the report shows it.
    pub fn display(&self) -> &str {
        &self.info.display
    }

    /// Where the file is.
    pub fn path(&self) -> &std::path::Path {
        &self.info.path
    }

    /// The file's first lines (those detection read).
    pub fn head(&self) -> crate::formats::Head<'_> {
        self.source.head(self.head)
    }

    /// `head`, a line at a time.
    pub fn head_lines(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.head().lines()
    }

    /// Route every line of the file through `state` in wire order, then finish it; `false` when
    /// the observer cancelled.
    ///
    /// A reader thread splits the stream into chunks of whole lines; worker threads (one per core)
    /// parse them into `M::Shape`'s lines and free them once routed; this thread routes them, in
    /// order, and parses too rather than wait.
    pub fn route<M: Machine>(self, mut state: M) -> bool {
        let Reading { cx, source, recycle, head, file, info, progress, base_bytes, threads, tell, keep, format } = self;
        let head_open = head < DETECT_LINES && !format.reader.head_settled(source.head(head));
        let hold = keep.is_some();
        let mut tail = None;
        let mut last_told = base_bytes;
        let mut read_to = 0;
        let mut last_line = 0;
        let workers = match threads {
            Threads::PerCore => worker_threads(),
            Threads::Caller => 0,
        };
        let flow = Flow::<M::Shape> {
            source: std::sync::Mutex::new(source),
            state: std::sync::Mutex::new(FlowState::default()),
            changed: std::sync::Condvar::new(),
            recycle,
            arenas: std::sync::Mutex::new(Vec::new()),
        };
        let mut cancelled = false;
        std::thread::scope(|scope| {
            // Closed however this thread leaves (a panic too): the scope waits for the workers, and
            // they wait for the close.
            let _close = CloseOnDrop(&flow);
            let named = || std::thread::Builder::new().name("arbor-parse".into());
            let started = (0..workers).filter(|_| named().spawn_scoped(scope, || flow.work()).is_ok()).count();
            // Route in wire order as the chunks are parsed (this thread parses too while it would
            // wait, and parses everything when no worker could be started); each routed chunk goes
            // back to the workers to be freed.
            while let Some(parsed) = flow.next_in_order() {
                let chunk = &M::Shape::owner(&parsed).chunk;
                if let Some(t) = route_lines(&mut state, cx, info, file, chunk, M::Shape::lines(&parsed), hold) {
                    tail = Some(t);
                }
                read_to = chunk.read_to;
                last_line = chunk.lines.last().map_or(last_line, |l| l.number);
                flow.routed(parsed, started > 0);
                progress.bytes_read = base_bytes + read_to;
                // Tell the observer early (the first sessions), then about every 16 MB.
                if last_told == base_bytes || progress.bytes_read - last_told >= 16 << 20 {
                    last_told = progress.bytes_read;
                    progress.records = cx.records.len() as u64;
                    progress.sessions = cx.graph.len();
                    progress.findings = cx.findings.list.len();
                    if !tell(cx, progress) {
                        cancelled = true;
                        break;
                    }
                }
            }
        });
        if cancelled {
            return false;
        }
        let end = flow.source.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).end.take();
        if let Some(Some(e)) = end {
            // A read error (a corrupt zstd frame) ends this file; what was read stays.
            cx.findings.add(
                Code::UnreadableInput,
                Loc { file, line: last_line + 1 },
                None,
                format!("reading stopped here: {e}"),
            );
        }
        info.bytes = read_to;
        match keep {
            // Kept to be fed what is appended: the unfinished last line waits for its newline.
            Some(slot) => {
                let (consumed, lines) = match &tail {
                    Some(t) => (t.lines[0].offset, t.lines[0].number - 1),
                    None => (read_to, last_line),
                };
                *slot = Some(KeptFile { machine: Box::new(Held(state)), consumed, lines, tail, head_open });
            }
            None => {
                cx.graph.set_place(Loc { file, line: last_line });
                state.finish(cx)
            }
        }
        progress.bytes_read = base_bytes + info.bytes;
        progress.records = cx.records.len() as u64;
        true
    }
}

/// Route one chunk's lines through `state`: each line that parsed, in order; a finding for each
/// that did not. With `hold_tail`, a last line with no newline (a log still being written) is
/// not routed but given back, alone in a block of its own, to be routed once it is finished.
#[inline]
fn route_lines<M: Machine>(
    state: &mut M,
    cx: &mut Ctx,
    info: &mut FileInfo,
    file: u32,
    chunk: &Chunk,
    parsed: &[Option<<M::Shape as Shape>::Line<'_>>],
    hold_tail: bool,
) -> Option<Chunk> {
    for (i, (&span, line)) in chunk.lines.iter().zip(parsed).enumerate() {
        let reader::Span { number, offset, start, end, how } = span;
        if let Some(Some(ahead)) = parsed.get(i + PREFETCH) {
            M::Shape::prefetch(ahead);
        }
        let bytes = &chunk.bytes[start..end];
        if hold_tail && how == LineEnd::EndOfFile {
            return Some(Chunk {
                bytes: bytes.to_vec(),
                lines: vec![reader::Span { number, offset, start: 0, end: bytes.len(), how }],
                read_to: offset + bytes.len() as u64,
            });
        }
        let at = Loc { file, line: number };
        match line {
            Some(line) => {
                info.records += 1;
                cx.graph.set_place(at);
                state.line(cx, line, at, offset);
            }
            None if how != LineEnd::Overlong && bytes.iter().all(|b| b.is_ascii_whitespace()) => {}
            None if how == LineEnd::Overlong => {
                info.bad_lines += 1;
                cx.findings.add(
                    Code::MalformedLine,
                    at,
                    None,
                    format!("the line is longer than {} MiB: skipped without reading it", reader::MAX_LINE >> 20),
                );
            }
            None => {
                info.bad_lines += 1;
                if how == LineEnd::Newline {
                    cx.findings.add(Code::MalformedLine, at, None, malformed_why(bytes));
                } else {
                    cx.findings.add(
                        Code::TruncatedFinalLine,
                        at,
                        None,
                        "the last line has no final newline and does not parse: the log was still being written",
                    );
                }
            }
        }
    }
    None
}

/// A file's state machine kept after its lines were read (a followed log), to be fed what is
/// appended to it.
pub(crate) struct KeptFile {
    pub(crate) machine: Box<dyn Kept>,
    /// The stream offset after the last whole line routed, and that line's number.
    pub(crate) consumed: u64,
    pub(crate) lines: u64,
    /// The unfinished last line (no newline yet), alone in a block: routed only into copies.
    pub(crate) tail: Option<Chunk>,
    /// The file had fewer first lines than detection reads and its format could still read it
    /// otherwise with more (`Format::head_settled`): when it grows it is read again whole.
    pub(crate) head_open: bool,
}

impl Clone for KeptFile {
    fn clone(&self) -> Self {
        KeptFile {
            machine: self.machine.clone_box(),
            consumed: self.consumed,
            lines: self.lines,
            tail: self.tail.as_ref().map(|t| Chunk {
                bytes: t.bytes.clone(),
                lines: t.lines.clone(),
                read_to: t.read_to,
            }),
            head_open: self.head_open,
        }
    }
}

/// A state machine of some format, kept: fed blocks of whole lines, parsed on the calling thread.
pub(crate) trait Kept: Send {
    /// Route a block's lines; the block is given back to be filled again.
    fn feed(&mut self, cx: &mut Ctx, info: &mut FileInfo, file: u32, block: Chunk) -> Chunk;
    fn finish(&mut self, cx: &mut Ctx);
    /// `Machine::finish_copy`.
    fn finish_copy(&self, cx: &mut Ctx);
    fn clone_box(&self) -> Box<dyn Kept>;
}

struct Held<M>(M);

impl<M: Machine> Kept for Held<M> {
    fn feed(&mut self, cx: &mut Ctx, info: &mut FileInfo, file: u32, block: Chunk) -> Chunk {
        let parsed = M::Shape::parse(ChunkArena { chunk: block, arena: bumpalo::Bump::new() });
        route_lines(&mut self.0, cx, info, file, &M::Shape::owner(&parsed).chunk, M::Shape::lines(&parsed), false);
        M::Shape::into_owner(parsed).chunk
    }

    fn finish(&mut self, cx: &mut Ctx) {
        self.0.finish(cx)
    }

    fn finish_copy(&self, cx: &mut Ctx) {
        self.0.finish_copy(cx)
    }

    fn clone_box(&self) -> Box<dyn Kept> {
        Box::new(Held(self.0.clone()))
    }
}

/// Lines ahead of the one being routed whose payloads are fetched into the cache.
const PREFETCH: usize = 4;

fn malformed_why(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Err(e) => format!("the line is not valid UTF-8 (at byte {})", e.valid_up_to()),
        Ok(s) => match serde_json::from_str::<serde::de::IgnoredAny>(s) {
            Err(e) => format!("the line is not JSON: {e}"),
            // An object the shapes refuse: a repeated field, a number out of range or a broken
            // escape in a field, nesting past 127 levels; serde_json's reading says which.
            Ok(_) if s.trim_start().starts_with('{') => match serde_json::from_str::<crate::wire::Line>(s) {
                Err(e) => format!("the line is a JSON object that cannot be read: {e}"),
                Ok(_) => "the line is a JSON object that could not be read".to_owned(),
            },
            Ok(_) => "the line is JSON but not an object".to_owned(),
        },
    }
}

impl Analysis {
    /// A recording's turns, replies and boundary findings for a session that also has a durable
    /// log are left out: the durable log is the fact log (SPEC 2.3).
    pub(crate) fn superseded_by_durable(&self, file: u32, session: Sym) -> bool {
        self.files[file as usize].format.is_some_and(|f| f.reader.defers_to_durable())
            && self.cx.durable.contains(&session)
    }

    pub fn name(&self, s: Sym) -> &str {
        self.cx.ids.name(s)
    }

    pub fn records(&self) -> &Records {
        &self.cx.records
    }

    /// The raw text of a line of an input, read back from the file.
    pub fn raw_line(&self, file: &str, line: u64) -> Option<String> {
        let (ix, info) = self.files.iter().enumerate().find(|(_, f)| f.display == file)?;
        let offset = self.cx.find_record(Loc { file: ix as u32, line }).map(|i| self.cx.records[i].offset());
        let bytes = match offset {
            Some(o) => reader::raw_line_at(&info.path, o).ok()?,
            None => reader::raw_line_numbered(&info.path, line).ok()??,
        };
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The wire time of the record at a place (records are in wire order: a binary search).
    pub(crate) fn time_at(&self, at: Loc) -> Option<f64> {
        let t = self.cx.records[self.cx.find_record(at)?].time;
        (!t.is_nan()).then_some(t)
    }

    /// The texts of every reply the report shows (with `replies` false, only the waits'), read
    /// back from the files in offset order (a seek per reply for plain files, one pass for zstd),
    /// each file split between threads.
    pub(crate) fn reply_texts(&self, replies: bool) -> ReplyTexts {
        let cx = &self.cx;
        // Each reply with the turn it is the reply of (`NO_TURN` for the others), so that the
        // report, which asks for them in turn order, finds a turn's without a search.
        let mut owned: Vec<(TextRef, u32)> = Vec::new();
        if replies {
            owned.extend(
                cx.turns
                    .list
                    .iter()
                    .enumerate()
                    .filter_map(|(i, t)| Some((cx.text_ref(t.reply()?)?, u32::try_from(i).ok()?))),
            );
            owned.extend(cx.loose_replies.iter().map(|r| (r.text, NO_TURN)));
        }
        for w in &cx.waits {
            owned.extend(w.reply.map(|r| (r, NO_TURN)));
            owned.extend(w.naive.reply.flatten().map(|r| (r, NO_TURN)));
        }
        self.texts_of(owned)
    }

    /// The texts at `refs` (each with the turn it is the reply of, or `NO_TURN`), read back as
    /// `reply_texts` reads them: a view growing with a followed log reads only its new waits'.
    pub(crate) fn texts_at(&self, refs: impl IntoIterator<Item = TextRef>) -> ReplyTexts {
        self.texts_of(refs.into_iter().map(|r| (r, NO_TURN)).collect())
    }

    fn texts_of(&self, mut owned: Vec<(TextRef, u32)>) -> ReplyTexts {
        let cx = &self.cx;
        owned.sort_by_key(|(r, _)| (r.at.file, r.offset));
        let mut refs: Vec<TextRef> = Vec::with_capacity(owned.len());
        let mut by_turn = vec![NO_TURN; cx.turns.list.len()];
        for (r, turn) in owned {
            if refs.last() != Some(&r) {
                refs.push(r);
            }
            if let Some(slot) = by_turn.get_mut(turn as usize) {
                *slot = (refs.len() - 1) as u32;
            }
        }
        let threads = match self.threads {
            Threads::PerCore => worker_threads(),
            Threads::Caller => 1,
        };
        // Parts of at most a few thousand replies, in order: each is read on a thread of its own
        // into one buffer (here, with `Threads::Caller`).
        let mut parts: Vec<&[TextRef]> = Vec::new();
        for group in refs.chunk_by(|a, b| a.at.file == b.at.file) {
            // A zstd stream is read from its start: one part, one pass.
            let zstd = self.files.get(group[0].at.file as usize).is_some_and(|f| f.zstd);
            let n = if zstd { 1 } else { threads };
            parts.extend(group.chunks(group.len().div_ceil(n).max(1)));
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let read_part = |part: &[TextRef]| {
            let mut text = String::new();
            let mut ends: Vec<usize> = Vec::with_capacity(part.len());
            if let Some(info) = self.files.get(part[0].at.file as usize) {
                // Where routing saw the text's string, just that is read and decoded; the rest
                // are read as whole lines and parsed again. Spans and replies are both in offset
                // order: one walk pairs them.
                let mut spans = cx.text_spans_of(part[0].at.file).skip_while(|s| s.0 < part[0].offset).peekable();
                let pieces: Vec<(u64, reader::Piece)> = part
                    .iter()
                    .map(|r| {
                        while spans.next_if(|s| s.0 < r.offset).is_some() {}
                        match spans.next_if(|s| s.0 == r.offset) {
                            Some((_, (start, len))) => (r.offset + u64::from(start), reader::Piece::Bytes(len)),
                            None => (r.offset, reader::Piece::Line),
                        }
                    })
                    .collect();
                let read = reader::each_piece_at(&info.path, &pieces, |i, bytes| {
                    match (bytes, pieces[i].1) {
                        // Nothing when it is no longer a JSON string (the file changed since it was read).
                        (Some(b), reader::Piece::Bytes(_)) => {
                            crate::text::json::push_json_string(&mut text, b);
                        }
                        (Some(b), reader::Piece::Line) => {
                            text.push_str(&info.format.map_or_else(String::new, |f| f.reader.reply_text(b)))
                        }
                        (None, _) => {}
                    }
                    ends.push(text.len());
                });
                if read.is_err() {
                    // A file that cannot be read again (a corrupt zstd frame) gives empty texts.
                    text.clear();
                    ends.clear();
                }
            }
            ends.resize(part.len(), text.len());
            text.shrink_to_fit();
            (text, ends)
        };
        let mut done: Vec<Option<(String, Vec<usize>)>> = parts.iter().map(|_| None).collect();
        if self.threads == Threads::Caller {
            for (slot, part) in done.iter_mut().zip(&parts) {
                *slot = Some(read_part(part));
            }
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|_| {
                        scope.spawn(|| {
                            let mut mine = Vec::new();
                            loop {
                                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let Some(part) = parts.get(i) else { return mine };
                                mine.push((i, read_part(part)));
                            }
                        })
                    })
                    .collect();
                for h in handles {
                    for (i, r) in h.join().unwrap_or_default() {
                        done[i] = Some(r);
                    }
                }
            });
        }
        // The parts' buffers are kept as they are: joining them would copy every text once more.
        // The parts are `refs` cut in order, so `refs` is kept as the index, not copied.
        let lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();
        drop(parts);
        let mut texts = ReplyTexts { refs, by_turn, spans: Vec::new(), parts: Vec::new() };
        for (len, r) in lens.into_iter().zip(done) {
            let (text, ends) = r.unwrap_or_else(|| (String::new(), vec![0; len]));
            let p = texts.parts.len() as u32;
            let mut start = 0;
            texts.spans.extend(ends.into_iter().map(|end| {
                let span = (p, start, end);
                start = end;
                span
            }));
            texts.parts.push(text);
        }
        texts
    }

    /// The texts of what parents received (`Ctx::received`), in its order, each read back from
    /// its line by its format; `""` for one that cannot be read. Each file is opened once for all
    /// of its lines (a folder of ten thousand sub-agents opened a file for each).
    pub(crate) fn received_texts(&self) -> Vec<String> {
        self.received_texts_of(&(0..self.cx.received.len()).collect::<Vec<_>>())
    }

    /// The texts of the received items `which` (indices into `Ctx::received`), in that order,
    /// read as `received_texts` reads them.
    pub(crate) fn received_texts_of(&self, which: &[usize]) -> Vec<String> {
        let received = &self.cx.received;
        let mut texts = vec![String::new(); which.len()];
        // Positions in `which`, by file and offset.
        let mut order: Vec<usize> = (0..which.len()).collect();
        let rec = |k: usize| &received[which[k]];
        order.sort_by_key(|&k| (rec(k).at.at.file, rec(k).at.offset));
        for group in order.chunk_by(|&a, &b| rec(a).at.at.file == rec(b).at.at.file) {
            let Some(info) = self.files.get(rec(group[0]).at.at.file as usize) else { continue };
            let Some(format) = info.format else { continue };
            let pieces: Vec<(u64, reader::Piece)> =
                group.iter().map(|&k| (rec(k).at.offset, reader::Piece::Line)).collect();
            // Two received texts may be read from one line (one result of several). A plain file
            // seeks back to it; a zstd stream cannot, and answers `None` for it: that line is then
            // read on its own.
            let _ = reader::each_piece_at(&info.path, &pieces, |j, bytes| {
                let k = group[j];
                let line = match bytes {
                    Some(b) => Some(std::borrow::Cow::Borrowed(b)),
                    None => reader::raw_line_at(&info.path, rec(k).at.offset).ok().map(std::borrow::Cow::Owned),
                };
                if let Some(line) = line {
                    texts[k] = format.reader.received_text(&line, rec(k).key.as_deref());
                }
            });
        }
        texts
    }

    /// Names each input that lies under `folder` by its path relative to `folder` (with `/`
    /// separators), as if `folder` itself had been opened. `arbor analyze --each` reads a folder
    /// one part at a time, and its reports name files as a reading of the whole folder would.
    pub fn name_files_under(&mut self, folder: &std::path::Path) {
        for (f, json) in self.files.iter_mut().zip(&mut self.file_names_json) {
            let Ok(rel) = f.path.strip_prefix(folder) else { continue };
            f.display = rel.to_string_lossy().replace('\\', "/");
            *json = name_json(&f.display);
        }
    }

    /// The owned report (the app sends it over IPC; tests read it).
    pub fn report(&self) -> Report {
        ReportParts::new(self).to_report()
    }

    /// The report as pretty JSON, written straight from the analysis: the same bytes as
    /// serialising `report()`, without materialising it.
    pub fn write_report_json<W: std::io::Write>(&self, out: W) -> serde_json::Result<()> {
        let threads = match self.threads {
            Threads::PerCore => worker_threads(),
            Threads::Caller => 0,
        };
        ReportParts::new(self).write_pretty(out, threads)
    }
}

/// What a delta says of one session: enough to draw it in a tree before the analysis ends.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct SessionDelta {
    pub id: String,
    pub parent: Option<String>,
    pub label: Option<String>,
}

/// A run edge made since the last delta: `child` now hangs under `parent`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct EdgeDelta {
    pub child: String,
    pub parent: Option<String>,
}

/// What the analysis found since the last delta: new sessions, new run edges, new findings.
/// The final report supersedes every delta.
#[derive(Debug, Clone, serde::Serialize, ts_rs::TS)]
pub struct Delta {
    pub progress: Progress,
    pub sessions: Vec<SessionDelta>,
    pub edges: Vec<EdgeDelta>,
    pub findings: Vec<report::Diagnostic>,
}

/// Where the last delta stopped, per kind of fact.
#[derive(Debug, Default)]
struct DeltaMark {
    sessions: usize,
    runs: usize,
    findings: usize,
}

impl DeltaMark {
    /// What is new since the last time, with files named by `file`.
    fn take<'n>(&mut self, cx: &Ctx, file: impl Fn(usize) -> Option<&'n str>, progress: &Progress) -> Delta {
        let name = |s: Sym| cx.ids.name(s).to_owned();
        let sessions = cx
            .graph
            .order_since(self.sessions)
            .iter()
            .filter_map(|&s| cx.graph.get(s))
            .map(|n| SessionDelta {
                id: name(n.id),
                parent: n.parent.map(name),
                label: cx.graph.label(n).map(str::to_owned),
            })
            .collect::<Vec<_>>();
        let edges = cx
            .graph
            .runs_since(self.runs)
            .iter()
            .map(|&(c, p)| EdgeDelta { child: name(c), parent: p.map(name) })
            .collect::<Vec<_>>();
        let findings = cx.findings.list[self.findings.min(cx.findings.list.len())..]
            .iter()
            .map(|f| report::Diagnostic {
                code: f.code.as_str().to_owned(),
                severity: f.code.severity(),
                at: Place { file: file(f.at.file as usize).unwrap_or_default().to_owned(), line: f.at.line },
                session: f.session.map(name),
                message: f.message.clone(),
                time: None,
            })
            .collect::<Vec<_>>();
        self.sessions += sessions.len();
        self.runs += edges.len();
        self.findings = cx.findings.list.len();
        Delta { progress: *progress, sessions, edges, findings }
    }
}

/// One record as a view shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct RecordView {
    /// The record's position in the whole analysis (wire order across inputs).
    #[ts(type = "number")]
    pub index: usize,
    pub file: String,
    #[ts(type = "number")]
    pub line: u64,
    pub session: Option<String>,
    pub kind: &'static str,
    /// Epoch milliseconds, when the log has a clock.
    pub time: Option<f64>,
}

/// A search hit: a session (by id or label) or a record (by event kind or text).
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Hit {
    Session { id: String, label: Option<String> },
    Record { record: RecordView, text: String },
}

/// A page of records: `records` are those from `offset` on, of `total` in all.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct RecordPage {
    #[ts(type = "number")]
    pub total: usize,
    #[ts(type = "number")]
    pub offset: usize,
    pub records: Vec<RecordView>,
}

impl Analysis {
    pub fn record_view(&self, index: usize) -> Option<RecordView> {
        let r = self.cx.records.get(index)?;
        Some(RecordView {
            index,
            file: self.files.get(self.cx.file_of(index)? as usize)?.display.clone(),
            line: r.line as u64,
            session: (r.session != crate::ctx::NO_SESSION).then(|| self.cx.ids.name(Sym(r.session)).to_owned()),
            kind: r.kind().as_str(),
            time: (!r.time.is_nan()).then_some(r.time),
        })
    }

    /// The record at a place.
    pub fn find_record(&self, file: &str, line: u64) -> Option<usize> {
        let f = self.files.iter().position(|f| f.display == file)? as u32;
        self.cx.find_record(Loc { file: f, line })
    }

    /// The records around one in its own file: up to `before` before it, up to `after` after it,
    /// itself included.
    pub fn records_around(&self, index: usize, before: usize, after: usize) -> Vec<RecordView> {
        let lo = index.saturating_sub(before);
        let hi = index.saturating_add(after).saturating_add(1).min(self.cx.records.len());
        // Neighbours come from the record's own file: the record index joins the files one after
        // another, and the lines before a file's first are another file's last.
        let Some(file) = self.cx.file_of(index) else { return Vec::new() };
        let segment = self.cx.records_of(file).find(|r| r.contains(&index)).unwrap_or(index..index + 1);
        (lo.max(segment.start)..hi.min(segment.end)).filter_map(|i| self.record_view(i)).collect()
    }

    /// The notifications of a dsh-rpc root turn that the naive reading drops (SPEC 2.1): those
    /// attributed to the root during the turn whose `sessionId` (for lifecycle, `parentSessionId`)
    /// is not the root's, i.e. a descendant's events and statuses and the lifecycle of its
    /// children. The turn is named by its root and its start place, as the report's `waits` name
    /// it. Records `offset..offset + limit` of them in wire order, and how many there are; `None`
    /// when there is no such root turn (a Copilot wait drops nothing: `total` 0).
    pub fn naive_dropped(&self, root: &str, file: &str, line: u64, offset: usize, limit: usize) -> Option<RecordPage> {
        let f = self.files.iter().position(|f| f.display == file)? as u32;
        let start = Loc { file: f, line };
        let wait = self.cx.waits.iter().find(|w| w.start == Some(start) && self.cx.ids.name(w.root) == root)?;
        let total = wait.dropped.len();
        let records =
            wait.dropped.iter().skip(offset).take(limit).filter_map(|i| self.record_view(i as usize)).collect();
        Some(RecordPage { total, offset, records })
    }

    /// Sessions whose id or label contains `query`, then records whose kind or raw text does
    /// (case-insensitive), at most `limit` hits in all. Text is read back from the files.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        let q = query.to_lowercase();
        if q.is_empty() || limit == 0 {
            return Vec::new();
        }
        let mut hits = Vec::new();
        for n in self.cx.graph.nodes() {
            let id = self.cx.ids.name(n.id);
            let label = self.cx.graph.label(n);
            let label_hit = label.is_some_and(|l| l.to_lowercase().contains(&q));
            if id.to_lowercase().contains(&q) || label_hit {
                hits.push(Hit::Session { id: id.to_owned(), label: label.map(str::to_owned) });
                if hits.len() >= limit {
                    return hits;
                }
            }
        }
        for info in &self.files {
            if info.format.is_none() {
                continue;
            }
            let Ok(r) = reader::open(&info.path) else { continue };
            let mut lines = Lines::new(r);
            while let Ok(Some(l)) = lines.next_line() {
                let text = String::from_utf8_lossy(l.bytes);
                if !text.to_lowercase().contains(&q) {
                    continue;
                }
                let Some(ix) = self.find_record(&info.display, l.number) else { continue };
                let Some(record) = self.record_view(ix) else { continue };
                hits.push(Hit::Record { record, text: snippet(&text, &q, 240) });
                if hits.len() >= limit {
                    return hits;
                }
            }
        }
        hits
    }
}

/// Up to `width` characters of `text` around the first case-insensitive match of `q` (`q` is
/// lowercase already).
pub(crate) fn snippet(text: &str, q: &str, width: usize) -> String {
    // Lowercase char by char, remembering which original char each lowered byte came from:
    // lowercasing can change lengths (`İ` becomes two chars), so offsets must map back.
    let mut lower = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    for (i, c) in text.chars().enumerate() {
        for l in c.to_lowercase() {
            lower.push(l);
            origin.extend(std::iter::repeat_n(i, l.len_utf8()));
        }
    }
    let at = lower.find(q).map_or(0, |b| origin[b]);
    let start = at.saturating_sub(width / 3);
    let mut out: String = text.chars().skip(start).take(width).collect();
    if start > 0 {
        out.insert(0, '…');
    }
    out
}
