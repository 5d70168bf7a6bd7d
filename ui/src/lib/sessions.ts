// The session list's rows: the logs found on this machine and the recently opened ones, each with
// what it is about (its title, else its name), its harness, date and size, and a filter over them.

import type { FoundLog, RecentEntry } from "./generated/app";
import { recentLabel } from "./settings";

export interface SessionRow {
  kind: "recent" | "found";
  paths: string[];
  /** The title (a log's title, summary or first prompt), else the file or folder name. */
  title: string;
  /** The file or folder name, shown beside a title. */
  name: string;
  harness: string | null;
  /** Epoch milliseconds: when it was opened (recent) or last changed (found). */
  when: number | null;
  size: number | null;
}

/** Recent entries first (with a found log's title when it is the same path), then the found logs. */
export function sessionRows(recent: readonly RecentEntry[], found: readonly FoundLog[]): SessionRow[] {
  const byPath = new Map(found.map((f) => [f.path, f]));
  const rows: SessionRow[] = recent.map((r) => {
    const f = r.paths.length === 1 ? byPath.get(r.paths[0]) : undefined;
    const name = recentLabel(r.paths);
    return { kind: "recent", paths: r.paths, title: f?.title ?? name, name, harness: f?.harness ?? null, when: r.openedAt || null, size: f?.size ?? null };
  });
  for (const f of found)
    rows.push({ kind: "found", paths: [f.path], title: f.title ?? f.name, name: f.name, harness: f.harness, when: f.modified ?? null, size: f.size ?? null });
  return rows;
}

/** The rows whose title, name, harness or path contain every word of `query` (ignoring case). */
export function filterRows(rows: readonly SessionRow[], query: string): SessionRow[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...rows];
  return rows.filter((r) => {
    const hay = `${r.title}\n${r.name}\n${r.harness ?? ""}\n${r.paths.join("\n")}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** "1.4 MB", "820 KB", "96 B". */
export function sizeLabel(bytes: number | null): string {
  if (bytes === null) return "";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** "2026-11-30 10:22" in local time. */
export function dateLabel(ms: number | null): string {
  if (ms === null) return "";
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}
