//! The report's items written as pretty JSON by hand, for `arbor analyze --json`: the same bytes
//! as serde_json's pretty formatter gives for the `report_parts` shapes (their `Serialize` impls
//! stay the reference: the tests compare the written report with the owned `Report` serialised
//! by serde_json, on every conformance case and test log, and the escaping on every kind of
//! character).
//!
//! Why by hand: formatting was most of the report's cost, and most of that was serde_json
//! escaping each constant key again for every item (a call and a byte loop per key). Here a key
//! is copied as the constant it is, numbers go through serde_json's own formatter, and strings are
//! scanned for what needs escaping 16 bytes at a time.

use crate::analysis::ReplyTexts;
use crate::ctx::TextRef;
use crate::report::{ModelUsage, Usage, UsageSummary};
use crate::report_parts::{
    DiagnosticRef, InputRef, NaiveWaitRef, PlaceRef, ReceivedRef, ReplyRef, ReportParts, RunRef, SessionRef,
    StepSpanRef, TurnIdRef, TurnRef, WaitRef,
};
use crate::text::json::escape_into;
use serde_json::ser::{CompactFormatter, Formatter};

/// Pretty JSON at a depth, with serde_json's layout: two spaces a level, `": "` after a key, each
/// member on a line of its own, and `{}` / `[]` when empty.
pub(crate) struct Writer<'b> {
    out: &'b mut Vec<u8>,
    depth: usize,
    /// Nothing written yet in the object or array just opened.
    first: bool,
}

impl<'b> Writer<'b> {
    /// A writer whose values sit `depth` levels down (an item of a report section: 2).
    pub(crate) fn new(out: &'b mut Vec<u8>, depth: usize) -> Self {
        Writer { out, depth, first: false }
    }

    fn open(&mut self, c: u8) {
        self.out.push(c);
        self.depth += 1;
        self.first = true;
    }

    fn close(&mut self, c: u8) {
        self.depth -= 1;
        if !self.first {
            self.newline();
        }
        self.out.push(c);
        self.first = false;
    }

    fn newline(&mut self) {
        self.out.push(b'\n');
        self.out.resize(self.out.len() + 2 * self.depth, b' ');
    }

    /// Before a member of the object or array open.
    fn next(&mut self) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.newline();
    }

    /// A key (a constant field name: nothing in it to escape).
    fn key(&mut self, k: &str) {
        self.next();
        self.out.push(b'"');
        self.out.extend_from_slice(k.as_bytes());
        self.out.extend_from_slice(b"\": ");
    }

    fn null(&mut self) {
        self.out.extend_from_slice(b"null");
    }

    fn bool(&mut self, v: bool) {
        self.out.extend_from_slice(if v { b"true" } else { b"false" });
    }

    fn u64(&mut self, v: u64) {
        let _ = CompactFormatter.write_u64(self.out, v);
    }

    fn i64(&mut self, v: i64) {
        let _ = CompactFormatter.write_i64(self.out, v);
    }

    /// As serde_json writes an `f64`: `null` when it is not finite.
    fn f64(&mut self, v: f64) {
        if v.is_finite() {
            let _ = CompactFormatter.write_f64(self.out, v);
        } else {
            self.null();
        }
    }

    fn str(&mut self, s: &str) {
        escape_into(self.out, s);
    }

    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.str(s),
            None => self.null(),
        }
    }

    /// A value serde writes without whitespace of its own (a unit variant, a raw value).
    fn compact<T: serde::Serialize>(&mut self, v: &T) {
        let _ = serde_json::to_writer(&mut *self.out, v);
    }

    fn place(&mut self, p: &PlaceRef) {
        self.open(b'{');
        self.key("file");
        self.out.extend_from_slice(p.file_json.as_bytes());
        self.key("line");
        self.u64(p.line);
        self.close(b'}');
    }

    fn opt_place(&mut self, p: Option<&PlaceRef>) {
        match p {
            Some(p) => self.place(p),
            None => self.null(),
        }
    }

    fn turn_id(&mut self, t: TurnIdRef) {
        match t {
            // As `serde_json::Number` does: non-negative numbers are written as unsigned.
            TurnIdRef::Num(n) if n >= 0 => self.u64(n as u64),
            TurnIdRef::Num(n) => self.i64(n),
            TurnIdRef::Text(s) => self.str(s),
            TurnIdRef::Null => self.null(),
        }
    }

    /// An optional field that serde skips when it is `None`.
    fn opt_f64_field(&mut self, k: &str, v: Option<f64>) {
        if let Some(v) = v {
            self.key(k);
            self.f64(v);
        }
    }

    /// An optional field that serde skips when it is `None`.
    fn opt_u64_field(&mut self, k: &str, v: Option<u64>) {
        if let Some(v) = v {
            self.key(k);
            self.u64(v);
        }
    }

    /// An optional object field that serde skips when it is `None`.
    fn opt_field<T: Pretty>(&mut self, k: &str, v: Option<&T>) {
        if let Some(v) = v {
            self.key(k);
            v.pretty(self);
        }
    }

    /// An array of items, each on a line of its own.
    fn array<T: Pretty>(&mut self, items: &[T]) {
        self.open(b'[');
        for item in items {
            self.next();
            item.pretty(self);
        }
        self.close(b']');
    }
}

