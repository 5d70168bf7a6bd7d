import { describe, expect, it } from "vitest";
import { codeSummary, FOLDED_AT_FIRST } from "./findings";

describe("folded findings", () => {
  it("folds the files in no known format when a log opens", () => {
    expect(FOLDED_AT_FIRST).toContain("unknown-format");
  });

  it("says how many files a folded unknown-format row stands for", () => {
    expect(codeSummary("unknown-format", 27)).toBe("27 files skipped: in no known format");
    expect(codeSummary("unknown-format", 1)).toBe("1 file skipped: in no known format");
    expect(codeSummary("malformed-line", 3)).toBeNull();
  });
});
