// The engine's report as the UI receives it (SPEC.md section 4). The types are generated from
// crates/arbor-core/src/vocab/report.rs by ts-rs into generated/report.ts (a Rust test fails when that
// file is stale); this module re-exports them with the UI's helpers. A recorded report in
// fixtures/ is also type-checked against them.

import type { Place, Severity } from "./generated/report";

export type {
  Diagnostic,
  Input,
  NaiveWait,
  Outcome,
  Place,
  Reply,
  Report,
  Run,
  Session,
  Severity,
  StepSpan,
  Turn,
  Wait,
  WaitOutcome,
} from "./generated/report";

/** A number for dsh logs, the `turnId` string for Copilot logs, null when the log names no turn. */
export type TurnId = number | string | null;

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

/**
 * A long id shortened for a narrow row: a UUID or any id over 14 characters keeps its first 8
 * and an ellipsis ("3f2a9c1e…"); the full id goes in a tooltip.
 */
export function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 8)}…` : id;
}

/**
 * What names a session wherever it is listed (the tree, the timeline's lanes, the usage table):
 * its label (the task it was given), else what a root is about (its title or first prompt, read
 * from its file); null when it has neither and its id alone names it.
 */
export function sessionName(s: { label?: string | null; title?: string | null } | null | undefined): string | null {
  return s?.label ?? s?.title ?? null;
}
