//! The transcript of one session (SPEC 5 Transcript): what it was asked, what it said and did,
//! whom it spawned and what they answered, read back from the files a page at a time.
//!
//! The record index says which records of a session are transcript rows (their kind: prompts,
//! messages, tool calls and results, spawns, replies received, compactions, notices), so a
//! session's row count and any page of it are known without reading the files; a row's parts are
//! read from its line by the line's format (`Format::transcript`). Texts are cut to a page's
//! budget with their full length given; `Analysis::transcript_part` returns one whole. Nothing
//! here is held beyond the page asked for but the session's row list.

use crate::analysis::Analysis;
use crate::ctx::{Kind, NO_SESSION};
use crate::intern::Sym;
use crate::report::{Place, Usage};
use crate::turns::TurnId;

pub use crate::vocab::transcript::{Draft, Item, Media, Page, Part, PartKind, Row, Show};

/// The kinds of record that are transcript rows.
pub fn is_row(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::UserMessage
            | Kind::AssistantMessage
            | Kind::ToolCall
            | Kind::ToolResult
            | Kind::SubagentStarted
            | Kind::SubagentFinished
            | Kind::Lifecycle
            | Kind::Error
            | Kind::Compaction
            | Kind::Reasoning
            | Kind::Notice
            | Kind::Usage
    )
}

/// A session's transcript rows (record indices) and its turns and steps, to page through: made
/// once per session shown (`Analysis::transcript_index`), a few bytes a row.
#[derive(Debug, Clone)]
pub struct Index {
    session: Sym,
    rows: Vec<u32>,
    /// The session's turns: (start record, end record or MAX, turn index), by start.
    turns: Vec<(u32, u32, usize)>,
}

impl Index {
    /// The session's records, a row each, in order.
    pub(crate) fn records(&self) -> &[u32] {
        &self.rows
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The record of a row (its index in the analysis).
    pub fn record(&self, row: u32) -> Option<usize> {
        self.rows.get(row as usize).map(|&r| r as usize)
    }

    /// The row of a record, when it is one of this transcript's (a finding's place, a search hit).
    pub fn row_of(&self, record: usize) -> Option<u32> {
        let r = u32::try_from(record).ok()?;
        self.rows.binary_search(&r).ok().map(|i| i as u32)
    }

    /// The row a place's record opens in this transcript: the record's own row, else the last
    /// row before it (a finding on a status line between two messages opens the message it
    /// follows), else the first row; `None` for an empty transcript.
    pub fn row_near(&self, record: usize) -> Option<u32> {
        let r = u32::try_from(record).unwrap_or(u32::MAX);
        let i = self.rows.partition_point(|&x| x <= r);
        if self.rows.is_empty() {
            return None;
        }
        Some(i.saturating_sub(1) as u32)
    }

    /// The turn (index in `Turns::list`) and step number a record is in.
    fn turn_step(&self, a: &Analysis, record: u32) -> (Option<usize>, Option<u32>) {
        let i = self.turns.partition_point(|t| t.0 <= record);
        let Some(&(start, end, ix)) = i.checked_sub(1).and_then(|i| self.turns.get(i)) else { return (None, None) };
        if record < start || record > end {
            return (None, None);
        }
        let t = &a.cx.turns.list[ix];
        let step =
            a.cx.turns
                .step_spans(t)
                .iter()
                .rev()
                .find(|s| s.start <= record && s.end().is_none_or(|e| record <= e))
                .map(|s| s.step);
        (Some(ix), step)
    }
}

/// A session's turns as (start record, end record or MAX, turn index), by start.
fn turn_ranges<'a>(turns: impl Iterator<Item = (usize, &'a crate::turns::TurnRec)>) -> Vec<(u32, u32, usize)> {
    let mut ranges: Vec<(u32, u32, usize)> =
        turns.filter_map(|(i, t)| Some((t.start().or(t.end())?, t.end().unwrap_or(u32::MAX), i))).collect();
    ranges.sort_unstable();
    ranges
}

/// The first `max` characters of `text`, and whether it was cut.
fn cut(text: String, max: usize) -> (String, u64, bool) {
    let len = text.chars().count() as u64;
    if len as usize <= max {
        return (text, len, false);
    }
    let end = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    (text[..end].to_owned(), len, true)
}

