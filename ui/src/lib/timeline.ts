//! The boundary timeline's scale and layout on the page: pure functions, tested without a DOM.
//!
//! The model (lanes, spans, findings) stays on the Rust side (arbor-core's `view::timeline`),
//! which answers the lanes in view and a window of the axis at a resolution with rectangles
//! already merged to it. Here are the scale between the domain and pixels (zoom around a point,
//! pan, clamp, fit), which window to ask for and whether one answered still draws the view, the
//! vertical layout, the axis ticks and the one animation-frame loop. It knows nothing of canvas,
//! colours or events: views/TimelineView.svelte draws what these functions and the window hand it.

import type { Place } from "./report";
import type { WindowQuery } from "./generated/view";

export type AxisKind = "time" | "wire";

/** The place an ordinal falls on (the inverse of `ordinal`), for axis labels. */
export function placeAt(inputs: { file: string; offset: number }[], ord: number): Place | null {
  if (inputs.length === 0) return null;
  let lo = 0;
  let hi = inputs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (inputs[mid].offset < ord) lo = mid;
    else hi = mid - 1;
  }
  return { file: inputs[lo].file, line: Math.floor(ord - inputs[lo].offset) };
}


// ---------------------------------------------------------------------------------------------
// Scale: the visible window [start, end] of the domain mapped onto [0, width] pixels.

export interface View {
  start: number;
  end: number;
}

export interface Bounds {
  min: number;
  max: number;
  /** The narrowest window zooming in may reach. */
  minSpan: number;
}

export function toPx(v: View, width: number, x: number): number {
  return ((x - v.start) / (v.end - v.start)) * width;
}

export function toDomain(v: View, width: number, px: number): number {
  return v.start + (px / width) * (v.end - v.start);
}

/** Bounds for a model: the whole domain, zooming in to a millisecond or a tenth of a record. */
export function boundsOf(model: { axis: AxisKind; min: number; max: number }): Bounds {
  return { min: model.min, max: model.max, minSpan: model.axis === "time" ? 1 : 0.1 };
}

/** Keeps a window inside the bounds, no narrower than minSpan and no wider than the domain. */
export function clampView(v: View, b: Bounds): View {
  const full = b.max - b.min;
  let span = Math.min(full, Math.max(Math.min(b.minSpan, full), v.end - v.start));
  if (!(span > 0)) span = full;
  let start = Math.min(Math.max(v.start, b.min), b.max - span);
  if (!Number.isFinite(start)) start = b.min;
  return { start, end: start + span };
}

/** The whole domain. */
export function fitView(b: Bounds): View {
  return { start: b.min, end: b.max };
}

/**
 * Zooms by `factor` (> 1 zooms in) keeping the domain point under pixel `px` where it is, then
 * clamps (so at the domain's edges the point moves as little as the bounds allow).
 */
export function zoomAt(v: View, width: number, px: number, factor: number, b: Bounds): View {
  const anchor = toDomain(v, width, px);
  const span = (v.end - v.start) / factor;
  const full = b.max - b.min;
  const clampedSpan = Math.min(full, Math.max(Math.min(b.minSpan, full), span));
  const frac = width > 0 ? px / width : 0.5;
  return clampView({ start: anchor - frac * clampedSpan, end: anchor - frac * clampedSpan + clampedSpan }, b);
}

/** Moves the window by `dpx` pixels (positive moves it later), clamped. */
export function panBy(v: View, width: number, dpx: number, b: Bounds): View {
  const d = (dpx / width) * (v.end - v.start);
  return clampView({ start: v.start + d, end: v.end + d }, b);
}

/** Centres the window on `x` without changing its width, clamped. */
export function centreOn(v: View, x: number, b: Bounds): View {
  const half = (v.end - v.start) / 2;
  return clampView({ start: x - half, end: x + half }, b);
}

// ---------------------------------------------------------------------------------------------
// Vertical layout

/** The lanes in view: [first, last) for a scroll offset, viewport height and lane height. */
export function visibleLanes(count: number, scrollY: number, height: number, laneHeight: number): [number, number] {
  const first = Math.max(0, Math.floor(scrollY / laneHeight));
  const last = Math.min(count, Math.ceil((scrollY + height) / laneHeight));
  return [first, Math.max(first, last)];
}

export function clampScroll(scrollY: number, count: number, height: number, laneHeight: number): number {
  return Math.max(0, Math.min(scrollY, count * laneHeight - height));
}

/** The scroll offset that shows lane `index`, moving as little as needed (centring it when it was out of view). */
export function revealLane(scrollY: number, index: number, height: number, laneHeight: number, count: number): number {
  const top = index * laneHeight;
  if (top >= scrollY && top + laneHeight <= scrollY + height) return scrollY;
  return clampScroll(top - (height - laneHeight) / 2, count, height, laneHeight);
}

// ---------------------------------------------------------------------------------------------
// Windows: what to ask the Rust side for, and drawing what it answered at the current view

/**
 * The window to ask for to draw lanes [first, last) of view `v` on `plot` pixels: a screen of
 * lanes above and below, and a screen of the axis either side at the view's resolution, so that
 * scrolling and panning by less than a screen need no new answer.
 */
export function wantedWindow(v: View, plot: number, first: number, last: number, lanes: number, axis: AxisKind): WindowQuery {
  const span = v.end - v.start;
  const rows = Math.max(1, last - first);
  return {
    axis,
    first: Math.max(0, first - rows),
    last: Math.min(lanes, last + rows),
    start: v.start - span,
    end: v.end + span,
    width: Math.max(1, Math.round(plot * 3)),
  };
}

