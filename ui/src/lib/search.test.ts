import { describe, expect, it } from "vitest";
import { matchParts } from "./search";

describe("matchParts", () => {
  it("starts shortly before the match and splits it out, ignoring case", () => {
    const text = "…" + "x".repeat(80) + "Fact-Checker" + " rest";
    expect(matchParts(text, "fact-checker", 4)).toEqual({ before: "…xxxx", match: "Fact-Checker", after: " rest" });
  });
  it("keeps a short lead as it is", () => {
    expect(matchParts("ab kid cd", "kid")).toEqual({ before: "ab ", match: "kid", after: " cd" });
  });
  it("shows the whole text when the query is not in it", () => {
    expect(matchParts("abc", "zz")).toEqual({ before: "abc", match: "", after: "" });
  });
});
