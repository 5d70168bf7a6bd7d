import { describe, expect, it } from "vitest";
import type { Diagnostic, Session } from "./report";
import { ancestors, buildRows, sessionPlaces, visibleRows } from "./tree";

function session(id: string, parent: string | null, runs: Array<"ok" | "error" | "open"> = []): Session {
  return {
    id,
    parent,
    root: null,
    depth: null,
    label: `label ${id}`,
    events: 1,
    runs: runs.map((outcome) => ({ parent, start: null, end: null, outcome, link: "start-edge" as const })),
  };
}

function finding(session: string | null, severity: Diagnostic["severity"]): Diagnostic {
  return { code: "x", severity, at: { file: "f", line: 1 }, session, message: "m" };
}

/** The tree as indented text, one row a line: easy to read in a failing test. */
function outline(rows: ReturnType<typeof buildRows>): string {
  return rows.map((r) => `${"  ".repeat(r.depth)}${r.id}`).join("\n");
}

describe("buildRows", () => {
  it("puts each root before its subtree, depth first, children in report order", () => {
    const rows = buildRows(
      [session("c2", "s1"), session("s1", null), session("g1", "c1"), session("c1", "s1"), session("s2", null)],
      [],
    );
    expect(outline(rows)).toBe(["s1", "  c2", "  c1", "    g1", "s2"].join("\n"));
    expect(rows.map((r) => r.subtreeEnd)).toEqual([4, 2, 4, 4, 5]);
    expect(rows.map((r) => r.hasChildren)).toEqual([true, false, true, false, false]);
  });

  it("shows a session whose parent is missing as a root, and breaks a parent cycle once", () => {
    const rows = buildRows([session("a", "b"), session("b", "a"), session("orphan", "gone")], []);
    expect(rows.map((r) => r.id).sort()).toEqual(["a", "b", "orphan"]);
    expect(rows.find((r) => r.id === "orphan")!.depth).toBe(0);
    expect(new Set(rows.map((r) => r.id)).size).toBe(3);
  });

  it("counts runs, takes the latest outcome, and counts findings per session by severity", () => {
    const rows = buildRows(
      [session("s1", null), session("c1", "s1", ["error", "ok"])],
      [finding("c1", "error"), finding("c1", "info"), finding("c1", "info"), finding(null, "warning")],
    );
    const c1 = rows[1];
    expect(c1.runs).toBe(2);
    expect(c1.outcome).toBe("ok");
    expect(c1.anyError).toBe(true);
    expect(c1.findings).toEqual({ error: 1, warning: 0, info: 2 });
    expect(rows[0].outcome).toBeNull();
  });
});

describe("visibleRows", () => {
  const rows = buildRows(
    [session("s1", null), session("c1", "s1"), session("g1", "c1"), session("c2", "s1"), session("s2", null)],
    [],
  );
  it("hides exactly the subtree of a collapsed node", () => {
    expect(visibleRows(rows, new Set(["c1"])).map((r) => r.id)).toEqual(["s1", "c1", "c2", "s2"]);
    expect(visibleRows(rows, new Set(["s1"])).map((r) => r.id)).toEqual(["s1", "s2"]);
    expect(visibleRows(rows, new Set()).length).toBe(5);
  });
  it("lists the ancestors to expand for a selection, root first", () => {
    expect(ancestors(rows, "g1")).toEqual(["s1", "c1"]);
    expect(ancestors(rows, "s2")).toEqual([]);
  });
});

describe("shortPlaceLabel", () => {
  it("keeps the last path component and the line", async () => {
    const { shortPlaceLabel } = await import("./report");
    expect(shortPlaceLabel({ file: "/a/b/run.jsonl", line: 4 })).toBe("run.jsonl:4");
    expect(shortPlaceLabel({ file: "C:\\logs\\x.jsonl", line: 1 })).toBe("x.jsonl:1");
    expect(shortPlaceLabel(null)).toBe("—");
  });
});

describe("sessionPlaces", () => {
  it("points at the first run's start, else the first turn's start, else nothing", () => {
    const withRun = session("c1", "s1", ["ok"]);
    withRun.runs[0].start = { file: "f", line: 9 };
    const turn = (sessionId: string, line: number) => ({ session: sessionId, turn: 1, start: { file: "f", line }, end: null, reason: null, steps: 0 });
    const places = sessionPlaces([session("s1", null), withRun, session("lonely", null)], [turn("s1", 3), turn("s1", 20), turn("c1", 11)]);
    expect(places.get("s1")).toEqual({ file: "f", line: 3 });
    expect(places.get("c1")).toEqual({ file: "f", line: 9 });
    expect(places.get("lonely")).toBeNull();
  });
});