/// An item of a report section, written as pretty JSON.
pub(crate) trait Pretty {
    fn pretty(&self, w: &mut Writer);
}

impl Pretty for InputRef<'_> {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("file");
        w.str(self.file);
        w.key("format");
        w.str(self.format);
        w.key("records");
        w.u64(self.records);
        w.key("bad_lines");
        w.u64(self.bad_lines);
        w.key("bytes");
        w.u64(self.bytes);
        w.close(b'}');
    }
}

impl Pretty for SessionRef<'_> {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("id");
        w.str(self.id);
        w.key("parent");
        w.opt_str(self.parent);
        w.key("root");
        w.opt_str(self.root);
        w.key("depth");
        match self.depth {
            Some(d) => w.u64(d.into()),
            None => w.null(),
        }
        w.key("label");
        w.opt_str(self.label);
        w.key("runs");
        w.array(&self.runs);
        w.key("events");
        w.u64(self.events);
        if self.inferred_parent {
            w.key("inferred_parent");
            w.bool(true);
        }
        w.opt_field("usage", self.usage.as_ref());
        w.opt_field("subtree_usage", self.subtree_usage.as_ref());
        w.close(b'}');
    }
}

impl Pretty for RunRef<'_> {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("parent");
        w.opt_str(self.parent);
        w.key("start");
        w.opt_place(self.start.as_ref());
        w.key("end");
        w.opt_place(self.end.as_ref());
        w.key("outcome");
        w.compact(&self.outcome);
        w.key("link");
        w.str(self.link.as_str());
        w.opt_f64_field("start_time", self.start_time);
        w.opt_f64_field("end_time", self.end_time);
        w.opt_field("received", self.received.as_ref());
        w.close(b'}');
    }
}

impl Pretty for TurnRef<'_> {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("session");
        w.str(self.session);
        w.key("turn");
        w.turn_id(self.turn);
        w.opt_u64_field("run", self.run.map(u64::from));
        w.key("start");
        w.opt_place(self.start.as_ref());
        w.key("end");
        w.opt_place(self.end.as_ref());
        w.key("reason");
        w.opt_str(self.reason);
        w.key("steps");
        w.u64(self.steps.into());
        w.opt_f64_field("start_time", self.start_time);
        w.opt_f64_field("end_time", self.end_time);
        if !self.step_spans.is_empty() {
            w.key("step_spans");
            w.array(&self.step_spans);
        }
        w.opt_field("usage", self.usage.as_ref());
        w.close(b'}');
    }
}

impl Pretty for ReceivedRef<'_> {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("text");
        w.str(self.text);
        w.key("at");
        w.place(&self.at);
        w.close(b'}');
    }
}

