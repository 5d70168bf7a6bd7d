// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { engineInfo, recordsAround, toIpcError } from "./ipc";

afterEach(() => clearMocks());

describe("engineInfo", () => {
  it("calls the engine_info command with no arguments and returns its answer", async () => {
    const seen: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      seen.push([cmd, args]);
      if (cmd === "engine_info") {
        return { version: "9.9.9", commit: "abc1234", formats: [{ id: "dsh-rpc", description: "d" }] };
      }
      throw new Error(`unexpected command ${cmd}`);
    });
    const info = await engineInfo();
    expect(info.version).toBe("9.9.9");
    expect(info.formats.map((f) => f.id)).toEqual(["dsh-rpc"]);
    expect(seen.map(([cmd]) => cmd)).toEqual(["engine_info"]);
  });

  it("rejects with an IpcError when the command fails", async () => {
    mockIPC(() => {
      throw { code: "not-found", message: "no such file" };
    });
    await expect(engineInfo()).rejects.toEqual({ code: "not-found", message: "no such file" });
  });
});

describe("toIpcError", () => {
  it("keeps a {code, message} object", () => {
    expect(toIpcError({ code: "io", message: "denied", extra: 1 })).toEqual({ code: "io", message: "denied" });
  });
  it("wraps a bare string as an internal error", () => {
    expect(toIpcError("boom")).toEqual({ code: "internal", message: "boom" });
  });
  it("wraps an Error", () => {
    expect(toIpcError(new Error("bad"))).toEqual({ code: "internal", message: "bad" });
  });
  it("does not accept an object whose code is not a string", () => {
    expect(toIpcError({ code: 3, message: "x" }).code).toBe("internal");
  });
});

describe("recordsAround", () => {
  it("calls records_around with the place and the counts", async () => {
    const seen: Array<[string, unknown]> = [];
    mockIPC((cmd, args) => {
      seen.push([cmd, args]);
      return [{ index: 0, file: "a.jsonl", line: 1, session: null, kind: "k", time: null }];
    });
    const around = await recordsAround("a.jsonl", 4, 2, 5);
    expect(around).toHaveLength(1);
    expect(seen).toEqual([["records_around", { file: "a.jsonl", line: 4, before: 2, after: 5 }]]);
  });
});
