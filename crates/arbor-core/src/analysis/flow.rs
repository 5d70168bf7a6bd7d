//! The driver's loop for one file: a reader thread splits the stream into chunks of whole lines,
//! worker threads parse them as the file's machine's shape, and the calling thread routes them
//! through the machine in order (`Route`); the machine a format returned (`Routed`) never calls
//! back into the driver.

use crate::ctx::Ctx;
use crate::finding::{Code, Loc};
use crate::formats::{detect, AheadParsed, ChunkArena, FormatInfo, LineCounts, ParseAhead, Routed, DETECT_LINES};
use crate::reader::{self};

use super::delta::Progress;
use super::value::{worker_threads, FileInfo, Threads};

/// Whole lines of a file, read straight into the block's buffer (see `reader::LineBlocks`).
pub(crate) type Chunk = reader::Block;

/// Where routed chunks go back.
pub(crate) enum Recycle {
    /// Their buffers, to the thread that reads the file, to be filled again.
    Buffers(std::sync::mpsc::Sender<Chunk>),
    /// Whole, with their parsed lines, to the read-ahead thread (`ReadAhead`): it frees the lines
    /// where it made them, and fills the buffers again. (Freed on the routing thread, every
    /// allocation went back to the other thread's heap under its lock, and the two threads spent
    /// more on that lock than routing cost.)
    Parsed(std::sync::mpsc::Sender<Box<dyn AheadParsed>>),
}

/// What the reader thread sends: chunks in order, then the end (with a read error, if any).
pub(crate) enum Piece {
    Chunk(Chunk),
    End(Option<std::io::Error>),
}