impl Pretty for Usage {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("input");
        w.u64(self.input);
        w.key("output");
        w.u64(self.output);
        w.key("cache_read");
        w.u64(self.cache_read);
        w.key("cache_write");
        w.u64(self.cache_write);
        w.opt_f64_field("cost", self.cost);
        if let Some(u) = &self.unpriced {
            w.key("unpriced");
            w.open(b'{');
            w.key("tokens");
            w.u64(u.tokens);
            w.key("models");
            w.open(b'[');
            for m in &u.models {
                w.next();
                w.str(m);
            }
            w.close(b']');
            w.close(b'}');
        }
        w.close(b'}');
    }
}

impl Pretty for ModelUsage {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("model");
        w.str(&self.model);
        w.key("usage");
        self.usage.pretty(w);
        w.close(b'}');
    }
}

impl Pretty for UsageSummary {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("models");
        w.array(&self.models);
        w.key("total");
        self.total.pretty(w);
        w.key("prices");
        w.open(b'{');
        w.key("source");
        w.str(&self.prices.source);
        w.key("date");
        w.str(&self.prices.date);
        w.close(b'}');
        w.close(b'}');
    }
}

impl Pretty for StepSpanRef<'_> {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("step");
        w.u64(self.step.into());
        w.key("start");
        w.place(&self.start);
        w.key("end");
        w.opt_place(self.end.as_ref());
        w.opt_f64_field("start_time", self.start_time);
        w.opt_f64_field("end_time", self.end_time);
        w.close(b'}');
    }
}

impl Pretty for ReplyRef<'_> {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("session");
        w.str(self.session);
        w.key("root");
        w.bool(self.root);
        w.key("turn");
        w.turn_id(self.turn);
        w.opt_u64_field("run", self.run.map(u64::from));
        w.key("text");
        w.str(self.text);
        w.key("at");
        w.place(&self.at);
        w.close(b'}');
    }
}

impl Pretty for WaitRef<'_> {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("root");
        w.str(self.root);
        w.key("start");
        w.opt_place(self.start.as_ref());
        w.key("end");
        w.opt_place(self.end.as_ref());
        w.key("outcome");
        w.compact(&self.outcome);
        w.key("reply");
        w.opt_str(self.reply);
        if let Some(r) = self.finish_reason {
            w.key("finish_reason");
            w.str(r);
        }
        w.opt_u64_field("notifications", self.notifications);
        w.opt_u64_field("events", self.events);
        w.key("naive");
        self.naive.pretty(w);
        w.close(b'}');
    }
}

impl Pretty for NaiveWaitRef<'_> {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        if let Some(end) = &self.end {
            w.key("end");
            w.opt_place(end.as_ref());
        }
        if let Some(o) = &self.outcome {
            w.key("outcome");
            w.compact(o);
        }
        if let Some(r) = self.reply {
            w.key("reply");
            w.opt_str(r);
        }
        w.opt_u64_field("notifications", self.notifications);
        w.close(b'}');
    }
}

impl Pretty for DiagnosticRef<'_> {
    fn pretty(&self, w: &mut Writer) {
        w.open(b'{');
        w.key("code");
        w.str(self.code);
        w.key("severity");
        w.compact(&self.severity);
        w.key("at");
        w.place(&self.at);
        w.key("session");
        w.opt_str(self.session);
        w.key("message");
        w.str(&self.message);
        w.opt_f64_field("time", self.time);
        w.close(b'}');
    }
}

/// Replies whose texts `write_pretty` reads back at a time (a Copilot reply's text is ~200 bytes).
const TEXT_WINDOW: usize = 4096;

/// A reply with its text read back for it (`write_pretty`'s replies, whose texts are read a
/// window at a time and moved into their batches).
struct ReplyWithText<'a>(ReplyRef<'a>, String);

impl Pretty for ReplyWithText<'_> {
    fn pretty(&self, w: &mut Writer) {
        ReplyRef { text: &self.1, ..self.0 }.pretty(w)
    }
}

/// Items per batch in `write_pretty` at most (`write_section` makes a batch of about
/// `BATCH_BYTES`: 1,024 of the smallest items, a findings list's, are about that).
const BATCH: usize = 1024;

