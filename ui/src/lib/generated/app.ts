// Generated from arbor-app's Rust types by ts-rs (tests/app_ts_bindings.rs).
// Do not edit: change the Rust types, then ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-app --test app app_ts_bindings::

import type { FormatInfo, Progress } from "./engine";
import type { Summary } from "./view";

export type EngineInfo = { version: string, commit: string, formats: Array<FormatInfo>, };

export type CommandError = { code: string, message: string, };

export type LoadEvent = { "type": "progress" } & Progress | { "type": "changed", revision: number, sessions: number, 
/**
 * Set when the open log grew while it was followed (`follow.rs`): the revision is then
 * the open log's, and every view asks for what it shows again.
 */
follow?: Followed, };

export type Followed = { 
/**
 * Files that grew and files that appeared since the last message, by their names in the report.
 */
grown: Array<string>, appeared: Array<string>, 
/**
 * Bytes read for this message, and the bytes of every open file read so far.
 */
bytes: number, read_to: number, 
/**
 * Why everything was read again from the start, when it was (a file truncated, replaced or
 * deleted: the findings then say so too).
 */
reread: string | null, 
/**
 * What the watcher could not do (a folder that cannot be watched).
 */
errors: Array<string>, 
/**
 * The open log's summary as of this revision (the counts the page shows).
 */
summary: Summary, };

export type FollowState = { following: boolean, 
/**
 * Seconds since the newest of the open files was last written, when it can be told.
 */
modified_ago: number | null, 
/**
 * Whether that is within the time that turns Follow on by default.
 */
recent: boolean, };

export type TreeOf = "open" | "loading";

export type FoundLog = { 
/**
 * What to pass to `open_paths`.
 */
path: string, 
/**
 * `copilot`, `dsh`, `claude-code`, `codex`, `gemini-cli` or `opencode`.
 */
harness: "copilot" | "dsh" | "claude-code" | "codex" | "gemini-cli" | "opencode", 
/**
 * The file or folder name, for the menu (a Claude Code session's with its project folder's).
 */
name: string, 
/**
 * Last modification, epoch milliseconds, when the file system says.
 */
modified: number | null, 
/**
 * What the session is about, for the list: its title, summary or first prompt, one line.
 */
title: string | null, 
/**
 * Bytes (a folder's: its files', one level down).
 */
size: number | null, };

export type RecentEntry = { paths: Array<string>, openedAt: number, };

export type Theme = "system" | "light" | "dark";

export type ViewState = { 
/**
 * The selected session's id.
 */
session?: string, 
/**
 * The side pane's tab (`findings`, `replies`, `search`).
 */
tab?: string, 
/**
 * Whether the log is followed as it is written (absent: on when it was written lately).
 */
follow?: boolean, 
/**
 * How the tree's siblings are ordered (`wire`, `own-tokens`, `subtree-tokens`, …).
 */
order?: string, 
/**
 * The lower pane's tab (`inspector`, `transcript`).
 */
lower?: string, 
/**
 * How the usage table is sorted (`cost subtree desc`: column, scope, direction).
 */
usage?: string, 
/**
 * Whether the timeline's pane is shown.
 */
timeline?: boolean, };

export type SettingsView = { recent: Array<RecentEntry>, theme: Theme, 
/**
 * A sentence for the user when the settings file could not be read and was set aside; given
 * once.
 */
notice: string | null, };

export type TranscriptSpot = { session: string, row: number, };

export type Exported = { path: string, traces: number, spans: number, };

export type SharePreview = { 
/**
 * The session shown (the one asked for, else the log's first root).
 */
session: string, text: string, cut: boolean, sessions: number, rows: number, };

export type CompareSide = { paths: Array<string>, session: string | null, };

export type CompareWhich = "a" | "b";
