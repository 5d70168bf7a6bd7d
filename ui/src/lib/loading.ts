// What the UI knows while a log is still being read: the engine streams progress, and that the
// tree of what is read so far grew (its rows stay on the Rust side: the loading panel's tree asks
// for the ones it shows). The summary of the open log replaces it all at the end.

import type { LoadEvent } from "./generated/app";
import type { Progress } from "./generated/engine";

// The stream's payloads are generated from the Rust types (generated/app.ts, generated/engine.ts).
export type { Progress } from "./generated/engine";

/** One message of the load stream (`open::LoadEvent`, tagged by `type`). */
export type { LoadEvent } from "./generated/app";

export interface Loading {
  progress: Progress | null;
  /** The revision of the tree read so far (-1 before the first sessions), and its sessions. */
  revision: number;
  sessions: number;
}

export function startLoading(): Loading {
  return { progress: null, revision: -1, sessions: 0 };
}

/** The state after one more event (a new object: the UI's state stays immutable). */
export function applyEvent(p: Loading, e: LoadEvent): Loading {
  if (e.type === "progress") {
    const { type: _type, ...progress } = e;
    return { ...p, progress };
  }
  return e.revision > p.revision ? { ...p, revision: e.revision, sessions: e.sessions } : p;
}

/** "42%" of the bytes read, or null before the total is known. */
export function percent(p: Progress | null): number | null {
  if (!p || p.bytes_total <= 0) return null;
  return Math.min(100, Math.floor((p.bytes_read / p.bytes_total) * 100));
}
