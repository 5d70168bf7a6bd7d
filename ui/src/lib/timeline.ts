//! The boundary timeline's model, scale and layout: pure functions, tested without a DOM.
//!
//! It owns turning a report into per-lane sorted typed arrays (one lane per session, in the
//! report's `sessions` order), choosing the axis (time when every span drawn has a clock, else wire
//! order), the scale between the domain and pixels (zoom around a point, pan, clamp, fit), finding
//! the visible part of a lane by binary search, merging what is narrower than a pixel, hit testing
//! and axis ticks. It deliberately knows nothing of canvas, colours or events:
//! views/TimelineView.svelte draws what these functions hand it.

import type { Diagnostic, Place, Report, Session, Severity, TurnId } from "./report";

export type AxisKind = "time" | "wire";

/** One lane: a session (or, at the top, the findings that name no session). */
export interface Lane {
  /** The session id; null for the row of findings without a session. */
  id: string | null;
  label: string | null;
  depth: number;
  /** Index of the parent's lane, -1 for a root (or a parent that has no lane). */
  parent: number;
}

/**
 * Spans of one kind for every lane, sorted by lane then start (CSR layout): lane `l` owns indices
 * `[laneStart[l], laneStart[l + 1])`. `maxEnd` is the running maximum of `end` within each lane, so
 * the first span that reaches a point is found by binary search even when spans overlap.
 */
export interface SpanTable {
  laneStart: Int32Array;
  start: Float64Array;
  end: Float64Array;
  maxEnd: Float64Array;
  /** Which source item each span came from (index into the kind's `items`). */
  item: Int32Array;
}

/** Points of one kind for every lane, sorted by lane then position, same layout as SpanTable. */
export interface MarkTable {
  laneStart: Int32Array;
  at: Float64Array;
  item: Int32Array;
}

/** A run drawn on its parent's lane, linked to the lane of the session that ran. */
export interface RunItem {
  session: string;
  child: number;
  index: number;
  outcome: string;
  start: Place | null;
}

export interface TurnItem {
  session: string;
  turn: TurnId;
  start: Place | null;
}

export interface StepItem {
  session: string;
  turn: TurnId;
  step: number;
  start: Place;
}

export interface TimelineModel {
  axis: AxisKind;
  /** Where the domain starts: the first time (ms) or the first ordinal. Tick labels count from it. */
  min: number;
  max: number;
  lanes: Lane[];
  laneOf: Map<string, number>;
  turns: SpanTable;
  turnItems: TurnItem[];
  steps: SpanTable;
  stepItems: StepItem[];
  runs: SpanTable;
  runItems: RunItem[];
  /** The lane each run (runs-table index) is drawn on: its parent's. */
  runLane: Int32Array;
  /** The runs of each lane's session, as runs-table indices (CSR, in start order). */
  childRuns: { laneStart: Int32Array; index: Int32Array };
  marks: MarkTable;
  markItems: Diagnostic[];
  markSeverity: Uint8Array;
  /** Running counts of markers per severity (severityCounts), for merging a column's markers. */
  markCounts: Int32Array[];
  /** Ordinal offset of each input file (records and bad lines of the inputs before it). */
  offsets: Map<string, number>;
  inputs: { file: string; offset: number }[];
  /** On a clocked axis, the time of any place (for findings and selections without their own). */
  clock: PlaceClock | null;
}

export const SEVERITY_RANK: Record<Severity, number> = { info: 1, warning: 2, error: 3 };

/** Ordinal offset of each file: the records and bad lines of the inputs listed before it. */
export function fileOffsets(inputs: Report["inputs"]): Map<string, number> {
  const out = new Map<string, number>();
  let sum = 0;
  for (const input of inputs) {
    if (!out.has(input.file)) out.set(input.file, sum);
    sum += input.records + input.bad_lines;
  }
  return out;
}

/** A place's position in wire order: its file's offset plus its line. */
export function ordinal(offsets: Map<string, number>, p: Place): number {
  return (offsets.get(p.file) ?? 0) + p.line;
}

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