/** Pixels a domain unit, in a window answered for `q`. */
export function windowScale(q: WindowQuery): number {
  return q.width / (q.end - q.start || 1);
}

/**
 * Whether a window answered for `q` still draws view `v` (lanes [first, last) on `plot` pixels):
 * it holds those lanes and that part of the axis, at a resolution within 1.5 times the view's.
 */
export function covers(q: WindowQuery, v: View, plot: number, first: number, last: number): boolean {
  const k = plot / (v.end - v.start || 1);
  const ratio = windowScale(q) / k;
  return q.first <= first && q.last >= last && q.start <= v.start && q.end >= v.end && ratio > 1 / 1.5 && ratio < 1.5;
}

/** A position given in a window's pixels, in the view's pixels. */
export function fromWindow(q: WindowQuery, x: number, v: View, plot: number): number {
  return toPx(v, plot, q.start + x / windowScale(q));
}

// ---------------------------------------------------------------------------------------------
// Axis ticks

export interface Tick {
  at: number;
  label: string;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TIME_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500,
  SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 15 * SECOND, 30 * SECOND,
  MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
  HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY,
];

/** The smallest "nice" step (1, 2, 5 × 10^k, at least `floor`) that is at least `min`. */
export function niceStep(min: number, floor = 0): number {
  const m = Math.max(min, floor, Number.MIN_VALUE);
  const p = Math.pow(10, Math.floor(Math.log10(m)));
  for (const f of [1, 2, 5, 10]) if (f * p >= m - 1e-9 * p) return Math.max(floor, f * p);
  return 10 * p;
}

/** A time step from the clock's units (ms, s, min, h, days) at least `min` ms. */
export function timeStep(min: number): number {
  for (const s of TIME_STEPS) if (s >= min) return s;
  return niceStep(min / DAY, 1) * DAY;
}

/** An offset in ms written in the step's unit: "+250 ms", "+1.5 s", "+2 min", "+1 h 30 min". */
export function formatOffset(ms: number, step: number): string {
  const sign = ms < 0 ? "−" : "+";
  const a = Math.abs(ms);
  if (step < SECOND) {
    if (a < SECOND) return `${sign}${trim(a)} ms`;
    const decimals = step >= 100 ? 1 : step >= 10 ? 2 : 3;
    return `${sign}${(a / SECOND).toFixed(decimals)} s`;
  }
  if (step < MINUTE) return a < MINUTE ? `${sign}${trim(a / SECOND)} s` : `${sign}${Math.floor(a / MINUTE)} min ${trim((a % MINUTE) / SECOND)} s`;
  if (step < HOUR) return a < HOUR ? `${sign}${Math.round(a / MINUTE)} min` : `${sign}${Math.floor(a / HOUR)} h ${Math.round((a % HOUR) / MINUTE)} min`;
  if (step < DAY) return `${sign}${Math.floor(a / HOUR)} h${a % HOUR ? ` ${Math.round((a % HOUR) / MINUTE)} min` : ""}`;
  return `${sign}${Math.floor(a / DAY)} d${a % DAY ? ` ${Math.round((a % DAY) / HOUR)} h` : ""}`;
}

function trim(x: number): string {
  return String(Math.round(x * 1000) / 1000);
}

/**
 * Ticks for the window: at least `minPx` pixels apart, on round values. Time ticks are offsets
 * from `origin` (the first time in the log); wire-order ticks are record ordinals, labelled with
 * the place they fall on ("run.jsonl:40").
 */
export function axisTicks(
  v: View,
  width: number,
  minPx: number,
  axis: AxisKind,
  origin: number,
  inputs: { file: string; offset: number }[] = [],
): { step: number; ticks: Tick[] } {
  const perPx = (v.end - v.start) / Math.max(1, width);
  const step = axis === "time" ? timeStep(perPx * minPx) : niceStep(perPx * minPx, 1);
  const ticks: Tick[] = [];
  // Time ticks are round offsets from the origin; wire ticks round ordinals.
  const base = axis === "time" ? origin : 0;
  const firstK = Math.ceil((v.start - base) / step);
  for (let k = firstK; base + k * step <= v.end && ticks.length < 1000; k++) {
    const at = base + k * step;
    let label: string;
    if (axis === "time") label = formatOffset(at - origin, step);
    else {
      const p = placeAt(inputs, at);
      const name = p ? (p.file.split(/[\\/]/).pop() || p.file) : "";
      label = p ? (inputs.length > 1 ? `${name}:${p.line}` : `line ${p.line}`) : `#${at}`;
    }
    ticks.push({ at, label });
  }
  return { step, ticks };
}

// ---------------------------------------------------------------------------------------------
// The one animation-frame loop

/**
 * Schedules redraws: any number of `request()` calls between two frames make one draw, and no
 * frame is requested while nothing changed. `raf` is requestAnimationFrame in the view (a fake in
 * tests).
 */
export class RedrawScheduler {
  private pending = false;
  private stopped = false;

  constructor(
    private readonly raf: (cb: (t: number) => void) => unknown,
    private readonly draw: (t: number) => void,
  ) {}

  request(): void {
    if (this.pending || this.stopped) return;
    this.pending = true;
    this.raf((t) => {
      this.pending = false;
      if (!this.stopped) this.draw(t);
    });
  }

  stop(): void {
    this.stopped = true;
  }
}
