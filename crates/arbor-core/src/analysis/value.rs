//! The analysis as a value: what reading the inputs made (`Analysis`: the context the formats
//! filled, the files read), with what a caller is told while it is made (`Progress`,
//! `Observer`) and asks of it after (names, records, raw lines, reply texts).

use crate::ctx::{Ctx, Records, TextRef};
use crate::finding::Loc;
use crate::formats::FormatInfo;
use crate::intern::Sym;
use crate::reader::{self, InputFile};
use std::path::PathBuf;

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
    pub(crate) lineage: Option<Lineage>,
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

impl FileInfo {
    /// A planned input before it is read: no format, nothing counted yet.
    pub(super) fn of(input: InputFile) -> FileInfo {
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

/// A file's display name as a JSON string.
pub(crate) fn name_json(display: &str) -> String {
    let mut json = Vec::new();
    crate::text::json::escape_into(&mut json, display);
    String::from_utf8(json).unwrap_or_default()
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

    pub(super) fn texts_of(&self, mut owned: Vec<(TextRef, u32)>) -> ReplyTexts {
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
        let threads = self.worker_count();
        // Parts of at most a few thousand replies, in order: each is read on a thread of its own
        // into one buffer (here, with `Threads::Caller`).
        let mut parts: Vec<&[TextRef]> = Vec::new();
        for group in refs.chunk_by(|a, b| a.at.file == b.at.file) {
            // A zstd stream is read from its start: one part, one pass.
            let zstd = self.files.get(group[0].at.file as usize).is_some_and(|f| f.zstd);
            let n = if zstd { 1 } else { threads };
            parts.extend(group.chunks(group.len().div_ceil(n).max(1)));
        }
        let read_part = |part: &&[TextRef]| {
            let mut text = String::new();
            let mut ends: Vec<usize> = Vec::with_capacity(part.len());
            if let Some(info) = self.files.get(part[0].at.file as usize) {
                // Where routing saw the text's string, just that is read and decoded; the rest
                // are read as whole lines and parsed again. Spans and replies are both in offset
                // order: one walk pairs them.
                let mut spans = cx.text_spans_from(part[0].at.file, part[0].offset).peekable();
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
        let done = self.in_order(&parts, read_part);
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

    /// The threads its parallel stages use: one per core (at most `MAX_WORKERS`), or one.
    pub(crate) fn worker_count(&self) -> usize {
        match self.threads {
            Threads::PerCore => worker_threads(),
            Threads::Caller => 1,
        }
    }

    /// `work` of each of `items`, in their order: on `worker_count()` threads (this one and the
    /// others, each taking the next item not yet taken), or all here with `Threads::Caller`.
    /// `None` for the items of a worker that panicked.
    pub(crate) fn in_order<T: Sync, R: Send>(&self, items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<Option<R>> {
        let threads = self.worker_count().min(items.len());
        if threads <= 1 {
            return items.iter().map(|x| Some(work(x))).collect();
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let take = || {
            let mut mine = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(x) = items.get(i) else { return mine };
                mine.push((i, work(x)));
            }
        };
        let mut done: Vec<Option<R>> = items.iter().map(|_| None).collect();
        std::thread::scope(|scope| {
            let others: Vec<_> = (1..threads).map(|_| scope.spawn(take)).collect();
            let here = std::panic::catch_unwind(std::panic::AssertUnwindSafe(take)).unwrap_or_default();
            for (i, r) in others.into_iter().flat_map(|t| t.join().unwrap_or_default()).chain(here) {
                done[i] = Some(r);
            }
        });
        done
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
            f.display = crate::reader::path_text(rel);
            *json = name_json(&f.display);
        }
    }
}

/// Reply texts read back for a report: a buffer per part read, and where each reply's text is.
pub(crate) struct ReplyTexts {
    /// Ascending by file and offset.
    pub(super) refs: Vec<TextRef>,
    /// Per turn (`Turns::list`), the index in `refs` of its reply; `NO_TURN` for none.
    pub(super) by_turn: Vec<u32>,
    /// Per reply: its part, and the start and end of its text in that part's buffer.
    pub(super) spans: Vec<(u32, usize, usize)>,
    pub(super) parts: Vec<String>,
}

/// Not a turn, or no reply.
pub(crate) const NO_TURN: u32 = u32::MAX;

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

    pub(super) fn text(&self, i: usize) -> &str {
        self.spans.get(i).map_or("", |&(part, a, b)| &self.parts[part as usize][a..b])
    }
}

/// Where a followed log's snapshot stands among the snapshots of its `Live`
/// (`Analysis::lineage`): which `Live` (read from the start) made it, and what of it was final
/// when it was made: the symbols and records the live context held, and the lines routed into
/// it. A later snapshot of the same `Live` has them too, the same symbols naming the same ids
/// and the same records at the same lines; what finishing the copy added (a line still being
/// written, ends at the end) may read otherwise later. `View::grow` keeps the rows whose sources
/// are equal in two snapshots and name only what was final, and makes the rest again.
#[derive(Debug, Clone)]
pub(crate) struct Lineage {
    /// The `Live`'s number: a new one when it was read again from the start.
    pub live: u64,
    /// This snapshot's number (no two snapshots share one).
    pub snapshot: u64,
    /// The live context's symbols and records.
    pub ids: usize,
    pub records: usize,
    /// Per file: the last line routed into the live context (a place up to it is final; a file
    /// not followed is final whole).
    pub lines: Vec<u64>,
}

impl Lineage {
    /// Whether `at` names a line that was final in this snapshot.
    pub fn is_final(&self, at: Loc) -> bool {
        self.lines.get(at.file as usize).is_some_and(|&l| at.line <= l)
    }

    /// Whether `record` was final in this snapshot.
    pub fn is_final_record(&self, record: u32) -> bool {
        (record as usize) < self.records
    }
}

/// Parse threads; more than two cores do not help while one thread routes.
pub(crate) const MAX_WORKERS: usize = 3;

/// Threads for a parallel stage (parsing, reading reply texts back, formatting the report): one
/// per core, at most `MAX_WORKERS`. Asked once a process: `available_parallelism` reads the
/// cgroup's files each time (three opens and reads), and a folder's reply texts asked it once
/// a file (a 20,000-file Gemini CLI tree: 60,000 system calls).
pub(crate) fn worker_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, MAX_WORKERS))
}