/** Lanes in the report's session order; depth is the report's, or counted through the parents. */
export function layoutLanes(sessions: Session[], withUnowned: boolean): Lane[] {
  const lanes: Lane[] = [];
  if (withUnowned) lanes.push({ id: null, label: "findings without a session", depth: 0, parent: -1 });
  // A lane's index is its session's position in `sessions`, after the row of unowned findings.
  const index = new Map<string, number>();
  const first = withUnowned ? 1 : 0;
  sessions.forEach((s, i) => {
    if (!index.has(s.id)) index.set(s.id, first + i);
  });
  sessions.forEach((s) => {
    const parent = s.parent !== null && index.has(s.parent) && s.parent !== s.id ? index.get(s.parent)! : -1;
    lanes.push({ id: s.id, label: s.label, depth: s.depth ?? 0, parent });
  });
  // A session with no reported depth sits one level under its parent's lane (a lane earlier in
  // the list, so this settles in one pass).
  sessions.forEach((s, i) => {
    const lane = lanes[first + i];
    if (s.depth === null) lane.depth = lane.parent >= 0 && lane.parent < first + i ? lanes[lane.parent].depth + 1 : 0;
  });
  return lanes;
}

/** Builds a SpanTable from flat lane/start/end/item arrays (any order). */
export function buildSpanTable(nLanes: number, lane: ArrayLike<number>, start: ArrayLike<number>, end: ArrayLike<number>): SpanTable {
  const n = lane.length;
  const laneStart = new Int32Array(nLanes + 1);
  for (let i = 0; i < n; i++) laneStart[lane[i] + 1]++;
  for (let l = 0; l < nLanes; l++) laneStart[l + 1] += laneStart[l];
  const fill = laneStart.slice(0, nLanes);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[fill[lane[i]]++] = i;
  // Sort each lane's segment by start, then end (spans of one lane are usually already in order).
  for (let l = 0; l < nLanes; l++) {
    const a = laneStart[l];
    const b = laneStart[l + 1];
    if (b - a < 2) continue;
    let sorted = true;
    for (let i = a + 1; i < b && sorted; i++) {
      const p = order[i - 1];
      const q = order[i];
      if (start[p] > start[q] || (start[p] === start[q] && end[p] > end[q])) sorted = false;
    }
    if (!sorted) order.subarray(a, b).sort((p, q) => start[p] - start[q] || end[p] - end[q]);
  }
  const s = new Float64Array(n);
  const e = new Float64Array(n);
  const m = new Float64Array(n);
  for (let l = 0; l < nLanes; l++) {
    let running = -Infinity;
    for (let i = laneStart[l]; i < laneStart[l + 1]; i++) {
      s[i] = start[order[i]];
      e[i] = end[order[i]];
      running = Math.max(running, e[i]);
      m[i] = running;
    }
  }
  return { laneStart, start: s, end: e, maxEnd: m, item: order };
}

export function buildMarkTable(nLanes: number, lane: ArrayLike<number>, at: ArrayLike<number>): MarkTable {
  const t = buildSpanTable(nLanes, lane, at, at);
  return { laneStart: t.laneStart, at: t.start, item: t.item };
}

