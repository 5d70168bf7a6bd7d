// The one door to the Rust side. Every command name and its request/response types live here; the
// rest of the UI imports these functions and never calls `invoke` itself.
import { invoke } from "@tauri-apps/api/core";

/** A format the engine reads (`arbor_core::FormatInfo`). */
export interface FormatInfo {
  id: string;
  description: string;
}

/** The `engine_info` command's answer (`commands::EngineInfo`). */
export interface EngineInfo {
  version: string;
  formats: FormatInfo[];
}

/** How every command error reaches the UI: a code the UI may branch on, and a sentence. */
export interface IpcError {
  code: string;
  message: string;
}

/** Turns whatever a rejected `invoke` gave (an `{code, message}` object, a string, an Error) into an IpcError. */
export function toIpcError(raw: unknown): IpcError {
  if (raw && typeof raw === "object") {
    const o = raw as Record<string, unknown>;
    if (typeof o.code === "string" && typeof o.message === "string") {
      return { code: o.code, message: o.message };
    }
    if (raw instanceof Error) return { code: "internal", message: raw.message };
  }
  if (typeof raw === "string") return { code: "internal", message: raw };
  return { code: "internal", message: String(raw) };
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (raw) {
    throw toIpcError(raw);
  }
}

/** The engine's version and the formats it reads. */
export function engineInfo(): Promise<EngineInfo> {
  return call<EngineInfo>("engine_info");
}
