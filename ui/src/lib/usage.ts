// The usage table's model (views/UsageView.svelte): its columns, what a click on a column's
// heading does to the sort, and the sort as the per-log view state keeps it ("cost subtree desc").
// The rows themselves are the engine's (`View::usage_page`), sorted there a page at a time.

import type { UsageColumn, UsageRow, UsageScope, UsageSort } from "./generated/view";
import type { Usage } from "./generated/report";
import { formatCost, formatDuration, formatTokens, totalTokens } from "./transcript";

export const TREE_SORT: UsageSort = { column: "tree", scope: "own", descending: false };

/** The table's columns after the session's name, in order: heading, what it sorts by, a tooltip. */
export const USAGE_COLUMNS: { column: Exclude<UsageColumn, "tree">; heading: string; title: string }[] = [
  { column: "turns", heading: "turns", title: "Turns the session ran" },
  { column: "input", heading: "in", title: "Input tokens (not cached)" },
  { column: "output", heading: "out", title: "Output tokens" },
  { column: "cache-read", heading: "cache r", title: "Tokens read from the cache" },
  { column: "cache-write", heading: "cache w", title: "Tokens written to the cache" },
  { column: "tokens", heading: "tokens", title: "Every token: in, out, cache read and cache write" },
  { column: "cost", heading: "cost", title: "What the priced part cost; tokens of models without a price are counted beside it, never priced at $0" },
  { column: "duration", heading: "duration", title: "First start to last end of its runs and turns, on the log's clock" },
];

/**
 * A click on a column's heading: a new column sorts most first, the same one again least first,
 * a third time back to the tree's order. The session's heading goes back to the tree's order.
 */
export function clickColumn(sort: UsageSort, column: UsageColumn): UsageSort {
  if (column === "tree") return { ...TREE_SORT, scope: sort.scope };
  if (sort.column !== column) return { column, scope: sort.scope, descending: true };
  if (sort.descending) return { ...sort, descending: false };
  return { ...TREE_SORT, scope: sort.scope };
}

/** The sort as the view state keeps it: "cost subtree desc". */
export function usageSortText(sort: UsageSort): string {
  return `${sort.column} ${sort.scope} ${sort.descending ? "desc" : "asc"}`;
}

const COLUMNS: readonly string[] = ["tree", ...USAGE_COLUMNS.map((c) => c.column)];

/** A kept sort read back; the tree's order (own counts) when none or an unknown one was kept. */
export function parseUsageSort(raw: string | null | undefined): UsageSort {
  const [column, scope, dir] = (raw ?? "").split(" ");
  if (!COLUMNS.includes(column) || (scope !== "own" && scope !== "subtree")) return TREE_SORT;
  return { column: column as UsageColumn, scope: scope as UsageScope, descending: dir === "desc" };
}

/** What a row's cell of `column` says in `scope` ("" where the log has nothing to say). */
export function usageCell(row: UsageRow, column: Exclude<UsageColumn, "tree">, scope: UsageScope): string {
  const own = scope === "own";
  const u: Usage | undefined = own ? row.usage : row.subtree_usage;
  switch (column) {
    case "turns":
      return String(own ? row.turns : row.subtree_turns);
    case "input":
      return u ? formatTokens(u.input) : "";
    case "output":
      return u ? formatTokens(u.output) : "";
    case "cache-read":
      return u ? formatTokens(u.cache_read) : "";
    case "cache-write":
      return u ? formatTokens(u.cache_write) : "";
    case "tokens":
      return u ? formatTokens(totalTokens(u)) : "";
    case "cost":
      return u ? formatCost(u) : "";
    case "duration": {
      const ms = own ? row.duration : row.subtree_duration;
      return ms === undefined ? "" : formatDuration(ms) || "0ms";
    }
  }
}
