//! Findings: the catalog of SPEC.md section 3 as an enum, and the table they are collected in.
//!
//! Malformed input is data: every problem the engine meets becomes a `Finding` with its place, and
//! loading goes on. This module owns codes, severities and collection; it decides nothing.

use crate::intern::Sym;
use crate::report::Severity;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    MalformedLine,
    UnknownFormat,
    PlaceholderIds,
    TruncatedFinalLine,
    UnknownEventType,
    InvalidStartEdge,
    ChildIdReused,
    StaleRunSettled,
    FinishedWithoutStart,
    AncestryCycle,
    EventBeforeStartEdge,
    UnattributedNotification,
    ChildIdleWouldResolveWait,
    ChildErrorWouldFailWait,
    ChildReplyWouldReplaceRootReply,
    StampedEventBeforeAnySubagent,
    UnannouncedAgentId,
    SeqNotIncreasing,
    TurnStartWhileOpen,
    TurnNumberSkipped,
    StepNumberSkipped,
    StepOutsideTurn,
    StepStartWhileOpen,
    BoundaryMismatch,
    EventOutsideStep,
    ToolResultWithoutCall,
    TurnEndWithOpenStep,
    UnclosedAtEnd,
    BoundaryMirrorEvent,
    MissingParentSession,
    DelegationDepthMismatch,
    SupersededSessionFile,
    UnstampedSubagentEvent,
    SubagentLinkInferred,
    SubagentLinksDisagree,
    SubagentTranscriptMissing,
    DanglingParentUuid,
    ReplayedHistory,
    DuplicateUuid,
    SubagentReplyDiffers,
    MessageRewritten,
    HistoryRewound,
    FolderNamesRoot,
    /// Not in the catalog: a path that could not be read at all (reported with line 0).
    UnreadableInput,
    /// Not in the catalog: a followed file was truncated, replaced or removed, so what was open
    /// was read again from the start (SPEC 5 Follow).
    FileRewritten,
    /// SPEC 2.7: an OpenCode message's `tokens` are only its last model call's.
    MessageTokensLastStep,
    /// SPEC 2.7: OpenCode records that name a message or session that is not loaded.
    OrphanRecord,
    /// SPEC 2.7: a store of a schema this reader does not know.
    UnknownSchema,
}

