import { describe, expect, it } from "vitest";
import { prettyLine } from "./inspector";

describe("prettyLine", () => {
  it("re-indents a JSON line", () => {
    expect(prettyLine('{"a":1,"b":[2]}')).toBe('{\n  "a": 1,\n  "b": [\n    2\n  ]\n}');
  });
  it("returns a line that is not JSON unchanged, markup included", () => {
    expect(prettyLine('{"a":1')).toBe('{"a":1');
    expect(prettyLine("<img src=x onerror=alert(1)>")).toBe("<img src=x onerror=alert(1)>");
  });
});
