//! Search over what is open, streamed: sessions whose id or label contains the query, then the
//! records whose line does (ignoring case), in wire order, told to a sink in batches with how
//! far the reading has got, until a limit of hits; a `Cursor` then goes on from where it stopped.
//!
//! Lines are read in blocks (`reader::LineBlocks`) and a query of ASCII characters is looked for
//! in the block's bytes, lowered in place of ASCII only, with one `memmem` pass: the only other
//! characters whose lowercase is ASCII (`K` U+212A, `İ` U+0130) send a block to the line-by-line
//! reading, as does any other query, which lowers each line as `str::to_lowercase` does. The
//! sink is told of progress every few megabytes (the engine keeps no clock: the caller decides how
//! often to pass it on); it stops the search by answering `false`.

use std::io::{Read, Seek, SeekFrom};

use serde::Serialize;
use ts_rs::TS;

use super::View;
use crate::analysis::{Analysis, RecordView};
use crate::reader::{self, LineBlocks};
use crate::report::Place;

/// A search hit: a session (by id or label), or a record (by its line's text), with the text
/// around the match.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum SearchHit {
    Session { id: String, label: Option<String>, place: Option<Place> },
    Record { record: RecordView, text: String },
}

/// Why a search stopped: it read everything, found as many hits as it was asked for (a cursor can
/// go on), or was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum SearchEnd {
    Done,
    Limit,
    Stopped,
}

/// What a search tells its sink.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum SearchEvent {
    /// Hits found since the last batch.
    Hits { hits: Vec<SearchHit> },
    /// How far the reading has got: bytes of the inputs read, of `bytes_total`, and the hits so far.
    Progress {
        #[ts(type = "number")]
        bytes_read: u64,
        #[ts(type = "number")]
        bytes_total: u64,
        hits: u32,
    },
    /// The end of this part of the search.
    End { end: SearchEnd, hits: u32 },
}

/// The part of a query a hit is looked for with.
#[derive(Debug, Clone)]
struct Needle {
    /// Lowercase.
    lower: String,
    finder: Option<memchr::memmem::Finder<'static>>,
}

/// Where a search is: at a session, or in an input (its index, the byte offset and the number of
/// the next line to read).
#[derive(Debug, Clone)]
pub struct Cursor {
    needle: Needle,
    session: usize,
    file: usize,
    offset: u64,
    line: u64,
    /// Whether the line at `offset` is one already found (a search stopped at its limit there).
    skip_first: bool,
    hits: u32,
    /// Bytes of the inputs before `file`.
    done_before: u64,
}

/// Hits told to the sink at most this many at a time.
const BATCH: usize = 64;
/// Progress is told after every this many bytes read.
const PROGRESS_EVERY: u64 = 4 << 20;
/// Characters of a line shown around a record's match.
const SNIPPET: usize = 240;

impl Cursor {
    /// A search for `query` (trimmed) from the start; `None` for an empty query.
    pub fn new(query: &str) -> Option<Cursor> {
        let lower = query.trim().to_lowercase();
        if lower.is_empty() {
            return None;
        }
        let finder = lower.is_ascii().then(|| memchr::memmem::Finder::new(lower.as_bytes()).into_owned());
        Some(Cursor {
            needle: Needle { lower, finder },
            session: 0,
            file: 0,
            offset: 0,
            line: 0,
            skip_first: false,
            hits: 0,
            done_before: 0,
        })
    }

    /// Finds up to `limit` more hits, telling `sink` of them as they are found; the cursor is left
    /// where it stopped.
    pub fn run(
        &mut self,
        analysis: &Analysis,
        view: &View,
        limit: u32,
        sink: &mut dyn FnMut(SearchEvent) -> bool,
    ) -> SearchEnd {
        self.run_lent(analysis, || view, limit, sink)
    }

    /// `run`, the view lent by `view` only while the sessions are searched and let go before
    /// the records are read (a viewer's lock on a followed log's view, which grows while the
    /// search reads on: a search of a large log takes seconds).
    pub fn run_lent<G: std::ops::Deref<Target = View>>(
        &mut self,
        analysis: &Analysis,
        view: impl FnOnce() -> G,
        limit: u32,
        sink: &mut dyn FnMut(SearchEvent) -> bool,
    ) -> SearchEnd {
        let mut out = Batch { sink, hits: Vec::new(), found: 0, limit, total: self.hits };
        let sessions = {
            let view = view();
            self.sessions(&view, &mut out)
        };
        let end = sessions.and_then(|()| self.records(analysis, &mut out));
        let end = match end {
            Ok(()) => SearchEnd::Done,
            Err(e) => e,
        };
        self.hits = out.total;
        if end != SearchEnd::Stopped && out.flush() {
            (out.sink)(SearchEvent::End { end, hits: self.hits });
        }
        end
    }

