// The Library's rows (SPEC 5, 6.1): every session on this machine as `arbor_library` summarizes
// it, sorted by a column and grouped by project. The types are written by hand after the Rust
// ones in crates/arbor-library (`summary::Summary`, `store::Hit`, the app's `LibrarySessions`):
// that crate has no ts-rs, and `tests/library.browser.mjs` feeds the view values of this shape.

import type { Usage } from "./generated/report";

export interface Findings {
  error: number;
  warning: number;
  info: number;
}

/** One session's summary: what its own analysis says (`arbor sessions --json` has the same). */
export interface LibrarySession {
  /** The session in the library: its `path`, or `path#session` where several roots of one log share the path. */
  key: string;
  /** What to open (then `session` is the one to select). */
  path: string;
  /** Every file to open when `path` alone is not the whole session (a Codex thread with its
   * sub-agents' rollouts, a resumed Claude Code chain), `path` first; absent when `path` is all. */
  paths?: string[];
  session: string | null;
  title: string | null;
  project: string;
  project_from: "cwd" | "folder";
  harness: string | null;
  /** Epoch milliseconds. */
  start: number | null;
  end: number | null;
  /** `log`: the records' times; `mtime`: the files' time (the log has no clock). */
  clock: "log" | "mtime" | "none";
  duration: number | null;
  turns: number;
  subagents: number;
  depth: number;
  usage: Usage;
  findings: Findings;
  outcome: string | null;
  files: number;
  bytes: number;
}

export interface LibrarySessions {
  sessions: LibrarySession[];
  /** Why the library was rebuilt (corrupt, or of another version), when it was. */
  notice: string | null;
}

/** A full-text hit: the session, its transcript item (row) and file:line. */
export interface LibraryHit {
  path: string;
  /** The session's summary's `paths`. */
  paths?: string[];
  session: string;
  item: number;
  file: string;
  line: number;
  kind: string;
  /** The text around the match, the matched words between `[` and `]`. */
  snippet: string;
  rank: number;
}

/** A search's hits, and the oldest item searched when older ones were not (`before` searches
 * them). */
export interface LibraryHits {
  hits: LibraryHit[];
  older: number | null;
}

export type LibrarySort = "start" | "tokens" | "cost" | "duration";

/** What a usage report is by (SPEC 6.2), as `arbor usage` names it. */
export type UsageBy = "daily" | "weekly" | "monthly" | "model" | "project" | "session";

/** One line of a usage report: the day, week's Monday, month, model, project or session path. */
export interface UsageLine {
  key: string;
  sessions: number;
  usage: Usage;
}

/** Each line's share of the largest line's tokens, 0–1, for its bar. */
export function usageShares(lines: readonly UsageLine[]): number[] {
  const max = Math.max(0, ...lines.map((l) => tokensOf(l.usage)));
  return lines.map((l) => (max > 0 ? tokensOf(l.usage) / max : 0));
}

export function tokensOf(u: Usage): number {
  return u.input + u.output + u.cache_read + u.cache_write;
}

function key(s: LibrarySession, by: LibrarySort): number {
  switch (by) {
    case "start":
      return s.start ?? -Infinity;
    case "tokens":
      return tokensOf(s.usage);
    case "cost":
      return s.usage.cost ?? 0;
    case "duration":
      return s.duration ?? 0;
  }
}

export interface ProjectGroup {
  project: string;
  sessions: LibrarySession[];
  tokens: number;
  /** The priced part's cost; `unpriced` tokens beside it. */
  cost: number | null;
  unpriced: number;
}

/** The files that open a library session or hit: its `paths` when it has them, else its `path`. */
export function pathsToOpen(x: { path: string; paths?: string[] }): string[] {
  return x.paths && x.paths.length ? [...x.paths] : [x.path];
}

/**
 * Groups by project, each group's sessions by `by` (largest or newest first), the groups in the
 * order of their first session; `filter` keeps the sessions whose title, project, harness or path
 * hold every word.
 */
export function libraryGroups(sessions: readonly LibrarySession[], by: LibrarySort, filter = ""): ProjectGroup[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const kept = sessions.filter((s) => {
    const hay = `${s.title ?? ""}\n${s.project}\n${s.harness ?? ""}\n${s.path}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
  const sorted = [...kept].sort((a, b) => key(b, by) - key(a, by) || a.key.localeCompare(b.key));
  const groups = new Map<string, ProjectGroup>();
  for (const s of sorted) {
    let g = groups.get(s.project);
    if (!g) {
      g = { project: s.project, sessions: [], tokens: 0, cost: null, unpriced: 0 };
      groups.set(s.project, g);
    }
    g.sessions.push(s);
    g.tokens += tokensOf(s.usage);
    if (s.usage.cost != null) g.cost = (g.cost ?? 0) + s.usage.cost;
    g.unpriced += s.usage.unpriced?.tokens ?? 0;
  }
  return [...groups.values()];
}

/** "12.3K", "4.5M", "812". */
export function tokensLabel(n: number): string {
  if (n < 10_000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}K`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** "$6.27", "$6.27 + 1.2M unpriced", "1.2M unpriced", or "". */
export function costLabel(cost: number | null | undefined, unpriced: number): string {
  const u = unpriced > 0 ? `${tokensLabel(unpriced)} unpriced` : "";
  if (cost == null) return u;
  return u ? `$${cost.toFixed(2)} + ${u}` : `$${cost.toFixed(2)}`;
}

/** "42s", "6m07s", "3h05m". */
export function durationLabel(ms: number | null): string {
  if (ms == null) return "";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** A snippet cut into text and matched parts (`[word]`), to be shown as text, never as HTML. */
export function snippetParts(snippet: string): { text: string; hit: boolean }[] {
  const out: { text: string; hit: boolean }[] = [];
  const re = /\[([^\]]*)\]/g;
  let at = 0;
  for (let m = re.exec(snippet); m; m = re.exec(snippet)) {
    if (m.index > at) out.push({ text: snippet.slice(at, m.index), hit: false });
    out.push({ text: m[1], hit: true });
    at = m.index + m[0].length;
  }
  if (at < snippet.length) out.push({ text: snippet.slice(at), hit: false });
  return out;
}
