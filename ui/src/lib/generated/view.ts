// Generated from arbor-core's Rust types by ts-rs (crates/arbor-core/tests/ts_bindings.rs).
// Do not edit: change the Rust types, then ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core --test integration ts_bindings::

import type { RecordView } from "./engine";
import type { Diagnostic, Input, Link, Outcome, Place, Reply, Run, Severity, Usage, UsageSummary, Wait } from "./report";

export type Summary = { revision: number, inputs: Array<Input>, sessions: number, findings: SeverityCounts, waits: number, replies: number, 
/**
 * Whether the timeline can use a time axis.
 */
clocked: boolean, 
/**
 * The tokens by model and their total, with the price table's source; absent when the log
 * counts none.
 */
usage?: UsageSummary, };

export type SessionDetail = { id: string, label: string | null, 
/**
 * What a root session is about (its title or first prompt), read from its file for the
 * view: not the report's `label`.
 */
title?: string, parent: string | null, root: string | null, depth: number | null, 
/**
 * True when the parent link was inferred rather than read (SPEC 2.2).
 */
inferred_parent: boolean, events: number, runs: Array<Run>, 
/**
 * The session's own tokens and its subtree's, when the log counts them.
 */
usage?: Usage, subtree_usage?: Usage, 
/**
 * Where choosing the session points the inspector.
 */
place: Place | null, };

export type SeverityCounts = { error: number, warning: number, info: number, };

export type TreeRow = { 
/**
 * The row's index among the visible rows.
 */
index: number, id: string, label: string | null, 
/**
 * What a root session is about (its title or first prompt), read from its file for the
 * view: not the report's `label`.
 */
title?: string, 
/**
 * Depth in this tree (0 for a root), counted from the parent links.
 */
depth: number, 
/**
 * The engine's depth, when it computed one (it may differ from `depth` in a broken log).
 */
reported_depth?: number, parent: string | null, has_children: boolean, collapsed: boolean, 
/**
 * How many runs (reused ids show every run); absent while the log is read.
 */
runs?: number, 
/**
 * How many turns the session ran (a root has turns and no runs); absent while the log is read.
 */
turns?: number, events?: number, 
/**
 * The outcome of the latest run; absent for a session that never ran as a sub-agent.
 */
outcome?: Outcome, 
/**
 * How the latest run was linked to its parent (SPEC 2: the evidence used).
 */
link?: Link, 
/**
 * The session's own tokens and its subtree's, when the log counts them.
 */
usage?: Usage, subtree_usage?: Usage, 
/**
 * True when any run ended in error.
 */
any_error: boolean, findings: SeverityCounts, 
/**
 * Where choosing the session points the inspector: the start of its first run, else of its
 * first turn.
 */
place: Place | null, };

export type TreePage = { revision: number, total: number, offset: number, rows: Array<TreeRow>, };

export type TreeSpot = { index: number | null, total: number, };

export type TreeOrder = "wire" | "own-tokens" | "subtree-tokens" | "subtree-cost" | "own-duration" | "subtree-duration";

export type UsageColumn = "tree" | "turns" | "input" | "output" | "cache-read" | "cache-write" | "tokens" | "cost" | "duration";

export type UsageScope = "own" | "subtree";

export type UsageSort = { column: UsageColumn, scope: UsageScope, 
/**
 * Most first (the default a click on a column gives).
 */
descending: boolean, };

export type UsageRow = { 
/**
 * The row's index in the sorted table.
 */
index: number, id: string, label: string | null, 
/**
 * What a root is about (as the tree names it).
 */
title?: string, 
/**
 * Its depth in the tree.
 */
depth: number, turns: number, subtree_turns: number, usage?: Usage, subtree_usage?: Usage, 
/**
 * Milliseconds on the log's clock (absent without one).
 */
duration?: number, subtree_duration?: number, 
/**
 * Where choosing the session points the inspector (as the tree's row says).
 */
place: Place | null, };

export type UsagePage = { revision: number, total: number, offset: number, sort: UsageSort, rows: Array<UsageRow>, };