/// The pretty JSON a batch is sized to hold: a section's items are 0.2–5 KB each (a Claude Code
/// session with its steps the largest), so a count alone let a batch of sessions hold 4 MB.
const BATCH_BYTES: usize = 256 * 1024;

/// Items in a section's first batches, before an item's size is known.
const FIRST_BATCH: usize = 64;

impl ReportParts<'_> {
    /// Write the report as pretty JSON, the same bytes as `serde_json::to_writer_pretty` gives
    /// for `self` (and for the `Report`), each section's items formatted in batches by `threads`
    /// threads and written in order (see `write_section`). Formatting is most of the cost of
    /// writing; memory stays bounded by two batches per thread.
    pub fn write_pretty<W: std::io::Write>(&self, out: W, threads: usize) -> serde_json::Result<()> {
        self.write_pretty_in(out, threads, BATCH, TEXT_WINDOW)
    }

    /// The report's opening and its sections before the replies: inputs, sessions, turns.
    fn write_head<W: std::io::Write>(&self, out: &mut W, threads: usize, batch: usize) -> serde_json::Result<()> {
        out.write_all(b"{\n  \"report_version\": 1,\n  \"inputs\": ").map_err(serde_json::Error::io)?;
        write_section(out, self.inputs(), threads, batch)?;
        out.write_all(b",\n  \"sessions\": ").map_err(serde_json::Error::io)?;
        write_section(out, self.sessions(), threads, batch)?;
        out.write_all(b",\n  \"turns\": ").map_err(serde_json::Error::io)?;
        write_section(out, self.turns(), threads, batch)
    }

    /// `write_pretty` with batches of at most `batch` items and reply texts read back `window`
    /// replies at a time.
    pub(crate) fn write_pretty_in<W: std::io::Write>(
        &self,
        mut out: W,
        threads: usize,
        batch: usize,
        window: usize,
    ) -> serde_json::Result<()> {
        // The reply texts are read back on a thread of their own while the sections before the
        // replies are written (either alone leaves part of the cores idle), `window` replies at
        // a time (`TEXT_WINDOW`), at most two windows ahead of the replies written: a gigabyte
        // log's texts are tens of megabytes, never all held. With no threads
        // (`Threads::Caller`), everything is done here, each window when the replies need it.
        // Texts already read (`texts` set) are used as they are.
        if self.texts.get().is_some() {
            self.write_head(&mut out, threads, batch)?;
            out.write_all(b",\n  \"replies\": ").map_err(serde_json::Error::io)?;
            write_section(&mut out, self.replies(), threads, batch)?;
            out.write_all(b",\n  \"waits\": ").map_err(serde_json::Error::io)?;
            write_section(&mut out, self.waits(), threads, batch)?;
        } else {
            let refs: Vec<TextRef> = self.replies_from(false).map(|(_, _, at)| at).collect();
            // A decoded stream (a zstd file, an OpenCode store's rendering) is read from its start
            // for each read of it: its texts are read in one window (a 1 GiB store read back for
            // each of 69 windows took four times as long as its analysis).
            let size = if self.a.files.iter().any(|f| f.zstd) { refs.len().max(1) } else { window.max(1) };
            let n_windows = refs.len().div_ceil(size);
            let window_at = &|n: usize| {
                let start = n * size;
                self.a.texts_at(refs[start.min(refs.len())..(start + size).min(refs.len())].iter().copied())
            };
            std::thread::scope(|scope| {
                let (ahead, windows_read) = std::sync::mpsc::sync_channel(1);
                let reading = (threads > 0)
                    .then(|| {
                        std::thread::Builder::new()
                            .name("arbor-replies".into())
                            .spawn_scoped(scope, move || {
                                for n in 0..n_windows {
                                    if ahead.send(window_at(n)).is_err() {
                                        return None;
                                    }
                                }
                                drop(ahead);
                                Some(self.a.reply_texts(false))
                            })
                            .ok()
                    })
                    .flatten();
                self.write_head(&mut out, threads, batch)?;
                // Each window from the reading thread, or read here when it has none (no thread,
                // or one that ended early): the windows come in order, one per `TEXT_WINDOW`.
                let mut from_thread = reading.is_some();
                let mut window: Option<ReplyTexts> = None;
                let replies = self.replies_from(false).enumerate().map(|(k, (_, r, at))| {
                    if k % size == 0 {
                        let next = if from_thread { windows_read.recv().ok() } else { None };
                        from_thread &= next.is_some();
                        window = Some(next.unwrap_or_else(|| window_at(k / size)));
                    }
                    let text = window.as_ref().map_or("", |w| w.get(&at)).to_owned();
                    ReplyWithText(r, text)
                });
                out.write_all(b",\n  \"replies\": ").map_err(serde_json::Error::io)?;
                write_section(&mut out, replies, threads, batch)?;
                drop(windows_read);
                let waits_texts =
                    reading.and_then(|h| h.join().ok().flatten()).unwrap_or_else(|| self.a.reply_texts(false));
                let waits = self.wait_order().into_iter().map(|i| self.wait_ref(i as usize, |r| waits_texts.get(r)));
                out.write_all(b",\n  \"waits\": ").map_err(serde_json::Error::io)?;
                write_section(&mut out, waits, threads, batch)?;
                Ok::<(), serde_json::Error>(())
            })?;
        }
        out.write_all(b",\n  \"diagnostics\": ").map_err(serde_json::Error::io)?;
        write_section(&mut out, self.diagnostics(), threads, batch)?;
        if let Some(usage) = self.usage() {
            let mut buf = b",\n  \"usage\": ".to_vec();
            usage.pretty(&mut Writer::new(&mut buf, 1));
            out.write_all(&buf).map_err(serde_json::Error::io)?;
        }
        out.write_all(b"\n}").map_err(serde_json::Error::io)
    }
}

