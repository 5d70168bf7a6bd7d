// The replies view's model: for each wait of a root, the reply it settled on beside what the naive
// reading would have taken; and each session's own replies per turn.

import type { Reply, Wait } from "./report";

export interface WaitComparison {
  wait: Wait;
  /** True when the naive reading gives a different answer than the correct one. */
  differs: boolean;
  /** What differs, in words ("reply", "end", "outcome", "notifications"). */
  differences: string[];
}

function samePlaceOrNull(a: Wait["end"], b: Wait["end"]): boolean {
  if (a === null || b === null) return a === b;
  return a.file === b.file && a.line === b.line;
}

export function compareWait(wait: Wait): WaitComparison {
  const differences: string[] = [];
  const n = wait.naive;
  if (n.reply !== undefined && n.reply !== wait.reply) differences.push("reply");
  if (n.end !== undefined && !samePlaceOrNull(n.end, wait.end)) differences.push("end");
  if (n.outcome !== undefined && n.outcome !== wait.outcome) differences.push("outcome");
  if (n.notifications !== undefined && wait.notifications !== undefined && n.notifications !== wait.notifications) {
    differences.push("notifications");
  }
  return { wait, differs: differences.length > 0, differences };
}

/** Replies grouped by session, sessions in the order given (the tree's order), turns in report order. */
export function repliesBySession(replies: Reply[], order: string[]): Array<{ session: string; replies: Reply[] }> {
  const groups = new Map<string, Reply[]>();
  for (const r of replies) {
    const list = groups.get(r.session) ?? [];
    list.push(r);
    groups.set(r.session, list);
  }
  const rank = new Map(order.map((id, i) => [id, i]));
  return [...groups.entries()]
    .sort(([a], [b]) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity))
    .map(([session, list]) => ({ session, replies: list }));
}
