import { describe, expect, it } from "vitest";
import type { Reply, Wait } from "./report";
import { compareWait, repliesBySession } from "./replies";

const wait = (over: Partial<Wait>): Wait => ({
  root: "s1",
  start: { file: "f", line: 1 },
  end: { file: "f", line: 9 },
  outcome: "idle",
  reply: "final",
  naive: {},
  ...over,
});

describe("compareWait", () => {
  it("finds no difference when the naive reading agrees", () => {
    const c = compareWait(wait({ naive: { end: { file: "f", line: 9 }, outcome: "idle", reply: "final" } }));
    expect(c.differs).toBe(false);
  });
  it("names each field the naive reading gets wrong (copilot)", () => {
    const c = compareWait(wait({ naive: { end: { file: "f", line: 4 }, outcome: "idle", reply: "child text" } }));
    expect(c.differences).toEqual(["reply", "end"]);
  });
  it("compares notification counts (dsh-rpc)", () => {
    expect(compareWait(wait({ notifications: 5, naive: { notifications: 2 } })).differences).toEqual(["notifications"]);
    expect(compareWait(wait({ notifications: 5, naive: { notifications: 5 } })).differs).toBe(false);
  });
  it("treats an open wait (end null) as different from a naive end", () => {
    expect(compareWait(wait({ end: null, outcome: "open", naive: { end: { file: "f", line: 3 } } })).differences).toEqual(["end"]);
  });
});

describe("repliesBySession", () => {
  it("groups by session in tree order", () => {
    const r = (session: string, turn: number): Reply => ({ session, root: session === "s1", turn, text: "t", at: { file: "f", line: turn } });
    const groups = repliesBySession([r("c1", 1), r("s1", 1), r("c1", 2)], ["s1", "c1"]);
    expect(groups.map((g) => [g.session, g.replies.length])).toEqual([["s1", 1], ["c1", 2]]);
  });
});