    fn sessions(&mut self, view: &View, out: &mut Batch) -> Result<(), SearchEnd> {
        let s = &view.store;
        while self.session < s.sessions.len() {
            let i = self.session;
            self.session += 1;
            let row = &s.sessions[i];
            let id = s.ids.name(row.id);
            let label = s.word_of(row.label);
            let q = &self.needle.lower;
            if id.to_lowercase().contains(q.as_str()) || label.is_some_and(|l| l.to_lowercase().contains(q.as_str())) {
                let place = s.place(view.places[i]);
                out.hit(SearchHit::Session { id: id.to_owned(), label: label.map(str::to_owned), place })?;
            }
        }
        Ok(())
    }

    fn records(&mut self, analysis: &Analysis, out: &mut Batch) -> Result<(), SearchEnd> {
        let total: u64 = analysis.files.iter().filter(|f| f.format.is_some()).map(|f| f.bytes).sum();
        while let Some(info) = analysis.files.get(self.file) {
            if info.format.is_some() {
                self.file_records(analysis, self.file, total, out)?;
                self.done_before += info.bytes;
            }
            self.file += 1;
            (self.offset, self.line, self.skip_first) = (0, 0, false);
        }
        Ok(())
    }

    /// The records of one input from the cursor on.
    fn file_records(&mut self, analysis: &Analysis, file: usize, total: u64, out: &mut Batch) -> Result<(), SearchEnd> {
        let info = &analysis.files[file];
        let Ok(stream) = open_at(&info.path, self.offset) else { return Ok(()) };
        let mut blocks = LineBlocks::new(stream);
        let mut block = reader::Block::default();
        let mut lowered = Vec::new();
        let (base_offset, base_line) = (self.offset, self.line);
        let mut told = base_offset;
        // A search that stopped at a hit goes on after that hit's line.
        let mut skip = std::mem::take(&mut self.skip_first);
        let (query, finder) = (self.needle.lower.clone(), self.needle.finder.clone());
        while let Ok(true) = blocks.next_block(&mut block) {
            let lines = &block.lines[usize::from(skip).min(block.lines.len())..];
            skip = false;
            let mut check = |span: &reader::Span, out: &mut Batch| -> Result<(), SearchEnd> {
                let number = base_line + span.number;
                let Some(ix) = analysis.find_record(&info.display, number) else { return Ok(()) };
                let Some(record) = analysis.record_view(ix) else { return Ok(()) };
                let text = String::from_utf8_lossy(&block.bytes[span.start..span.end]);
                let hit = SearchHit::Record { record, text: crate::analysis::snippet(&text, &query, SNIPPET) };
                out.hit(hit).inspect_err(|_| {
                    // Where to go on from: this line, skipped.
                    (self.offset, self.line, self.skip_first) = (base_offset + span.offset, number - 1, true);
                })
            };
            match finder.as_ref().filter(|_| !has_ascii_lowering(&block.bytes, lines)) {
                // Every match in the block in one pass; a line with several is one hit.
                Some(finder) => {
                    lower_ascii(&block.bytes, lines, &mut lowered);
                    let len = finder.needle().len();
                    let (mut k, mut from) = (0, 0);
                    while let Some(at) = finder.find(&lowered[from..]).map(|i| from + i) {
                        k += lines[k..].partition_point(|l| l.end < at + len);
                        let Some(span) = lines.get(k) else { break };
                        if span.start <= at {
                            check(span, out)?;
                            from = span.end;
                            k += 1;
                        } else {
                            from = span.start;
                        }
                    }
                }
                None => {
                    for span in lines {
                        let text = String::from_utf8_lossy(&block.bytes[span.start..span.end]);
                        if text.to_lowercase().contains(query.as_str()) {
                            check(span, out)?;
                        }
                    }
                }
            }
            self.offset = base_offset + block.read_to;
            self.line = base_line + block.lines.last().map_or(0, |l| l.number);
            if self.offset - told >= PROGRESS_EVERY {
                told = self.offset;
                out.progress(self.done_before + told, total)?;
            }
        }
        out.progress(self.done_before + info.bytes, total)
    }
}

/// A plain file read from `offset`; a decoded one (zstd, a database) made from its start and read
/// past `offset`.
fn open_at(path: &std::path::Path, offset: u64) -> std::io::Result<Box<dyn Read + Send>> {
    if offset > 0 && !reader::is_decoded(path) {
        let mut f = std::fs::File::open(path)?;
        f.seek(SeekFrom::Start(offset))?;
        return Ok(Box::new(f));
    }
    let mut r = reader::open_unbuffered(path)?;
    std::io::copy(&mut (&mut r).take(offset), &mut std::io::sink())?;
    Ok(r)
}

