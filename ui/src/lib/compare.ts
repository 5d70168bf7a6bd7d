// Two runs compared (SPEC 5 Compare, 6.3): what the Compare view shows of the engine's
// comparison (`arbor_core::compare`, the same `arbor diff --json` prints): each aligned pair's
// mark and deltas as words, which way each changed, and the two transcripts' rows side by side
// from the divergence.

import type { AmountDelta, ComparedPair, ComparisonHead, CountDelta, PairDelta, Row } from "./generated/engine";
import { durationLabel, tokensLabel } from "./library";

/** `=` the same, `~` differs, `-` only in A, `+` only in B. */
export type Mark = "=" | "~" | "-" | "+";

export function pairMark(p: ComparedPair): Mark {
  if (p.a === null) return "+";
  if (p.b === null) return "-";
  return p.delta.differs.length === 0 ? "=" : "~";
}

/** Which way B went from A: a count or an amount up, down, or the same. */
export type Trend = "up" | "down" | "same";

export function trend(change: number | null | undefined): Trend {
  if (change == null || change === 0) return "same";
  return change > 0 ? "up" : "down";
}

/** "+18 %", "−40 %", or nothing when A had none to compare with. */
export function percentLabel(ratio: number | null | undefined): string {
  if (ratio == null || !Number.isFinite(ratio)) return "";
  const p = Math.round(ratio * 100);
  return p >= 0 ? `+${p} %` : `−${-p} %`;
}

function signed(n: number, label: (n: number) => string): string {
  if (n === 0) return "±0";
  return n > 0 ? `+${label(n)}` : `−${label(-n)}`;
}

/** A count as the view shows it: one number when it did not change, else "3 → 5 (+2)". */
export function countLabel(c: CountDelta, label: (n: number) => string = String): string {
  const side = (x: number | null) => (x === null ? "–" : label(x));
  if (c.change === 0) return side(c.a ?? c.b);
  return `${side(c.a)} → ${side(c.b)} (${signed(c.change, label)})`;
}

/** An amount: "33s → 9m32s (+1636 %)" for seconds, "$0.09 → $0.11 (+22 %)" for dollars. */
export function amountLabel(a: AmountDelta, unit: "seconds" | "dollars"): string {
  // Cents hide what a comparison is for under a dollar: four places there, on both sides alike.
  const places = Math.max(Math.abs(a.a ?? 0), Math.abs(a.b ?? 0)) < 1 ? 4 : 2;
  const one = (x: number | null) => (x === null ? "?" : unit === "seconds" ? durationLabel(x * 1000) || "0s" : `$${x.toFixed(places)}`);
  if (a.a === a.b) return one(a.a);
  const p = percentLabel(a.ratio);
  return `${one(a.a)} → ${one(a.b)}${p ? ` (${p})` : ""}`;
}

/** Every token of a delta, summed over the kinds. */
export function tokensDelta(d: PairDelta): CountDelta {
  const t = d.tokens;
  const kinds = [t.input, t.output, t.cache_read, t.cache_write];
  const sum = (side: "a" | "b") => (kinds.every((k) => k[side] === null) ? null : kinds.reduce((n, k) => n + (k[side] ?? 0), 0));
  return { a: sum("a"), b: sum("b"), change: kinds.reduce((n, k) => n + k.change, 0) };
}

/** Every tool call of a delta, summed over the tools. */
export function toolCallsDelta(d: PairDelta): CountDelta {
  const all = Object.values(d.tool_calls).filter((c): c is CountDelta => !!c);
  const sum = (side: "a" | "b") => (all.length && all.every((k) => k[side] === null) ? null : all.reduce((n, k) => n + (k[side] ?? 0), 0));
  return { a: sum("a"), b: sum("b"), change: all.reduce((n, k) => n + k.change, 0) };
}

/** The tools whose calls changed, "Bash +2, Edit −1", most changed first. */
export function toolChanges(d: PairDelta): string {
  return Object.entries(d.tool_calls)
    .filter((e): e is [string, CountDelta] => !!e[1] && e[1].change !== 0)
    .sort((x, y) => Math.abs(y[1].change) - Math.abs(x[1].change) || x[0].localeCompare(y[0]))
    .map(([name, c]) => `${name} ${signed(c.change, String)}`)
    .join(", ");
}

/** Tokens in a count's words ("12.3K"). */
export const tokenWords = tokensLabel;

/** The verdict in a line: "the same by every measure", or what differs (the totals' measures
 * first, then each pair's, as the engine lists them in `differs`). */
export function verdict(c: ComparisonHead): string {
  if (c.same) return "The same by every measure";
  return `They differ: ${c.differs.join(", ")}`;
}

/** Rows shown before the divergence, for its context. */
export const CONTEXT_ROWS = 3;

/** The first row of a side's transcript the view shows for a pair: a few before where it diverges. */
export function firstRow(p: ComparedPair, side: "a" | "b"): number {
  const d = p.divergence;
  if (!d) return 0;
  return Math.max(0, (side === "a" ? d.row_a : d.row_b) - CONTEXT_ROWS);
}

/** The rows of the two sides on one line each, side by side, so that the two scroll together. */
export function sideBySide(a: readonly Row[], b: readonly Row[]): [Row | null, Row | null][] {
  const n = Math.max(a.length, b.length);
  const out: [Row | null, Row | null][] = [];
  for (let i = 0; i < n; i++) out.push([a[i] ?? null, b[i] ?? null]);
  return out;
}
