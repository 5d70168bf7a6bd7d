// Generated from arbor-core's Rust types by ts-rs (crates/arbor-core/tests/ts_bindings.rs).
// Do not edit: change the Rust types, then ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core --test integration ts_bindings::

import type { Diagnostic, Outcome, Place, Usage } from "./report";

export type Progress = { files_done: number, files_total: number, bytes_read: number, bytes_total: number, records: number, sessions: number, findings: number, };

export type SessionDelta = { id: string, parent: string | null, label: string | null, };

export type EdgeDelta = { child: string, parent: string | null, };

export type Delta = { progress: Progress, sessions: Array<SessionDelta>, edges: Array<EdgeDelta>, findings: Array<Diagnostic>, };

export type RecordView = { 
/**
 * The record's position in the whole analysis (wire order across inputs).
 */
index: number, file: string, line: number, session: string | null, kind: string, 
/**
 * Epoch milliseconds, when the log has a clock.
 */
time: number | null, };

export type RecordPage = { total: number, offset: number, records: Array<RecordView>, };

export type Hit = { "type": "session", id: string, label: string | null, } | { "type": "record", record: RecordView, text: string, };

export type FormatInfo = { id: string, description: string, };

export type PartKind = "prompt" | "text" | "reasoning" | "tool-call" | "tool-result" | "spawn" | "received" | "compaction" | "notice" | "usage" | "image";

export type Media = { 
/**
 * The media type the log gives (`image/png`), when it gives one.
 */
media_type: string | null, 
/**
 * The decoded size of inline data, in bytes.
 */
bytes: number | null, };

export type Edit = { session: string, 
/**
 * The file as the call names it.
 */
path: string, 
/**
 * The line of the call.
 */
at: Place, 
/**
 * The call's transcript row.
 */
row: number, turn?: number | string | null, step?: number, tool: string, 
/**
 * What the edit does: `write` (the whole file), `edit` (texts replaced), `add`, `delete` or
 * `update` (a patch's file), `notebook` (a cell).
 */
kind: string, 
/**
 * Whether it applied: its result's error flag (`null` while no result is read).
 */
applied: boolean | null, 
/**
 * Lines added and removed by the diff.
 */
added: number, removed: number, 
/**
 * The unified diff of the edited parts (`---`/`+++` headers and `@@` hunks).
 */
diff: string, };

export type ChangesPage = { session: string | null, 
/**
 * Edits in all.
 */
total: number, 
/**
 * Files changed in all.
 */
files: number, from: number, edits: Array<Edit>, 
/**
 * By edit on the page: its diff was cut.
 */
cut: Array<boolean>, };

export type Part = { kind: PartKind, 
/**
 * The text, cut to the page's budget (`cut`), whose whole length is `text_len` characters.
 */
text: string, text_len: number, cut: boolean, json: boolean, tool: string | null, call_id: string | null, is_error: boolean | null, child: string | null, model: string | null, 
/**
 * Tokens of the message, shown on the first line of a message that spans several.
 */
usage: Usage | null, 
/**
 * An image part's type and size (its data: `transcript_media`).
 */
media: Media | null, };

export type Row = { 
/**
 * The row's number in the session's transcript (0-based).
 */
row: number, 
/**
 * The record's index in the analysis (the inspector's `index`).
 */
record: number, at: Place, 
/**
 * What the record is (the inspector's kind).
 */
kind: string, time: number | null, 
/**
 * The turn the row is in (a number, a turn id, or null).
 */
turn: number | string | null, step: number | null, parts: Array<Part>, };

export type Page = { session: string, 
/**
 * Rows in the session's whole transcript.
 */
total: number, from: number, rows: Array<Row>, };

export type Style = "markdown" | "html";

export type Subagents = "inline" | "summary" | "files";

export type ShareOptions = { style: Style, subagents: Subagents, 
/**
 * Whether the assistant's reasoning is written.
 */
reasoning: boolean, };