impl Analysis {
    /// The transcript rows of `session` (by its id), or `None` when there is no such session.
    pub fn transcript_index(&self, session: &str) -> Option<Index> {
        let s = self.cx.ids.get(session).filter(|&s| self.cx.graph.contains(s))?;
        let rows = self
            .cx
            .records
            .iter()
            .enumerate()
            .filter(|(_, r)| r.session == s.0 && r.session != NO_SESSION && is_row(r.kind()))
            .map(|(i, _)| i as u32)
            .collect();
        let turns = self.cx.turns.list.iter().enumerate().filter(|(_, t)| t.session == s);
        Some(Index { session: s, rows, turns: turn_ranges(turns) })
    }

    /// Every session's transcript index at once, by session id, made in one pass over the
    /// records: what an export that walks every session needs, where asking for each session
    /// alone would read the whole record index once per session.
    pub fn transcript_indexes(&self) -> crate::intern::HashMap<&str, Index> {
        let mut rows: crate::intern::HashMap<u32, Vec<u32>> = crate::intern::HashMap::default();
        for (i, r) in self.cx.records.iter().enumerate() {
            if r.session != NO_SESSION && is_row(r.kind()) {
                rows.entry(r.session).or_default().push(i as u32);
            }
        }
        let mut turns: crate::intern::HashMap<u32, Vec<(usize, &crate::turns::TurnRec)>> =
            crate::intern::HashMap::default();
        for (i, t) in self.cx.turns.list.iter().enumerate() {
            turns.entry(t.session.0).or_default().push((i, t));
        }
        self.cx
            .graph
            .report_order()
            .into_iter()
            .map(|s| {
                let index = Index {
                    session: s,
                    rows: rows.remove(&s.0).unwrap_or_default(),
                    turns: turn_ranges(turns.remove(&s.0).unwrap_or_default().into_iter()),
                };
                (self.cx.ids.name(s), index)
            })
            .collect()
    }

    /// Rows `from..from + limit` of a transcript, each part's text cut to `max_text` characters.
    pub fn transcript_page(&self, index: &Index, from: u32, limit: u32, max_text: usize) -> Page {
        let from = from.min(index.rows.len() as u32);
        let to = from.saturating_add(limit).min(index.rows.len() as u32);
        // One row before the page too: a message split over lines shows its tokens once, on its
        // first line, which may be on the page before.
        let first = from.saturating_sub(1);
        let drafts = self.read_drafts(&index.rows[first as usize..to as usize]);
        let tokens = self.message_tokens(index, &drafts, to);
        let mut rows = Vec::with_capacity((to - from) as usize);
        let mut last_message: Option<String> = None;
        for (k, (record, drafts)) in index.rows[first as usize..to as usize].iter().zip(drafts).enumerate() {
            let row = first + k as u32;
            let mut parts = Vec::with_capacity(drafts.len());
            for d in drafts {
                let repeated = d.message.is_some() && d.message == last_message;
                if d.message.is_some() {
                    last_message.clone_from(&d.message);
                }
                // A tool call that started a child is its spawn, and its result what came back.
                let spawned = d
                    .call_id
                    .as_deref()
                    .and_then(|call| self.cx.spawns.get(&(index.session, std::sync::Arc::<str>::from(call))));
                let kind = match (d.kind, spawned) {
                    (Some(PartKind::ToolCall), Some(_)) => PartKind::Spawn,
                    (Some(PartKind::ToolResult), Some(_)) if !d.acknowledges => PartKind::Received,
                    (k, _) => k.unwrap_or(PartKind::Notice),
                };
                let child = d.child.or_else(|| spawned.map(|c| self.cx.ids.name(*c).to_owned()));
                let (text, text_len, was_cut) = cut(d.text, max_text);
                parts.push(Part {
                    kind,
                    text,
                    text_len,
                    cut: was_cut,
                    json: d.json,
                    tool: d.tool,
                    call_id: d.call_id,
                    is_error: d.is_error,
                    child,
                    model: d.model,
                    media: d.media,
                    usage: if repeated {
                        None
                    } else {
                        d.message.as_ref().and_then(|m| tokens.get(m).cloned()).or(d.usage.clone())
                    },
                });
            }
            if row < from {
                continue;
            }
            rows.push(self.row(index, row, *record, parts));
        }
        Page { session: self.cx.ids.name(index.session).to_owned(), total: index.rows.len() as u32, from, rows }
    }

