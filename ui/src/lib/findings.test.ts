import { describe, expect, it } from "vitest";
import { groupFindings, matches } from "./findings";
import type { Diagnostic } from "./report";

const d = (code: string, severity: Diagnostic["severity"], session: string | null, line = 1): Diagnostic => ({
  code,
  severity,
  at: { file: "run.jsonl", line },
  session,
  message: `about ${code}`,
});

describe("groupFindings", () => {
  const all = [d("child-id-reused", "info", "c1"), d("ancestry-cycle", "error", "a"), d("event-before-start-edge", "warning", "b"), d("malformed-line", "error", null, 7)];

  it("orders groups error, warning, info and keeps report order inside a group", () => {
    const groups = groupFindings(all, "");
    expect(groups.map((g) => g.severity)).toEqual(["error", "warning", "info"]);
    expect(groups[0].items.map((x) => x.code)).toEqual(["ancestry-cycle", "malformed-line"]);
  });

  it("filters on every word, ignoring case, across code, session and place; drops empty groups", () => {
    expect(groupFindings(all, "CYCLE").map((g) => g.items.map((x) => x.code))).toEqual([["ancestry-cycle"]]);
    expect(groupFindings(all, "run.jsonl:7")[0].items[0].code).toBe("malformed-line");
    expect(groupFindings(all, "c1 reused")[0].severity).toBe("info");
    expect(groupFindings(all, "nothing-like-this")).toEqual([]);
  });

  it("matches everything with a blank query", () => {
    expect(matches(all[0], "   ")).toBe(true);
  });
});

describe("groupFindings with hidden severities", () => {
  it("leaves out the severities switched off and keeps the others in order", () => {
    const d = (severity: "error" | "warning" | "info", code: string) =>
      ({ code, severity, at: { file: "a", line: 1 }, session: null, message: code }) as const;
    const all = [d("info", "i"), d("error", "e"), d("warning", "w")];
    expect(groupFindings(all, "", new Set(["warning"])).map((g) => g.severity)).toEqual(["error", "info"]);
    expect(groupFindings(all, "", new Set(["error", "warning", "info"]))).toEqual([]);
    expect(groupFindings(all, "e", new Set(["info"])).map((g) => g.items.map((x) => x.code))).toEqual([["e"]]);
  });
});

describe("groupFindings by code and session", () => {
  const all = [
    d("stale-run-settled", "info", "w", 9),
    d("child-id-reused", "info", "w", 4),
    d("stale-run-settled", "info", "x", 2),
    d("ancestry-cycle", "error", "x", 5),
  ];

  it("splits each severity by code, codes in order, report order inside a code", () => {
    const [errors, infos] = groupFindings(all, "");
    expect(errors.codes.map((c) => c.code)).toEqual(["ancestry-cycle"]);
    expect(infos.codes.map((c) => [c.code, c.items.map((x) => x.at.line)])).toEqual([
      ["child-id-reused", [4]],
      ["stale-run-settled", [9, 2]],
    ]);
    expect(infos.items.map((x) => x.at.line)).toEqual([9, 4, 2]);
  });

  it("keeps only one session's findings when asked", () => {
    const groups = groupFindings(all, "", new Set(), "x");
    expect(groups.flatMap((g) => g.items.map((x) => `${x.code}@${x.session}`))).toEqual(["ancestry-cycle@x", "stale-run-settled@x"]);
    expect(groupFindings(all, "", new Set(), "nobody")).toEqual([]);
  });
});
