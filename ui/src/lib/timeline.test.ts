import { describe, expect, it } from "vitest";
import { REPORTS } from "./fixtures/reports";
import type { Report, Session } from "./report";
import {
  RectBuffer,
  RedrawScheduler,
  axisTicks,
  boundsOf,
  buildModel,
  buildSpanTable,
  centreOn,
  clampView,
  coverSpans,
  fileOffsets,
  fitView,
  formatOffset,
  hasClock,
  hitMark,
  hitSpan,
  layoutLanes,
  lowerBound,
  mergeMarks,
  mergeSpans,
  niceStep,
  ordinal,
  panBy,
  placeAt,
  revealLane,
  severityCounts,
  timeStep,
  toDomain,
  toPx,
  upperBound,
  visibleLanes,
  visibleSpans,
  zoomAt,
  type Bounds,
  type SpanTable,
} from "./timeline";

const B: Bounds = { min: 0, max: 1000, minSpan: 1 };

function session(id: string, parent: string | null, depth: number | null): Session {
  return { id, parent, root: null, depth, label: null, events: 0, runs: [] };
}

/** A report built from a few facts, wire order unless times are given. */
function report(over: Partial<Report>): Report {
  return {
    report_version: 1,
    inputs: [{ file: "a.jsonl", format: "dsh-rpc", records: 100, bad_lines: 0, bytes: 0 }],
    sessions: [],
    turns: [],
    replies: [],
    waits: [],
    diagnostics: [],
    ...over,
  };
}

/** Spans of one lane as [start, end] pairs, in table order. */
function spansOf(t: SpanTable, lane: number): number[][] {
  const out: number[][] = [];
  for (let i = t.laneStart[lane]; i < t.laneStart[lane + 1]; i++) out.push([t.start[i], t.end[i]]);
  return out;
}

describe("scale", () => {
  it("maps the window onto the pixels and back", () => {
    const v = { start: 100, end: 300 };
    expect(toPx(v, 400, 100)).toBe(0);
    expect(toPx(v, 400, 300)).toBe(400);
    expect(toPx(v, 400, 150)).toBe(100);
    expect(toDomain(v, 400, 100)).toBe(150);
    for (const x of [100, 123.5, 299]) expect(toDomain(v, 400, toPx(v, 400, x))).toBeCloseTo(x, 9);
  });

  it("zooms around the cursor: the point under it stays under it", () => {
    const v = { start: 0, end: 1000 };
    const z = zoomAt(v, 500, 100, 4, B);
    expect(z.end - z.start).toBeCloseTo(250, 9);
    expect(toDomain(z, 500, 100)).toBeCloseTo(toDomain(v, 500, 100), 9);
    const back = zoomAt(z, 500, 100, 1 / 4, B);
    expect(back.start).toBeCloseTo(0, 9);
    expect(back.end).toBeCloseTo(1000, 9);
  });

  it("stops zooming in at minSpan and out at the whole domain", () => {
    const tiny = zoomAt({ start: 500, end: 510 }, 100, 50, 1000, B);
    expect(tiny.end - tiny.start).toBeCloseTo(1, 9);
    expect(tiny.start).toBeCloseTo(504.5, 9);
    expect(zoomAt({ start: 400, end: 600 }, 100, 50, 0.001, B)).toEqual({ start: 0, end: 1000 });
  });

  it("clamps a zoom near an edge into the domain", () => {
    const z = zoomAt({ start: 0, end: 100 }, 100, 0, 0.5, B);
    expect(z).toEqual({ start: 0, end: 200 });
    const right = zoomAt({ start: 900, end: 1000 }, 100, 100, 0.5, B);
    expect(right).toEqual({ start: 800, end: 1000 });
  });

  it("pans by pixels in domain units, clamped at both ends", () => {
    expect(panBy({ start: 100, end: 200 }, 50, 10, B)).toEqual({ start: 120, end: 220 });
    expect(panBy({ start: 100, end: 200 }, 50, -100, B)).toEqual({ start: 0, end: 100 });
    expect(panBy({ start: 100, end: 200 }, 50, 10000, B)).toEqual({ start: 900, end: 1000 });
  });

  it("fits, clamps and centres", () => {
    expect(fitView(B)).toEqual({ start: 0, end: 1000 });
    expect(clampView({ start: -50, end: 2000 }, B)).toEqual({ start: 0, end: 1000 });
    expect(clampView({ start: 10, end: 10 }, B)).toEqual({ start: 10, end: 11 });
    expect(centreOn({ start: 0, end: 100 }, 500, B)).toEqual({ start: 450, end: 550 });
    expect(centreOn({ start: 0, end: 100 }, 990, B)).toEqual({ start: 900, end: 1000 });
  });

  it("zooms in to a millisecond on a clock and to a tenth of a record in wire order", () => {
    expect(boundsOf({ axis: "time", min: 5, max: 9 })).toEqual({ min: 5, max: 9, minSpan: 1 });
    expect(boundsOf({ axis: "wire", min: 1, max: 9 }).minSpan).toBe(0.1);
  });
});

