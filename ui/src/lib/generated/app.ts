// Generated from arbor-app's Rust types by ts-rs (tests/app_ts_bindings.rs).
// Do not edit: change the Rust types, then ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-app --test app_ts_bindings

import type { FormatInfo, Progress } from "./engine";

export type EngineInfo = { version: string, formats: Array<FormatInfo>, };

export type CommandError = { code: string, message: string, };

export type LoadEvent = { "type": "progress" } & Progress | { "type": "changed", revision: number, sessions: number, };

export type TreeOf = "open" | "loading";

export type FoundLog = { 
/**
 * What to pass to `open_paths`.
 */
path: string, 
/**
 * `copilot`, `dsh`, `claude-code` or `codex`.
 */
harness: "copilot" | "dsh" | "claude-code" | "codex", 
/**
 * The file or folder name, for the menu (a Claude Code session's with its project folder's).
 */
name: string, 
/**
 * Last modification, epoch milliseconds, when the file system says.
 */
modified: number | null, };

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
tab?: string, };

export type SettingsView = { recent: Array<RecentEntry>, theme: Theme, 
/**
 * A sentence for the user when the settings file could not be read and was set aside; given
 * once.
 */
notice: string | null, };

export type TranscriptSpot = { session: string, row: number, };

export type Exported = { path: string, traces: number, spans: number, };
