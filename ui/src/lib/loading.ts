// What the UI knows while a log is still being read: the engine streams progress and deltas
// (new sessions, run edges, findings); this folds them into a provisional session list that the
// tree can draw at once. The final report replaces it.

import type { LoadEvent } from "./generated/app";
import type { Progress, SessionDelta } from "./generated/engine";
import type { Diagnostic, Session } from "./report";

// The stream's payloads are generated from the engine's Rust types (generated/engine.ts).
export type { Delta, EdgeDelta, Progress, SessionDelta } from "./generated/engine";

/** One message of the load stream (`commands::LoadEvent`, tagged by `type`). */
export type { LoadEvent } from "./generated/app";

export interface Partial {
  progress: Progress | null;
  /** Sessions in order of first appearance; a later edge moves a session under its new parent. */
  sessions: Map<string, SessionDelta>;
  findings: Diagnostic[];
}

export function emptyPartial(): Partial {
  return { progress: null, sessions: new Map(), findings: [] };
}

/** The partial state after one more event (a new object: the UI's state stays immutable). */
export function applyEvent(p: Partial, e: LoadEvent): Partial {
  if (e.type === "progress") {
    const { type: _type, ...progress } = e;
    return { ...p, progress };
  }
  const sessions = new Map(p.sessions);
  for (const s of e.sessions) sessions.set(s.id, { ...s });
  for (const edge of e.edges) {
    const s = sessions.get(edge.child);
    sessions.set(edge.child, { id: edge.child, label: s?.label ?? null, parent: edge.parent });
  }
  return { progress: e.progress, sessions, findings: e.findings.length ? [...p.findings, ...e.findings] : p.findings };
}

/** The provisional sessions, shaped like the report's so the tree draws them the same way. */
export function partialSessions(p: Partial): Session[] {
  return [...p.sessions.values()].map((s) => ({
    id: s.id,
    parent: s.parent,
    root: null,
    depth: null,
    label: s.label,
    runs: [],
    events: 0,
  }));
}

/** "42%" of the bytes read, or null before the total is known. */
export function percent(p: Progress | null): number | null {
  if (!p || p.bytes_total <= 0) return null;
  return Math.min(100, Math.floor((p.bytes_read / p.bytes_total) * 100));
}
