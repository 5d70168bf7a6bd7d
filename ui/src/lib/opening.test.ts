import { describe, expect, it } from "vitest";
import { dropMode, mergePaths } from "./opening";

describe("mergePaths", () => {
  it("adds new paths after the open ones, each once", () => {
    expect(mergePaths(["a", "b"], ["b", "c", "c"])).toEqual(["a", "b", "c"]);
    expect(mergePaths([], ["x"])).toEqual(["x"]);
  });
});

describe("dropMode", () => {
  it("adds on the right half, replaces on the left", () => {
    expect(dropMode(100, 1000, true)).toBe("replace");
    expect(dropMode(499, 1000, true)).toBe("replace");
    expect(dropMode(500, 1000, true)).toBe("add");
    expect(dropMode(990, 1000, true)).toBe("add");
  });
  it("always replaces when there is nothing to add to", () => {
    expect(dropMode(990, 1000, false)).toBe("replace");
    expect(dropMode(10, 0, true)).toBe("replace");
  });
});
