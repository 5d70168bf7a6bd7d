//! The findings explained: for every finding code, a title, why it matters, what a naive reader of
//! the log does, how to fix it, and the SPEC section the rule comes from.
//!
//! One catalog serves every place that explains a finding: `arbor explain`, the rules of
//! `arbor check --format sarif`, the app (the entries are plain, serializable data), and
//! `docs/findings.md`, which `markdown` renders and a test keeps in step. It owns words only: which
//! findings a log has is decided by the analyses, and a code's severity by `finding`.

use crate::finding::Code;
use crate::report::Severity;
use serde::Serialize;
use ts_rs::TS;

/// What one finding code means, for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
pub struct Explanation {
    /// The finding's `code`, as in reports.
    pub code: &'static str,
    pub severity: Severity,
    /// One line: what was found.
    pub title: &'static str,
    /// Why it matters: what is wrong or lost when a log has it.
    pub why: &'static str,
    /// What a naive reader of the log does with it.
    pub naive: &'static str,
    /// How to fix it (in the producer, the log, or how it is opened).
    pub fix: &'static str,
    /// The sections of SPEC.md the rule comes from, such as `2.1` or `2.4, 2.5`.
    pub spec: &'static str,
}

impl Explanation {
    /// Why it matters, what a naive reader does, how to fix it: three paragraphs of plain text.
    pub fn text(&self) -> String {
        format!(
            "Why it matters: {}\n\nWhat a naive reader does: {}\n\nHow to fix it: {}\n",
            self.why, self.naive, self.fix
        )
    }

    /// The same three paragraphs in Markdown.
    pub fn markdown(&self) -> String {
        format!(
            "**Why it matters.** {}\n\n**What a naive reader does.** {}\n\n**How to fix it.** {}\n",
            self.why, self.naive, self.fix
        )
    }

    /// The code's section of `docs/findings.md`: a heading, the severity, SPEC section and title,
    /// then the three paragraphs.
    pub fn section(&self) -> String {
        format!(
            "## `{}`\n\n**{}** · SPEC {} · {}\n\n{}",
            self.code,
            severity(self.severity),
            self.spec,
            self.title,
            self.markdown()
        )
    }
}

/// The explanation of `code`. The match is exhaustive: a new code does not compile without one.
pub fn explain(code: Code) -> Explanation {
    let (title, why, naive, fix, spec) = texts(code);
    Explanation { code: code.as_str(), severity: code.severity(), title, why, naive, fix, spec }
}

/// Every code's explanation, in the catalog's order (`Code::ALL`).
pub fn catalog() -> Vec<Explanation> {
    Code::ALL.iter().map(|&c| explain(c)).collect()
}

/// The explanation of the code spelled `code` (`ancestry-cycle`), if there is such a code.
pub fn find(code: &str) -> Option<Explanation> {
    Code::ALL.iter().find(|c| c.as_str() == code).map(|&c| explain(c))
}