/// The lines' bytes with ASCII letters lowered, at the same positions (the rest is zeroed: a
/// match cannot span two lines).
fn lower_ascii(bytes: &[u8], lines: &[reader::Span], out: &mut Vec<u8>) {
    let end = lines.last().map_or(0, |l| l.end);
    out.clear();
    out.resize(end, 0);
    for l in lines {
        for (o, b) in out[l.start..l.end].iter_mut().zip(&bytes[l.start..l.end]) {
            *o = b.to_ascii_lowercase();
        }
    }
}

/// Whether the lines hold a character other than an ASCII letter whose lowercase is ASCII (the
/// Kelvin sign, `İ`), which only the line-by-line reading finds.
fn has_ascii_lowering(bytes: &[u8], lines: &[reader::Span]) -> bool {
    let (Some(a), Some(b)) = (lines.first(), lines.last()) else { return false };
    let bytes = &bytes[a.start..b.end];
    memchr::memmem::find(bytes, "\u{212A}".as_bytes()).is_some()
        || memchr::memmem::find(bytes, "\u{130}".as_bytes()).is_some()
}

/// Hits collected for the sink, up to a limit.
struct Batch<'a> {
    sink: &'a mut dyn FnMut(SearchEvent) -> bool,
    hits: Vec<SearchHit>,
    found: u32,
    limit: u32,
    total: u32,
}

