import { describe, expect, it } from "vitest";
import { applyEvent, emptyPartial, partialSessions, percent, type LoadEvent, type Progress } from "./loading";

const progress = (bytes_read: number, bytes_total = 200): Progress => ({
  files_done: 0,
  files_total: 1,
  bytes_read,
  bytes_total,
  records: 0,
  sessions: 0,
  findings: 0,
});

describe("applyEvent", () => {
  it("adds streamed sessions in order, moves a child on a new edge, appends findings", () => {
    const events: LoadEvent[] = [
      { type: "progress", ...progress(10) },
      {
        type: "delta",
        progress: progress(50),
        sessions: [
          { id: "root", parent: null, label: null },
          { id: "w", parent: "root", label: "worker" },
        ],
        edges: [],
        findings: [],
      },
      {
        type: "delta",
        progress: progress(200),
        sessions: [{ id: "planner", parent: "root", label: null }],
        edges: [{ child: "w", parent: "planner" }],
        findings: [{ code: "child-id-reused", severity: "info", at: { file: "f", line: 9 }, session: "w", message: "m" }],
      },
    ];
    const start = emptyPartial();
    const end = events.reduce(applyEvent, start);
    expect(start.sessions.size).toBe(0); // the fold does not mutate
    expect(partialSessions(end).map((s) => [s.id, s.parent, s.label])).toEqual([
      ["root", null, null],
      ["w", "planner", "worker"],
      ["planner", "root", null],
    ]);
    expect(end.findings.map((f) => f.code)).toEqual(["child-id-reused"]);
    expect(percent(end.progress)).toBe(100);
  });

  it("keeps the latest progress", () => {
    const p = applyEvent(emptyPartial(), { type: "progress", ...progress(30) });
    expect(percent(p.progress)).toBe(15);
    expect(percent(null)).toBeNull();
    expect(percent(progress(0, 0))).toBeNull();
  });
});