export type FindingsFilter = { text: string, hidden: Array<Severity>, session: string | null, folded?: Array<string>, };

export type FindingRow = { "kind": "group", severity: Severity, count: number, } | { "kind": "code", severity: Severity, code: string, count: number, 
/**
 * Its findings are not listed (the filter's `folded`).
 */
folded?: boolean, } | { "kind": "item", diagnostic: Diagnostic, 
/**
 * Set (true) when the finding depends on the end of a log still followed (an open turn,
 * a truncated last line): it may go away as the log grows.
 */
provisional?: boolean, };

export type FindingsPage = { revision: number, total: number, matched: number, counts: SeverityCounts, offset: number, rows: Array<FindingRow>, };

export type WaitItem = { 
/**
 * The wait's index in the report's `waits`.
 */
index: number, wait: Wait, 
/**
 * What the naive reading gets wrong: `reply`, `end`, `outcome`, `notifications`.
 */
differences: Array<string>, 
/**
 * Where the message the naive waiter returns is (a sub-agent's: the
 * `child-reply-would-replace-root-reply` finding inside the wait).
 */
naive_reply_place: Place | null, 
/**
 * The findings at the naive end, when the naive reading ends elsewhere (what stops it there).
 */
naive_end_findings: Array<Diagnostic>, 
/**
 * How many notifications the naive reading of a dsh-rpc root turn drops (the engine lists
 * them: `naive_dropped`); absent when it drops none.
 */
dropped?: number, };

export type WaitsPage = { revision: number, total: number, offset: number, items: Array<WaitItem>, };

export type ReplyGroup = { session: string, 
/**
 * The session's label (the task it was given), to head the group with.
 */
label: string | null, 
/**
 * What a root session is about (its title or first prompt), when its file says.
 */
title?: string, replies: Array<Reply>, };

export type RepliesPage = { revision: number, total: number, offset: number, groups: Array<ReplyGroup>, };

export type Axis = "time" | "wire";

export type AxisInput = { file: string, offset: number, };

export type TimelineInfo = { revision: number, axis: Axis, 
/**
 * Whether the log has a clock on every span (so that `time` may be asked for).
 */
clocked: boolean, min: number, max: number, lanes: number, 
/**
 * Wire order: where each input starts, in order, for the axis labels.
 */
inputs: Array<AxisInput>, };

export type TimelineOpen = { info: TimelineInfo, window: TimelineWindow, };

export type WindowQuery = { axis: Axis, first: number, last: number, start: number, end: number, width: number, };

export type RunRect = { x0: number, x1: number, outcome: Outcome, };

export type MarkPoint = { x: number, severity: Severity, };

export type LaneWindow = { lane: number, 
/**
 * The session; `None` for the lane of findings without a session.
 */
id: string | null, label: string | null, 
/**
 * What a root is about (its title or first prompt), as the tree names it.
 */
title?: string, depth: number, turns: Array<number>, steps: Array<number>, runs: Array<RunRect>, marks: Array<MarkPoint>, };

export type Connector = { x: number, lane: number, child: number, };

export type TimelineWindow = { revision: number, query: WindowQuery, lanes: Array<LaneWindow>, connectors: Array<Connector>, };

export type Band = "runs" | "steps" | "lane";

export type HitQuery = { axis: Axis, lane: number, x: number | null, slop: number, band: Band, };

export type TimelineHit = { session: string | null, place: Place | null, text: string, };

export type Located = { lane: number | null, at: number | null, 
/**
 * Where the session's lane has anything on the axis, first start to last end: its runs,
 * turns and steps (`None` without a session, or when its lane is empty).
 */
extent?: [number, number], };

export type SearchHit = { "type": "session", id: string, label: string | null, place: Place | null, } | { "type": "record", record: RecordView, text: string, };

export type SearchEnd = "done" | "limit" | "stopped";

export type SearchEvent = { "type": "hits", hits: Array<SearchHit>, } | { "type": "progress", bytes_read: number, bytes_total: number, hits: number, } | { "type": "end", end: SearchEnd, hits: number, };
