//! Turns: what every format's reader writes as it finds a session's turns and steps, kept as
//! record indices (the records hold file, line, offset and time) so that a turn costs a few dozen
//! bytes whatever its content. The boundary checks that produce dsh turns live with the dsh
//! formats (`formats::dsh_events`); Copilot and the other formats write turns here directly.

use crate::intern::Sym;

/// A record index that names no record.
pub const NO_RECORD: u32 = u32::MAX;

/// A turn's id: a number (dsh) or a `turnId` string (Copilot), interned in `Turns::ids`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnId {
    Num(i64),
    Text(Sym),
}

/// One turn as the checker saw it: 48 bytes (a 1 GiB Copilot log has 281 k). Places are record
/// indices (the record has the file, line, offset and time); `Turns` holds the strings.
#[derive(Debug, Clone)]
pub struct TurnRec {
    pub session: Sym,
    /// The turn number (dsh) or `turnId` string (Copilot).
    pub turn: TurnId,
    run: u32,
    /// The records of the turn's start and end, or `NO_RECORD`.
    start: u32,
    end: u32,
    /// The record of the turn's last assistant message (its text stays in the file), or `NO_RECORD`.
    reply: u32,
    /// `reason.kind` of the turn's end, interned in `Turns::reasons`, or `NO_REASON`.
    reason: u32,
    pub steps: u32,
    /// The turn's step spans in `Turns::spans`, or `NO_SPANS` while it has none.
    spans: u32,
}

const NO_RUN: u32 = u32::MAX;
const NO_REASON: u32 = u32::MAX;
const NO_SPANS: u32 = u32::MAX;

fn opt(v: u32) -> Option<u32> {
    (v != u32::MAX).then_some(v)
}

impl TurnRec {
    pub fn new(session: Sym, run: Option<u32>, turn: TurnId, start: Option<u32>, end: Option<u32>) -> Self {
        TurnRec {
            session,
            turn,
            run: run.unwrap_or(NO_RUN),
            start: start.unwrap_or(NO_RECORD),
            end: end.unwrap_or(NO_RECORD),
            reply: NO_RECORD,
            reason: NO_REASON,
            steps: 0,
            spans: NO_SPANS,
        }
    }

    pub fn run(&self) -> Option<u32> {
        opt(self.run)
    }

    /// The record of the turn's start.
    pub fn start(&self) -> Option<u32> {
        opt(self.start)
    }

    pub fn end(&self) -> Option<u32> {
        opt(self.end)
    }

    pub fn set_end(&mut self, record: u32) {
        self.end = record;
    }

    /// The record of the turn's last assistant message.
    pub fn reply(&self) -> Option<u32> {
        opt(self.reply)
    }

    pub fn set_reply(&mut self, record: u32) {
        self.reply = record;
    }
}

/// One step of a turn: its number and the records of its start and end (`NO_RECORD`: open).
#[derive(Debug, Clone, Copy)]
pub struct StepSpan {
    pub step: u32,
    pub start: u32,
    end: u32,
}

impl StepSpan {
    /// A step that opened at record `start` and is still open.
    pub fn open(step: u32, start: u32) -> Self {
        StepSpan { step, start, end: NO_RECORD }
    }

    pub fn set_end(&mut self, end: Option<u32>) {
        self.end = end.unwrap_or(NO_RECORD);
    }

    pub fn end(&self) -> Option<u32> {
        opt(self.end)
    }
}

/// Where the checkers write turns, and the strings and step lists their records name.
#[derive(Debug, Default, Clone)]
pub struct Turns {
    pub list: Vec<TurnRec>,
    /// Copilot `turnId`s, each kept once (every agent's turns are "0", "1", …).
    pub ids: crate::intern::Interner,
    reasons: crate::intern::Interner,
    /// The step spans of each turn that has steps (dsh).
    spans: Vec<Vec<StepSpan>>,
}

impl Turns {
    /// The turn's `reason.kind`.
    pub fn reason(&self, t: &TurnRec) -> Option<&str> {
        opt(t.reason).map(|r| self.reasons.name(Sym(r)))
    }

    pub fn step_spans(&self, t: &TurnRec) -> &[StepSpan] {
        opt(t.spans).and_then(|i| self.spans.get(i as usize)).map_or(&[], Vec::as_slice)
    }

    /// The text of a turn id.
    pub fn id_text(&self, id: Sym) -> &str {
        self.ids.name(id)
    }

    pub(crate) fn set_reason(&mut self, ix: usize, reason: Option<&str>) {
        let r = reason.map_or(NO_REASON, |r| self.reasons.intern(r).0);
        self.list[ix].reason = r;
    }

    /// Adds a step span to turn `ix`; its index among the turn's spans.
    pub(crate) fn push_span(&mut self, ix: usize, span: StepSpan) -> usize {
        let t = &mut self.list[ix];
        if t.spans == NO_SPANS {
            t.spans = self.spans.len() as u32;
            self.spans.push(Vec::new());
        }
        let list = &mut self.spans[t.spans as usize];
        list.push(span);
        list.len() - 1
    }

    pub(crate) fn span_mut(&mut self, ix: usize, span: usize) -> Option<&mut StepSpan> {
        let i = opt(self.list.get(ix)?.spans)?;
        self.spans.get_mut(i as usize)?.get_mut(span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 GiB Copilot log has 281 k turns and 2.7 M records: their sizes are its memory.
    #[test]
    fn a_turn_and_a_record_stay_small() {
        assert_eq!(std::mem::size_of::<TurnRec>(), 48);
        assert_eq!(std::mem::size_of::<crate::ctx::Record>(), 24);
    }
}