type Texts = (&'static str, &'static str, &'static str, &'static str, &'static str);

fn texts(code: Code) -> Texts {
    use Code::*;
    match code {
        MalformedLine => (
            "A line is not a JSON object in valid UTF-8",
            "The record on that line is lost: whatever it said (an event, a boundary, a start edge, a reply) is \
             missing from the tree, the timeline and the replies.",
            "A reader that parses the file as a whole fails on it and shows nothing; one that skips bad lines \
             quietly shows a log with a hole in it and no sign of one.",
            "Find what wrote the line (a crash mid-write, two writers on one file, a byte that is not UTF-8) and \
             repair or remove it. Arbor reads the rest and counts the line in the input's `bad_lines`.",
            "1",
        ),
        UnknownFormat => (
            "A file in an opened folder is in no format Arbor reads (skipped)",
            "Its records are not part of the analysis: if it is a session log, its sessions are missing from the \
             tree and its findings are not reported.",
            "A reader that goes by file names takes every `*.jsonl` for a log of its format and reports nonsense, \
             or fails, on the first file that is not.",
            "Keep files that are not logs out of the log folder, or open the log files themselves. If it is a log \
             of a newer harness version, its first lines show what Arbor would have to learn.",
            "1",
        ),
        PlaceholderIds => (
            "The file's ids are placeholders such as `{{sessionId}}` (a normalized snapshot)",
            "When one placeholder stands for several sessions, the ids cannot tell them apart: Arbor keeps them \
             apart by file (dsh-session) or by nesting (dsh-rpc) and names them `{{id}}@file` or `{{id}}#n`.",
            "A reader keyed by id merges every session that shares a placeholder into one, and takes a header \
             whose `parentSession` is its own placeholder for an ancestry cycle.",
            "Nothing, in a golden snapshot: the finding is information, and a clean snapshot still checks clean. \
             In a log from the field it means a normalizer ran on it: read the original.",
            "1.1",
        ),
        TruncatedFinalLine => (
            "The last line has no newline and does not parse",
            "The log was still being written, or its writer died mid-line: the last record is incomplete, so the \
             last event, status or reply of the run may be missing.",
            "A reader takes the file for corrupt and fails, or drops the line without saying the log is \
             unfinished and presents the run as if it had ended.",
            "Read the log again once the harness has finished writing it. If the harness crashed, that line is \
             lost and the run did not end cleanly.",
            "1",
        ),
        UnknownEventType => (
            "An event type outside the durable vocabulary, not marked `ignorable`",
            "The harness validates a durable log when it loads it: it would refuse this one (resume and replay \
             fail), although Arbor still shows everything else.",
            "A viewer that skips unknown types shows the log as healthy; the harness that has to load it again \
             will not take it.",
            "Mark the event `ignorable: true` when readers may skip it (a plugin's event, a newer version's), or \
             add the type to the harness's vocabulary. A misspelt type is a bug in the writer.",
            "2.3",
        ),
        InvalidStartEdge => (
            "`subagent.started` with a missing, empty or non-string id, or child = parent",
            "No edge is recorded: the child stays a root of its own, so its notifications never reach its \
             parent's root turn, and the tree lacks that branch.",
            "A router that records whatever it is given keys an edge by `null`, or makes a session its own \
             parent and then loops or attributes the child's events to the wrong root.",
            "Fix the producer: every `subagent.started` needs `parentSessionId` and `childSessionId` as \
             non-empty strings that differ. The same placeholder on both sides, in a normalized snapshot, is \
             not this finding: it opens the unnamed child's nested log, `{{id}}#n`.",
            "2.1, 1.1",
        ),
        ChildIdReused => (
            "A start edge for a child that already had a run",
            "The child id was reused: a new run begins under the (possibly new) parent. The old run's late \
             `subagent.finished` must settle the old run, and must not move the child back.",
            "A reader that keys runs by child id alone merges both runs into one, or lets the old run's finish \
             overwrite the new run's parent and outcome.",
            "Nothing, if the harness reuses ids on purpose: Arbor shows every run. If ids are meant to be \
             unique, make the producer allocate a fresh child id for each spawn.",
            "2.1",
        ),
        StaleRunSettled => (
            "A `subagent.finished` settles a run that is no longer the child's current one",
            "An older run ended after its child id was reused. It settles that run, routed by its own \
             `parentSessionId`; the child's current parent stays the replacement's.",
            "A reader that updates a child's parent from every lifecycle notification moves the replacement \
             under the old parent and gives it the old run's outcome.",
            "Nothing in the log: this is the case the routing rule exists for. In a consumer, route \
             `subagent.finished` by its own `parentSessionId` and never rewrite ancestry with it.",
            "2.1",
        ),
        FinishedWithoutStart => (
            "A `subagent.finished` with no open run under that parent",
            "The run it reports did not start in this log (the recording began later, or the start edge was \
             invalid), so its outcome settles nothing.",
            "A reader creates the child from the finish alone, with a parent but no start, or gives the outcome \
             to another run of the same child.",
            "Record from the start of the runtime (its `initialize`) so that start edges are in the log, and look \
             for an `invalid-start-edge` earlier in the file.",
            "2.1",
        ),
        AncestryCycle => (
            "A start edge or header makes a session its own ancestor",
            "The sessions in the cycle have no root: their notifications belong to no root turn, and their \
             `root` and `depth` are null in the report.",
            "A reader that walks parents without remembering where it has been loops forever; one with a depth \
             limit stops at an arbitrary session and calls it the root.",
            "Fix the producer: a child id must never name one of its own ancestors. In a dsh-session folder, \
             check the headers' `parentSession`.",
            "2.1, 2.3",
        ),
        EventBeforeStartEdge => (
            "A `session.event`/`session.status` from a session whose start edge comes later",
            "When it was sent, the session belonged to no tree (it was its own root then), so it is not part of \
             the later parent's root turn.",
            "A reader that builds the whole tree first and attributes events afterwards dates the edge back and \
             counts the event in the parent's turn.",
            "Emit `subagent.started` before the child's first notification: until its start edge arrives, no \
             client can attribute the child's events to a tree.",
            "2.1",
        ),
        UnattributedNotification => (
            "A notification whose walk to a root meets a cycle",
            "It belongs to no root turn: no waiter receives it, so whatever it says (events, statuses, a reply) \
             reaches no root.",
            "A reader without cycle detection hangs on it; one with a depth limit gives it to whichever session \
             the walk stopped at.",
            "Fix the `ancestry-cycle` reported at the start edge that closed the cycle; the notification is then \
             attributed.",
            "2.1",
        ),
        ChildIdleWouldResolveWait => (
            "A sub-agent's `session.idle` while a root wait is open",
            "The CLI re-emits a sub-agent's events on its parent's stream, stamped with the child's `agentId`; \
             only the root agent's own idle ends the root's wait.",
            "A waiter that ignores `agentId` (the Copilot SDKs' `send_and_wait` before its fix) resolves at the child's idle and \
             returns before the root has finished, with the wrong reply.",
            "Gate the waiter on root-agent events: `agentId` absent or empty, or not a known sub-agent's (the two \
             regimes of SPEC 2.2).",
            "2.2",
        ),
        ChildErrorWouldFailWait => (
            "A sub-agent's `session.error` while a root wait is open",
            "A sub-agent's failure is not the root's: the root agent can recover and still reply, and its wait \
             ends at its own idle or error.",
            "A waiter that ignores `agentId` fails the whole wait with the child's error and drops the root's \
             later reply.",
            "Gate the waiter on root-agent events: `agentId` absent or empty, or not a known sub-agent's (the two \
             regimes of SPEC 2.2).",
            "2.2",
        ),
        ChildReplyWouldReplaceRootReply => (
            "The naive waiter would return a sub-agent's message as the root's reply",
            "The user would be shown a sub-agent's answer as the agent's reply (reported at that message).",
            "It ends `idle` or `inferred` and returns the last `assistant.message` of any agent, which here is a \
             sub-agent's.",
            "Keep as the reply only the root agent's `assistant.message` events (`agentId` absent or empty, or \
             not a known sub-agent's).",
            "2.2",
        ),
        StampedEventBeforeAnySubagent => (
            "A stamped event before any sub-agent is known (first regime; once per id)",
            "With no sub-agent announced yet, every stamped event is a sub-agent's: a resumed session can meet a \
             background child it never saw start. Arbor makes the id a sub-agent under the root, link inferred.",
            "A gate that trusts announced ids only takes the event for the root's, so a background child that \
             outlived a detach can resolve or fail the resumed root's wait.",
            "Nothing in the log: it shows a resumed session. In a consumer, treat every stamped event as a \
             sub-agent's until one is known.",
            "2.2",
        ),
        UnannouncedAgentId => (
            "An unknown stamped id taken for the root's (second regime; once per id)",
            "Once sub-agents are known, an unknown `agentId` is the root's (forward compatibility: a runtime may \
             start stamping root events). If it is really a sub-agent, its lifecycle events are missing.",
            "A gate that takes every stamped event for a sub-agent's never resolves a wait once the root's own \
             events are stamped.",
            "Check that the log holds the `subagent.*` lifecycle events of every sub-agent; if this id is one, \
             find why its `subagent.started` was not recorded.",
            "2.2",
        ),
        SeqNotIncreasing => (
            "`seq` does not strictly increase",
            "`seq` orders the durable fact log; a repeat or a step back means events were lost, duplicated, or \
             written by two writers, and replay order is undefined.",
            "A reader that sorts by `seq` silently reorders or merges events; one that goes by file order never \
             notices.",
            "Find the second writer or the restore from an older copy, and keep one writer per session file.",
            "2.3",
        ),
        TurnStartWhileOpen => (
            "`turn/start` while a turn is open",
            "The previous turn never ended: its `turn/end` is missing, so its reason is unknown, and the \
             harness's invariant oracle rejects the log.",
            "A reader that overwrites the open turn attributes the earlier turn's events and reply to the new \
             one, or nests the turns.",
            "Close every turn with `turn/end`, on error and abort too, before the next `turn/start`.",
            "2.3",
        ),
        TurnNumberSkipped => (
            "Turn numbers are not 1, 2, 3, …",
            "A missing number usually means a missing turn (lost lines, a cut copy): a reader that counts turns \
             and one that reads their numbers disagree about which turn is which.",
            "It numbers turns by position, so a turn's reply is shown under another turn's number.",
            "Look for lost lines before this one; if the log was cut or joined, read the complete file.",
            "2.3",
        ),
        StepNumberSkipped => (
            "Step numbers in a turn are not 1, 2, 3, …",
            "A missing number usually means a missing step (lost lines): its content and tool calls are not in \
             the log.",
            "It numbers steps by position, so content that names a step is put in the wrong one.",
            "Look for lost lines before this one; the harness numbers the steps of each turn from 1.",
            "2.3",
        ),
        StepOutsideTurn => (
            "`step/start` with no matching open turn",
            "The step belongs to no turn: its content and tool calls cannot be attributed to a turn or its \
             reply.",
            "It puts the step in the last turn that was open, or in none, and shows that turn's reply with \
             content it never had.",
            "Emit `turn/start` before a turn's first step, and give `step/start` the open turn's number.",
            "2.3",
        ),
        StepStartWhileOpen => (
            "`step/start` while a step is open",
            "The open step never ended: its `step/end` is missing, so where one step's content stops is \
             unknown.",
            "It merges the two steps into one, or nests them.",
            "Close each step with `step/end` before the next `step/start`, also when a tool call fails.",
            "2.3",
        ),
        BoundaryMismatch => (
            "A `step/end` or `turn/end` names another turn or step than the open one",
            "The boundary closes something that is not open: boundaries were lost, or written for the wrong \
             turn, and which turn the following events belong to is uncertain.",
            "It closes whatever is open whatever the numbers say, and hides the lost boundaries.",
            "Make the writer take the numbers of its end events from the turn and step it actually opened.",
            "2.3",
        ),
        EventOutsideStep => (
            "Content naming a turn or step that is not open",
            "`assistant/chunk`, packed chunk rows, `assistant/message` and `tool/call` must name the open step; \
             this one lands outside any open step, and outside its turn's reply.",
            "It appends the content to whatever step is open, putting one step's output into another's, or \
             into a finished turn's reply.",
            "Write content only between the `step/start` and `step/end` of the step it names.",
            "2.3",
        ),
        ToolResultWithoutCall => (
            "`tool/result` with no unanswered `tool/call` earlier in its turn",
            "A result that answers nothing: its call was lost, or it answers a call twice. A model resumed from \
             this log gets an answer to no call, which provider APIs refuse.",
            "It pairs results with calls by position and pairs the wrong ones.",
            "Give each result its call's `callId`, and keep a call and its result in the same turn.",
            "2.3",
        ),
        TurnEndWithOpenStep => (
            "`turn/end` while a step is open",
            "The step's `step/end` is missing: the step count and where its content ends are uncertain.",
            "It leaves the step open into the next turn, or drops its content from the turn.",
            "Close the open step before the turn: `step/end`, then `turn/end`.",
            "2.3",
        ),
        UnclosedAtEnd => (
            "A turn or step still open when the log ends",
            "The run did not finish in this log: it is still running, it crashed, or the recording stopped \
             (reported at the line that opened it).",
            "It shows the turn as finished, with the last text so far as its final reply.",
            "If the harness is still running, read the log again later; otherwise the process died in the \
             middle of the turn.",
            "2.3",
        ),
        BoundaryMirrorEvent => (
            "A live boundary mirror (`agent/turn-start`, …) in a durable log",
            "Boundaries are durable facts of the session log; the `agent/*` mirrors were removed from it, and \
             one in the log is a second source of truth for the same boundary.",
            "It counts each turn or step twice, or takes the mirror for the boundary.",
            "Stop persisting `agent/*` emits: boundaries are read off the session events alone.",
            "2.3",
        ),
        MissingParentSession => (
            "A child's parent session is not loaded (a dsh `parentSession`, a Claude Code sub-agent's session)",
            "The child hangs under a parent that is not loaded: its `root` and `depth` are unknown (null) and it \
             is in no root's tree.",
            "It shows the child as a root of its own and loses the delegation.",
            "Open the parent's session log too: the whole sessions or project folder, or both files together.",
            "2.3, 2.4",
        ),
        DelegationDepthMismatch => (
            "A header's `delegationDepth` disagrees with the depth its parents give",
            "The harness limits delegation by `delegationDepth`; when it disagrees with the chain of \
             `parentSession`s, the chain in the headers and the depth the harness acted on differ.",
            "It trusts `delegationDepth` and draws the child at the wrong level of the tree.",
            "Check the `parentSession` chain for a header copied from another session or a parent from another \
             folder. A child whose parent is unknown (a snapshot's child log opened alone) is not compared.",
            "2.3, 1.1",
        ),
        SupersededSessionFile => (
            "An older generation of a session file that a newer one replaces (not read)",
            "A harness upgrade wrote `session.vN.jsonl` beside the old file and kept it: both hold the same \
             session. Arbor reads the highest generation, once.",
            "It reads both files and shows every session, event and reply twice.",
            "Nothing: delete the older generation once no harness version needs it.",
            "1",
        ),
        UnstampedSubagentEvent => (
            "A sub-agent's event marked only by `data.parentToolCallId` (once per sub-agent)",
            "Copilot CLIs before 1.0.32 mark a sub-agent's events with `data.parentToolCallId` and no `agentId`; \
             Arbor gives them to the sub-agent.",
            "A gate that looks at `agentId` alone, as the Copilot SDK's fix for sub-agent events does, takes the event for the root's: a \
             sub-agent's idle, error or message can end the root's wait.",
            "Gate on `data.parentToolCallId` too (an event naming a known sub-agent's `toolCallId` is that \
             sub-agent's), or upgrade the CLI so that events carry `agentId`.",
            "2.2",
        ),
        SubagentLinkInferred => (
            "A sub-agent that no evidence links to its parent",
            "Nothing in the loaded files says who spawned it: Arbor puts it under the root (Claude Code) or \
             leaves it a root of its own (Codex), and its place in the tree is a guess.",
            "A viewer that pairs spawn calls with transcript files by position (the n-th call with the n-th \
             file) may pair them wrong, and does not say so.",
            "Open the whole project or session folder, with the sidecars (`agent-*.meta.json`) and the parent \
             transcripts, so that the recorded link is found.",
            "2.4, 2.5",
        ),
        SubagentLinksDisagree => (
            "Two kinds of evidence name different parents or spawn calls",
            "The log contradicts itself about who spawned the sub-agent. Arbor keeps the stronger evidence, but \
             the reply and tokens may belong to another call.",
            "It uses whichever link it checks first, so two readers draw two different trees.",
            "Look for a copied or merged transcript (a sidecar from another session, a copy of a resumed \
             session) and remove the stray copy.",
            "2.4, 2.5",
        ),
        SubagentTranscriptMissing => (
            "A spawn call whose child transcript is not loaded",
            "The sub-agent's own events, turns and tokens are missing: only what its parent received is \
             known.",
            "It shows the call's result as if it were the whole sub-agent, and counts no tokens for it.",
            "Open the session's `subagents/` folder, or the project folder, with the session file.",
            "2.4",
        ),
        DanglingParentUuid => (
            "`parentUuid`s that name no loaded line (once per file, with the count)",
            "The chains are broken: the lines they point at are in a file that is not loaded, or lost, so the \
             order of the conversation or a sub-agent's anchor is unknown.",
            "It starts a new conversation at each break, or hangs the line under the previous line of the \
             file.",
            "Open the whole project folder: resumed and forked sessions point into each other's files.",
            "2.4",
        ),
        ReplayedHistory => (
            "Lines read before in another file, or a fork's copy of its parent's history (once per file)",
            "A resumed session replays its prefix with the same uuids; a forked child copies its parent's \
             records. Counted again, they double events, tokens and replies.",
            "It counts every copy, so events and tokens are counted as often as the history was copied.",
            "Nothing: Arbor reads each line once and does not count a fork's copy as the child's own.",
            "2.4, 2.5",
        ),
        DuplicateUuid => (
            "Lines that reuse the uuid of another file's different line (once per file, with the count)",
            "A resumed session replays its prefix as the same lines (same type, timestamp, parentUuid and message) \
             under a new sessionId. These lines reuse a uuid but are not the same line: fixture folders, \
             id-normalizing tools and hand-made examples reuse ids across unrelated sessions.",
            "It takes every repeated uuid for a resume's replay and drops the line, with its text and tokens.",
            "Nothing, if the files are test data or normalized; otherwise find what rewrote the ids. Arbor reads \
             each such line in its own session.",
            "2.4",
        ),
        SubagentReplyDiffers => (
            "What the parent received differs from the sub-agent's last reply",
            "The parent acted on what it received (the spawn call's result, the `FINAL_ANSWER` message, Gemini \
             CLI's call result, OpenCode's `task` output), not on the sub-agent's last message; here the two \
             differ by more than whitespace and the lines the harness wraps the reply in.",
            "It shows the sub-agent's last message as what the sub-agent returned to its parent.",
            "Nothing in the log: read both. The Replies view shows the sub-agent's reply beside what its parent \
             received.",
            "2.4, 2.5, 2.6, 2.7",
        ),
        MessageRewritten => (
            "Lines that rewrite a message written before under the same id (once per file, with the count)",
            "Gemini CLI appends a message again each time it grows (its tool calls, its tokens) under the same id; \
             its own reader keeps the last form, in the place of the first.",
            "It reads every line as a message: the conversation repeats, and summing the lines' tokens counts a \
             model call several times.",
            "Nothing: Arbor reads each message once, in its last form, and counts its tokens once.",
            "2.6",
        ),
        HistoryRewound => (
            "Messages rewound out of the history, by `$rewindTo` or `$set` (once per file, with the count)",
            "The user went back in the conversation: the messages from that point on are no longer part of it, \
             but their model calls were made and billed.",
            "It shows the rewound messages as part of the conversation, or, rebuilding the history, drops their \
             tokens too.",
            "Nothing: the transcript shows the history as it stands; the session's tokens still count the rewound \
             calls.",
            "2.6",
        ),
        FolderNamesRoot => (
            "A sub-agent whose folder names the root session, while the call that ran it is another sub-agent's",
            "Gemini CLI files every sub-agent of a session, at any depth, under `chats/<root session id>/`: the \
             folder names the root, not the parent. The parent is the session whose tool call records the \
             sub-agent's id (`agentId`).",
            "It takes the folder for the parent and hangs a grandchild directly under the root, one level too high.",
            "Nothing: Arbor hangs it under the session whose call ran it.",
            "2.6",
        ),
        FileRewritten => (
            "A followed file was truncated, replaced or removed: what is open was read again",
            "A log that is followed is read as it grows, from where reading stopped. A file that shrank, was \
             replaced (a rotation, an editor's save) or went away cannot be continued, so everything open was \
             read again from the start; what the views showed before may have changed.",
            "A tailer that keeps its offset reads the new file from the middle, or misses it.",
            "Nothing, when the harness rotates or rewrites its logs on purpose; otherwise find what rewrote the file.",
            "5",
        ),
        UnreadableInput => (
            "A path, or part of a file, could not be read",
            "What could not be read is not analyzed; when nothing at all can be read, `arbor check` exits 2. A \
             path is reported at line 0, a file that failed while it was read at the line where reading stopped.",
            "It shows an empty result that looks like a clean log.",
            "Check the path and its permissions; for a read that failed mid-file, the disk or the compressed \
             file's integrity.",
            "4",
        ),
        MessageTokensLastStep => (
            "A message's tokens are only its last model call's",
            "An OpenCode assistant message that made several model calls (steps) records on the message the \
             tokens of its last call only (and the sum of its calls' costs); each call's tokens and cost are on \
             its `step-finish` part. Arbor counts every call once, from its step-finish.",
            "It adds up the messages' `tokens` and misses every call but the last of each message, so the \
             session looks cheaper than it was.",
            "Nothing in the log: read each step-finish part's `tokens` and `cost`.",
            "2.7",
        ),
        OrphanRecord => (
            "Records name a message or session that is not loaded",
            "An OpenCode part names its message, and a message its session. A part whose message, or a message \
             whose session, is not among the loaded records belongs to no turn; it is still counted and shown \
             where its session is known.",
            "It drops the records, or puts them in another session's conversation.",
            "Open the whole store (the database, or the `storage/` folder) rather than some of its files.",
            "2.7",
        ),
        UnknownSchema => (
            "A database of a schema this version does not know",
            "OpenCode's store changes its tables as it migrates. A store that lacks a table or column the \
             reader needs is read as far as it can be; what needs the missing ones is not shown.",
            "It fails on the missing column, or reads nothing and shows an empty store.",
            "Update Arbor; or open the store with the OpenCode version that wrote it.",
            "2.7",
        ),
    }
}

/// `docs/findings.md`: the catalog as a page, a table of every code, then each code's section.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Findings\n\n\
         <!-- Generated from crates/arbor-core/src/vocab/explain.rs; do not edit. Rewrite it with\n     \
         `cargo run -p arbor-cli -- explain --markdown > docs/findings.md`; the test\n     \
         `cargo test -p arbor-core --test integration explain::` fails when it is out of date. -->\n\n\
         Every finding Arbor reports has a code, a severity (error, warning, info) and a place: a file and a \
         1-based line (line 0 for a path that could not be read). Each code below says why it matters, what a \
         naive reader of the log does, and how to fix it. `arbor explain CODE` prints the same text; \
         `arbor check --format sarif` carries it in its rules. Section numbers refer to the product \
         specification (SPEC.md).\n\n\
         | code | severity | finding | SPEC |\n|---|---|---|---|\n",
    );
    let all = catalog();
    for e in &all {
        out.push_str(&format!(
            "| [`{}`](#{}) | {} | {} | {} |\n",
            e.code,
            e.code,
            severity(e.severity),
            e.title,
            e.spec
        ));
    }
    for e in &all {
        out.push('\n');
        out.push_str(&e.section());
    }
    out
}