    /// The tokens of each message the drafts name: the largest of each count over its lines, as
    /// readers count a message whose lines repeat a growing snapshot (Claude Code: output 8, 8,
    /// 436). The last message may go on past the page: its lines are read on until another
    /// message starts, at most `LOOK_AHEAD` rows.
    fn message_tokens(&self, index: &Index, drafts: &[Vec<Draft>], to: u32) -> crate::intern::HashMap<String, Usage> {
        const LOOK_AHEAD: usize = 256;
        fn fold(tokens: &mut crate::intern::HashMap<String, Usage>, m: &str, u: &Usage) {
            let t = tokens.entry(m.to_owned()).or_insert_with(|| u.clone());
            (t.input, t.output) = (t.input.max(u.input), t.output.max(u.output));
            (t.cache_read, t.cache_write) = (t.cache_read.max(u.cache_read), t.cache_write.max(u.cache_write));
        }
        let mut tokens = crate::intern::HashMap::default();
        for d in drafts.iter().flatten() {
            if let (Some(m), Some(u)) = (&d.message, &d.usage) {
                fold(&mut tokens, m, u);
            }
        }
        let Some(last) = drafts.iter().flatten().rev().find_map(|d| d.message.clone()) else { return tokens };
        let (mut at, end) = (to as usize, index.rows.len().min(to as usize + LOOK_AHEAD));
        while at < end {
            let next = end.min(at + 16);
            for d in self.read_drafts(&index.rows[at..next]).iter().flatten() {
                match (&d.message, &d.usage) {
                    (Some(m), _) if *m != last => return tokens,
                    (Some(m), Some(u)) => fold(&mut tokens, m, u),
                    _ => {}
                }
            }
            at = next;
        }
        tokens
    }

    /// The rows of a transcript that `show` keeps and whose text (or tool name) holds `query`
    /// (any case; every row `show` keeps when `query` is empty), in order: what the app's find
    /// steps through and its filter shows. Each part's whole text is read back.
    pub fn transcript_find(&self, index: &Index, query: &str, show: Show) -> Vec<u32> {
        self.transcript_find_in(index, query, show, 0, u32::MAX)
    }

    /// `transcript_find` over rows `from..from + limit` only: a find of a long transcript asks
    /// for it a block at a time, so that the hit nearest the reader shows before every row was
    /// read (a 100,000-item session is a few seconds of reading back).
    pub fn transcript_find_in(&self, index: &Index, query: &str, show: Show, from: u32, limit: u32) -> Vec<u32> {
        const FIND_BLOCK: u32 = 500;
        let needle = query.to_lowercase();
        let end = from.saturating_add(limit);
        let mut out = Vec::new();
        let mut at = from;
        while at < end {
            let page = self.transcript_page(index, at, FIND_BLOCK.min(end - at), usize::MAX);
            for row in &page.rows {
                let text = needle.is_empty()
                    || row.parts.iter().any(|p| {
                        p.text.to_lowercase().contains(&needle)
                            || p.tool.as_deref().is_some_and(|t| t.to_lowercase().contains(&needle))
                    });
                if text && show.keeps(&row.parts) {
                    out.push(row.row);
                }
            }
            at = page.from + page.rows.len() as u32;
            if page.rows.is_empty() || at >= page.total {
                break;
            }
        }
        out
    }

    /// The whole text of one part of one row.
    pub fn transcript_part(&self, index: &Index, row: u32, part: usize) -> Option<String> {
        self.draft(index, row, part).map(|d| d.text)
    }

    /// Part `part` of row `row` as its format reads it, from its line read back.
    fn draft(&self, index: &Index, row: u32, part: usize) -> Option<Draft> {
        let record = *index.rows.get(row as usize)?;
        self.read_drafts(&[record]).pop()?.into_iter().nth(part)
    }

    /// The data of image part `part` of row `row`, as a `data:` URL, read back from its line when
    /// it is shown; `None` when the part is not an inline image of a type an image element draws.
    pub fn transcript_media(&self, index: &Index, row: u32, part: usize) -> Option<String> {
        self.draft(index, row, part).and_then(|d| d.data_url)
    }

