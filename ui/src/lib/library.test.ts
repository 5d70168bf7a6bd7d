import { describe, expect, it } from "vitest";
import { costLabel, durationLabel, libraryGroups, pathsToOpen, snippetParts, tokensLabel, type LibrarySession } from "./library";

const session = (path: string, project: string, start: number | null, tokens: number, cost: number | undefined, duration: number | null): LibrarySession => ({
  key: path,
  path,
  session: path,
  title: `title of ${path}`,
  project,
  project_from: "cwd",
  harness: "claude-code",
  start,
  end: start,
  clock: "log",
  duration,
  turns: 1,
  subagents: 0,
  depth: 0,
  usage: { input: tokens, output: 0, cache_read: 0, cache_write: 0, ...(cost === undefined ? {} : { cost }) },
  findings: { error: 0, warning: 0, info: 0 },
  outcome: null,
  files: 1,
  bytes: 10,
});

const all = [
  session("a", "/p1", 3, 10, 0.5, 1000),
  session("b", "/p2", 5, 300, undefined, 10),
  session("c", "/p1", 1, 2000, 1.25, 50),
];

describe("the library's rows", () => {
  it("groups by project in the order of each group's first session, sorted by the column", () => {
    const byStart = libraryGroups(all, "start");
    expect(byStart.map((g) => [g.project, g.sessions.map((s) => s.path)])).toEqual([
      ["/p2", ["b"]],
      ["/p1", ["a", "c"]],
    ]);
    const byTokens = libraryGroups(all, "tokens");
    expect(byTokens.map((g) => [g.project, g.sessions.map((s) => s.path)])).toEqual([
      ["/p1", ["c", "a"]],
      ["/p2", ["b"]],
    ]);
    expect(libraryGroups(all, "cost")[0].sessions.map((s) => s.path)).toEqual(["c", "a"]);
    expect(libraryGroups(all, "duration")[0].sessions.map((s) => s.path)).toEqual(["a", "c"]);
    const p1 = byTokens[0];
    expect([p1.tokens, p1.cost, p1.unpriced]).toEqual([2010, 1.75, 0]);
    expect(byTokens[1].cost).toBeNull();
  });

  it("filters by every word of the title, project, harness or path", () => {
    expect(libraryGroups(all, "start", "P1 title").flatMap((g) => g.sessions.map((s) => s.path))).toEqual(["a", "c"]);
    expect(libraryGroups(all, "start", "nowhere")).toEqual([]);
  });

  it("labels tokens, cost, durations and snippets", () => {
    expect([tokensLabel(812), tokensLabel(12_345), tokensLabel(4_500_000)]).toEqual(["812", "12.3K", "4.5M"]);
    expect([costLabel(6.271, 0), costLabel(6.271, 1_200_000), costLabel(null, 20_000), costLabel(undefined, 0)]).toEqual(["$6.27", "$6.27 + 1.2M unpriced", "20.0K unpriced", ""]);
    expect([durationLabel(42_000), durationLabel(367_000), durationLabel(11_100_000), durationLabel(null)]).toEqual(["42s", "6m07s", "3h05m", ""]);
    // A snippet's markup stays text: only the [..] marks are matches.
    expect(snippetParts("run <b>[hoge].py</b> [now]")).toEqual([
      { text: "run <b>", hit: false },
      { text: "hoge", hit: true },
      { text: ".py</b> ", hit: false },
      { text: "now", hit: true },
    ]);
  });
});

describe("pathsToOpen", () => {
  it("opens a session's paths when it has them, else its path", () => {
    expect(pathsToOpen({ path: "/a/parent.jsonl", paths: ["/a/parent.jsonl", "/b/child.jsonl"] })).toEqual(["/a/parent.jsonl", "/b/child.jsonl"]);
    expect(pathsToOpen({ path: "/a/one.jsonl" })).toEqual(["/a/one.jsonl"]);
    expect(pathsToOpen({ path: "/a/one.jsonl", paths: [] })).toEqual(["/a/one.jsonl"]);
  });
});
