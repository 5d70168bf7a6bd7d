import { describe, expect, it } from "vitest";
import { inputName, summarizeInputs } from "./inputs";

const input = (file: string, format: string, bad_lines = 0) => ({ file, format, records: 1, bad_lines, bytes: 10 });

describe("summarizeInputs", () => {
  it("counts files by format, most first, and the skipped ones last", () => {
    const s = summarizeInputs([
      input("a/session.jsonl", "dsh-session"),
      input("a/input.json", "unknown"),
      input("b/rpc.jsonl", "dsh-rpc", 2),
      input("b/session.jsonl", "dsh-session"),
      input("b/x.json", "unknown"),
      input("c/session.jsonl", "dsh-session", 1),
    ]);
    expect(s.text).toBe("6 files: 3 dsh-session, 1 dsh-rpc, 2 skipped");
    expect(s.badLines).toBe(3);
    expect(s.skipped).toBe(2);
  });
  it("says one file", () => {
    expect(summarizeInputs([input("x.jsonl", "copilot-events")]).text).toBe("1 file: 1 copilot-events");
  });
});

describe("inputName", () => {
  it("names a file opened on its own once: by the source", () => {
    expect(inputName("/w/e2e/large.jsonl", "/w/e2e/large.jsonl")).toBe("");
  });
  it("names a folder's files under it, either separator, a trailing one or not", () => {
    expect(inputName("/home/u/logs/a/run.jsonl", "/home/u/logs")).toBe("a/run.jsonl");
    expect(inputName("/home/u/logs/run.jsonl", "/home/u/logs/")).toBe("run.jsonl");
    expect(inputName("C:\\logs\\run.jsonl", "C:\\logs")).toBe("run.jsonl");
  });
  it("keeps the whole path of a file elsewhere, and of a folder's namesake", () => {
    expect(inputName("/home/u/logs2/run.jsonl", "/home/u/logs")).toBe("/home/u/logs2/run.jsonl");
    expect(inputName("/b/run.jsonl", "/a/x.jsonl, /b/run.jsonl")).toBe("/b/run.jsonl");
  });
});
