import { describe, expect, it } from "vitest";
import { followAtOpen, grownView, updatedAgo } from "./follow";

const state = (recent: boolean) => ({ following: false, modified_ago: recent ? 5 : 9999, recent });

describe("follow", () => {
  it("starts on for a log written lately, unless the user said otherwise for that log", () => {
    expect(followAtOpen(undefined, state(true), false)).toBe(true);
    expect(followAtOpen(undefined, state(false), false)).toBe(false);
    expect(followAtOpen(false, state(true), false)).toBe(false);
    expect(followAtOpen(true, state(false), false)).toBe(true);
    expect(followAtOpen(undefined, null, false)).toBe(false);
  });

  it("never follows the sample by default", () => {
    expect(followAtOpen(undefined, state(true), true)).toBe(false);
  });

  it("says how long ago the log changed", () => {
    expect(updatedAgo(10_000, null)).toBe("waiting for changes");
    expect(updatedAgo(10_000, 8_000)).toBe("updated just now");
    expect(updatedAgo(37_900, 10_000)).toBe("updated 20 s ago");
    expect(updatedAgo(69_000, 10_000)).toBe("updated 50 s ago");
    expect(updatedAgo(200_000, 20_000)).toBe("updated 3 min ago");
  });

  it("moves a timeline window's right edge with the log when it reached the end, and no other", () => {
    const before = { min: 0, max: 100 };
    const after = { min: 0, max: 150 };
    expect(grownView({ start: 0, end: 100 }, before, after)).toEqual({ start: 0, end: 150 });
    expect(grownView({ start: 60, end: 100 }, before, after)).toEqual({ start: 60, end: 150 });
    expect(grownView({ start: 20, end: 40 }, before, after)).toEqual({ start: 20, end: 40 });
  });
});
