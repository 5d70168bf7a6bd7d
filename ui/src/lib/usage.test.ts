import { describe, expect, it } from "vitest";
import type { UsageRow } from "./generated/view";
import { clickColumn, parseUsageSort, TREE_SORT, usageCell, usageSortText } from "./usage";

describe("the usage table's sort", () => {
  it("sorts a new column most first, then least first, then goes back to the tree's order", () => {
    const once = clickColumn(TREE_SORT, "cost");
    expect(once).toEqual({ column: "cost", scope: "own", descending: true });
    const twice = clickColumn(once, "cost");
    expect(twice).toEqual({ column: "cost", scope: "own", descending: false });
    expect(clickColumn(twice, "cost")).toEqual(TREE_SORT);
    expect(clickColumn(twice, "duration")).toEqual({ column: "duration", scope: "own", descending: true });
    expect(clickColumn({ column: "tokens", scope: "subtree", descending: true }, "tree")).toEqual({ ...TREE_SORT, scope: "subtree" });
  });

  it("is kept as text and read back; an unknown one is the tree's order", () => {
    const sort = { column: "cache-read", scope: "subtree", descending: true } as const;
    expect(usageSortText(sort)).toBe("cache-read subtree desc");
    expect(parseUsageSort(usageSortText(sort))).toEqual(sort);
    expect(parseUsageSort("duration own asc")).toEqual({ column: "duration", scope: "own", descending: false });
    expect(parseUsageSort("price own desc")).toEqual(TREE_SORT);
    expect(parseUsageSort(undefined)).toEqual(TREE_SORT);
  });
});

describe("the usage table's cells", () => {
  const row: UsageRow = {
    index: 0, id: "s", label: null, depth: 0, turns: 2, subtree_turns: 5,
    usage: { input: 1200, output: 300, cache_read: 4000, cache_write: 0, cost: 0.5 },
    subtree_usage: { input: 2400, output: 600, cache_read: 8000, cache_write: 10, cost: 1.25 },
    duration: 61_000, subtree_duration: 3_600_000, place: null,
  };
  it("says the session's own or its subtree's counts", () => {
    expect(usageCell(row, "turns", "own")).toBe("2");
    expect(usageCell(row, "turns", "subtree")).toBe("5");
    expect(usageCell(row, "tokens", "own")).toBe("5.5k");
    expect(usageCell(row, "cost", "subtree")).toBe("$1.25");
    expect(usageCell(row, "duration", "own")).toBe("1m 01s");
    expect(usageCell(row, "duration", "subtree")).toBe("1h 00m");
  });
  it("leaves empty what the log does not count", () => {
    const bare: UsageRow = { index: 1, id: "c", label: "x", depth: 1, turns: 0, subtree_turns: 0, place: null };
    expect(usageCell(bare, "cost", "own")).toBe("");
    expect(usageCell(bare, "duration", "subtree")).toBe("");
  });
});
