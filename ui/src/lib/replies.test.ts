import { describe, expect, it } from "vitest";
import type { Reply, Wait } from "./report";
import { REPORTS } from "./fixtures/reports";
import { compareWait, dropsNotifications, findingsAt, firstReplies, naiveReplyPlace, repliesBySession } from "./replies";

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

describe("naiveReplyPlace", () => {
  const d = (code: string, line: number, file = "f") => ({ code, severity: "warning" as const, at: { file, line }, session: null, message: "m" });
  it("is the child-reply finding between the wait's start and the naive end", () => {
    const w = wait({ start: { file: "f", line: 2 }, naive: { end: { file: "f", line: 6 }, outcome: "inferred", reply: "child" } });
    const diags = [d("child-reply-would-replace-root-reply", 1), d("child-idle-would-resolve-wait", 5), d("child-reply-would-replace-root-reply", 6), d("child-reply-would-replace-root-reply", 9)];
    expect(naiveReplyPlace(w, diags)).toEqual({ file: "f", line: 6 });
    expect(naiveReplyPlace(w, [d("child-reply-would-replace-root-reply", 6, "g")])).toBeNull();
    expect(findingsAt({ file: "f", line: 5 }, diags).map((x) => x.code)).toEqual(["child-idle-would-resolve-wait"]);
  });
  it("finds the saved events.jsonl's child reply in the recorded report", () => {
    const r = REPORTS[1];
    expect(naiveReplyPlace(r.waits[0], r.diagnostics)).toEqual({ file: "events.jsonl", line: 15 });
  });
  it("knows which dsh-rpc root turns drop notifications", () => {
    expect(dropsNotifications(wait({ notifications: 5, naive: { notifications: 2 } }))).toBe(true);
    expect(dropsNotifications(wait({ notifications: 5, naive: { notifications: 5 } }))).toBe(false);
    expect(dropsNotifications(wait({ naive: { end: null } }))).toBe(false);
  });
});

describe("firstReplies", () => {
  const group = (session: string, n: number) => ({
    session,
    replies: Array.from({ length: n }, (_, i) => ({ session, root: false, turn: i, text: `${session} ${i}`, at: { file: "f", line: i + 1 } })),
  });
  it("keeps whole groups up to the limit and cuts the one it falls in", () => {
    const got = firstReplies([group("a", 3), group("b", 4), group("c", 2)], 5);
    expect(got.map((g) => [g.session, g.replies.map((r) => r.text)])).toEqual([
      ["a", ["a 0", "a 1", "a 2"]],
      ["b", ["b 0", "b 1"]],
    ]);
  });
  it("gives every group when the limit is not reached, and none for a limit of 0", () => {
    const groups = [group("a", 3), group("b", 4)];
    expect(firstReplies(groups, 100)).toEqual(groups);
    expect(firstReplies(groups, 7)).toEqual(groups);
    expect(firstReplies(groups, 0)).toEqual([]);
  });
});
