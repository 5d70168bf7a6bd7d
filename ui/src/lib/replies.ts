// The replies view's model: for each wait of a root, the reply it settled on beside what the naive
// reading would have taken; and each session's own replies per turn.

import type { Diagnostic, Place, Reply, Wait } from "./report";

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

/**
 * Where the message the naive waiter would have returned is: the `child-reply-would-replace-root-reply`
 * finding inside the wait (from its start to the naive end, same file). Null when there is none
 * (the naive reply is the root's own, or the naive waiter failed or stayed open).
 */
export function naiveReplyPlace(wait: Wait, diagnostics: Diagnostic[]): Place | null {
  const start = wait.start;
  const end = wait.naive.end;
  if (!start || !end || end.file !== start.file) return null;
  let found: Place | null = null;
  for (const d of diagnostics) {
    if (d.code !== "child-reply-would-replace-root-reply" || d.at.file !== start.file) continue;
    if (d.at.line >= start.line && d.at.line <= end.line) found = d.at;
  }
  return found;
}

/** The findings at a place (what makes the naive waiter stop there, say). */
export function findingsAt(place: Place | null | undefined, diagnostics: Diagnostic[]): Diagnostic[] {
  return place ? diagnostics.filter((d) => d.at.file === place.file && d.at.line === place.line) : [];
}

/** True when the naive reading of a dsh-rpc root turn drops notifications (the engine can list them). */
export function dropsNotifications(wait: Wait): boolean {
  return wait.notifications !== undefined && wait.naive.notifications !== undefined && wait.notifications > wait.naive.notifications;
}

/** Items the replies view shows at first, and adds at each "show more": a large log has hundreds of
 *  thousands of replies, and drawing them all at once froze the webview. */
export const REPLIES_PAGE = 100;

/**
 * The first `limit` replies of the groups, in order, as groups: a group cut short keeps its first
 * replies; the groups after the limit are left out.
 */
export function firstReplies<G extends { replies: Reply[] }>(groups: G[], limit: number): G[] {
  const out: G[] = [];
  let left = limit;
  for (const g of groups) {
    if (left <= 0) break;
    out.push(g.replies.length <= left ? g : { ...g, replies: g.replies.slice(0, left) });
    left -= g.replies.length;
  }
  return out;
}