describe("lanes", () => {
  it("keeps the report's order, indents by depth and points each lane at its parent's", () => {
    const lanes = layoutLanes([session("s1", null, 0), session("c1", "s1", 1), session("g1", "c1", 2), session("s2", null, 0)], false);
    expect(lanes.map((l) => [l.id, l.depth, l.parent])).toEqual([
      ["s1", 0, -1],
      ["c1", 1, 0],
      ["g1", 2, 1],
      ["s2", 0, -1],
    ]);
  });

  it("puts the findings without a session first, and counts a missing depth through the parent", () => {
    const lanes = layoutLanes([session("O", "GONE", null), session("R", null, 0), session("C", "R", null)], true);
    expect(lanes.map((l) => [l.id, l.depth, l.parent])).toEqual([
      [null, 0, -1],
      ["O", 0, -1],
      ["R", 0, -1],
      ["C", 1, 2],
    ]);
  });

  it("finds the lanes in view and scrolls to reveal one", () => {
    expect(visibleLanes(10000, 0, 100, 30)).toEqual([0, 4]);
    expect(visibleLanes(10000, 95, 100, 30)).toEqual([3, 7]);
    expect(visibleLanes(5, 0, 1000, 30)).toEqual([0, 5]);
    // In view: unchanged; out of view: centred, clamped to the content.
    expect(revealLane(0, 2, 300, 30, 100)).toBe(0);
    expect(revealLane(0, 50, 300, 30, 100)).toBe(50 * 30 - 135);
    expect(revealLane(0, 99, 300, 30, 100)).toBe(100 * 30 - 300);
    expect(revealLane(1000, 0, 300, 30, 100)).toBe(0);
  });
});

describe("span tables", () => {
  // Lane 0: out of order, overlapping (a long span first); lane 1 empty; lane 2 one span.
  const t = buildSpanTable(3, [0, 0, 2, 0, 0], [50, 0, 7, 10, 20], [60, 100, 8, 15, 30]);

  it("sorts each lane by start and keeps the source index", () => {
    expect(Array.from(t.laneStart)).toEqual([0, 4, 4, 5]);
    expect(spansOf(t, 0)).toEqual([[0, 100], [10, 15], [20, 30], [50, 60]]);
    expect(Array.from(t.item)).toEqual([1, 3, 4, 0, 2]);
    expect(Array.from(t.maxEnd.subarray(0, 4))).toEqual([100, 100, 100, 100]);
    expect(spansOf(t, 2)).toEqual([[7, 8]]);
  });

  it("binary searches the visible range, keeping a long span that started before it", () => {
    expect(visibleSpans(t, 0, 40, 45)).toEqual([0, 3]);
    expect(visibleSpans(t, 0, 200, 300)).toEqual([4, 4]);
    expect(visibleSpans(t, 1, 0, 1000)).toEqual([4, 4]);
    expect(visibleSpans(t, 2, 0, 6.9)).toEqual([4, 4]);
    expect(visibleSpans(t, 2, 8, 9)).toEqual([4, 5]);
    const u = buildSpanTable(1, [0, 0, 0], [0, 10, 20], [5, 15, 25]);
    expect(visibleSpans(u, 0, 6, 14)).toEqual([1, 2]);
    expect(visibleSpans(u, 0, 15, 20)).toEqual([1, 3]);
  });

  it("lower and upper bounds agree with a linear scan", () => {
    const values = Float64Array.from([1, 2, 2, 2, 5, 9]);
    for (const x of [0, 1, 2, 3, 5, 9, 10]) {
      expect(lowerBound(values, 0, 6, x)).toBe(values.findIndex((v) => v >= x) === -1 ? 6 : values.findIndex((v) => v >= x));
      expect(upperBound(values, 0, 6, x)).toBe(values.findIndex((v) => v > x) === -1 ? 6 : values.findIndex((v) => v > x));
    }
  });

  it("hits the narrowest span under the point, or the nearest within the slop", () => {
    expect(t.item[hitSpan(t, 0, 12, 0)]).toBe(3);
    expect(t.item[hitSpan(t, 0, 40, 0)]).toBe(1);
    expect(hitSpan(t, 0, 150, 1)).toBe(-1);
    expect(t.item[hitSpan(t, 2, 8.5, 1)]).toBe(2);
    expect(hitSpan(t, 1, 5, 100)).toBe(-1);
  });
});