impl Batch<'_> {
    fn flush(&mut self) -> bool {
        self.hits.is_empty() || (self.sink)(SearchEvent::Hits { hits: std::mem::take(&mut self.hits) })
    }

    fn hit(&mut self, hit: SearchHit) -> Result<(), SearchEnd> {
        if self.found >= self.limit {
            return Err(SearchEnd::Limit);
        }
        self.hits.push(hit);
        self.found += 1;
        self.total += 1;
        if self.hits.len() >= BATCH && !self.flush() {
            return Err(SearchEnd::Stopped);
        }
        if self.found >= self.limit {
            return Err(SearchEnd::Limit);
        }
        Ok(())
    }

    fn progress(&mut self, bytes_read: u64, bytes_total: u64) -> Result<(), SearchEnd> {
        if !self.flush() || !(self.sink)(SearchEvent::Progress { bytes_read, bytes_total, hits: self.total }) {
            return Err(SearchEnd::Stopped);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Hit;
    use crate::view::View;

    fn open(input: &std::path::Path) -> (Analysis, View) {
        let analysis = crate::analyze(&[input.to_path_buf()], &mut ());
        let view = View::from_report(analysis.report(), 1);
        (analysis, view)
    }

    fn case(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases").join(name).join("input")
    }

    /// Every hit and event of a search to its end, found `limit` at a time.
    fn search(a: &Analysis, v: &View, query: &str, limit: u32) -> (Vec<SearchHit>, Vec<SearchEvent>) {
        let mut cursor = Cursor::new(query).unwrap();
        let mut hits = Vec::new();
        let mut events = Vec::new();
        loop {
            let end = cursor.run(a, v, limit, &mut |e| {
                if let SearchEvent::Hits { hits: h } = &e {
                    hits.extend(h.iter().cloned());
                }
                events.push(e);
                true
            });
            if end != SearchEnd::Limit {
                return (hits, events);
            }
        }
    }

    type Found = (Vec<String>, Vec<(String, u64, String)>);

    /// The engine's whole-log search: session ids (sorted), and records as (file, line, text).
    fn engine(a: &Analysis, query: &str) -> Found {
        let mut found: Found = Default::default();
        for h in a.search(query, usize::MAX) {
            match h {
                Hit::Session { id, .. } => found.0.push(id),
                Hit::Record { record, text } => found.1.push((record.file, record.line, text)),
            }
        }
        found.0.sort();
        found
    }

    fn split(hits: &[SearchHit]) -> Found {
        let mut found: Found = Default::default();
        for h in hits {
            match h {
                SearchHit::Session { id, .. } => found.0.push(id.clone()),
                SearchHit::Record { record, text } => found.1.push((record.file.clone(), record.line, text.clone())),
            }
        }
        found.0.sort();
        found
    }

    #[test]
    fn the_streamed_search_finds_what_the_engines_search_finds_in_any_number_of_parts() {
        for name in ["dsh-rpc-bad-ancestry", "builtin-sample", "copilot-events-saved", "dsh-session-folder"] {
            let (a, v) = open(&case(name));
            for query in ["early", "KID", "session", "é", "\"", "tool", "zzz-nothing", "a"] {
                let want = engine(&a, query);
                for limit in [1, 3, 1000] {
                    let (hits, events) = search(&a, &v, query, limit);
                    assert_eq!(split(&hits), want, "{name}: {query:?} {limit} at a time");
                    // Session hits come first; the last event says it is done, with every hit.
                    let records = hits.iter().position(|h| matches!(h, SearchHit::Record { .. })).unwrap_or(hits.len());
                    assert!(hits[records..].iter().all(|h| matches!(h, SearchHit::Record { .. })));
                    let n = hits.len() as u32;
                    assert_eq!(
                        events.last(),
                        Some(&SearchEvent::End { end: SearchEnd::Done, hits: n }),
                        "{name} {query}"
                    );
                    let progress: Vec<u64> = events
                        .iter()
                        .filter_map(|e| match e {
                            SearchEvent::Progress { bytes_read, .. } => Some(*bytes_read),
                            _ => None,
                        })
                        .collect();
                    assert!(progress.windows(2).all(|w| w[0] <= w[1]), "{progress:?}");
                }
            }
        }
    }

    /// A view lent to a search is let go once its sessions are searched: while the records are
    /// read (seconds for a large log) the view is free to grow.
    #[test]
    fn a_lent_view_is_let_go_before_the_records_are_read() {
        let (a, v) = open(&case("dsh-rpc-two-level"));
        let lock = std::sync::Mutex::new(v);
        let mut cursor = Cursor::new("kid").unwrap();
        let (mut sessions, mut records) = (0, 0);
        let end = cursor.run_lent(&a, || lock.lock().unwrap(), 1000, &mut |e| {
            if let SearchEvent::Hits { hits } = &e {
                for h in hits {
                    let free = lock.try_lock().is_ok();
                    match h {
                        SearchHit::Session { .. } => sessions += 1,
                        SearchHit::Record { .. } => {
                            assert!(free, "the view is let go while records are read");
                            records += 1
                        }
                    }
                }
            }
            true
        });
        assert_eq!(end, SearchEnd::Done);
        assert!(sessions > 0 && records > 0, "{sessions} sessions, {records} records");
    }

    #[test]
    fn a_session_hit_names_its_place_and_a_record_hit_its_line() {
        let (a, v) = open(&case("dsh-rpc-bad-ancestry"));
        let (hits, _) = search(&a, &v, "early", 100);
        let (record, text) = hits
            .iter()
            .find_map(|h| match h {
                SearchHit::Record { record, text } => Some((record, text)),
                _ => None,
            })
            .expect("a record hit");
        assert_eq!((record.file.as_str(), record.line), ("run.jsonl", 7));
        assert!(text.contains("early"));
        let (a, v) = open(&case("dsh-rpc-two-level"));
        let (hits, _) = search(&a, &v, "kid", 100);
        let place = hits.iter().find_map(|h| match h {
            SearchHit::Session { id, place, .. } if id == "kid" => Some(place.clone()),
            _ => None,
        });
        assert!(place.flatten().is_some(), "kid's place: the start of its run");
    }

    #[test]
    fn a_search_goes_on_after_its_limit_in_a_compressed_file_and_stops_when_told() {
        let dir = tempfile::tempdir().unwrap();
        let text = std::fs::read(case("dsh-rpc-two-level").join("run.jsonl")).unwrap();
        let path = dir.path().join("run.jsonl.zst");
        std::fs::write(&path, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
        let (a, v) = open(&path);
        let want = engine(&a, "kid");
        assert!(want.1.len() > 3);
        let (hits, _) = search(&a, &v, "kid", 2);
        assert_eq!(split(&hits), want);
        // A sink that says stop at its first event gets no end.
        let mut cursor = Cursor::new("kid").unwrap();
        let mut seen = Vec::new();
        let end = cursor.run(&a, &v, 1000, &mut |e| {
            seen.push(e);
            false
        });
        assert_eq!(end, SearchEnd::Stopped);
        assert!(!seen.iter().any(|e| matches!(e, SearchEvent::End { .. })));
        assert!(Cursor::new("   ").is_none());
    }

    #[test]
    fn the_characters_whose_lowercase_is_ascii_are_found_as_the_engine_finds_them() {
        let dir = tempfile::tempdir().unwrap();
        let src = std::fs::read_to_string(case("dsh-rpc-two-level").join("run.jsonl")).unwrap();
        // The Kelvin sign lowers to `k`, `İ` to `i̇`: "kid" and "i" match them.
        let text = src.replacen("\"kid\"", "\"\u{212A}id\"", 1).replacen("\"root\"", "\"root\u{130}\"", 1);
        let path = dir.path().join("run.jsonl");
        std::fs::write(&path, text).unwrap();
        let (a, v) = open(&path);
        for query in ["kid", "rooti", "KID"] {
            let (hits, _) = search(&a, &v, query, 1000);
            assert_eq!(split(&hits), engine(&a, query), "{query}");
        }
    }
}
