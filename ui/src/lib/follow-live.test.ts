import { describe, expect, it } from "vitest";
import type { Followed } from "./generated/app";
import { Live } from "./follow.svelte";

const change = (n: number, grown: string[] = []): Followed => ({
  grown,
  appeared: [],
  bytes: 1,
  read_to: n * 100,
  reread: null,
  errors: [],
  summary: { revision: n, inputs: [], sessions: n, findings: { error: 0, warning: 0, info: 0 }, waits: 0, replies: 0, clocked: false },
});

describe("Live", () => {
  it("shows one change at a time: what comes while the page draws waits, merged, until it has drawn", () => {
    const live = new Live();
    const shown: number[] = [];
    const seen: number[] = [];
    live.subscribe((c) => seen.push(c.revision));
    const show = (f: Followed) => shown.push(f.summary.revision);
    live.receive(1, change(1, ["a"]), show, 0);
    live.receive(2, change(2, ["b"]), show, 10);
    live.receive(3, change(3, ["c"]), show, 20);
    expect(shown).toEqual([1]);
    live.markDrawn(1, 30);
    expect(shown).toEqual([1, 3]);
    expect(seen).toEqual([1, 3]);
    expect(live.last?.grown).toEqual(["b", "c"]);
    expect(live.last?.bytes).toBe(2);
    expect(live.drawn).toEqual([{ revision: 1, readTo: 100, at: 30, shown: 0 }]);
    expect(live.received.map((r) => r.at)).toEqual([0, 10, 20]);
    live.markDrawn(3, 40);
    live.receive(4, change(4), show, 50);
    expect(shown).toEqual([1, 3, 4]);
  });

  it("does not wait for a drawing that takes too long", () => {
    const live = new Live();
    const shown: number[] = [];
    const show = (f: Followed) => shown.push(f.summary.revision);
    live.receive(1, change(1), show, 0);
    live.receive(2, change(2), show, 5_000);
    expect(shown).toEqual([1, 2]);
  });
});
