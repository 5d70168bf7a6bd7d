import { describe, expect, it } from "vitest";
import {
  RedrawScheduler,
  axisTicks,
  boundsOf,
  centreOn,
  clampView,
  covers,
  fitView,
  formatOffset,
  fromWindow,
  niceStep,
  panBy,
  placeAt,
  revealLane,
  timeStep,
  toDomain,
  toPx,
  visibleLanes,
  wantedWindow,
  zoomAt,
  type Bounds,
} from "./timeline";

const B: Bounds = { min: 0, max: 1000, minSpan: 1 };

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

describe("windows", () => {
  it("asks for a screen of lanes and of the axis either side, at the view's resolution", () => {
    const q = wantedWindow({ start: 100, end: 200 }, 500, 10, 20, 25, "wire");
    expect(q).toEqual({ axis: "wire", first: 0, last: 25, start: 0, end: 300, width: 1500 });
    // At the same resolution: the window starts a screen (500 px) left of the view.
    expect(fromWindow(q, 600, { start: 100, end: 200 }, 500)).toBeCloseTo(100, 9);
    expect(covers(q, { start: 100, end: 200 }, 500, 10, 20)).toBe(true);
  });

  it("asks again past the window, or when the resolution moved too far", () => {
    const q = wantedWindow({ start: 100, end: 200 }, 500, 10, 20, 1000, "time");
    expect(covers(q, { start: 150, end: 250 }, 500, 10, 20)).toBe(true);
    expect(covers(q, { start: 250, end: 350 }, 500, 10, 20)).toBe(false);
    expect(covers(q, { start: 100, end: 200 }, 500, 25, 35)).toBe(false);
    expect(covers(q, { start: 120, end: 180 }, 500, 10, 20)).toBe(false);
    expect(covers(q, { start: 110, end: 190 }, 500, 10, 20)).toBe(true);
  });

  it("finds the place a wire position falls on", () => {
    const list = [{ file: "a", offset: 0 }, { file: "b", offset: 12 }, { file: "c", offset: 17 }];
    expect(placeAt(list, 13)).toEqual({ file: "b", line: 1 });
    expect(placeAt(list, 12)).toEqual({ file: "a", line: 12 });
    expect(placeAt([], 3)).toBeNull();
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
