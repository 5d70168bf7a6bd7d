// Generated from arbor-core's Rust types by ts-rs (crates/arbor-core/tests/ts_bindings.rs).
// Do not edit: change the Rust types, then ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core --test integration ts_bindings::

export type Place = { file: string, line: number, };

export type Severity = "error" | "warning" | "info";

export type Outcome = "ok" | "error" | "cancelled" | "open";

export type WaitOutcome = "idle" | "error" | "inferred" | "open";

export type Report = { report_version: number, inputs: Array<Input>, sessions: Array<Session>, turns: Array<Turn>, replies: Array<Reply>, waits: Array<Wait>, diagnostics: Array<Diagnostic>, 
/**
 * Tokens per model and in all, when any log records them.
 */
usage?: UsageSummary, };

export type Input = { file: string, 
/**
 * A format id (`dsh-rpc`, `dsh-session`, `copilot-events`, `copilot-rpc`), or `unknown`.
 */
format: string, records: number, bad_lines: number, bytes: number, };

export type Session = { id: string, parent: string | null, root: string | null, depth: number | null, label: string | null, runs: Array<Run>, 
/**
 * Records attributed to this session (its own events and statuses).
 */
events: number, 
/**
 * True when the parent link was inferred rather than read (2.2).
 */
inferred_parent?: boolean, 
/**
 * The session's own tokens, when its log records any.
 */
usage?: Usage, 
/**
 * The tokens of the session and every session under it.
 */
subtree_usage?: Usage, };

export type Run = { parent: string | null, start: Place | null, end: Place | null, outcome: Outcome, 
/**
 * How the parent was established.
 */
link: Link, 
/**
 * Wire time (epoch ms) of the start and end records, when the log has a clock.
 */
start_time?: number, end_time?: number, 
/**
 * What the parent received from this run, where the log shows it.
 */
received?: Received, };

export type Link = "start-edge" | "header" | "agent-id" | "tool-call" | "parent-tool-call-id" | "meta" | "tool-result" | "result-text" | "parent-uuid" | "prompt" | "thread-spawn" | "activity" | "time-window" | "folder" | "parent-id" | "inferred";

export type Received = { text: string, at: Place, };

export type Usage = { input: number, output: number, cache_read: number, cache_write: number, cost?: number, unpriced?: Unpriced, };

export type Unpriced = { tokens: number, models: Array<string>, };

export type ModelUsage = { model: string, usage: Usage, };

export type UsageSummary = { models: Array<ModelUsage>, total: Usage, 
/**
 * The price table costs come from.
 */
prices: PriceSource, };

export type PriceSource = { source: string, date: string, };

export type Turn = { session: string, 
/**
 * A number for dsh logs, the `turnId` string for Copilot logs.
 */
turn: number | string | null, run?: number, start: Place | null, end: Place | null, reason: string | null, steps: number, 
/**
 * Wire time (epoch ms) of the start and end, when the log has a clock.
 */
start_time?: number, end_time?: number, 
/**
 * The steps inside this turn, for the timeline.
 */
step_spans?: Array<StepSpan>, 
/**
 * The turn's tokens, when its log records any.
 */
usage?: Usage, };

export type StepSpan = { step: number, start: Place, end: Place | null, start_time?: number, end_time?: number, };

export type Reply = { session: string, root: boolean, turn: number | string | null, run?: number, text: string, at: Place, };

export type Wait = { root: string, start: Place | null, end: Place | null, outcome: WaitOutcome, reply: string | null, 
/**
 * dsh-rpc only: the root turn's finish reason and counts.
 */
finish_reason?: string, notifications?: number, events?: number, naive: NaiveWait, };

export type NaiveWait = { end?: Place | null, outcome?: WaitOutcome, reply?: string | null, notifications?: number, };

export type Diagnostic = { code: string, severity: Severity, at: Place, session: string | null, message: string, 
/**
 * Wire time (epoch ms) of the record at `at`, when there is one and the log has a clock.
 */
time?: number, };
