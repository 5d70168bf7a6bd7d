// The one door to the Rust side. Every command name and its request/response types live here; the
// rest of the UI imports these functions and never calls `invoke` or a plugin itself.
import { Channel, invoke } from "@tauri-apps/api/core";
import { getCurrentWebview } from "@tauri-apps/api/webview";
import { open } from "@tauri-apps/plugin-dialog";
import { load, type Store } from "@tauri-apps/plugin-store";
import type { RecordPage } from "./generated/engine";
import type { LoadEvent } from "./loading";
import type { Place, Report } from "./report";
import { parseRecent, parseTheme, pushRecent, type RecentEntry, type Theme } from "./settings";

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

/** How every command error reaches the UI (`commands::CommandError`): a code and a sentence. */
export interface IpcError {
  code: string;
  message: string;
}

/** Turns whatever a rejected call gave (an `{code, message}` object, a string, an Error) into an IpcError. */
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

/** A session log found in a harness's default place (`places::FoundLog`). */
export interface FoundLog {
  path: string;
  harness: "copilot" | "dsh";
  name: string;
  modified: number | null;
}

/** One record as the engine shows it (`arbor_core::RecordView`). */
export interface RecordView {
  index: number;
  file: string;
  line: number;
  session: string | null;
  kind: string;
  time: number | null;
}

/** A search hit (`arbor_core::Hit`): a session by id or label, or a record by kind or text. */
export type Hit = { type: "session"; id: string; label: string | null } | { type: "record"; record: RecordView; text: string };

/** The app's commands and their arguments (src-tauri/src/commands.rs). */
interface Commands {
  engine_info: { args: Record<string, never>; answer: EngineInfo };
  launch_paths: { args: Record<string, never>; answer: string[] };
  found_logs: { args: Record<string, never>; answer: FoundLog[] };
  open_paths: { args: { paths: string[]; onEvent: Channel<LoadEvent> }; answer: Report };
  open_sample: { args: { onEvent: Channel<LoadEvent> }; answer: Report };
  cancel_load: { args: Record<string, never>; answer: null };
  raw_line: { args: { file: string; line: number }; answer: string | null };
  records_around: { args: { file: string; line: number; before: number; after: number }; answer: RecordView[] };
  search: { args: { query: string; limit: number }; answer: Hit[] };
  naive_dropped: { args: { root: string; file: string; line: number; offset: number; limit: number }; answer: RecordPage };
}

async function call<C extends keyof Commands>(command: C, args: Commands[C]["args"]): Promise<Commands[C]["answer"]> {
  try {
    return await invoke<Commands[C]["answer"]>(command, args);
  } catch (raw) {
    throw toIpcError(raw);
  }
}

async function guard<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (raw) {
    throw toIpcError(raw);
  }
}

/** The engine's version and the formats it reads. */
export function engineInfo(): Promise<EngineInfo> {
  return call("engine_info", {});
}

/** The paths given on the command line; empty when the app should open the sample. */
export function launchPaths(): Promise<string[]> {
  return call("launch_paths", {});
}

/** Session logs in the harnesses' default places on this machine, newest first. */
export function foundLogs(): Promise<FoundLog[]> {
  return call("found_logs", {});
}

function stream(onEvent: (e: LoadEvent) => void): Channel<LoadEvent> {
  const channel = new Channel<LoadEvent>();
  channel.onmessage = onEvent;
  return channel;
}

/**
 * Reads log files and folders into one report (on a Rust worker thread); progress and partial
 * results arrive through `onEvent` meanwhile. Opening anything else cancels it (code `cancelled`).
 */
export function openPaths(paths: string[], onEvent: (e: LoadEvent) => void = () => {}): Promise<Report> {
  return call("open_paths", { paths, onEvent: stream(onEvent) });
}

/** The built-in sample log's report, streamed like any other. */
export function openSample(onEvent: (e: LoadEvent) => void = () => {}): Promise<Report> {
  return call("open_sample", { onEvent: stream(onEvent) });
}

/** Stops the load in progress; its call then fails with the code `cancelled`. */
export async function cancelLoad(): Promise<void> {
  await call("cancel_load", {});
}

/** Sessions, then records, of what is open that contain `query` (ignoring case). */
export function search(query: string, limit = 200): Promise<Hit[]> {
  return call("search", { query, limit });
}

export type { RecordPage };

/**
 * The notifications of a dsh-rpc root turn (the wait of `root` starting at `start`) that the naive
 * reading drops, `limit` (at most 500) from `offset`, with how many there are in all.
 */
export function naiveDropped(root: string, start: Place, offset = 0, limit = 50): Promise<RecordPage> {
  return call("naive_dropped", { root, file: start.file, line: start.line, offset, limit });
}

/** The raw text of a line of an open log (1-based), or null when there is no such line. */
export function rawLine(file: string, line: number): Promise<string | null> {
  return call("raw_line", { file, line });
}

/**
 * The records around the one at a line of an open log: up to `before` before it, itself, up to
 * `after` after it (each capped at 50), in wire order; empty when no record starts on that line.
 */
export function recordsAround(file: string, line: number, before = 3, after = 3): Promise<RecordView[]> {
  return call("records_around", { file, line, before, after });
}

/** The native open dialog for log files; null when cancelled. */
export function chooseFiles(): Promise<string[] | null> {
  return guard(() => open({ multiple: true, directory: false, title: "Open log files" }));
}

/** The native open dialog for a folder of logs; null when cancelled. */
export function chooseFolder(): Promise<string | null> {
  return guard(() => open({ multiple: false, directory: true, title: "Open a folder of logs" }));
}

/**
 * Calls `onHover(true)` while files are dragged over the window, `onHover(false)` when they leave,
 * and `onDrop(paths)` when they are dropped. Resolves to a function that stops listening.
 */
export function onDroppedPaths(onHover: (over: boolean) => void, onDrop: (paths: string[]) => void): Promise<() => void> {
  return guard(() =>
    getCurrentWebview().onDragDropEvent((event) => {
      const p = event.payload;
      if (p.type === "enter") onHover(true);
      else if (p.type === "leave") onHover(false);
      else if (p.type === "drop") {
        onHover(false);
        if (p.paths.length) onDrop(p.paths);
      }
    }),
  );
}

const SETTINGS_FILE = "settings.json";
let settings: Promise<Store> | null = null;

function store(): Promise<Store> {
  settings ??= load(SETTINGS_FILE, { defaults: {}, autoSave: 200 });
  return settings;
}

/** The recent list, newest first. */
export function recentList(): Promise<RecentEntry[]> {
  return guard(async () => parseRecent(await (await store()).get("recent")));
}

/** Records `paths` as opened now and returns the new recent list. */
export function rememberOpened(paths: string[]): Promise<RecentEntry[]> {
  return guard(async () => {
    const s = await store();
    const list = pushRecent(parseRecent(await s.get("recent")), paths, Date.now());
    await s.set("recent", list);
    return list;
  });
}

export function savedTheme(): Promise<Theme> {
  return guard(async () => parseTheme(await (await store()).get("theme")));
}

export function saveTheme(theme: Theme): Promise<void> {
  return guard(async () => (await store()).set("theme", theme));
}
