import { describe, expect, it } from "vitest";
import { clockTime, formatCost, formatDuration, formatTokens, Heights, markdown, modelLines, prettyJson, turnStart, unpricedTitle, usageTitle } from "./transcript";

describe("Heights", () => {
  it("grows for a followed session: measured rows keep their heights, new rows come estimated", () => {
    const h = new Heights(3, 10);
    h.set(1, 40);
    const g = h.grown(5, 10);
    expect([g.count, g.height(0), g.height(1), g.height(2), g.height(4)]).toEqual([5, 10, 40, 10, 10]);
    // What the user reads stays where it was: row 2 starts where it did.
    expect(g.offset(2)).toBe(h.offset(2));
    expect(g.total).toBe(h.total + 20);
  });

  it("gives offsets and the row at an offset as rows are measured", () => {
    const h = new Heights(5, 10);
    expect(h.total).toBe(50);
    expect(h.offset(3)).toBe(30);
    expect(h.set(1, 25)).toBe(15);
    expect(h.offset(2)).toBe(35);
    expect(h.total).toBe(65);
    expect(h.indexAt(0)).toBe(0);
    expect(h.indexAt(9.9)).toBe(0);
    expect(h.indexAt(10)).toBe(1);
    expect(h.indexAt(34.9)).toBe(1);
    expect(h.indexAt(35)).toBe(2);
    expect(h.indexAt(1000)).toBe(4);
    expect(new Heights(0, 10).indexAt(5)).toBe(0);
  });

  it("matches a plain sum on a large list", () => {
    const n = 100_000;
    const h = new Heights(n, 64);
    const plain = new Array(n).fill(64);
    for (let k = 0; k < 500; k++) {
      const i = (k * 7919) % n;
      const v = 20 + ((k * 31) % 300);
      h.set(i, v);
      plain[i] = v;
    }
    let sum = 0;
    for (let i = 0; i < n; i += 997) {
      const want = plain.slice(0, i).reduce((a, b) => a + b, 0);
      expect(h.offset(i)).toBe(want);
      expect(h.indexAt(want)).toBe(i);
      sum = want;
    }
    expect(sum).toBeGreaterThan(0);
  });
});

describe("markdown", () => {
  it("shows raw HTML as text and drops script links and images", () => {
    const html = markdown('<script>alert(1)</script> <img src=x onerror="alert(2)"> [x](javascript:alert(3)) ![i](http://example.com/a.png)');
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;");
    expect(html).not.toContain('href="javascript:');
  });

  it("renders code blocks, and a link as its text with its URL as a title, never followable", () => {
    const html = markdown("see [the site](https://example.com)\n\n```\nlet x = 1;\n```");
    expect(html).toContain('<span class="md-link" title="https://example.com">the site</span>');
    expect(html).not.toContain("<a ");
    expect(html).toContain("<pre><code>let x = 1;");
  });
});

describe("formatting", () => {
  it("writes token counts short", () => {
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(1234)).toBe("1.23k");
    expect(formatTokens(12_345)).toBe("12.3k");
    expect(formatTokens(12_000)).toBe("12k");
    expect(formatTokens(4_560_000)).toBe("4.56M");
  });

  it("gives the priced part and names what is unpriced, never a cost hidden or $0", () => {
    const u = { input: 1, output: 2, cache_read: 0, cache_write: 0 };
    // No price for anything: every token is unpriced (the engine names the models).
    expect(formatCost(u)).toBe("3 tokens unpriced");
    expect(formatCost({ ...u, unpriced: { tokens: 3, models: ["mystery"] } })).toBe("3 tokens unpriced");
    expect(formatCost({ ...u, cost: 0 })).toBe("$0.00");
    expect(formatCost({ ...u, cost: 1.234 })).toBe("$1.23");
    expect(formatCost({ ...u, cost: 0.004 })).toBe("<$0.01");
    // One unpriced model beside priced ones: "$6.27 + 1.2M tokens unpriced", the model in the tooltip.
    const mixed = { input: 1_000_000, output: 400_000, cache_read: 0, cache_write: 0, cost: 6.27, unpriced: { tokens: 1_200_000, models: ["a-model", "mystery"] } };
    expect(formatCost(mixed)).toBe("$6.27 + 1.2M tokens unpriced");
    expect(unpricedTitle(mixed)).toContain("1.2M tokens of a-model, mystery");
    expect(usageTitle(mixed)).toContain("$6.27 + 1.2M tokens unpriced");
    expect(unpricedTitle({ ...u, cost: 1 })).toBe("");
    expect(formatCost({ ...u, cost: 2, unpriced: { tokens: 0, models: [] } })).toBe("$2.00");
    const lines = modelLines({
      models: [
        { model: "a", usage: { ...u, unpriced: { tokens: 3, models: ["a"] } } },
        { model: "b", usage: { ...u, output: 100, cost: 2 } },
      ],
      total: mixed,
      prices: { source: "s", date: "d" },
    });
    expect(lines.map((l) => [l.model, l.cost, l.unpriced])).toEqual([
      ["b", "$2.00", false],
      ["a", "unpriced", true],
    ]);
    expect(lines.some((l) => l.cost.includes("unknown"))).toBe(false);
  });

  it("pretty-prints JSON and leaves other text", () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson('{"a":')).toBe('{"a":');
  });
});

describe("time on rows", () => {
  it("writes durations short", () => {
    expect(formatDuration(850)).toBe("850ms");
    expect(formatDuration(1500)).toBe("1.5s");
    expect(formatDuration(3000)).toBe("3s");
    expect(formatDuration(42_400)).toBe("42s");
    expect(formatDuration(123_000)).toBe("2m 03s");
    expect(formatDuration(3_720_000)).toBe("1h 02m");
    expect(formatDuration(-1)).toBe("");
    expect(clockTime(new Date(2026, 0, 2, 3, 4, 5).getTime())).toBe("03:04:05");
  });

  it("finds when a row's turn began among the rows held", () => {
    const row = (i: number, turn: number | null, time: number | null) => ({ row: i, record: i, at: { file: "f", line: i + 1 }, kind: "e", time, turn, step: null, parts: [] });
    const rows = [row(0, 1, 100), row(1, 1, 200), row(2, 2, 1000), row(3, 2, null), row(4, 2, 1600)];
    const get = (i: number) => rows[i];
    expect(turnStart(1, get)).toBe(100);
    expect(turnStart(4, get)).toBe(1000);
    expect(turnStart(3, get)).toBe(1000);
    // Not held: unknown, never a wrong start.
    expect(turnStart(4, (i) => (i === 2 ? undefined : rows[i]))).toBeNull();
    expect(turnStart(0, () => undefined)).toBeNull();
  });
});
