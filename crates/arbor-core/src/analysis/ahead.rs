//! Reading ahead: a folder's small files read, detected and parsed by threads of their own while
//! the calling thread routes the files before them.

use crate::formats::{AheadParsed, ChunkArena, FormatInfo};
use crate::reader::{self};
use std::path::PathBuf;

use super::flow::{small_blocks, small_target, Chunk, Source};

/// What a read-ahead thread made of a planned file.
pub(crate) enum Fetched {
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
pub(crate) struct ReadAhead {
    /// As the plan named it or detection found it; `None`: in no known format.
    pub(super) format: Option<&'static FormatInfo>,
    /// How many of the first lines detection read.
    pub(super) head: usize,
    /// Its chunks, when they were not parsed (no format, or one that parses where it routes).
    pub(super) pending: std::collections::VecDeque<Chunk>,
    /// Its chunks parsed, in order.
    pub(super) parsed: std::collections::VecDeque<Box<dyn AheadParsed>>,
    /// The read error that ended it, if any.
    pub(super) end: Option<std::io::Error>,
    /// Where routed chunks go back, whole.
    pub(super) recycle: std::sync::mpsc::Sender<Box<dyn AheadParsed>>,
}

/// Files the read-ahead threads may be ahead of the one being routed, at most, and the buffer
/// bytes they may hold ready (each file is up to `SMALL_FILE`, with its parsed lines beside it).
pub(crate) const FILES_AHEAD: usize = 32;
pub(crate) const BYTES_AHEAD: u64 = 4 << 20;

/// The hand-off between the read-ahead threads and the calling thread, file by file in plan
/// order, as `Flow` does it chunk by chunk: a thread reads the next file no one has taken;
/// the calling thread takes each file in order, ready or not: one not yet taken it reads itself
/// rather than wait (the threads share the work when parsing is the slower side). Either waits
/// only when the other has what it needs, so a folder of 20,000 files does not cost 40,000
/// wake-ups.
#[derive(Default)]
pub(crate) struct Ahead {
    pub(super) state: std::sync::Mutex<AheadState>,
    pub(super) changed: std::sync::Condvar,
}

#[derive(Default)]
pub(crate) struct AheadState {
    /// The next file no one has taken.
    pub(super) next: usize,
    /// The file the calling thread wants now.
    pub(super) wanted: usize,
    /// Files read ahead and not yet taken (`None`: one for the calling thread to open), and
    /// their buffers' bytes.
    pub(super) ready: std::collections::BTreeMap<usize, Option<Fetched>>,
    pub(super) bytes: u64,
    /// Who waits: the calling thread for `wanted`, read-ahead threads for room.
    pub(super) caller_waits: bool,
    pub(super) threads_waiting: usize,
    pub(super) closed: bool,
}

impl Ahead {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, AheadState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn wait<'g>(&self, st: std::sync::MutexGuard<'g, AheadState>) -> std::sync::MutexGuard<'g, AheadState> {
        self.changed.wait(st).unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A read-ahead thread: read the next file no one has taken, while there is room.
    /// `paths` are the planned files (`None`: set aside), `claimed` the format each was claimed by.
    pub(super) fn work(&self, paths: &[Option<PathBuf>], claimed: &[Option<&'static FormatInfo>]) {
        let (back, returned) = std::sync::mpsc::channel::<Box<dyn AheadParsed>>();
        let mut spare = Spare::default();
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
    pub(super) fn take(&self, index: usize) -> Option<Fetched> {
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
    pub(super) fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_all();
    }
}

impl Fetched {
    /// The bytes its buffers hold (its parsed lines come on top).
    pub(super) fn bytes(&self) -> u64 {
        let Fetched::Read(read) = self else { return 0 };
        let of = |c: &Chunk| c.bytes.capacity() as u64;
        read.pending.iter().map(of).chain(read.parsed.iter().map(|p| of(&p.owner().chunk))).sum()
    }
}

/// What a read-ahead thread keeps of the files it read, to read the next ones in: buffers (each
/// holds what it ever held, so bytes are read into it without zeroing it first) and arenas
/// (reset: their memory stays mapped for the next file's lines).
#[derive(Default)]
pub(crate) struct Spare {
    chunks: Vec<Chunk>,
    arenas: Vec<bumpalo::Bump>,
}

impl Spare {
    /// An arena for a file's chunk: one kept, or a new one.
    fn arena(&mut self) -> bumpalo::Bump {
        self.arenas.pop().unwrap_or_default()
    }
}

/// A small plain file read whole, detected and parsed; a compressed one or one larger than
/// `SMALL_FILE` only opened (the calling thread reads those as before); `None` for one that
/// cannot be opened (the calling thread tries again, and says why).
pub(crate) fn read_small(
    path: &std::path::Path,
    claimed: Option<&'static FormatInfo>,
    back: &std::sync::mpsc::Sender<Box<dyn AheadParsed>>,
    returned: &std::sync::mpsc::Receiver<Box<dyn AheadParsed>>,
    spare: &mut Spare,
) -> Option<Fetched> {
    // Chunks routed since come back here: their lines are freed and their buffers and arenas kept
    // (an arena that grew for a large file is let go).
    for p in returned.try_iter() {
        let ChunkArena { chunk, mut arena } = p.into_owner();
        if spare.chunks.len() < 4 && chunk.bytes.capacity() <= 4 << 20 {
            spare.chunks.push(chunk);
        }
        if spare.arenas.len() < 4 && arena.allocated_bytes() <= 4 << 20 {
            arena.reset();
            spare.arenas.push(arena);
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
    // up to `FILES_AHEAD` of them): it is cut to this file's size (in place: what it holds is
    // kept, and the file is read into it without zeroing it again; a fresh buffer zeroed for
    // each file was 7 % of a Claude Code project's instructions).
    let fits = small_target(len) * 2 + (64 << 10);
    for mut c in spare.chunks.drain(..) {
        if c.bytes.capacity() > fits {
            c.bytes.truncate(fits);
            c.bytes.shrink_to(fits);
        }
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
        Some(parse) => pending.drain(..).map(|chunk| parse(ChunkArena { chunk, arena: spare.arena() })).collect(),
        None => Default::default(),
    };
    let end = source.end.take().flatten();
    // Unused buffers are kept for the next file (not in this thread's spare list).
    if let Some((_, from_self)) = source.inline.take() {
        spare.chunks.extend(from_self.try_iter());
    }
    Some(Fetched::Read(ReadAhead { format, head, pending, parsed, end, recycle: back.clone() }))
}

/// A plain file up to this size is read on the calling thread (`read_file`).
pub(crate) const SMALL_FILE: u64 = 4 << 20;
