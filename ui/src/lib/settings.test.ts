import { describe, expect, it } from "vitest";
import { parseRecent, parseTheme, pushRecent, recentLabel } from "./settings";

describe("pushRecent", () => {
  it("puts the newest first, moves a repeat to the front, and caps the length", () => {
    let list = pushRecent([], ["a"], 1);
    list = pushRecent(list, ["b", "c"], 2);
    list = pushRecent(list, ["a"], 3);
    expect(list).toEqual([
      { paths: ["a"], openedAt: 3 },
      { paths: ["b", "c"], openedAt: 2 },
    ]);
    for (let i = 0; i < 20; i++) list = pushRecent(list, [`p${i}`], 10 + i, 5);
    expect(list.length).toBe(5);
    expect(list[0].paths).toEqual(["p19"]);
  });
});

describe("parseRecent / parseTheme", () => {
  it("keeps only well-formed entries", () => {
    expect(parseRecent([{ paths: ["x"], openedAt: 1 }, { paths: [], openedAt: 2 }, { paths: [3], openedAt: 1 }, null, "s"])).toEqual([
      { paths: ["x"], openedAt: 1 },
    ]);
    expect(parseRecent({})).toEqual([]);
  });
  it("falls back to the system theme", () => {
    expect(parseTheme("dark")).toBe("dark");
    expect(parseTheme("purple")).toBe("system");
  });
});

describe("recentLabel", () => {
  it("names a set by its first path's last component", () => {
    expect(recentLabel(["/home/u/.dsh/sessions/"])).toBe("sessions");
    expect(recentLabel(["C:\\logs\\run.jsonl", "/b"])).toBe("run.jsonl +1");
  });
});
