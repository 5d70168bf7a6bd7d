import { describe, expect, it } from "vitest";
import { amountLabel, countLabel, firstRow, pairMark, percentLabel, sideBySide, toolCallsDelta, toolChanges, tokensDelta, trend, verdict } from "./compare";
import type { ComparedPair, ComparisonHead, PairDelta, Row } from "./generated/engine";

const c = (a: number | null, b: number | null) => ({ a, b, change: (b ?? 0) - (a ?? 0) });
const delta = (o: Partial<PairDelta> = {}): PairDelta => ({
  duration: { a: 33, b: 572, change: 539, ratio: 539 / 33 },
  turns: c(1, 2),
  steps: c(7, 7),
  tool_calls: { Bash: c(2, 0), Task: c(0, 5), Glob: c(6, 5) },
  tokens: { input: c(93, 373), output: c(953, 2636), cache_read: c(0, 0), cache_write: c(10, 4) },
  cost: { a: 0.0932, b: 0.1141, change: 0.0209, ratio: 0.2242 },
  outcome: { a: null, b: null },
  findings: {},
  differs: ["duration", "turns", "tool-calls", "tokens", "cost"],
  ...o,
});
const pair = (a: string | null, b: string | null, o: Partial<ComparedPair> = {}): ComparedPair => ({ a, b, parent: null, depth: 0, label: null, delta: delta(), divergence: null, ...o });

describe("the Compare view's words", () => {
  it("marks a pair by what it is", () => {
    expect(pairMark(pair("x", "y"))).toBe("~");
    expect(pairMark(pair("x", "y", { delta: delta({ differs: [] }) }))).toBe("=");
    expect(pairMark(pair("x", null))).toBe("-");
    expect(pairMark(pair(null, "y"))).toBe("+");
  });

  it("says a count, an amount and a percentage as a person reads them", () => {
    expect(countLabel(c(3, 3))).toBe("3");
    expect(countLabel(c(3, 5))).toBe("3 → 5 (+2)");
    expect(countLabel(c(5, null))).toBe("5 → – (−5)");
    expect(amountLabel({ a: 33, b: 572, change: 539, ratio: 16.33 }, "seconds")).toBe("33s → 9m32s (+1633 %)");
    expect(amountLabel({ a: 0.0932, b: 0.0932, change: 0, ratio: 0 }, "dollars")).toBe("$0.0932");
    expect(amountLabel({ a: 1, b: 0.6, change: -0.4, ratio: -0.4 }, "dollars")).toBe("$1.00 → $0.60 (−40 %)");
    expect(percentLabel(null)).toBe("");
    expect([trend(2), trend(-1), trend(0), trend(null)]).toEqual(["up", "down", "same", "same"]);
  });

  it("sums tokens and tool calls over their kinds, and names the tools that changed most first", () => {
    expect(tokensDelta(delta())).toEqual({ a: 1056, b: 3013, change: 1957 });
    expect(toolCallsDelta(delta())).toEqual({ a: 8, b: 10, change: 2 });
    expect(toolChanges(delta())).toBe("Task +5, Bash −2, Glob −1");
  });

  it("gives the verdict, and starts each side a few rows before it diverges", () => {
    const div = { pair: 0, what: "arguments", same_before: 4, a: { session: "x", row: 10, at: { file: "a", line: 1 }, kind: "tool-call" as const, tool: "Bash", text: "", cut: false }, b: null, row_a: 10, row_b: 2 };
    const p = pair("x", "y", { divergence: div });
    expect([firstRow(p, "a"), firstRow(p, "b"), firstRow(pair("x", "y"), "a")]).toEqual([7, 0, 0]);
    expect(firstRow(pair("x", "y", { divergence: { ...div, row_b: 9 } }), "b")).toBe(6);
    const cmp = { same: false, pairs: 1, differs: ["cost", "duration", "turns", "tool-calls", "tokens"] } as unknown as ComparisonHead;
    expect(verdict(cmp)).toBe("They differ: cost, duration, turns, tool-calls, tokens");
    expect(verdict({ ...cmp, same: true })).toBe("The same by every measure");
  });

  it("puts the two sides' rows on one line each", () => {
    const r = (row: number) => ({ row }) as unknown as Row;
    expect(sideBySide([r(1), r(2)], [r(5)]).map(([a, b]) => [a?.row ?? null, b?.row ?? null])).toEqual([[1, 5], [2, null]]);
  });
});
