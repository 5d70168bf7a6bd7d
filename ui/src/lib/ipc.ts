// The one door to the Rust side. Every command name and its request/response types live here; the
// rest of the UI imports these functions and never calls `invoke` or a plugin itself.
import { Channel, invoke } from "@tauri-apps/api/core";
import { getCurrentWebview } from "@tauri-apps/api/webview";
import { open, save } from "@tauri-apps/plugin-dialog";
import type { LibraryHits, LibrarySessions, UsageBy, UsageLine } from "./library";
import type { CommandError, CompareSide, CompareWhich, EngineInfo, Exported, FollowState, SharePreview, FoundLog, LoadEvent, RecentEntry, SettingsView, Theme, TranscriptSpot, TreeOf, ViewState } from "./generated/app";
import type { ChangesPage, CompareMeasure, ComparisonHead, Page as TranscriptPage, PairsPage, RecordPage, RecordView, ShareOptions, Shared } from "./generated/engine";
import type {
  Axis,
  FindingsFilter,
  FindingsPage,
  HitQuery,
  Located,
  RepliesPage,
  SearchEnd,
  SearchEvent,
  SessionDetail,
  Summary,
  TimelineHit,
  TimelineInfo,
  TimelineOpen,
  TimelineWindow,
  TreeOrder,
  TreePage,
  TreeSpot,
  UsagePage,
  UsageSort,
  WaitsPage,
  WindowQuery,
} from "./generated/view";
import type { Diagnostic, Place } from "./report";

// The IPC's types are generated from the Rust ones (ts-rs): the app's in generated/app.ts, the
// engine's in generated/engine.ts, generated/report.ts and generated/view.ts (what the page asks
// of the open log: it holds only what it draws, and asks for the rest a page or a window at a time).
export type { CompareSide, CompareWhich, EngineInfo, Exported, SharePreview, FollowState, Followed, FoundLog, RecentEntry, SettingsView, Theme, TranscriptSpot, TreeOf, ViewState } from "./generated/app";
export type { ChangesPage, CompareMeasure, ComparedItem, ComparedPair, ComparedRun, Comparison, ComparisonHead, CountDelta, AmountDelta, Divergence, PairDelta, Edit, ShareOptions, Shared, Style as ShareStyle, Subagents as ShareSubagents, FormatInfo, Page as TranscriptPage, RecordView } from "./generated/engine";
export type * from "./generated/view";

/** How every command error reaches the UI (`open::CommandError`): a code and a sentence. */
export type IpcError = CommandError;

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

