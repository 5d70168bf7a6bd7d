import { describe, expect, it } from "vitest";
import { fold, patchFiles, toolDiff, toolHead } from "./tools";

const PATCH = "*** Begin Patch\n*** Update File: src/x.rs\n@@ fn main\n-let a = 1;\n+let a = 2;\n keep\n*** End Patch";

describe("tool calls read at a glance", () => {
  it("names a call's main argument", () => {
    expect(toolHead("Bash", JSON.stringify({ command: "bd show spotter-4te", description: "Show issue" }))).toBe("Bash: bd show spotter-4te");
    expect(toolHead("Edit", JSON.stringify({ file_path: "src/x.rs", old_string: "a", new_string: "b" }))).toBe("Edit: src/x.rs");
    expect(toolHead("Read", JSON.stringify({ file_path: "/a/b.ts", limit: 20 }))).toBe("Read: /a/b.ts");
    expect(toolHead("Grep", JSON.stringify({ pattern: "fn main", path: "src" }))).toBe("Grep: fn main");
    expect(toolHead("shell", JSON.stringify({ command: ["bash", "-lc", "cargo test -q"] }))).toBe("shell: cargo test -q");
    expect(toolHead("shell", JSON.stringify({ command: ["ls", "-la"] }))).toBe("shell: ls -la");
    expect(toolHead("TodoWrite", JSON.stringify({ todos: [{}, {}] }))).toBe("TodoWrite: 2 todos");
    expect(toolHead("read_file", JSON.stringify({ line: 3 }))).toBe("read_file");
    // A multi-line command shows its first line, marked as cut.
    expect(toolHead("Bash", JSON.stringify({ command: "cd x\nmake" }))).toBe("Bash: cd x…");
    // A patch names the files it changes.
    expect(toolHead("apply_patch", PATCH)).toBe("apply_patch: src/x.rs");
    expect(toolHead("shell", JSON.stringify({ command: ["apply_patch", PATCH] }))).toBe("shell: src/x.rs");
    expect(patchFiles(`${PATCH}\n*** Add File: b.md`)).toEqual(["src/x.rs", "b.md"]);
  });

  it("shows edits and patches as diff lines", () => {
    expect(toolDiff("Edit", JSON.stringify({ file_path: "x", old_string: "same\nold line\nend", new_string: "same\nnew line\nend" }))).toEqual([
      { kind: "ctx", text: " same" },
      { kind: "del", text: "-old line" },
      { kind: "add", text: "+new line" },
      { kind: "ctx", text: " end" },
    ]);
    expect(toolDiff("apply_patch", PATCH)?.map((l) => l.kind)).toEqual(["file", "file", "hunk", "del", "add", "ctx", "file"]);
    expect(toolDiff("apply_patch", JSON.stringify({ input: PATCH }))?.filter((l) => l.kind === "add")).toEqual([{ kind: "add", text: "+let a = 2;" }]);
    expect(toolDiff("MultiEdit", JSON.stringify({ edits: [{ old_string: "a", new_string: "b" }, { old_string: "c", new_string: "" }] }))?.map((l) => l.text)).toEqual(["-a", "+b", "@@", "-c"]);
    expect(toolDiff("Bash", JSON.stringify({ command: "ls" }))).toBeNull();
    expect(toolDiff("Read", "not json")).toBeNull();
  });

  it("folds a long result to its first lines", () => {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    expect(fold(long, 6)).toEqual({ shown: "line 0\nline 1\nline 2\nline 3\nline 4\nline 5", hidden: 24 });
    expect(fold("a\nb", 6)).toEqual({ shown: "a\nb", hidden: 0 });
    expect(fold("1\n2\n3\n4\n5\n6\n", 6)).toEqual({ shown: "1\n2\n3\n4\n5\n6\n", hidden: 0 });
  });
});
