// Settings that persist between runs (kept by tauri-plugin-store through ipc.ts): the recent list
// and the theme. The pure rules live here so they can be tested without the store.

/** One entry of the recent list: the paths opened together, and when (epoch ms, from the UI clock). */
export interface RecentEntry {
  paths: string[];
  openedAt: number;
}

export type Theme = "system" | "light" | "dark";

export const RECENT_LIMIT = 10;

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
}

/** The list with `paths` moved (or added) to the front, duplicates dropped, at most `limit` long. */
export function pushRecent(list: RecentEntry[], paths: string[], openedAt: number, limit = RECENT_LIMIT): RecentEntry[] {
  const rest = list.filter((e) => !sameSet(e.paths, paths));
  return [{ paths: [...paths], openedAt }, ...rest].slice(0, limit);
}

/** Accepts only a well-formed stored list (the store file may have been edited by hand). */
export function parseRecent(raw: unknown): RecentEntry[] {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter(
      (e): e is RecentEntry =>
        !!e &&
        typeof e === "object" &&
        Array.isArray((e as RecentEntry).paths) &&
        (e as RecentEntry).paths.every((p) => typeof p === "string") &&
        (e as RecentEntry).paths.length > 0 &&
        typeof (e as RecentEntry).openedAt === "number",
    )
    .slice(0, RECENT_LIMIT);
}

export function parseTheme(raw: unknown): Theme {
  return raw === "light" || raw === "dark" ? raw : "system";
}

/** A short name for a set of paths: the last path component, and how many more. */
export function recentLabel(paths: string[]): string {
  const base = (p: string) => p.replace(/[\\/]+$/, "").split(/[\\/]/).pop() || p;
  if (paths.length === 0) return "";
  return paths.length === 1 ? base(paths[0]) : `${base(paths[0])} +${paths.length - 1}`;
}