/// One section's array, its items formatted in parallel batches and written in order.
///
/// This thread makes the items and writes; `threads` threads format batches of them meanwhile.
/// At most two batches a thread are in flight, and a batch holds about `BATCH_BYTES` of JSON (its
/// number of items, at most `batch`, reckoned from the bytes an item of the section took so far),
/// so memory stays bounded whatever the section's length and however large its items are.
fn write_section<W: std::io::Write, T: Pretty + Send>(
    out: &mut W,
    items: impl Iterator<Item = T>,
    threads: usize,
    batch: usize,
) -> serde_json::Result<()> {
    use std::sync::mpsc;
    let batch = batch.max(1);
    let mut items = items.fuse();
    // The section's items and bytes written so far: the size of an item, for the next batch's.
    let (mut items_out, mut bytes_out) = (0usize, 0usize);
    let mut counts = std::collections::VecDeque::new();
    let mut next_batch = |items_out: usize, bytes_out: usize| {
        let n = match bytes_out.checked_div(items_out) {
            Some(per_item) => (BATCH_BYTES / per_item.max(1)).clamp(1, batch),
            None => batch.min(FIRST_BATCH),
        };
        items.by_ref().take(n).collect::<Vec<T>>()
    };
    let mut first = true;
    let mut write = |text: Vec<u8>| -> serde_json::Result<()> {
        // Each item comes after its separator; the array's first after its opening instead.
        let text = if first {
            out.write_all(b"[").map_err(serde_json::Error::io)?;
            &text[1..]
        } else {
            &text[..]
        };
        first = false;
        out.write_all(text).map_err(serde_json::Error::io)
    };
    let (jobs, job_queue) = mpsc::sync_channel::<(usize, Vec<T>)>(threads);
    let job_queue = std::sync::Mutex::new(job_queue);
    let (done, finished) = mpsc::channel::<(usize, serde_json::Result<Vec<u8>>)>();
    std::thread::scope(|scope| {
        // Owned here, so that returning ends the workers (their queue closes) before the scope
        // waits for them.
        let (jobs, done) = (jobs, done);
        let mut workers = 0;
        for _ in 0..threads {
            let (job_queue, done) = (&job_queue, done.clone());
            let work = move || loop {
                let job = job_queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).recv();
                let Ok((i, items)) = job else { return };
                let text = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| format_batch(&items)))
                    .unwrap_or_else(|_| Err(serde_json::Error::io(std::io::Error::other("a report batch failed"))));
                if done.send((i, text)).is_err() {
                    return;
                }
            };
            workers +=
                usize::from(std::thread::Builder::new().name("arbor-report".into()).spawn_scoped(scope, work).is_ok());
        }
        drop(done);
        let mut ready = std::collections::BTreeMap::new();
        let (mut sent, mut written) = (0usize, 0usize);
        loop {
            while sent - written < 2 * threads.max(1) {
                let b = next_batch(items_out, bytes_out);
                if b.is_empty() {
                    break;
                }
                counts.push_back(b.len());
                if workers == 0 {
                    // No thread could start: format here.
                    ready.insert(sent, format_batch(&b));
                } else if jobs.send((sent, b)).is_err() {
                    return Err(serde_json::Error::io(std::io::Error::other("the report's threads ended")));
                }
                sent += 1;
            }
            if written == sent {
                return Ok(());
            }
            while !ready.contains_key(&written) {
                let Ok((i, text)) = finished.recv() else {
                    return Err(serde_json::Error::io(std::io::Error::other("the report's threads ended")));
                };
                ready.insert(i, text);
            }
            let text = ready.remove(&written).unwrap_or_else(|| Ok(Vec::new()))?;
            items_out += counts.pop_front().unwrap_or(0);
            bytes_out += text.len();
            write(text)?;
            written += 1;
        }
    })?;
    out.write_all(if first { b"[]" } else { b"\n  ]" }).map_err(serde_json::Error::io)
}

