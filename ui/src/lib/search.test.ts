import { describe, expect, it } from "vitest";
import type { SearchHit } from "./generated/view";
import { applySearch, matchParts, MAX_HITS, resumeSearch, searchStatus, startSearch } from "./search";

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


const hit = (i: number): SearchHit => ({ type: "session", id: `s${i}`, label: null, place: null });

describe("a streamed search", () => {
  it("says it is searching until the end, and says nothing matches only then", () => {
    let s = startSearch();
    expect(searchStatus(s, "q", 200)).toBe("Searching… 0 hits so far, sessions searched");
    s = applySearch(s, { type: "progress", bytes_read: 25, bytes_total: 100, hits: 0 });
    expect(searchStatus(s, "q", 200)).toBe("Searching… 0 hits so far, 25 % of the log read");
    s = applySearch(s, { type: "end", end: "done", hits: 0 });
    expect(searchStatus(s, "q", 200)).toBe("Nothing matches “q”.");
  });

  it("keeps the hits in order, says when it stopped at its limit and goes on when asked", () => {
    let s = applySearch(startSearch(), { type: "hits", hits: [hit(1), hit(2)] });
    s = applySearch(s, { type: "end", end: "limit", hits: 2 });
    expect(searchStatus(s, "q", 2)).toBe("Stopped after 2 hits (2 at a time), sessions searched");
    s = resumeSearch(s);
    expect(s.end).toBeNull();
    s = applySearch(s, { type: "hits", hits: [hit(3)] });
    s = applySearch(s, { type: "end", end: "done", hits: 3 });
    expect(s.hits.map((h) => (h.type === "session" ? h.id : ""))).toEqual(["s1", "s2", "s3"]);
    expect(searchStatus(s, "q", 2)).toBe("3 hits");
  });

  it("keeps a bounded number of hits and says so", () => {
    let s = startSearch();
    for (let k = 0; k < 3; k++) s = applySearch(s, { type: "hits", hits: Array.from({ length: MAX_HITS / 2 }, (_, i) => hit(k * MAX_HITS + i)) });
    s = applySearch(s, { type: "end", end: "done", hits: (3 * MAX_HITS) / 2 });
    expect(s.hits.length).toBe(MAX_HITS);
    expect(searchStatus(s, "q", 1000)).toMatch(/the first 5000 are listed/);
  });
});

describe("snippets unescaped", () => {
  it("undoes JSON string escapes and folds whitespace", async () => {
    const { unescapeJson, snippetParts } = await import("./search");
    expect(unescapeJson('{\\"text\\":\\"caf\\u00e9\\\\n\\nnext\\t\\"}')).toBe('{"text":"café\\n next "}');
    expect(unescapeJson("a\\u001b[31mred")).toBe("a [31mred");
    const p = snippetParts('{"type":"x","text":"line one\\nthe \\"needle\\" here"}', "needle");
    expect(p.match).toBe("needle");
    expect(p.before.endsWith('one the "')).toBe(true);
    expect(p.after.startsWith('" here')).toBe(true);
  });
});