/** First index in [lo, hi) whose value is >= x (hi when none); `values` ascending on that range. */
export function lowerBound(values: ArrayLike<number>, lo: number, hi: number, x: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index in [lo, hi) whose value is > x (hi when none). */
export function upperBound(values: ArrayLike<number>, lo: number, hi: number, x: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The spans of `lane` that touch [from, to]: indices [first, last). Everything before `first`
 * ends before `from` (running max of ends), everything from `last` on starts after `to`. Spans
 * inside the range that end before `from` (a short one after a long one) are left to the caller.
 */
export function visibleSpans(t: SpanTable, lane: number, from: number, to: number): [number, number] {
  const a = t.laneStart[lane];
  const b = t.laneStart[lane + 1];
  const first = lowerBound(t.maxEnd, a, b, from);
  const last = upperBound(t.start, first, b, to);
  return [first, last];
}

export function visibleMarks(t: MarkTable, lane: number, from: number, to: number): [number, number] {
  const a = t.laneStart[lane];
  const b = t.laneStart[lane + 1];
  const first = lowerBound(t.at, a, b, from);
  return [first, upperBound(t.at, first, b, to)];
}

// ---------------------------------------------------------------------------------------------
// Building the model

function timeOk(place: Place | null | undefined, time: number | null | undefined): boolean {
  return !place || (typeof time === "number" && Number.isFinite(time));
}

/**
 * Whether every span the timeline draws has a clock: each turn, step and run with a place at its
 * start (and its end, when it has ended) must carry that place's time.
 */
export function hasClock(report: Report): boolean {
  let any = false;
  for (const t of report.turns) {
    if (!t.start && !t.end) continue;
    if (!timeOk(t.start, t.start_time) || !timeOk(t.end, t.end_time)) return false;
    any = true;
    for (const s of t.step_spans ?? []) {
      if (!timeOk(s.start, s.start_time) || !timeOk(s.end, s.end_time)) return false;
    }
  }
  for (const s of report.sessions) {
    for (const r of s.runs) {
      if (!r.start && !r.end) continue;
      if (!timeOk(r.start, r.start_time) || !timeOk(r.end, r.end_time)) return false;
      any = true;
    }
  }
  return any;
}

/**
 * Times known at places, per file, by line: a finding without its own time sits at the time of the
 * latest timed line at or before it in its file (the earliest one when there is none). Lines are
 * dense (a file has as many as it has records), so this is one array a file and no sort.
 */
export class PlaceClock {
  private files = new Map<string, Float64Array>();

  set(p: Place, time: number): void {
    let a = this.files.get(p.file);
    if (!a || p.line >= a.length) {
      const grown = new Float64Array(Math.max(p.line + 1, (a?.length ?? 0) * 2, 64)).fill(Number.NaN);
      if (a) grown.set(a);
      this.files.set(p.file, (a = grown));
    }
    if (!(a[p.line] <= time)) a[p.line] = time;
  }

  /** Fills each line without a time from the timed line before it (after it, at the start). */
  finish(): this {
    for (const a of this.files.values()) {
      let last = Number.NaN;
      for (let i = 0; i < a.length; i++) {
        if (Number.isNaN(a[i])) a[i] = last;
        else last = a[i];
      }
      const first = a.find((x) => !Number.isNaN(x));
      if (first !== undefined) for (let i = 0; i < a.length && Number.isNaN(a[i]); i++) a[i] = first;
    }
    return this;
  }

  timeOf(p: Place): number | null {
    const a = this.files.get(p.file);
    if (!a || a.length === 0) return null;
    const t = a[Math.max(0, Math.min(p.line, a.length - 1))];
    return Number.isNaN(t) ? null : t;
  }
}

/**
 * Builds everything the view draws, once per report (and axis): time when every span has a clock,
 * else wire order; `wire` forces wire order (the user's choice when a log has a clock).
 */
export function buildModel(report: Report, wire = false): TimelineModel {
  const offsets = fileOffsets(report.inputs);
  const inputs = report.inputs.map((i) => ({ file: i.file, offset: offsets.get(i.file) ?? 0 })).sort((a, b) => a.offset - b.offset);
  const axis: AxisKind = !wire && hasClock(report) ? "time" : "wire";
  const ids = new Set(report.sessions.map((s) => s.id));
  const unowned = report.diagnostics.some((d) => d.session === null || !ids.has(d.session));
  const lanes = layoutLanes(report.sessions, unowned);
  const laneOf = new Map<string, number>();
  lanes.forEach((l, i) => {
    if (l.id !== null && !laneOf.has(l.id)) laneOf.set(l.id, i);
  });
  const clock = new PlaceClock();
  // Position of a place on the axis: its time, or its ordinal. In wire order a record occupies
  // [ordinal, ordinal + 1), so a span ends after its end line and a one-line span has a width.
  const pos = (p: Place, time: number | null | undefined): number => {
    if (axis === "time") {
      clock.set(p, time as number);
      return time as number;
    }
    return ordinal(offsets, p);
  };
  const endPos = (p: Place, time: number | null | undefined): number => (axis === "time" ? pos(p, time) : ordinal(offsets, p) + 1);

  // Open spans (no end) reach the end of the domain, known only once everything is placed.
  const OPEN = Number.POSITIVE_INFINITY;
  const turnLane: number[] = [];
  const turnStart: number[] = [];
  const turnEnd: number[] = [];
  const turnItems: TurnItem[] = [];
  const stepLane: number[] = [];
  const stepStart: number[] = [];
  const stepEnd: number[] = [];
  const stepItems: StepItem[] = [];
  for (const t of report.turns) {
    const lane = laneOf.get(t.session);
    if (lane === undefined || (!t.start && !t.end)) continue;
    const s = t.start ? pos(t.start, t.start_time) : endPos(t.end!, t.end_time) - (axis === "wire" ? 1 : 0);
    const e = t.end ? endPos(t.end, t.end_time) : OPEN;
    turnLane.push(lane);
    turnStart.push(s);
    turnEnd.push(e);
    turnItems.push({ session: t.session, turn: t.turn, start: t.start ?? t.end });
    for (const st of t.step_spans ?? []) {
      stepLane.push(lane);
      stepStart.push(pos(st.start, st.start_time));
      stepEnd.push(st.end ? endPos(st.end, st.end_time) : OPEN);
      stepItems.push({ session: t.session, turn: t.turn, step: st.step, start: st.start });
    }
  }
  const runLane: number[] = [];
  const runStart: number[] = [];
  const runEnd: number[] = [];
  const runItems: RunItem[] = [];
  for (const s of report.sessions) {
    const child = laneOf.get(s.id);
    if (child === undefined) continue;
    s.runs.forEach((r, index) => {
      if (!r.start && !r.end) return;
      // On the parent's lane; a run whose parent has no lane stays on the child's own lane.
      const lane = r.parent !== null && laneOf.has(r.parent) ? laneOf.get(r.parent)! : child;
      runLane.push(lane);
      runStart.push(r.start ? pos(r.start, r.start_time) : endPos(r.end!, r.end_time) - (axis === "wire" ? 1 : 0));
      runEnd.push(r.end ? endPos(r.end, r.end_time) : OPEN);
      runItems.push({ session: s.id, child, index, outcome: r.outcome, start: r.start ?? r.end });
    });
  }
  clock.finish();
  const markLane: number[] = [];
  const markAt: number[] = [];
  const markItems: Diagnostic[] = [];
  const sev: number[] = [];
  for (const d of report.diagnostics) {
    const lane = d.session !== null && laneOf.has(d.session) ? laneOf.get(d.session)! : 0;
    let at: number;
    if (axis === "wire") at = ordinal(offsets, d.at) + 0.5;
    else {
      const t = typeof d.time === "number" ? d.time : clock.timeOf(d.at);
      if (t === null) continue;
      at = t;
    }
    markLane.push(lane);
    markAt.push(at);
    markItems.push(d);
    sev.push(SEVERITY_RANK[d.severity] ?? 1);
  }

  // The domain: everything placed, or the whole wire when the log has no clock.
  let min = Infinity;
  let max = -Infinity;
  for (const list of [turnStart, stepStart, runStart, markAt]) for (const v of list) min = Math.min(min, v);
  for (const list of [turnEnd, stepEnd, runEnd, markAt, turnStart, runStart]) for (const v of list) if (v !== OPEN) max = Math.max(max, v);
  if (axis === "wire" && inputs.length) {
    const last = report.inputs.reduce((sum, i) => sum + i.records + i.bad_lines, 0);
    min = Math.min(min, inputs[0].offset + 1);
    max = Math.max(max, last + 1);
  }
  if (!Number.isFinite(min) || !Number.isFinite(max)) {
    min = 0;
    max = 1;
  }
  if (max <= min) max = min + 1;
  for (const list of [turnEnd, stepEnd, runEnd]) for (let i = 0; i < list.length; i++) if (list[i] === OPEN) list[i] = max;

  const n = lanes.length;
  const marks = buildMarkTable(n, markLane, markAt);
  const runs = buildSpanTable(n, runLane, runStart, runEnd);
  const laneOfRun = new Int32Array(runs.item.length);
  const childLane = new Int32Array(runs.item.length);
  for (let l = 0; l < n; l++) {
    for (let i = runs.laneStart[l]; i < runs.laneStart[l + 1]; i++) {
      laneOfRun[i] = l;
      childLane[i] = runItems[runs.item[i]].child;
    }
  }
  const byChild = buildSpanTable(n, childLane, runs.start, runs.end);
  const markSeverity = Uint8Array.from(marks.item, (i) => sev[i]);
  return {
    axis,
    min,
    max,
    lanes,
    laneOf,
    turns: buildSpanTable(n, turnLane, turnStart, turnEnd),
    turnItems,
    steps: buildSpanTable(n, stepLane, stepStart, stepEnd),
    stepItems,
    runs,
    runItems,
    runLane: laneOfRun,
    childRuns: { laneStart: byChild.laneStart, index: byChild.item },
    marks,
    markItems,
    markSeverity,
    markCounts: severityCounts(markSeverity),
    offsets,
    inputs,
    clock: axis === "time" ? clock : null,
  };
}

/** Where a place is on the model's axis (null when a clocked axis cannot place it). */
export function placePosition(model: TimelineModel, p: Place): number | null {
  if (model.axis === "wire") return ordinal(model.offsets, p) + 0.5;
  return model.clock ? model.clock.timeOf(p) : null;
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
// Drawing at the current resolution

/** Rectangles to draw, in pixels; reused between frames so drawing allocates nothing. */
export class RectBuffer {
  x0: Float64Array;
  x1: Float64Array;
  /** The first source span (table index) in the rectangle, and how many it merges. */
  first: Int32Array;
  count: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.x0 = new Float64Array(capacity);
    this.x1 = new Float64Array(capacity);
    this.first = new Int32Array(capacity);
    this.count = new Int32Array(capacity);
  }

  push(x0: number, x1: number, first: number, count: number): void {
    if (this.length === this.x0.length) this.grow();
    const i = this.length++;
    this.x0[i] = x0;
    this.x1[i] = x1;
    this.first[i] = first;
    this.count[i] = count;
  }

  private grow(): void {
    const n = this.x0.length * 2;
    const x0 = new Float64Array(n);
    const x1 = new Float64Array(n);
    const first = new Int32Array(n);
    const count = new Int32Array(n);
    x0.set(this.x0);
    x1.set(this.x1);
    first.set(this.first);
    count.set(this.count);
    Object.assign(this, { x0, x1, first, count });
  }
}

/**
 * The rectangles for spans [from, to) of a table at the current scale: a span at least a pixel wide
 * is its own rectangle; spans narrower than a pixel merge into one rectangle (at least a pixel
 * wide) while each starts within a pixel of the previous one's end. Spans that end before `domainFrom`
 * are skipped. Pixels are clipped to [-2, width + 2].
 */
export function mergeSpans(t: SpanTable, from: number, to: number, v: View, width: number, out: RectBuffer): void {
  out.length = 0;
  const k = width / (v.end - v.start);
  let open = false;
  let px0 = 0;
  let px1 = 0;
  let pFirst = 0;
  let pCount = 0;
  for (let i = from; i < to; i++) {
    if (t.end[i] < v.start || t.start[i] > v.end) continue;
    const x0 = Math.max(-2, (t.start[i] - v.start) * k);
    const x1 = Math.min(width + 2, (t.end[i] - v.start) * k);
    if (x1 - x0 >= 1) {
      if (open) out.push(px0, px1, pFirst, pCount);
      open = false;
      out.push(x0, x1, i, 1);
    } else if (open && x0 <= px1 + 1) {
      px1 = Math.max(px1, x1, px0 + 1);
      pCount++;
    } else {
      if (open) out.push(px0, px1, pFirst, pCount);
      open = true;
      px0 = x0;
      px1 = Math.max(x1, x0 + 1);
      pFirst = i;
      pCount = 1;
    }
  }
  if (open) out.push(px0, px1, pFirst, pCount);
}

/**
 * The filled pixels of spans [from, to) at the current scale, as few rectangles as it takes: a
 * rectangle is the union of spans that each start within a pixel of the union so far (a span
 * narrower than a pixel counts as one pixel wide). Each rectangle costs a few binary searches
 * (the running max of ends gives a chain's end), so a lane of a million spans draws in time
 * proportional to its rectangles, not its spans. Where spans overlap the pixels are the same as
 * drawing each; `mergeSpans` keeps wide spans apart when each needs its own colour.
 */
export function coverSpans(t: SpanTable, from: number, to: number, v: View, width: number, out: RectBuffer): void {
  out.length = 0;
  const k = width / (v.end - v.start);
  const px = 1 / k;
  let i = from;
  while (i < to) {
    const s0 = t.start[i];
    if (s0 > v.end) break;
    let reach = Math.max(t.end[i], s0 + px);
    let j = i + 1;
    for (;;) {
      const next = upperBound(t.start, j, to, reach + px);
      if (next === j) break;
      reach = Math.max(reach, t.maxEnd[next - 1]);
      j = next;
    }
    if (reach >= v.start) out.push(Math.max(-2, (s0 - v.start) * k), Math.min(width + 2, (reach - v.start) * k), i, j - i);
    i = j;
  }
}

/**
 * For each severity rank (1 info, 2 warning, 3 error), how many markers come before each index
 * (length n + 1), so the highest severity in any range of markers is found without visiting them.
 */
export function severityCounts(severity: Uint8Array): Int32Array[] {
  const counts = [new Int32Array(0), new Int32Array(severity.length + 1), new Int32Array(severity.length + 1), new Int32Array(severity.length + 1)];
  for (let r = 1; r <= 3; r++) {
    const c = counts[r];
    for (let i = 0; i < severity.length; i++) c[i + 1] = c[i] + (severity[i] === r ? 1 : 0);
  }
  return counts;
}

/**
 * Markers [from, to) at the current scale, one per pixel column: the markers of a column merge
 * into one with their highest severity (in `count`) and the first marker of that severity (in
 * `first`). A column costs a binary search, however many markers it holds.
 */
export function mergeMarks(t: MarkTable, counts: Int32Array[], from: number, to: number, v: View, width: number, out: RectBuffer): void {
  out.length = 0;
  const k = width / (v.end - v.start);
  let i = from;
  while (i < to) {
    const x = (t.at[i] - v.start) * k;
    const col = Math.floor(x);
    const j = Math.max(i + 1, lowerBound(t.at, i + 1, to, v.start + (col + 1) / k));
    let best = 1;
    let first = i;
    for (let r = 3; r >= 1; r--) {
      const c = counts[r];
      if (c[j] - c[i] > 0) {
        best = r;
        // The first marker of this rank in [i, j): where the running count first passes c[i].
        first = lowerBound(c, i + 1, j + 1, c[i] + 1) - 1;
        break;
      }
    }
    out.push(x, (t.at[j - 1] - v.start) * k, first, best);
    i = j;
  }
}

// ---------------------------------------------------------------------------------------------
// Hit testing

/**
 * The span of `lane` under domain point `x` (within `slop` domain units), preferring the
 * narrowest one that contains it; -1 when none. Returns a table index.
 */
export function hitSpan(t: SpanTable, lane: number, x: number, slop: number): number {
  const [first, last] = visibleSpans(t, lane, x - slop, x + slop);
  let best = -1;
  let bestScore = Infinity;
  for (let i = first; i < last; i++) {
    if (t.end[i] < x - slop || t.start[i] > x + slop) continue;
    const inside = t.start[i] <= x && x <= t.end[i];
    const score = (inside ? 0 : 1e300) + (t.end[i] - t.start[i]);
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best;
}

/** The marker of `lane` nearest to `x` within `slop`; -1 when none. */
export function hitMark(t: MarkTable, lane: number, x: number, slop: number): number {
  const [first, last] = visibleMarks(t, lane, x - slop, x + slop);
  let best = -1;
  let dist = Infinity;
  for (let i = first; i < last; i++) {
    const d = Math.abs(t.at[i] - x);
    if (d < dist) {
      dist = d;
      best = i;
    }
  }
  return best;
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