describe("drawing at the current resolution", () => {
  it("keeps spans a pixel or wider apart and merges narrower neighbours into one", () => {
    // 1000 domain units on 100 px: 10 units a pixel.
    const t = buildSpanTable(1, [0, 0, 0, 0, 0, 0], [0, 100, 103, 106, 112, 500], [50, 102, 105, 111, 115, 503]);
    const out = new RectBuffer(2);
    mergeSpans(t, 0, 6, { start: 0, end: 1000 }, 100, out);
    const rects = Array.from({ length: out.length }, (_, i) => [out.x0[i], out.x1[i], out.first[i], out.count[i]]);
    expect(rects).toEqual([
      [0, 5, 0, 1],
      [10, 11.5, 1, 4],
      [50, 51, 5, 1],
    ]);
  });

  it("merges a million sub-pixel spans into about one rectangle a pixel", () => {
    const n = 1_000_000;
    const lane = new Int32Array(n);
    const start = Float64Array.from({ length: n }, (_, i) => i);
    const end = Float64Array.from({ length: n }, (_, i) => i + 0.5);
    const t = buildSpanTable(1, lane, start, end);
    const out = new RectBuffer();
    mergeSpans(t, 0, n, { start: 0, end: n }, 1000, out);
    expect(out.length).toBe(1);
    // Zoomed in to 2 units a pixel: only the spans in view are visited, each 0.25 px, still merged.
    const [first, last] = visibleSpans(t, 0, 0, 2000);
    expect([first, last]).toEqual([0, 2001]);
    mergeSpans(t, first, last, { start: 0, end: 2000 }, 1000, out);
    expect(out.length).toBe(1);
    expect([out.x0[0], out.x1[0], out.count[0]]).toEqual([0, 1000.25, 2001]);
    // At 1 unit a pixel each span is half a pixel with half a pixel between: still one a pixel apart.
    mergeSpans(t, 0, 1001, { start: 0, end: 1000 }, 1000, out);
    expect(out.length).toBe(1);
  });

  it("covers the same pixels with one rectangle per chain of spans, visiting a rectangle not its spans", () => {
    // 1000 units on 100 px. Wide spans apart stay apart; sub-pixel neighbours chain; a long span
    // swallows the short ones it overlaps (the pixels are the same).
    const t = buildSpanTable(1, [0, 0, 0, 0, 0, 0, 0, 0], [0, 100, 103, 106, 112, 500, 600, 650], [50, 102, 105, 111, 115, 503, 700, 660]);
    const out = new RectBuffer(2);
    coverSpans(t, 0, 8, { start: 0, end: 1000 }, 100, out);
    const rects = Array.from({ length: out.length }, (_, i) => [out.x0[i], out.x1[i], out.first[i], out.count[i]]);
    expect(rects).toEqual([
      [0, 5, 0, 1],
      [10, 11.5, 1, 4],
      [50, 51, 5, 1],
      [60, 70, 6, 2],
    ]);
    // Zoomed in, clipped to the view (2 px of slack) and nothing left of it.
    coverSpans(t, 0, 8, { start: 550, end: 750 }, 100, out);
    expect([out.length, out.x0[0], out.x1[0]]).toEqual([1, 25, 75]);
    coverSpans(t, 0, 8, { start: 640, end: 660 }, 100, out);
    expect([out.length, out.x0[0], out.x1[0], out.count[0]]).toEqual([1, -2, 102, 2]);
  });

  it("extends a chain to the longest end among the spans it jumps over", () => {
    // 10 units a pixel: the second span (to 100) is not the last one the chain takes in.
    const t = buildSpanTable(1, [0, 0, 0, 0], [0, 5, 8, 150], [10, 100, 9, 160]);
    const out = new RectBuffer();
    coverSpans(t, 0, 4, { start: 0, end: 1000 }, 100, out);
    const rects = Array.from({ length: out.length }, (_, i) => [out.x0[i], out.x1[i], out.first[i], out.count[i]]);
    expect(rects).toEqual([
      [0, 10, 0, 3],
      [15, 16, 3, 1],
    ]);
  });

  it("covers a million sub-pixel spans with one rectangle", () => {
    const n = 1_000_000;
    const t = buildSpanTable(1, new Int32Array(n), Float64Array.from({ length: n }, (_, i) => i), Float64Array.from({ length: n }, (_, i) => i + 0.5));
    const out = new RectBuffer();
    coverSpans(t, 0, n, { start: 0, end: n }, 1000, out);
    expect([out.length, out.count[0], out.x0[0]]).toEqual([1, n, 0]);
    expect(out.x1[0]).toBeCloseTo(1000, 3);
  });

  it("draws one marker per pixel column with the highest severity", () => {
    const t = buildSpanTable(1, [0, 0, 0, 0], [10, 12, 14, 50], [10, 12, 14, 50]);
    const marks = { laneStart: t.laneStart, at: t.start, item: t.item };
    const sev = severityCounts(Uint8Array.from([1, 3, 2, 1]));
    expect(Array.from(sev[3])).toEqual([0, 0, 1, 1, 1]);
    const out = new RectBuffer();
    mergeMarks(marks, sev, 0, 4, { start: 0, end: 100 }, 10, out);
    expect(out.length).toBe(2);
    expect([out.first[0], out.count[0]]).toEqual([1, 3]);
    expect([out.first[1], out.count[1]]).toEqual([3, 1]);
    // Zoomed in, each marker is its own column.
    mergeMarks(marks, sev, 0, 4, { start: 0, end: 100 }, 1000, out);
    expect(Array.from(out.count.subarray(0, out.length))).toEqual([1, 3, 2, 1]);
    // Of two warnings and an info in one column, the first warning is the one chosen.
    const w = buildSpanTable(1, [0, 0, 0], [1, 2, 3], [1, 2, 3]);
    mergeMarks({ laneStart: w.laneStart, at: w.start, item: w.item }, severityCounts(Uint8Array.from([1, 2, 2])), 0, 3, { start: 0, end: 100 }, 10, out);
    expect([out.length, out.first[0], out.count[0]]).toEqual([1, 1, 2]);
    expect(hitMark(marks, 0, 13, 2)).toBe(1);
    expect(hitMark(marks, 0, 30, 2)).toBe(-1);
  });
});

