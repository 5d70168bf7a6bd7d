// How a search hit's text shows in a narrow row: the engine sends some context before the match;
// the row starts shortly before it and marks it. Log text stays plain text (rendered as text).

import type { SearchEnd, SearchEvent, SearchHit } from "./generated/view";

/** `text` split around the first case-insensitive match of `query`, starting at most `lead` characters before it. */
export function matchParts(text: string, query: string, lead = 24): { before: string; match: string; after: string } {
  const q = query.trim().toLowerCase();
  const at = q ? text.toLowerCase().indexOf(q) : -1;
  // Lowercasing may change lengths outside ASCII; then the offsets are not trusted.
  if (at < 0 || text.toLowerCase().length !== text.length) return { before: text, match: "", after: "" };
  const start = Math.max(0, at - lead);
  const before = (start > 0 || text.startsWith("…") ? "…" : "") + text.slice(start > 0 ? start : 0, at).replace(/^…/, "");
  return { before, match: text.slice(at, at + q.length), after: text.slice(at + q.length) };
}

/**
 * A piece of a raw JSON line as a reader wants it: string escapes undone (`\"` is `"`, `\u00e9`
 * is `é`, a newline or tab a space) and runs of spaces made one. A piece cut inside an escape
 * keeps what cannot be read. The result is shown as text.
 */
export function unescapeJson(text: string): string {
  return text
    .replace(/\\(u[0-9a-fA-F]{4}|["\\/bfnrt])/g, (_, e: string) => {
      if (e[0] === "u") {
        const c = parseInt(e.slice(1), 16);
        return c < 0x20 ? " " : String.fromCharCode(c);
      }
      return ({ b: " ", f: " ", n: " ", r: " ", t: " " } as Record<string, string>)[e] ?? e;
    })
    .replace(/\s+/g, " ");
}

/** `matchParts` of a record hit's raw text, each part unescaped (`unescapeJson`). */
export function snippetParts(text: string, query: string, lead = 24): { before: string; match: string; after: string } {
  const p = matchParts(text, query, lead);
  return { before: unescapeJson(p.before), match: unescapeJson(p.match), after: unescapeJson(p.after) };
}

/**
 * What the search view shows of a search that streams: the hits so far (at most `MAX_HITS` are
 * kept: past them the user is asked to narrow the query), how much of the log has been read, and
 * how it ended (`null` while it runs: nothing is said to be missing before the end).
 */
export interface Streamed {
  hits: SearchHit[];
  /** Hits found in all, kept or not. */
  found: number;
  bytesRead: number;
  bytesTotal: number;
  end: SearchEnd | null;
}

/** Hits the page keeps at most. */
export const MAX_HITS = 5000;

export function startSearch(): Streamed {
  return { hits: [], found: 0, bytesRead: 0, bytesTotal: 0, end: null };
}

/** The state after one more event of the stream (a new object). */
export function applySearch(s: Streamed, e: SearchEvent): Streamed {
  switch (e.type) {
    case "hits": {
      const room = Math.max(0, MAX_HITS - s.hits.length);
      return { ...s, hits: room ? [...s.hits, ...e.hits.slice(0, room)] : s.hits, found: s.found + e.hits.length };
    }
    case "progress":
      return { ...s, bytesRead: e.bytes_read, bytesTotal: e.bytes_total, found: Math.max(s.found, e.hits) };
    case "end":
      return { ...s, end: e.end, found: Math.max(s.found, e.hits) };
  }
}

/** A search going on after its limit: the same hits, running again. */
export function resumeSearch(s: Streamed): Streamed {
  return { ...s, end: null };
}

/** The status line: what has been read and found so far, or how the search ended. */
export function searchStatus(s: Streamed, query: string, limit: number): string {
  const hits = `${s.found} ${s.found === 1 ? "hit" : "hits"}`;
  const read = s.bytesTotal > 0 ? `${Math.min(100, Math.floor((s.bytesRead / s.bytesTotal) * 100))} % of the log read` : "sessions searched";
  if (s.end === null) return `Searching… ${hits} so far, ${read}`;
  if (s.end === "limit") return `Stopped after ${hits} (${limit} at a time), ${read}`;
  if (s.end === "stopped") return `Stopped: ${hits}`;
  if (s.found === 0) return `Nothing matches “${query}”.`;
  return s.found > s.hits.length ? `${hits}; the first ${s.hits.length} are listed: narrow the query to see the rest` : hits;
}