/** The app's commands and their arguments (src-tauri/src/commands/). */
interface Commands {
  engine_info: { args: Record<string, never>; answer: EngineInfo };
  launch_paths: { args: Record<string, never>; answer: string[] };
  found_logs: { args: Record<string, never>; answer: FoundLog[] };
  library_sessions: { args: Record<string, never>; answer: LibrarySessions };
  library_search: { args: { text: string; before?: number }; answer: LibraryHits };
  library_usage: { args: { by: UsageBy }; answer: UsageLine[] };
  open_paths: { args: { paths: string[]; onEvent: Channel<LoadEvent> }; answer: Summary };
  open_sample: { args: { onEvent: Channel<LoadEvent> }; answer: Summary };
  cancel_load: { args: Record<string, never>; answer: null };
  raw_line: { args: { file: string; line: number }; answer: string | null };
  records_around: { args: { file: string; line: number; before: number; after: number }; answer: RecordView[] };
  search: { args: { query: string; limit: number; onEvent: Channel<SearchEvent> }; answer: SearchEnd };
  search_more: { args: { limit: number; onEvent: Channel<SearchEvent> }; answer: SearchEnd };
  cancel_search: { args: Record<string, never>; answer: null };
  tree_rows: { args: { of: TreeOf; offset: number; limit: number; order?: TreeOrder }; answer: TreePage };
  tree_set_open: { args: { of: TreeOf; id: string; open: boolean | null }; answer: TreeSpot };
  tree_reveal: { args: { of: TreeOf; id: string }; answer: TreeSpot };
  findings_page: { args: { filter: FindingsFilter; offset: number; limit: number }; answer: FindingsPage };
  findings_at: { args: { file: string; line: number }; answer: Diagnostic[] };
  session_detail: { args: { id: string }; answer: SessionDetail | null };
  waits_page: { args: { offset: number; limit: number }; answer: WaitsPage };
  replies_page: { args: { offset: number; limit: number }; answer: RepliesPage };
  usage_page: { args: { sort: UsageSort; offset: number; limit: number }; answer: UsagePage };
  timeline_info: { args: { axis: Axis }; answer: TimelineInfo };
  timeline_open: { args: { axis: Axis; first: number; last: number; width: number }; answer: TimelineOpen };
  timeline_window: { args: { query: WindowQuery }; answer: TimelineWindow };
  timeline_hit: { args: { query: HitQuery }; answer: TimelineHit | null };
  timeline_locate: { args: { axis: Axis; session: string | null; place: Place | null }; answer: Located };
  settings: { args: Record<string, never>; answer: SettingsView };
  remember_opened: { args: { paths: string[] }; answer: RecentEntry[] };
  set_theme: { args: { theme: Theme }; answer: null };
  view_state: { args: { key: string[] }; answer: ViewState | null };
  save_view_state: { args: { key: string[]; view: ViewState }; answer: null };
  naive_dropped: { args: { root: string; file: string; line: number; offset: number; limit: number }; answer: RecordPage };
  follow_state: { args: Record<string, never>; answer: FollowState };
  set_follow: { args: { on: boolean }; answer: FollowState };
  transcript_page: { args: { session: string; from: number; limit: number }; answer: TranscriptPage };
  transcript_part: { args: { session: string; row: number; part: number }; answer: string | null };
  transcript_media: { args: { session: string; row: number; part: number }; answer: string | null };
  transcript_locate: { args: { session: string | null; place: Place }; answer: TranscriptSpot | null };
  changes_page: { args: { session: string | null; from: number; limit: number }; answer: ChangesPage };
  transcript_find: { args: { session: string; query: string; show: TranscriptShow; from?: number; limit?: number }; answer: number[] };
  export_otel: { args: { path: string }; answer: Exported };
  share_preview: { args: { session: string | null; options: ShareOptions }; answer: SharePreview };
  export_share: { args: { path: string; session: string | null; options: ShareOptions }; answer: Shared };
  compare_runs: { args: { a: CompareSide; b: CompareSide; ignore: CompareMeasure[] }; answer: ComparisonHead };
  compare_pairs: { args: { offset: number; limit: number }; answer: PairsPage };
  compare_transcript: { args: { side: CompareWhich; session: string; from: number; limit: number }; answer: TranscriptPage };
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

/** Every session on this machine, the library on disk brought up to date first (SPEC 6.1). */
export function librarySessions(): Promise<LibrarySessions> {
  return call("library_sessions", {});
}

/** The transcript items of every session holding every word of `text`, best first, among the
 * items indexed before `before` (all when none); `older` says where it stopped. */
export function librarySearch(text: string, before?: number): Promise<LibraryHits> {
  return call("library_search", before === undefined ? { text } : { text, before });
}

/** The library's tokens and cost by day, week, month, model, project or session, in this
 * machine's time zone (SPEC 6.2). */
export function libraryUsage(by: UsageBy): Promise<UsageLine[]> {
  return call("library_usage", { by });
}

function stream<T>(onEvent: (e: T) => void): Channel<T> {
  const channel = new Channel<T>();
  channel.onmessage = onEvent;
  return channel;
}

/**
 * Reads log files and folders into one report (on a Rust worker thread), which stays on the Rust
 * side; answers its summary. Progress, and that the tree of what is read so far grew, arrive
 * through `onEvent` meanwhile. Opening anything else cancels it (code `cancelled`).
 */
export function openPaths(paths: string[], onEvent: (e: LoadEvent) => void = () => {}): Promise<Summary> {
  return call("open_paths", { paths, onEvent: stream(onEvent) });
}

/** The built-in sample log, read like any other. */
export function openSample(onEvent: (e: LoadEvent) => void = () => {}): Promise<Summary> {
  return call("open_sample", { onEvent: stream(onEvent) });
}

/** Stops the load in progress; its call then fails with the code `cancelled`. */
export async function cancelLoad(): Promise<void> {
  await call("cancel_load", {});
}

/**
 * Sessions, then records, of what is open that contain `query` (ignoring case): hits and
 * progress arrive through `onEvent` as they are found, up to `limit`; the answer says why it
 * ended (`limit`: `searchMore` goes on). A newer search stops this one.
 */
export function search(query: string, limit: number, onEvent: (e: SearchEvent) => void): Promise<SearchEnd> {
  return call("search", { query, limit, onEvent: stream(onEvent) });
}

/** `limit` more hits of the last search, which stopped at its limit. */
export function searchMore(limit: number, onEvent: (e: SearchEvent) => void): Promise<SearchEnd> {
  return call("search_more", { limit, onEvent: stream(onEvent) });
}

export async function cancelSearch(): Promise<void> {
  await call("cancel_search", {});
}

/** Rows `offset..offset + limit` of the visible rows of a tree: the open log's or the one being read. */
/** Rows of a tree; `order`, when given, orders the open log's siblings from then on. */
export function treeRows(of: TreeOf, offset: number, limit: number, order?: TreeOrder): Promise<TreePage> {
  return call("tree_rows", order === undefined ? { of, offset, limit } : { of, offset, limit, order });
}

/** Opens (`true`), closes (`false`) or flips (`null`) a session's subtree; answers where it is now. */
export function treeSetOpen(of: TreeOf, id: string, open: boolean | null = null): Promise<TreeSpot> {
  return call("tree_set_open", { of, id, open });
}

/** Opens the way to a session in a tree and answers where its row is. */
export function treeReveal(of: TreeOf, id: string): Promise<TreeSpot> {
  return call("tree_reveal", { of, id });
}

/** Rows of the findings list for a filter (severity and code headings, findings). */
export function findingsPage(filter: FindingsFilter, offset: number, limit: number): Promise<FindingsPage> {
  return call("findings_page", { filter, offset, limit });
}

/** The findings reported at a place. */
export function findingsAt(place: Place): Promise<Diagnostic[]> {
  return call("findings_at", { file: place.file, line: place.line });
}

/** One session with every run; null when the open log has no such session. */
export function sessionDetail(id: string): Promise<SessionDetail | null> {
  return call("session_detail", { id });
}

/** Root waits `offset..offset + limit`, each beside its naive reading. */
export function waitsPage(offset: number, limit: number): Promise<WaitsPage> {
  return call("waits_page", { offset, limit });
}

/** Replies `offset..offset + limit`, grouped by session in the tree's order. */
export function repliesPage(offset: number, limit: number): Promise<RepliesPage> {
  return call("replies_page", { offset, limit });
}

/** Rows `offset..offset + limit` of the usage table (every session's own and subtree's tokens, cost, duration, turns) sorted by `sort`. */
export function usagePage(sort: UsageSort, offset: number, limit: number): Promise<UsagePage> {
  return call("usage_page", { sort, offset, limit });
}

/** The timeline's axis, domain and lane count. */
export function timelineInfo(axis: Axis): Promise<TimelineInfo> {
  return call("timeline_info", { axis });
}

/** The timeline's axis and domain with the window of lanes `first..last` fitted to `width` pixels: what it draws as it opens. */
export function timelineOpen(axis: Axis, first: number, last: number, width: number): Promise<TimelineOpen> {
  return call("timeline_open", { axis, first, last, width });
}

/** Lanes and rectangles of a window of the timeline at its resolution. */
export function timelineWindow(query: WindowQuery): Promise<TimelineWindow> {
  return call("timeline_window", { query });
}

/** What is under a point of the timeline. */
export function timelineHit(query: HitQuery): Promise<TimelineHit | null> {
  return call("timeline_hit", { query });
}

/** A session's lane and a place's position on the timeline's axis. */
export function timelineLocate(axis: Axis, session: string | null, place: Place | null): Promise<Located> {
  return call("timeline_locate", { axis, session, place });
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
 * Calls `onHover(true, x)` while files are dragged over the window, `onHover(false, x)` when they
 * leave, and `onDrop(paths, x)` when they are dropped; `x` is the pointer's distance from the
 * window's left edge in CSS pixels. Resolves to a function that stops listening.
 */
export function onDroppedPaths(
  onHover: (over: boolean, x: number) => void,
  onDrop: (paths: string[], x: number) => void,
): Promise<() => void> {
  // Tauri gives physical pixels; the page lays out in CSS pixels.
  const css = (x: number) => x / (window.devicePixelRatio || 1);
  return guard(() =>
    getCurrentWebview().onDragDropEvent((event) => {
      const p = event.payload;
      if (p.type === "enter" || p.type === "over") onHover(true, css(p.position.x));
      else if (p.type === "leave") onHover(false, 0);
      else if (p.type === "drop") {
        onHover(false, css(p.position.x));
        if (p.paths.length) onDrop(p.paths, css(p.position.x));
      }
    }),
  );
}

/**
 * The settings the app keeps (settings.json in its data folder, written atomically by the Rust
 * side): the recent list, the theme, and `notice`, a sentence given once when a corrupt settings
 * file was set aside.
 */
export function settings(): Promise<SettingsView> {
  return call("settings", {});
}

/** Records `paths` as opened now and returns the new recent list. */
export function rememberOpened(paths: string[]): Promise<RecentEntry[]> {
  return call("remember_opened", { paths });
}

export async function saveTheme(theme: Theme): Promise<void> {
  await call("set_theme", { theme });
}

/** The view state last saved for a log, named by the paths it was opened with. */
export function viewState(key: string[]): Promise<ViewState | null> {
  return call("view_state", { key });
}

export async function saveViewState(key: string[], view: ViewState): Promise<void> {
  await call("save_view_state", { key, view });
}

/** Whether what is open is followed, and how long ago its newest file was written. */
export function followState(): Promise<FollowState> {
  return call("follow_state", {});
}

/**
 * Follows what is open as it is written (or stops). While it is followed, `changed` messages with
 * a `follow` part arrive on the channel the log was opened with.
 */
export function setFollow(on: boolean): Promise<FollowState> {
  return call("set_follow", { on });
}

/** Rows `from..from + limit` (at most 500) of a session's transcript, texts cut to 4,000 characters. */
export function transcriptPage(session: string, from: number, limit: number): Promise<TranscriptPage> {
  return call("transcript_page", { session, from, limit });
}

/** The whole text of one part of one transcript row. */
export function transcriptPart(session: string, row: number, part: number): Promise<string | null> {
  return call("transcript_part", { session, row, part });
}

/** An image part's data, as a `data:` URL of an image type; `null` when it is not an inline image. */
export function transcriptMedia(session: string, row: number, part: number): Promise<string | null> {
  return call("transcript_media", { session, row, part });
}

/** Edits `from..from + limit` (at most 200) of what a session's subtree (every session: `null`) changed. */
export function changesPage(session: string | null, from: number, limit: number): Promise<ChangesPage> {
  return call("changes_page", { session, from, limit });
}

/** Which rows a transcript's filter keeps: all, what was said (prompts, replies, what came back),
 * errors (failed results, notices), or all but bare tool results. */
export type TranscriptShow = "all" | "talk" | "errors" | "no-results";

/** The rows of a session's transcript whose text holds `query` (any case; all when empty) among
 * those `show` keeps, in order; with `block`, only among rows `block.from..block.from + block.limit`. */
export function transcriptFind(session: string, query: string, show: TranscriptShow, block?: { from: number; limit: number }): Promise<number[]> {
  return call("transcript_find", block ? { session, query, show, from: block.from, limit: block.limit } : { session, query, show });
}

/** The transcript item a place opens: its record's session (else `session`) and row. */
export function transcriptLocate(session: string | null, place: Place): Promise<TranscriptSpot | null> {
  return call("transcript_locate", { session, place });
}

/** Asks where to save an OpenTelemetry export (the native save dialog); null when cancelled. */
export function chooseExportFile(): Promise<string | null> {
  return guard(() =>
    save({ title: "Export as OpenTelemetry (OTLP-JSON)", defaultPath: "arbor-export.otlp.json", filters: [{ name: "OTLP-JSON", extensions: ["json"] }] }),
  );
}

/** Writes the open log as OTLP-JSON spans to `path`. */
export function exportOtel(path: string): Promise<Exported> {
  return call("export_otel", { path });
}

/** A session as Markdown or HTML, as `arbor export` writes it: its first bytes, to preview. */
export function sharePreview(session: string | null, options: ShareOptions): Promise<SharePreview> {
  return call("share_preview", { session, options });
}

/** Asks where to save a shared session (the native save dialog); null when cancelled. */
export function chooseShareFile(style: ShareOptions["style"], name: string): Promise<string | null> {
  const [label, ext] = style === "html" ? ["HTML", "html"] : ["Markdown", "md"];
  return guard(() => save({ title: `Share as ${label}`, defaultPath: `${name}.${ext}`, filters: [{ name: label, extensions: [ext] }] }));
}

/** Writes a session as Markdown or HTML to `path` (sub-agents' own files beside it when asked). */
export function exportShare(path: string, session: string | null, options: ShareOptions): Promise<Shared> {
  return call("export_share", { path, session, options });
}

/** Two runs compared (SPEC 6.3): a side with no paths is the open log. The answer holds how many
 * aligned pairs there are; `comparePairs` gives them a window at a time. */
export function compareRuns(a: CompareSide, b: CompareSide, ignore: CompareMeasure[] = []): Promise<ComparisonHead> {
  return call("compare_runs", { a, b, ignore });
}

/** Aligned pairs `offset..offset + limit` (at most 500) of the last comparison. */
export function comparePairs(offset: number, limit: number): Promise<PairsPage> {
  return call("compare_pairs", { offset, limit });
}

/** Rows of a session's transcript on one side of the last comparison. */
export function compareTranscript(side: CompareWhich, session: string, from: number, limit: number): Promise<TranscriptPage> {
  return call("compare_transcript", { side, session, from, limit });
}