describe("axis ticks", () => {
  it("chooses round steps at least the given pixels apart", () => {
    expect(niceStep(0.3, 1)).toBe(1);
    expect(niceStep(13)).toBe(20);
    expect(niceStep(20)).toBe(20);
    expect(niceStep(51)).toBe(100);
    expect(niceStep(0.004)).toBeCloseTo(0.005, 12);
    expect(timeStep(3)).toBe(5);
    expect(timeStep(700)).toBe(1000);
    expect(timeStep(11_000)).toBe(15_000);
    expect(timeStep(61_000)).toBe(120_000);
    // Past a day, whole days on round numbers: 109 days a tick becomes 200.
    expect(timeStep(1.5 * 86_400_000)).toBe(2 * 86_400_000);
    expect(timeStep(109 * 86_400_000)).toBe(200 * 86_400_000);
  });

  it("labels time ticks as offsets from the log's first time, in the step's unit", () => {
    const origin = 1_700_000_000_123;
    const { step, ticks } = axisTicks({ start: origin, end: origin + 10_000 }, 1000, 80, "time", origin);
    expect(step).toBe(1000);
    expect(ticks.slice(0, 3)).toEqual([
      { at: origin, label: "+0 s" },
      { at: origin + 1000, label: "+1 s" },
      { at: origin + 2000, label: "+2 s" },
    ]);
    expect(ticks.length).toBe(11);
    for (let i = 1; i < ticks.length; i++) expect(toPx({ start: origin, end: origin + 10_000 }, 1000, ticks[i].at) - toPx({ start: origin, end: origin + 10_000 }, 1000, ticks[i - 1].at)).toBeGreaterThanOrEqual(80);
    expect(formatOffset(250, 50)).toBe("+250 ms");
    expect(formatOffset(1250, 50)).toBe("+1.25 s");
    expect(formatOffset(90_000, 10_000)).toBe("+1 min 30 s");
    expect(formatOffset(5_400_000, 600_000)).toBe("+1 h 30 min");
    expect(formatOffset(7_200_000, 3_600_000)).toBe("+2 h");
  });

  it("labels wire-order ticks with the place they fall on", () => {
    const inputs = [{ file: "dir/a.jsonl", offset: 0 }, { file: "b.jsonl", offset: 100 }];
    const { step, ticks } = axisTicks({ start: 1, end: 201 }, 200, 90, "wire", 1, inputs);
    expect(step).toBe(100);
    expect(ticks).toEqual([
      { at: 100, label: "a.jsonl:100" },
      { at: 200, label: "b.jsonl:100" },
    ]);
    expect(axisTicks({ start: 1, end: 21 }, 200, 50, "wire", 1, [inputs[0]]).ticks[0]).toEqual({ at: 5, label: "line 5" });
  });

  it("never steps below one record in wire order", () => {
    expect(axisTicks({ start: 10, end: 10.5 }, 1000, 80, "wire", 1).step).toBe(1);
  });
});

