import { describe, expect, it } from "vitest";
import { neighbours, prettyLine } from "./inspector";
import type { RecordView } from "./ipc";

describe("prettyLine", () => {
  it("re-indents a JSON line", () => {
    expect(prettyLine('{"a":1,"b":[2]}')).toBe('{\n  "a": 1,\n  "b": [\n    2\n  ]\n}');
  });
  it("returns a line that is not JSON unchanged, markup included", () => {
    expect(prettyLine('{"a":1')).toBe('{"a":1');
    expect(prettyLine("<img src=x onerror=alert(1)>")).toBe("<img src=x onerror=alert(1)>");
  });
});

describe("neighbours", () => {
  const r = (line: number, file = "a.jsonl"): RecordView => ({ index: line, file, line, session: "s", kind: "k", time: null });
  it("splits the records around a place into before and after", () => {
    const { before, after } = neighbours([r(1), r(2), r(3), r(5)], { file: "a.jsonl", line: 3 });
    expect(before.map((x) => x.line)).toEqual([1, 2]);
    expect(after.map((x) => x.line)).toEqual([5]);
  });
  it("has none when the place is not among them", () => {
    expect(neighbours([r(1), r(2)], { file: "b.jsonl", line: 1 })).toEqual({ before: [], after: [] });
  });
});