impl Code {
    pub const ALL: &'static [Code] = &[
        Code::MalformedLine,
        Code::UnknownFormat,
        Code::PlaceholderIds,
        Code::TruncatedFinalLine,
        Code::UnknownEventType,
        Code::InvalidStartEdge,
        Code::ChildIdReused,
        Code::StaleRunSettled,
        Code::FinishedWithoutStart,
        Code::AncestryCycle,
        Code::EventBeforeStartEdge,
        Code::UnattributedNotification,
        Code::ChildIdleWouldResolveWait,
        Code::ChildErrorWouldFailWait,
        Code::ChildReplyWouldReplaceRootReply,
        Code::StampedEventBeforeAnySubagent,
        Code::UnannouncedAgentId,
        Code::SeqNotIncreasing,
        Code::TurnStartWhileOpen,
        Code::TurnNumberSkipped,
        Code::StepNumberSkipped,
        Code::StepOutsideTurn,
        Code::StepStartWhileOpen,
        Code::BoundaryMismatch,
        Code::EventOutsideStep,
        Code::ToolResultWithoutCall,
        Code::TurnEndWithOpenStep,
        Code::UnclosedAtEnd,
        Code::BoundaryMirrorEvent,
        Code::MissingParentSession,
        Code::DelegationDepthMismatch,
        Code::SupersededSessionFile,
        Code::UnstampedSubagentEvent,
        Code::SubagentLinkInferred,
        Code::SubagentLinksDisagree,
        Code::SubagentTranscriptMissing,
        Code::DanglingParentUuid,
        Code::ReplayedHistory,
        Code::DuplicateUuid,
        Code::SubagentReplyDiffers,
        Code::MessageRewritten,
        Code::HistoryRewound,
        Code::FolderNamesRoot,
        Code::UnreadableInput,
        Code::FileRewritten,
        Code::MessageTokensLastStep,
        Code::OrphanRecord,
        Code::UnknownSchema,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::MalformedLine => "malformed-line",
            Code::UnknownFormat => "unknown-format",
            Code::PlaceholderIds => "placeholder-ids",
            Code::TruncatedFinalLine => "truncated-final-line",
            Code::UnknownEventType => "unknown-event-type",
            Code::InvalidStartEdge => "invalid-start-edge",
            Code::ChildIdReused => "child-id-reused",
            Code::StaleRunSettled => "stale-run-settled",
            Code::FinishedWithoutStart => "finished-without-start",
            Code::AncestryCycle => "ancestry-cycle",
            Code::EventBeforeStartEdge => "event-before-start-edge",
            Code::UnattributedNotification => "unattributed-notification",
            Code::ChildIdleWouldResolveWait => "child-idle-would-resolve-wait",
            Code::ChildErrorWouldFailWait => "child-error-would-fail-wait",
            Code::ChildReplyWouldReplaceRootReply => "child-reply-would-replace-root-reply",
            Code::StampedEventBeforeAnySubagent => "stamped-event-before-any-subagent",
            Code::UnannouncedAgentId => "unannounced-agent-id",
            Code::SeqNotIncreasing => "seq-not-increasing",
            Code::TurnStartWhileOpen => "turn-start-while-open",
            Code::TurnNumberSkipped => "turn-number-skipped",
            Code::StepNumberSkipped => "step-number-skipped",
            Code::StepOutsideTurn => "step-outside-turn",
            Code::StepStartWhileOpen => "step-start-while-open",
            Code::BoundaryMismatch => "boundary-mismatch",
            Code::EventOutsideStep => "event-outside-step",
            Code::ToolResultWithoutCall => "tool-result-without-call",
            Code::TurnEndWithOpenStep => "turn-end-with-open-step",
            Code::UnclosedAtEnd => "unclosed-at-end",
            Code::BoundaryMirrorEvent => "boundary-mirror-event",
            Code::MissingParentSession => "missing-parent-session",
            Code::DelegationDepthMismatch => "delegation-depth-mismatch",
            Code::SupersededSessionFile => "superseded-session-file",
            Code::UnstampedSubagentEvent => "unstamped-subagent-event",
            Code::SubagentLinkInferred => "subagent-link-inferred",
            Code::SubagentLinksDisagree => "subagent-links-disagree",
            Code::SubagentTranscriptMissing => "subagent-transcript-missing",
            Code::DanglingParentUuid => "dangling-parent-uuid",
            Code::ReplayedHistory => "replayed-history",
            Code::DuplicateUuid => "duplicate-uuid",
            Code::SubagentReplyDiffers => "subagent-reply-differs",
            Code::MessageRewritten => "message-rewritten",
            Code::HistoryRewound => "history-rewound",
            Code::FolderNamesRoot => "folder-names-root",
            Code::UnreadableInput => "unreadable-input",
            Code::FileRewritten => "file-rewritten",
            Code::MessageTokensLastStep => "message-tokens-last-step",
            Code::OrphanRecord => "orphan-record",
            Code::UnknownSchema => "unknown-schema",
        }
    }

    /// A finding of the boundary checker (SPEC 2.3): what a durable log says supersedes these
    /// when they come from a recording of the same session.
    pub fn is_boundary(self) -> bool {
        use Code::*;
        matches!(
            self,
            SeqNotIncreasing
                | TurnStartWhileOpen
                | TurnNumberSkipped
                | StepNumberSkipped
                | StepOutsideTurn
                | StepStartWhileOpen
                | BoundaryMismatch
                | EventOutsideStep
                | ToolResultWithoutCall
                | TurnEndWithOpenStep
                | UnclosedAtEnd
                | BoundaryMirrorEvent
                | UnknownEventType
        )
    }

    pub fn severity(self) -> Severity {
        use Code::*;
        match self {
            MalformedLine
            | InvalidStartEdge
            | AncestryCycle
            | SeqNotIncreasing
            | TurnStartWhileOpen
            | StepOutsideTurn
            | StepStartWhileOpen
            | BoundaryMismatch
            | EventOutsideStep
            | ToolResultWithoutCall
            | TurnEndWithOpenStep
            | SubagentLinksDisagree
            | UnknownSchema
            | UnreadableInput => Severity::Error,
            PlaceholderIds
            | ChildIdReused
            | StaleRunSettled
            | StampedEventBeforeAnySubagent
            | UnannouncedAgentId
            | SupersededSessionFile
            | SubagentTranscriptMissing
            | ReplayedHistory
            | SubagentReplyDiffers
            | MessageRewritten
            | HistoryRewound
            | FolderNamesRoot
            | MessageTokensLastStep
            | FileRewritten => Severity::Info,
            _ => Severity::Warning,
        }
    }
}