describe("the model", () => {
  it("numbers places in wire order across files, bad lines included", () => {
    const inputs = [
      { file: "a", format: "x", records: 10, bad_lines: 2, bytes: 0 },
      { file: "b", format: "x", records: 5, bad_lines: 0, bytes: 0 },
      { file: "c", format: "x", records: 1, bad_lines: 0, bytes: 0 },
    ];
    const offsets = fileOffsets(inputs);
    expect(ordinal(offsets, { file: "a", line: 3 })).toBe(3);
    expect(ordinal(offsets, { file: "b", line: 1 })).toBe(13);
    expect(ordinal(offsets, { file: "c", line: 1 })).toBe(18);
    const list = [...offsets].map(([file, offset]) => ({ file, offset }));
    expect(placeAt(list, 13)).toEqual({ file: "b", line: 1 });
    expect(placeAt(list, 12)).toEqual({ file: "a", line: 12 });
  });

  it("uses wire order when any span lacks a time, and time when all have one", () => {
    const sessions = [session("s", null, 0), { ...session("c", "s", 1), runs: [{ parent: "s", start: { file: "a.jsonl", line: 3 }, end: { file: "a.jsonl", line: 9 }, outcome: "ok" as const, link: "start-edge" as const }] }];
    const turn = { session: "s", turn: 1, start: { file: "a.jsonl", line: 2 }, end: { file: "a.jsonl", line: 10 }, reason: null, steps: 0, start_time: 1000, end_time: 5000 };
    const noRunTime = report({ sessions, turns: [turn] });
    expect(hasClock(noRunTime)).toBe(false);
    const m = buildModel(noRunTime);
    expect(m.axis).toBe("wire");
    expect([m.min, m.max]).toEqual([1, 101]);
    // A record occupies [ordinal, ordinal + 1): the turn covers lines 2 to 10.
    expect(spansOf(m.turns, 0)).toEqual([[2, 11]]);
    // The run is on the parent's lane (0), linked to the child's (1).
    expect(spansOf(m.runs, 0)).toEqual([[3, 10]]);
    expect(m.runItems[0]).toMatchObject({ session: "c", child: 1, index: 0, outcome: "ok" });
    // Indexed from both ends: the run's lane, and the child's runs.
    expect(Array.from(m.runLane)).toEqual([0]);
    expect(Array.from(m.childRuns.laneStart)).toEqual([0, 0, 1]);
    expect(Array.from(m.childRuns.index)).toEqual([0]);

    const timed = report({
      sessions: [sessions[0], { ...sessions[1], runs: [{ ...sessions[1].runs[0], start_time: 1500, end_time: 4000 }] }],
      turns: [turn],
      diagnostics: [
        { code: "x", severity: "error", at: { file: "a.jsonl", line: 5 }, session: "c", message: "m" },
        { code: "y", severity: "info", at: { file: "a.jsonl", line: 9 }, session: "c", message: "m", time: 4500 },
      ],
    });
    expect(hasClock(timed)).toBe(true);
    const t = buildModel(timed);
    expect(t.axis).toBe("time");
    expect([t.min, t.max]).toEqual([1000, 5000]);
    expect(spansOf(t.runs, 0)).toEqual([[1500, 4000]]);
    // A finding without a time sits at the latest timed place before it (line 3, the run's start).
    expect(Array.from(t.marks.at)).toEqual([1500, 4500]);
    expect(Array.from(t.markSeverity)).toEqual([3, 1]);
  });

  it("needs a time on every step span too, and none on a place that is not there", () => {
    const step = { step: 1, start: { file: "a.jsonl", line: 3 }, end: { file: "a.jsonl", line: 4 } };
    const turn = { session: "s", turn: 1, start: { file: "a.jsonl", line: 2 }, end: null, reason: null, steps: 1, start_time: 10 };
    const sessions = [session("s", null, 0)];
    expect(hasClock(report({ sessions, turns: [{ ...turn, step_spans: [step] }] }))).toBe(false);
    expect(hasClock(report({ sessions, turns: [{ ...turn, step_spans: [{ ...step, start_time: 11, end_time: 12 }] }] }))).toBe(true);
    // No spans at all: nothing to put on a clock.
    expect(hasClock(report({ sessions }))).toBe(false);
    // An open turn (no end) on a clock reaches the end of the domain.
    const m = buildModel(report({ sessions, turns: [{ ...turn, step_spans: [{ ...step, start_time: 11, end_time: 30 }] }] }));
    expect(m.axis).toBe("time");
    expect(spansOf(m.turns, 0)).toEqual([[10, 30]]);
  });

  it("stretches an open run to the end of the domain and puts unowned findings on their own lane", () => {
    const m = buildModel(
      report({
        sessions: [session("s", null, 0), { ...session("c", "s", 1), runs: [{ parent: "s", start: { file: "a.jsonl", line: 40 }, end: null, outcome: "open", link: "start-edge" }] }],
        diagnostics: [{ code: "malformed-line", severity: "warning", at: { file: "a.jsonl", line: 7 }, session: null, message: "m" }],
      }),
    );
    expect(m.lanes.map((l) => l.id)).toEqual([null, "s", "c"]);
    expect(spansOf(m.runs, 1)).toEqual([[40, 101]]);
    expect(Array.from(m.marks.at.subarray(m.marks.laneStart[0], m.marks.laneStart[1]))).toEqual([7.5]);
  });

  it("draws a reused child id's runs on each parent's lane, both linked to the child", () => {
    const m = buildModel(REPORTS[0]);
    const w = m.laneOf.get("worker-7")!;
    const runs = Array.from(m.childRuns.index.subarray(m.childRuns.laneStart[w], m.childRuns.laneStart[w + 1]));
    expect(runs.map((i) => m.lanes[m.runLane[i]].id)).toEqual(["lead", "planner"]);
    expect(runs.map((i) => m.runItems[m.runs.item[i]].outcome)).toEqual(["ok", "error"]);
  });

  it("reads every recorded report: each span inside the domain, steps inside their turn", () => {
    for (const r of REPORTS) {
      const m = buildModel(r);
      expect(m.lanes.length).toBeGreaterThanOrEqual(r.sessions.length);
      for (const t of [m.turns, m.steps, m.runs]) {
        for (let i = 0; i < t.start.length; i++) {
          expect(t.start[i]).toBeGreaterThanOrEqual(m.min);
          expect(t.end[i]).toBeLessThanOrEqual(m.max);
          expect(t.end[i]).toBeGreaterThanOrEqual(t.start[i]);
        }
      }
      for (let l = 0; l < m.lanes.length; l++) {
        for (let i = m.steps.laneStart[l]; i < m.steps.laneStart[l + 1]; i++) {
          const inTurn = spansOf(m.turns, l).some(([s, e]) => s <= m.steps.start[i] && m.steps.end[i] <= e);
          expect(inTurn).toBe(true);
        }
      }
      expect(m.marks.at.length).toBe(r.diagnostics.length);
    }
  });
});

describe("RedrawScheduler", () => {
  it("draws once per frame however often it is asked, and not at all when nothing changed", () => {
    const frames: Array<(t: number) => void> = [];
    let draws = 0;
    const s = new RedrawScheduler((cb) => frames.push(cb), () => draws++);
    s.request();
    s.request();
    s.request();
    expect(frames.length).toBe(1);
    frames.shift()!(16);
    expect(draws).toBe(1);
    expect(frames.length).toBe(0);
    s.request();
    s.stop();
    frames.shift()!(32);
    expect(draws).toBe(1);
  });
});