/// Read `input` on a thread of its own, sending chunks of whole lines through a small queue.
/// Chunks sent back on the returned sender are filled again instead of new ones being made: a
/// fresh megabyte is a megabyte of page faults and zeroing, which cost more than reading it.
pub(crate) fn spawn_reader(
    input: Box<dyn std::io::Read + Send>,
) -> (std::sync::mpsc::Receiver<Piece>, std::sync::mpsc::Sender<Chunk>) {
    let (tx, rx) = std::sync::mpsc::sync_channel(4);
    let (recycle, recycled) = std::sync::mpsc::channel::<Chunk>();
    let spawned = std::thread::Builder::new().name("arbor-read".into()).spawn(move || {
        let mut blocks = reader::LineBlocks::with_sizes(input, FLOW_BLOCK, 1 << 16, reader::MAX_LINE);
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

/// Chunks parsed ahead of the router at most: parsed lines take about three times the bytes
/// of their chunk, and are freed as soon as they are routed.
pub(crate) const LOOKAHEAD: u64 = 8;

/// The bytes of a chunk the reader thread hands over. A quarter of a megabyte keeps what is in
/// flight (eight chunks ahead, their parsed lines beside them) near the size of the cores' caches,
/// so a chunk is parsed and routed while its bytes and lines are still in them: against 1 MiB
/// chunks, 5-10 % less CPU and 20-30 MB less peak memory on 200 MB logs (`bench/cpu`).
pub(crate) const FLOW_BLOCK: usize = 256 << 10;

/// Closes a flow when dropped.
pub(crate) struct CloseOnDrop<'a>(&'a Flow);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// A file's blocks of lines, read where they are asked for (`Threads::Caller`).
pub(crate) type Blocks = reader::LineBlocks<Box<dyn std::io::Read + Send>>;

/// A chunk taken from a source: parsed ahead, or to be parsed.
pub(crate) type Taken = Result<Box<dyn AheadParsed>, Chunk>;

/// Where chunks come from, in order: those read ahead for detection, then the reader thread.
pub(crate) struct Source {
    pub(super) pending: std::collections::VecDeque<Chunk>,
    pub(super) rx: std::sync::mpsc::Receiver<Piece>,
    /// `Threads::Caller`: the blocks are read here, on demand, instead of by a reader thread
    /// (with the buffers given back through `recycle`, as that thread would).
    pub(super) inline: Option<(Blocks, std::sync::mpsc::Receiver<Chunk>)>,
    /// Chunks taken so far (the sequence number of the next one).
    pub(super) taken: u64,
    /// Set at the end of the stream, with the read error that ended it, if any.
    pub(super) end: Option<Option<std::io::Error>>,
    /// A file read and parsed ahead (`Ahead`): its chunks, parsed, in order (then `pending` and
    /// the reader are empty, and `end` is set).
    pub(super) parsed: std::collections::VecDeque<Box<dyn AheadParsed>>,
}

impl Source {
    /// Read one more chunk into `pending` (detection looks at it first); `None` at the end.
    pub(super) fn read_ahead(&mut self) -> Option<&Chunk> {
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
    pub(super) fn detect(&mut self, claimed: Option<&'static FormatInfo>) -> (usize, Option<&'static FormatInfo>) {
        let mut head = 0;
        while head < DETECT_LINES {
            let Some(c) = self.read_ahead() else { break };
            head += c.lines.len().min(DETECT_LINES - head);
        }
        (head, claimed.or_else(|| detect(self.head(head).lines())))
    }

    /// The first `len` lines of what was read ahead (the file's head, as detection read it).
    pub(super) fn head(&self, len: usize) -> crate::formats::Head<'_> {
        crate::formats::Head { chunks: &self.pending, parsed: &self.parsed, len }
    }

    /// The next chunk, parsed when it was parsed ahead (the machine reads it again when that was
    /// as another shape than its own), and its sequence number; `None` at the end.
    pub(super) fn next_parsed(&mut self) -> Option<(u64, Taken)> {
        if let Some(p) = self.parsed.pop_front() {
            self.taken += 1;
            return Some((self.taken - 1, Ok(p)));
        }
        self.next().map(|(seq, chunk)| (seq, Err(chunk)))
    }

    /// The next chunk and its sequence number; `None` at the end.
    pub(super) fn next(&mut self) -> Option<(u64, Chunk)> {
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
pub(crate) struct Flow {
    pub(super) source: std::sync::Mutex<Source>,
    pub(super) state: std::sync::Mutex<FlowState>,
    /// How the file's machine parses its lines.
    pub(super) parse: ParseAhead,
    /// Signalled when a chunk is ready, one is routed, the source ends, or the flow closes.
    pub(super) changed: std::sync::Condvar,
    /// Buffers go back to the reader to be filled again.
    pub(super) recycle: Recycle,
    /// Arenas of freed chunks, emptied, for the next chunks parsed.
    pub(super) arenas: std::sync::Mutex<Vec<bumpalo::Bump>>,
}

#[derive(Default)]
pub(crate) struct FlowState {
    /// Parsed chunks by sequence number, waiting to be routed.
    pub(super) ready: std::collections::BTreeMap<u64, Box<dyn AheadParsed>>,
    /// Routed chunks waiting to be freed.
    pub(super) routed: Vec<Box<dyn AheadParsed>>,
    /// Chunks routed so far (the sequence number the router needs next).
    pub(super) routed_to: u64,
    /// Chunks taken from the source so far, and whether it has ended.
    pub(super) taken: u64,
    pub(super) ended: bool,
    /// The router is done (or cancelled): workers free what is left and end.
    pub(super) closed: bool,
    /// Threads waiting on `changed`: a change is signalled only when one is (a signal is a
    /// system call, waiters or not, and a folder's small files, routed with no worker, made
    /// three a file for no one).
    pub(super) waiting: u32,
}

impl Flow {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, FlowState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn wait<'g>(
        &self,
        mut st: std::sync::MutexGuard<'g, FlowState>,
    ) -> std::sync::MutexGuard<'g, FlowState> {
        st.waiting += 1;
        let mut st = self.changed.wait(st).unwrap_or_else(std::sync::PoisonError::into_inner);
        st.waiting -= 1;
        st
    }

    /// Lets go of the state after a change, and signals it to the threads waiting, if any (they
    /// counted themselves under the lock, so none that comes to wait after this misses it).
    fn changed(&self, st: std::sync::MutexGuard<'_, FlowState>) {
        let wake = st.waiting > 0;
        drop(st);
        if wake {
            self.changed.notify_all();
        }
    }

    /// Take the next chunk from the source and parse it into `ready`; `false` at the end.
    pub(super) fn parse_next(&self) -> bool {
        let mut source = self.source.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let next = source.next_parsed();
        let taken = source.taken;
        drop(source);
        let Some((seq, next)) = next else {
            let mut st = self.lock();
            st.taken = st.taken.max(taken);
            st.ended = true;
            self.changed(st);
            return false;
        };
        {
            let mut st = self.lock();
            st.taken = st.taken.max(taken);
        }
        let parsed = next.unwrap_or_else(|chunk| {
            let arena = self.arenas.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop().unwrap_or_default();
            (self.parse)(ChunkArena { chunk, arena })
        });
        let mut st = self.lock();
        st.ready.insert(seq, parsed);
        self.changed(st);
        true
    }

    /// Whether a thread may take another chunk: not at the end, and not too far ahead.
    pub(super) fn may_take(st: &FlowState) -> bool {
        !st.ended && !st.closed && st.taken < st.routed_to + LOOKAHEAD
    }

    /// A worker: free what was routed, parse ahead, until the flow is closed.
    pub(super) fn work(&self) {
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
    pub(super) fn give_back(&self, done: Box<dyn AheadParsed>) {
        let buffers = match &self.recycle {
            Recycle::Buffers(buffers) => buffers,
            Recycle::Parsed(back) => {
                let _ = back.send(done);
                return;
            }
        };
        let ChunkArena { chunk, mut arena } = done.into_owner();
        let _ = buffers.send(chunk);
        arena.reset();
        self.arenas.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(arena);
    }

    /// The next chunk in order, parsed; `None` at the end. While a worker still has it, this
    /// thread parses the next chunk no one has taken instead of waiting: with more threads than
    /// cores, a waiting router left a core idle.
    pub(super) fn next_in_order(&self) -> Option<Box<dyn AheadParsed>> {
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
    pub(super) fn routed(&self, done: Box<dyn AheadParsed>, workers: bool) {
        let mut st = self.lock();
        st.routed_to += 1;
        if workers {
            st.routed.push(done);
            self.changed(st);
        } else {
            drop(st);
            self.give_back(done);
        }
    }

    /// No more routing: the workers free what is left and end.
    pub(super) fn close(&self) {
        let mut st = self.lock();
        st.closed = true;
        self.changed(st);
    }
}

/// The blocks of a small file of `len` bytes read on one thread.
pub(crate) fn small_blocks(stream: Box<dyn std::io::Read + Send>, len: u64) -> Blocks {
    reader::LineBlocks::with_sizes(stream, small_target(len), 1 << 16, reader::MAX_LINE)
}

/// The block size for a small file of `len` bytes: a little larger than the file holds all of it
/// (reads ask for whole pages); the usual megabyte was a megabyte to zero for each file of a few
/// kilobytes.
pub(crate) fn small_target(len: u64) -> usize {
    usize::try_from(len).unwrap_or(usize::MAX).min(1 << 20) + 3 * 4096
}

/// One file being routed: where its chunks come from, and where what it reads goes.
pub(crate) struct Route<'a> {
    pub(super) cx: &'a mut Ctx,
    pub(super) source: Source,
    pub(super) recycle: Recycle,
    /// How many of the first lines detection read (they are the first lines of `source.pending`).
    pub(super) head: usize,
    pub(super) file: u32,
    pub(super) info: &'a mut FileInfo,
    pub(super) progress: &'a mut Progress,
    pub(super) base_bytes: u64,
    pub(super) threads: Threads,
    pub(super) tell: &'a mut dyn FnMut(&Ctx, &Progress) -> bool,
    /// Where the state machine goes, unfinished, when the log is followed (`None`: finish it).
    pub(super) keep: Option<&'a mut Option<KeptFile>>,
    pub(super) format: &'static FormatInfo,
}

impl Route<'_> {
    /// Route every line of the file through `machine` in wire order, then finish it (or keep it,
    /// for a followed log); `false` when the observer cancelled.
    ///
    /// A reader thread splits the stream into chunks of whole lines; worker threads (one per core)
    /// parse them as the machine's shape and free them once routed; this thread routes them, in
    /// order, and parses too rather than wait.
    pub(super) fn run(self, mut machine: Box<dyn Routed>) -> bool {
        let Route { cx, source, recycle, head, file, info, progress, base_bytes, threads, tell, keep, format } = self;
        let head_open = head < DETECT_LINES && !format.reader.head_settled(source.head(head));
        let hold = keep.is_some();
        let mut tail = None;
        let mut last_told = base_bytes;
        let mut read_to = 0;
        let mut last_line = 0;
        let mut counts = LineCounts { records: info.records, bad_lines: info.bad_lines };
        let workers = match threads {
            Threads::PerCore => worker_threads(),
            Threads::Caller => 0,
        };
        let flow = Flow {
            source: std::sync::Mutex::new(source),
            state: std::sync::Mutex::new(FlowState::default()),
            parse: machine.parse(),
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
                let (parsed, t) = machine.route(cx, &mut counts, file, parsed, hold);
                if let Some(t) = t {
                    tail = Some(t);
                }
                let chunk = &parsed.owner().chunk;
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
        info.records = counts.records;
        info.bad_lines = counts.bad_lines;
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
                *slot = Some(KeptFile { machine, consumed, lines, tail, head_open });
            }
            None => {
                cx.graph.set_place(Loc { file, line: last_line });
                machine.finish(cx)
            }
        }
        progress.bytes_read = base_bytes + info.bytes;
        progress.records = cx.records.len() as u64;
        true
    }
}

/// A file's state machine kept after its lines were read (a followed log), to be fed what is
/// appended to it.
pub(crate) struct KeptFile {
    pub(crate) machine: Box<dyn Routed>,
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
