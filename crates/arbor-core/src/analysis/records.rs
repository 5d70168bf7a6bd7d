//! An analysis's records for the inspector: a record's view, records around one, the records a
//! naive reader drops, and a plain-text search.

use crate::finding::Loc;
use crate::intern::Sym;
use crate::reader::{self, Lines};

use super::value::Analysis;

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
