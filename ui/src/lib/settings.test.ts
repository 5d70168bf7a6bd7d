import { describe, expect, it } from "vitest";
import { distinctPaths, openedLabel, parseLower, parseTab, parseTreeOrder, recentLabel } from "./settings";

describe("recentLabel", () => {
  it("names a set of paths by its first file and how many more", () => {
    expect(recentLabel(["/logs/run.jsonl"])).toBe("run.jsonl");
    expect(recentLabel(["C:\\logs\\a.jsonl", "C:\\logs\\b.jsonl"])).toBe("a.jsonl +1");
    expect(recentLabel(["/logs/sessions/"])).toBe("sessions");
    expect(recentLabel([])).toBe("");
  });
});

describe("parseTab", () => {
  it("accepts the side pane's tabs only", () => {
    expect(parseTab("replies")).toBe("replies");
    expect(parseTab("search")).toBe("search");
    // The timeline became a pane of its own: a tab saved before that is not restored.
    expect(parseTab("timeline")).toBeNull();
    expect(parseTab("<script>")).toBeNull();
    expect(parseTab(undefined)).toBeNull();
  });
});

describe("parseTreeOrder", () => {
  it("restores a saved order, else the log's own", () => {
    expect(parseTreeOrder("subtree-tokens")).toBe("subtree-tokens");
    expect(parseTreeOrder("own-tokens")).toBe("own-tokens");
    expect(parseTreeOrder("tokens")).toBe("wire");
    expect(parseTreeOrder(undefined)).toBe("wire");
  });
});

describe("openedLabel", () => {
  it("names each opened path once: a repeat and a path inside an opened folder are left out", () => {
    expect(openedLabel(["/logs", "/logs/a.jsonl", "/logs/"])).toBe("/logs");
    expect(openedLabel(["/logs/a.jsonl", "/logs/a.jsonl"])).toBe("/logs/a.jsonl");
    expect(openedLabel(["/logs/sub", "/logs"])).toBe("/logs");
    expect(openedLabel(["C:\\logs", "C:\\logs\\a.jsonl"])).toBe("C:\\logs");
    // A sibling whose name starts the same is not inside it.
    expect(distinctPaths(["/logs", "/logs2/a.jsonl", "/"])).toEqual(["/"]);
    expect(distinctPaths(["/logs", "/logs2/a.jsonl"])).toEqual(["/logs", "/logs2/a.jsonl"]);
  });
});

describe("parseLower", () => {
  it("accepts the lower pane's tabs only", () => {
    expect(parseLower("transcript")).toBe("transcript");
    expect(parseLower("inspector")).toBe("inspector");
    expect(parseLower("timeline")).toBeNull();
    expect(parseLower(undefined)).toBeNull();
  });
});