/// A place inside the engine: file index and 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    pub file: u32,
    pub line: u64,
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub code: Code,
    pub at: Loc,
    pub session: Option<Sym>,
    /// Shared with the findings added lately that say the same (`Findings::add`), or a
    /// template's words with the log's own between them (`Findings::add_filled`).
    pub message: Said,
}

/// A message's fixed words, with a place for a word of the log's between each two
/// (`Findings::add_filled`): `Template(&["sub-agent `", "` lies in the folder of `", "`"])`.
#[derive(Debug)]
pub struct Template(pub &'static [&'static str]);

impl Template {
    /// Its words with `words` between them (a place left empty when `words` run out).
    fn write<'w>(&self, out: &mut impl std::fmt::Write, mut words: impl Iterator<Item = &'w str>) -> std::fmt::Result {
        for (i, piece) in self.0.iter().enumerate() {
            if i > 0 {
                out.write_str(words.next().unwrap_or(""))?;
            }
            out.write_str(piece)?;
        }
        Ok(())
    }
}

/// What a finding says. A format that tells the same thing of every session of a large log (an
/// OpenCode store's `message-tokens-last-step`, a Gemini CLI tree's `folder-names-root`) keeps
/// only the words that differ (`Filled`: the template and those words, each ended by a NUL),
/// where a whole message of ~250 bytes a finding was most of what its findings held (66,629 of
/// them, 17 MB, at a 1 GiB store's peak). Read as a text (`text`, `Display`): the words are the
/// same either way.
#[derive(Debug, Clone)]
pub enum Said {
    Text(std::sync::Arc<str>),
    Filled(&'static Template, Box<str>),
}

impl Said {
    /// Its words.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Said::Text(t) => std::borrow::Cow::Borrowed(t),
            Said::Filled(..) => std::borrow::Cow::Owned(self.to_string()),
        }
    }

    /// `fill`'s words in `template`'s places; `None` when a word holds a NUL (their ends) or
    /// the count is not the template's.
    fn filled(template: &'static Template, fill: &[&str]) -> Option<Said> {
        if fill.len() + 1 != template.0.len() || fill.iter().any(|w| w.contains('\0')) {
            return None;
        }
        let mut words = String::with_capacity(fill.iter().map(|w| w.len() + 1).sum());
        for w in fill {
            words.push_str(w);
            words.push('\0');
        }
        Some(Said::Filled(template, words.into_boxed_str()))
    }
}

impl std::fmt::Display for Said {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Said::Text(t) => f.write_str(t),
            Said::Filled(template, words) => template.write(f, words.split_terminator('\0')),
        }
    }
}

impl PartialEq for Said {
    fn eq(&self, other: &Said) -> bool {
        match (self, other) {
            (Said::Text(a), Said::Text(b)) => a == b,
            _ => self.text() == other.text(),
        }
    }
}

impl PartialEq<str> for Said {
    fn eq(&self, other: &str) -> bool {
        match self {
            Said::Text(a) => **a == *other,
            Said::Filled(..) => self.text() == other,
        }
    }
}

impl From<&str> for Said {
    fn from(t: &str) -> Said {
        Said::Text(t.into())
    }
}

impl From<String> for Said {
    fn from(t: String) -> Said {
        Said::Text(t.into())
    }
}

#[derive(Debug, Default, Clone)]
pub struct Findings {
    pub list: Vec<Finding>,
    /// Messages added lately, a slot by their hash: a message that says what one of them says
    /// is kept once (`add`).
    recent: Vec<std::sync::Arc<str>>,
}

/// How many slots `Findings::recent` has.
const RECENT_MESSAGES: usize = 256;