/// A severity as reports spell it.
pub fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_code_has_a_full_explanation() {
        for &code in Code::ALL {
            let e = explain(code);
            assert_eq!(e.code, code.as_str());
            assert_eq!(e.severity, code.severity());
            for (what, text) in [("title", e.title), ("why", e.why), ("naive", e.naive), ("fix", e.fix)] {
                assert!(text.trim().len() >= 10, "{}: the {what} is missing", e.code);
                assert!(!text.contains("  "), "{}: the {what} has a double space: {text}", e.code);
            }
            for (what, text) in [("why", e.why), ("naive", e.naive), ("fix", e.fix)] {
                assert!(text.ends_with('.'), "{}: the {what} is not a sentence: {text}", e.code);
            }
            // A title is one table cell and a SARIF shortDescription; the texts are its fullDescription
            // and help, which GitHub cuts at 1024 characters.
            assert!(e.title.len() <= 100 && !e.title.contains('|') && !e.title.ends_with('.'), "{}", e.title);
            assert!(e.why.len() + e.naive.len() + e.fix.len() < 900, "{} is not short", e.code);
        }
    }

    #[test]
    fn every_code_is_in_the_catalog_once_with_its_own_title() {
        let all = catalog();
        assert_eq!(all.len(), Code::ALL.len());
        let codes: HashSet<_> = all.iter().map(|e| e.code).collect();
        let titles: HashSet<_> = all.iter().map(|e| e.title).collect();
        assert_eq!(codes.len(), all.len(), "a code is listed twice in Code::ALL");
        assert_eq!(titles.len(), all.len(), "two codes share a title");
        // The eight codes SPEC version 2 adds are there too.
        for code in [
            "superseded-session-file",
            "unstamped-subagent-event",
            "subagent-link-inferred",
            "subagent-links-disagree",
            "subagent-transcript-missing",
            "dangling-parent-uuid",
            "replayed-history",
            "subagent-reply-differs",
        ] {
            assert!(find(code).is_some(), "{code}");
        }
        assert!(find("no-such-code").is_none());
    }

    #[test]
    fn the_spec_sections_are_sections_the_spec_has() {
        let sections = ["1", "1.1", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "3", "4", "5"];
        for e in catalog() {
            for s in e.spec.split(", ") {
                assert!(sections.contains(&s), "{}: SPEC section `{s}`", e.code);
            }
        }
    }

    #[test]
    fn the_page_has_a_row_and_a_section_per_code() {
        let md = markdown();
        for e in catalog() {
            assert!(md.contains(&format!("| [`{}`](#{}) | {} |", e.code, e.code, severity(e.severity))));
            assert_eq!(md.matches(&format!("\n## `{}`\n", e.code)).count(), 1, "{}", e.code);
            assert!(md.contains(e.why) && md.contains(e.naive) && md.contains(e.fix));
        }
    }
}
