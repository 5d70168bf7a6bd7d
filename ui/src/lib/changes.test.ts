import { describe, expect, it } from "vitest";
import { appliedLabel, diffLines, filesOf } from "./changes";
import type { Edit } from "./generated/engine";

const edit = (path: string, added: number, removed: number, applied: boolean | null): Edit => ({
  session: "s",
  path,
  at: { file: "f.jsonl", line: 3 },
  row: 0,
  tool: "Edit",
  kind: "edit",
  applied,
  added,
  removed,
  diff: "",
});

describe("changes", () => {
  it("tells each line of a diff by what it is", () => {
    const d = diffLines("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n ctx\n\\ No newline at end of file\n");
    expect(d.map((l) => l.kind)).toEqual(["head", "head", "hunk", "del", "add", "ctx", "note"]);
    expect(d[3].text).toBe("-old");
    // An HTML-looking line is a line of text like any other.
    expect(diffLines("+<img src=x onerror=alert(1)>")).toEqual([{ kind: "add", text: "+<img src=x onerror=alert(1)>" }]);
  });

  it("sums each file's edits in the order first changed", () => {
    const files = filesOf([edit("b.rs", 2, 1, true), edit("a.rs", 5, 0, false), edit("b.rs", 1, 1, null)]);
    expect(files).toEqual([
      { path: "b.rs", edits: 2, added: 3, removed: 2 },
      { path: "a.rs", edits: 1, added: 5, removed: 0 },
    ]);
    expect([true, false, null].map((a) => appliedLabel(edit("x", 0, 0, a)))).toEqual(["applied", "failed", "no result"]);
  });
});
