// What the UI does with the settings the app keeps (src-tauri/src/settings.rs, through ipc.ts):
// labels for the recent list, and the key a log's view state is saved under.

import type { TreeOrder } from "./generated/view";

export type { RecentEntry, Theme, ViewState } from "./generated/app";

/** A short name for a set of paths: the last path component, and how many more. */
export function recentLabel(paths: string[]): string {
  const base = (p: string) => p.replace(/[\\/]+$/, "").split(/[\\/]/).pop() || p;
  if (paths.length === 0) return "";
  return paths.length === 1 ? base(paths[0]) : `${base(paths[0])} +${paths.length - 1}`;
}

/** The key the built-in sample's view state is kept under (it has no paths of its own; the app reads it too: `SAMPLE_KEY` in src-tauri/src/commands/load.rs). */
export const SAMPLE_KEY = ["arbor:sample"];

/** The side pane's tabs; a saved tab that is not one of them is ignored. */
export const TABS = ["findings", "replies", "search", "changes", "usage"] as const;
export type Tab = (typeof TABS)[number];

export function parseTab(raw: string | undefined | null): Tab | null {
  return (TABS as readonly string[]).includes(raw ?? "") ? (raw as Tab) : null;
}

/** The tree's orders, as the tree pane's select offers them. */
export const TREE_ORDERS: { value: TreeOrder; label: string }[] = [
  { value: "wire", label: "as in the log" },
  { value: "subtree-tokens", label: "subtree tokens" },
  { value: "own-tokens", label: "own tokens" },
  { value: "subtree-cost", label: "subtree cost" },
  { value: "subtree-duration", label: "subtree duration" },
  { value: "own-duration", label: "own duration" },
];

/** A saved tree order, or the log's own order when none (or an unknown one) was saved. */
export function parseTreeOrder(raw: string | undefined | null): TreeOrder {
  return TREE_ORDERS.find((o) => o.value === raw)?.value ?? "wire";
}

/** The lower pane's tabs; a saved one that is not one of them is ignored. */
export type Lower = "inspector" | "transcript";

export function parseLower(raw: string | undefined | null): Lower | null {
  return raw === "inspector" || raw === "transcript" ? raw : null;
}

/**
 * What the strip says is open: each path once, a path inside a folder also opened left out (the
 * engine reads it once, with the folder), the paths' own spelling kept.
 */
export function openedLabel(paths: string[]): string {
  return distinctPaths(paths).join(", ");
}

/** `paths` without repeats, nor a path inside another of them (compared without a trailing separator). */
export function distinctPaths(paths: string[]): string[] {
  const all = paths.map(barePath);
  return paths.filter((_, i) => {
    const p = all[i];
    if (all.indexOf(p) !== i) return false;
    return !all.some((q, j) => j !== i && q !== p && inside(p, q));
  });
}

/** A path without its trailing separators (a root such as "/" kept). */
export function barePath(p: string): string {
  return p.replace(/(.)[\\/]+$/, "$1");
}

/** Whether path `p` is under folder `q` (either separator; `q` may be a root such as "/"). */
export function inside(p: string, q: string): boolean {
  if (/[\\/]$/.test(q)) return p.startsWith(q);
  return p.startsWith(`${q}/`) || p.startsWith(`${q}\\`);
}