export type Shared = { 
/**
 * Sessions written (inline, or each in its own file).
 */
sessions: number, 
/**
 * Transcript rows written.
 */
rows: number, 
/**
 * The sub-agents' own files (`Subagents::Files`), beside the export.
 */
files: Array<string>, 
/**
 * The export stopped at its budget of bytes (a preview).
 */
cut: boolean, };

export type CompareMeasure = "duration" | "turns" | "steps" | "tool-calls" | "tokens" | "cost" | "outcome" | "findings" | "conversation" | "sessions";

export type CountDelta = { a: number | null, b: number | null, change: number, };

export type AmountDelta = { a: number | null, b: number | null, change: number | null, ratio: number | null, };

export type TokenDeltas = { input: CountDelta, output: CountDelta, cache_read: CountDelta, cache_write: CountDelta, };

export type Outcomes = { a: Outcome | null, b: Outcome | null, };

export type PairDelta = { 
/**
 * Seconds from the first to the last time the session's records carry.
 */
duration: AmountDelta, turns: CountDelta, steps: CountDelta, 
/**
 * By tool name, every tool either side called.
 */
tool_calls: { [key in string]: CountDelta }, tokens: TokenDeltas, 
/**
 * US dollars, where the prices of every model are known.
 */
cost: AmountDelta, outcome: Outcomes, 
/**
 * By finding code, every code either side has.
 */
findings: { [key in string]: CountDelta }, 
/**
 * The measures that differ (those a comparison ignores left out).
 */
differs: Array<CompareMeasure>, };

export type ComparedItem = { session: string, 
/**
 * Its row in the session's transcript.
 */
row: number, at: Place, kind: PartKind, tool: string | null, 
/**
 * Its text, cut to `EXCERPT` characters (`cut` then).
 */
text: string, cut: boolean, };

export type Divergence = { 
/**
 * The pair (an index into `pairs`).
 */
pair: number, 
/**
 * What differs: `prompt`, `reply`, `tool` (a tool call's name), `arguments` (its
 * arguments), `task` (a spawn's task), `kind` (one side has another kind of item there), or
 * `ended` (one side's conversation ends there: its place is `null`).
 */
what: string, 
/**
 * The item on each side: the `n`th compared item of each conversation.
 */
a: ComparedItem | null, b: ComparedItem | null, 
/**
 * How many items both conversations had the same before it.
 */
same_before: number, 
/**
 * The row each side's transcript is at there: its item's row, or on a side whose
 * conversation ended, the row after its last compared item (where a view of it starts).
 */
row_a: number, row_b: number, };

export type ComparedPair = { a: string | null, b: string | null, 
/**
 * The pair its sessions are sub-agents of (an index into `pairs`).
 */
parent: number | null, depth: number, 
/**
 * What the agent is: the label, else the beginning of its task.
 */
label: string | null, delta: PairDelta, 
/**
 * Where the two conversations part (a pair of two sessions only).
 */
divergence: Divergence | null, };

export type ComparedRun = { root: string, title: string | null, format: string | null, files: Array<string>, sessions: number, };

export type Comparison = { a: ComparedRun, b: ComparedRun, 
/**
 * The runs are the same by every measure not ignored.
 */
same: boolean, 
/**
 * Root first, then each pair's sub-agents after it, in order of spawn.
 */
pairs: Array<ComparedPair>, 
/**
 * The first divergence in `pairs`' order.
 */
divergence: Divergence | null, 
/**
 * The two whole trees: durations of the roots, every other measure summed over the sessions.
 */
totals: PairDelta, 
/**
 * The measures left out of `same` and `differs`.
 */
ignored: Array<CompareMeasure>, };

export type ComparisonHead = { a: ComparedRun, b: ComparedRun, same: boolean, 
/**
 * How many pairs there are.
 */
pairs: number, divergence: Divergence | null, totals: PairDelta, ignored: Array<CompareMeasure>, 
/**
 * Every measure that differs, the totals' first, then each pair's in the pairs' order, each
 * once (what the verdict names).
 */
differs: Array<CompareMeasure>, };

export type PairsPage = { total: number, offset: number, revision: number, rows: Array<ComparedPair>, };