/// Items as elements of a top-level array of the pretty report, each after `,`, a newline and
/// its indent, written two levels down (the report object, the array) so that each item's own
/// lines are indented as they are in the whole report (`report_json`).
fn format_batch<T: Pretty>(items: &[T]) -> serde_json::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(items.len() * 512);
    for item in items {
        buf.extend_from_slice(b",\n    ");
        item.pretty(&mut Writer::new(&mut buf, 2));
    }
    Ok(buf)
}

impl crate::analysis::Analysis {
    /// The report as pretty JSON, written straight from the analysis: the same bytes as
    /// serialising `report()`, without materialising it.
    pub fn write_report_json<W: std::io::Write>(&self, out: W) -> serde_json::Result<()> {
        let threads = match self.threads {
            crate::analysis::Threads::PerCore => crate::analysis::worker_threads(),
            crate::analysis::Threads::Caller => 0,
        };
        ReportParts::new(self).write_pretty(out, threads)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Turn ids as the owned report's `serde_json::Value` writes them: numbers (zero, negative,
    /// the largest), text, and null.
    #[test]
    fn turn_ids_are_written_as_their_json_values() {
        let ids = [
            TurnIdRef::Num(0),
            TurnIdRef::Num(7),
            TurnIdRef::Num(-3),
            TurnIdRef::Num(i64::MAX),
            TurnIdRef::Num(i64::MIN),
        ];
        for t in ids.into_iter().chain([TurnIdRef::Text("t-1 \"x\""), TurnIdRef::Null]) {
            let mut got = Vec::new();
            Writer::new(&mut got, 0).turn_id(t);
            assert_eq!(String::from_utf8(got).unwrap(), serde_json::Value::from(t).to_string(), "{t:?}");
        }
    }

    /// Every byte value that matters, in every position, against serde_json.
    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut cases: Vec<String> = (0u8..0x80).map(|c| format!("a{}b", c as char)).collect();
        cases.extend(
            ["", "\"", "\\", "plain text with no escapes at all, longer than sixteen bytes", "é → 😀 \u{7f}"]
                .map(String::from),
        );
        let all: String = (0u8..0x80).map(|c| c as char).collect::<String>() + "é\u{2028}";
        for n in 0..all.len() {
            if all.is_char_boundary(n) {
                cases.push(all[n..].to_owned());
                cases.push(all[..n].repeat(3));
            }
        }
        for s in &cases {
            let mut got = Vec::new();
            escape_into(&mut got, s);
            assert_eq!(String::from_utf8(got).unwrap(), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }
}
