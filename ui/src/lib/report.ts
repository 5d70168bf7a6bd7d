// The engine's report as the UI receives it: a mirror of crates/arbor-core/src/report.rs
// (SPEC.md section 4). Fields may be added on the Rust side, never renamed. A recorded report in
// fixtures/ is type-checked against these types, so a rename shows up as a type error.

/** A place in the input: the file as given (relative to an opened folder) and a 1-based line. */
export interface Place {
  file: string;
  line: number;
}

export type Severity = "error" | "warning" | "info";
export type Outcome = "ok" | "error" | "cancelled" | "open";
export type WaitOutcome = "idle" | "error" | "inferred" | "open";

export interface Report {
  report_version: number;
  inputs: Input[];
  sessions: Session[];
  turns: Turn[];
  replies: Reply[];
  waits: Wait[];
  diagnostics: Diagnostic[];
}

export interface Input {
  file: string;
  format: string;
  records: number;
  bad_lines: number;
  bytes?: number;
}

export interface Session {
  id: string;
  parent: string | null;
  root: string | null;
  depth: number | null;
  label: string | null;
  runs: Run[];
  events: number;
  inferred_parent?: boolean;
}

export interface Run {
  parent: string | null;
  start: Place | null;
  end: Place | null;
  outcome: Outcome;
  /** Wire time (epoch ms) of the start and end records, when the log has a clock. */
  start_time?: number;
  end_time?: number;
}

/** A number for dsh logs, the `turnId` string for Copilot logs, null when the log names no turn. */
export type TurnId = number | string | null;

export interface Turn {
  session: string;
  turn: TurnId;
  run?: number;
  start: Place | null;
  end: Place | null;
  reason: string | null;
  steps: number;
  start_time?: number;
  end_time?: number;
  step_spans?: StepSpan[];
}

export interface StepSpan {
  step: number;
  start: Place;
  end: Place | null;
  start_time?: number;
  end_time?: number;
}

export interface Reply {
  session: string;
  root: boolean;
  turn: TurnId;
  run?: number;
  text: string;
  at: Place;
}

export interface NaiveWait {
  end?: Place | null;
  outcome?: WaitOutcome;
  reply?: string | null;
  notifications?: number;
}

export interface Wait {
  root: string;
  start: Place | null;
  end: Place | null;
  outcome: WaitOutcome;
  reply: string | null;
  finish_reason?: string;
  notifications?: number;
  events?: number;
  naive: NaiveWait;
}

export interface Diagnostic {
  code: string;
  severity: Severity;
  at: Place;
  session: string | null;
  message: string;
  /** Wire time (epoch ms) of the record at `at`, when there is one and the log has a clock. */
  time?: number;
}

export const SEVERITIES: readonly Severity[] = ["error", "warning", "info"];

/** "run.jsonl:12", the way places are written everywhere in the UI. */
export function placeLabel(p: Place | null | undefined): string {
  return p ? `${p.file}:${p.line}` : "—";
}

/** "run.jsonl:12" with only the file's last path component, for narrow rows (full place in a tooltip). */
export function shortPlaceLabel(p: Place | null | undefined): string {
  if (!p) return "—";
  const base = p.file.split(/[\\/]/).pop() || p.file;
  return `${base}:${p.line}`;
}

export function samePlace(a: Place | null | undefined, b: Place | null | undefined): boolean {
  return !!a && !!b && a.file === b.file && a.line === b.line;
}
