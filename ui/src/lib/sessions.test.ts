import { describe, expect, it } from "vitest";
import { filterRows, sessionRows, sizeLabel } from "./sessions";

const found = [
  { path: "/h/.claude/projects/-p/s1.jsonl", harness: "claude-code" as const, name: "-p/s1.jsonl", modified: 2000, title: "Explain the build", size: 2048 },
  { path: "/h/.copilot/session-state/c1", harness: "copilot" as const, name: "c1", modified: 1000, title: null, size: null },
];

describe("session rows", () => {
  it("show titles, recent first, with a found log's title for its path", () => {
    const rows = sessionRows([{ paths: ["/h/.claude/projects/-p/s1.jsonl"], openedAt: 5 }], found);
    expect(rows.map((r) => [r.kind, r.title])).toEqual([
      ["recent", "Explain the build"],
      ["found", "Explain the build"],
      ["found", "c1"],
    ]);
    expect(rows[0].harness).toBe("claude-code");
  });
  it("filter on every word, in title, harness or path", () => {
    const rows = sessionRows([], found);
    expect(filterRows(rows, "build claude").map((r) => r.name)).toEqual(["-p/s1.jsonl"]);
    expect(filterRows(rows, "copilot").map((r) => r.name)).toEqual(["c1"]);
    expect(filterRows(rows, "")).toHaveLength(2);
  });
  it("say sizes", () => {
    expect(sizeLabel(2048)).toBe("2 KB");
    expect(sizeLabel(3 * 1024 * 1024)).toBe("3.0 MB");
  });
});
