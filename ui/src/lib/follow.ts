// Following a log while it is written: the pure parts (whether Follow starts on, the indicator's
// words). The state the views share is in follow.svelte.ts.

import type { FollowState } from "./generated/app";

/**
 * Whether Follow starts on for a log: as the user last left it for that log, else on when one of
 * its files was written in the last minutes (the engine says: `FollowState.recent`). The
 * built-in sample (no paths) is never followed by default.
 */
export function followAtOpen(saved: boolean | undefined, state: FollowState | null, isSample: boolean): boolean {
  if (saved !== undefined) return saved;
  return !isSample && !!state?.recent;
}

/**
 * "updated just now", "updated 20 s ago", "updated 3 min ago", "waiting for changes" before the
 * first one. The words change every ten seconds at most (a minute after a minute): each change
 * repaints the window, which is most of what an idle followed log costs the webview.
 */
export function updatedAgo(now: number, updatedAt: number | null): string {
  if (updatedAt === null) return "waiting for changes";
  const s = Math.max(0, Math.floor((now - updatedAt) / 1000));
  if (s < 10) return "updated just now";
  if (s < 60) return `updated ${Math.floor(s / 10) * 10} s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `updated ${m} min ago`;
  return `updated ${Math.round(m / 60)} h ago`;
}

/** A window of an axis: from `start` to `end`. */
export interface Span {
  start: number;
  end: number;
}

/**
 * Where a timeline's window goes when its domain grows (a followed log was written): a window
 * that reached the old domain's end reaches the new one's (the right edge moves with the log),
 * and one that started at the old start keeps the new start; a window zoomed into the middle
 * stays where it is.
 */
export function grownView(view: Span, before: { min: number; max: number }, after: { min: number; max: number }): Span {
  const eps = (before.max - before.min) * 1e-6;
  const start = Math.abs(view.start - before.min) <= eps ? after.min : view.start;
  const end = Math.abs(view.end - before.max) <= eps ? after.max : view.end;
  return end > start ? { start, end } : { start: after.min, end: after.max };
}
