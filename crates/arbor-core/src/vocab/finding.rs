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
    pub message: String,
}

#[derive(Debug, Default, Clone)]
pub struct Findings {
    pub list: Vec<Finding>,
}

impl Findings {
    /// A finding, its message held in the bytes it has: a `format!`ted message is made with
    /// room to grow (a Gemini CLI tree's 400,000 findings of ~210 bytes held ~90 bytes each
    /// more).
    pub fn add(&mut self, code: Code, at: Loc, session: Option<Sym>, message: impl Into<String>) {
        let mut message = message.into();
        message.shrink_to_fit();
        self.list.push(Finding { code, at, session, message });
    }
}