    fn row(&self, index: &Index, row: u32, record: u32, mut parts: Vec<Part>) -> Row {
        let view = self.record_view(record as usize);
        let (turn, step) = index.turn_step(self, record);
        // A model call's own line: the tokens its format counted there, with the model then.
        if let Some((usage, model)) = self.cx.usage.call(record) {
            for p in parts.iter_mut().filter(|p| p.kind == PartKind::Usage) {
                p.usage = Some(usage.clone());
                p.model = model.map(str::to_owned);
            }
        }
        let turn = turn.map_or(serde_json::Value::Null, |ix| match self.cx.turns.list[ix].turn {
            TurnId::Num(n) => n.into(),
            TurnId::Text(s) => self.cx.turns.id_text(s).into(),
        });
        Row {
            row,
            record: record as usize,
            at: Place {
                file: view.as_ref().map(|v| v.file.clone()).unwrap_or_default(),
                line: view.as_ref().map_or(0, |v| v.line),
            },
            kind: view.as_ref().map_or("event", |v| v.kind),
            time: view.and_then(|v| v.time),
            turn,
            step,
            parts,
        }
    }

    /// The parts of records of any sessions as their formats read them, with each tool call that
    /// started a child a spawn naming it: what a comparison fingerprints, without the rows of a
    /// page around them. Read in one pass per file in offset order.
    pub(crate) fn record_parts(&self, records: &[u32]) -> Vec<Vec<Draft>> {
        let mut drafts = self.read_drafts_as(records, true);
        for (&r, parts) in records.iter().zip(drafts.iter_mut()) {
            let Some(session) = self.cx.records.get(r as usize).map(|x| Sym(x.session)) else { continue };
            for d in parts.iter_mut().filter(|d| d.kind == Some(PartKind::ToolCall)) {
                let Some(call) = d.call_id.as_deref() else { continue };
                if let Some(c) = self.cx.spawns.get(&(session, std::sync::Arc::<str>::from(call))) {
                    d.kind = Some(PartKind::Spawn);
                    if d.child.is_none() {
                        d.child = Some(self.cx.ids.name(*c).to_owned());
                    }
                }
            }
        }
        drafts
    }

    /// The parts of each record, read from its line by its file's format: one pass per file,
    /// in offset order.
    pub(crate) fn read_drafts(&self, records: &[u32]) -> Vec<Vec<Draft>> {
        self.read_drafts_as(records, false)
    }

    /// `read_drafts`, or with `compared` as a comparison reads them (`Format::compared_parts`).
    pub(crate) fn read_drafts_as(&self, records: &[u32], compared: bool) -> Vec<Vec<Draft>> {
        let mut out: Vec<Vec<Draft>> = vec![Vec::new(); records.len()];
        let mut by_file: Vec<(u32, u64, usize, crate::ctx::Kind)> = records
            .iter()
            .enumerate()
            .filter_map(|(i, &r)| {
                let rec = self.cx.records.get(r as usize)?;
                Some((self.cx.file_of(r as usize)?, rec.offset(), i, rec.kind()))
            })
            .collect();
        by_file.sort_unstable_by_key(|&(f, o, i, _)| (f, o, i));
        for group in by_file.chunk_by(|a, b| a.0 == b.0) {
            let Some(info) = self.files.get(group[0].0 as usize) else { continue };
            let Some(format) = info.format else { continue };
            let pieces: Vec<(u64, crate::reader::Piece)> =
                group.iter().map(|&(_, off, _, _)| (off, crate::reader::Piece::Line)).collect();
            let _ = crate::reader::each_piece_at(&info.path, &pieces, |k, bytes| match bytes {
                Some(b) if compared => format.reader.compared_parts(b, group[k].3, &mut out[group[k].2]),
                Some(b) => format.reader.transcript_as(b, group[k].3, &mut out[group[k].2]),
                None => {}
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_opens_its_own_row_else_the_one_before_else_the_first() {
        let index = Index { session: Sym(0), rows: vec![3, 7, 9], turns: Vec::new() };
        assert_eq!(index.row_near(7), Some(1));
        assert_eq!(index.row_near(8), Some(1));
        assert_eq!(index.row_near(100), Some(2));
        assert_eq!(index.row_near(0), Some(0));
        let empty = Index { session: Sym(0), rows: Vec::new(), turns: Vec::new() };
        assert_eq!(empty.row_near(5), None);
    }

    #[test]
    fn a_long_text_is_cut_on_a_character_with_its_whole_length() {
        assert_eq!(cut("héllo".into(), 10), ("héllo".into(), 5, false));
        assert_eq!(cut("héllo".into(), 2), ("hé".into(), 5, true));
        assert_eq!(cut(String::new(), 0), (String::new(), 0, false));
    }
}