impl Findings {
    /// A finding, its message held in the bytes it has (a `format!`ted message is made with
    /// room to grow: a Gemini CLI tree's 400,000 findings of ~210 bytes held ~90 bytes each
    /// more), and once for the findings that say the same: a Gemini CLI tree's
    /// `message-rewritten`, one a file in words that differ only by a count, held 190 bytes each.
    pub fn add(&mut self, code: Code, at: Loc, session: Option<Sym>, message: impl Into<String>) {
        let message: String = message.into();
        if self.recent.is_empty() {
            self.recent = vec![std::sync::Arc::from(""); RECENT_MESSAGES];
        }
        let hash = ahash::RandomState::with_seeds(1, 2, 3, 4).hash_one(message.as_str());
        let slot = &mut self.recent[hash as usize % RECENT_MESSAGES];
        if **slot != *message {
            *slot = std::sync::Arc::from(message);
        }
        let message = Said::Text(slot.clone());
        self.list.push(Finding { code, at, session, message });
    }

    /// A finding whose message is `template`'s words with `fill`'s between them, holding only
    /// `fill`'s (`Said::Filled`): for what a format may tell of each of a log's sessions.
    pub fn add_filled(
        &mut self,
        code: Code,
        at: Loc,
        session: Option<Sym>,
        template: &'static Template,
        fill: &[&str],
    ) {
        match Said::filled(template, fill) {
            Some(message) => self.list.push(Finding { code, at, session, message }),
            None => self.add(code, at, session, filled_text(template, fill)),
        }
    }
}

/// `template`'s words with `fill`'s between them, as a whole text.
pub fn filled_text(template: &Template, fill: &[&str]) -> String {
    let mut out = String::new();
    // Writing into a `String` does not fail.
    let _ = template.write(&mut out, fill.iter().copied());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_that_say_the_same_share_their_message_and_each_keeps_its_own_words() {
        let mut f = Findings::default();
        let at = |line| Loc { file: 0, line };
        let said = ["2 line(s) rewrite", "4 line(s) rewrite", "2 line(s) rewrite", "", "4 line(s) rewrite"];
        for (i, m) in said.iter().enumerate() {
            f.add(Code::MessageRewritten, at(i as u64), None, *m);
        }
        // Another code that says the same words shares them too; other words are their own.
        f.add(Code::FolderNamesRoot, at(9), None, "2 line(s) rewrite");
        f.add(Code::FolderNamesRoot, at(10), None, "sub-agent `a` lies in the folder of `r`");
        let words: Vec<String> = f.list.iter().map(|x| x.message.to_string()).collect();
        assert_eq!(words[..5], said);
        assert_eq!(words[5..], ["2 line(s) rewrite", "sub-agent `a` lies in the folder of `r`"]);
        let same = |a: usize, b: usize| match (&f.list[a].message, &f.list[b].message) {
            (Said::Text(x), Said::Text(y)) => std::sync::Arc::ptr_eq(x, y),
            _ => false,
        };
        assert!(same(0, 2) && same(1, 4) && same(0, 5));
        assert!(!same(0, 1) && !same(5, 6));
    }

    /// A filled message reads as the whole text would (its words in their places, a place
    /// left empty when a word is); one whose words would hold a NUL is kept whole.
    #[test]
    fn a_filled_message_reads_as_its_whole_text() {
        static T: Template = Template(&["sub-agent `", "` lies in `", "`, the root"]);
        let mut f = Findings::default();
        let at = Loc { file: 0, line: 1 };
        f.add_filled(Code::FolderNamesRoot, at, None, &T, &["a", "r"]);
        f.add_filled(Code::FolderNamesRoot, at, None, &T, &["", "r"]);
        f.add_filled(Code::FolderNamesRoot, at, None, &T, &["a\0b", "r"]);
        let words: Vec<String> = f.list.iter().map(|x| x.message.to_string()).collect();
        assert_eq!(
            words,
            [
                "sub-agent `a` lies in `r`, the root",
                "sub-agent `` lies in `r`, the root",
                "sub-agent `a\0b` lies in `r`, the root"
            ]
        );
        assert!(matches!(f.list[0].message, Said::Filled(..)) && matches!(f.list[2].message, Said::Text(_)));
        assert_eq!(f.list[0].message.text(), words[0]);
        assert!(f.list[0].message == *"sub-agent `a` lies in `r`, the root");
        let text: Said = words[1].as_str().into();
        assert_eq!(f.list[1].message, text, "a filled message equals the text that says the same");
        assert_eq!(filled_text(&T, &["a", "r"]), words[0]);
    }
}
