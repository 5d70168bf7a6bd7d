// The transcript's pure parts: row heights for a list of rows of different heights (measured as
// they are drawn, estimated until then), the markdown renderer for log text, and how tokens and
// costs are written. The rows themselves stay on the Rust side (`transcript_page`).

import { renderMarkdown } from "./markdown";
import type { Media, Part, PartKind, Row } from "./generated/engine";
import type { Link, Usage, UsageSummary } from "./generated/report";

export type { Part, PartKind, Row };

/**
 * The heights of `count` rows, each estimated until it is measured, with the offset of any row
 * and the row at any offset in O(log n) (a Fenwick tree over the heights): a 100,000-row
 * transcript scrolls without summing heights on every frame.
 */
export class Heights {
  readonly count: number;
  private readonly h: Float64Array;
  private readonly tree: Float64Array;
  private readonly top: number;

  constructor(count: number, estimate: number) {
    this.count = count;
    this.h = new Float64Array(count).fill(estimate);
    this.tree = new Float64Array(count + 1);
    // Every node i of a Fenwick tree sums the (i & -i) heights ending at i.
    for (let i = 1; i <= count; i++) this.tree[i] = estimate * (i & -i);
    this.top = count === 0 ? 0 : 1 << Math.floor(Math.log2(count));
  }

  height(i: number): number {
    return this.h[i] ?? 0;
  }

  /** Sets row i's height; answers how much it changed. */
  set(i: number, height: number): number {
    if (i < 0 || i >= this.count) return 0;
    const d = height - this.h[i];
    if (d === 0) return 0;
    this.h[i] = height;
    for (let j = i + 1; j <= this.count; j += j & -j) this.tree[j] += d;
    return d;
  }

  /** The top of row i: the heights of the rows before it. */
  offset(i: number): number {
    let s = 0;
    for (let j = Math.min(i, this.count); j > 0; j -= j & -j) s += this.tree[j];
    return s;
  }

  get total(): number {
    return this.offset(this.count);
  }

  /** These heights for `count` rows (a followed session grew): the measured ones kept, the rows
   * added at `estimate`, so that what the user reads does not move. */
  grown(count: number, estimate: number): Heights {
    const next = new Heights(count, estimate);
    for (let i = 0; i < Math.min(count, this.count); i++) if (this.h[i] !== estimate) next.set(i, this.h[i]);
    return next;
  }

  /** The row at offset `y` (the last row for `y` past the end, 0 before the start). */
  indexAt(y: number): number {
    if (this.count === 0 || y <= 0) return 0;
    let pos = 0;
    let rest = y;
    for (let step = this.top; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= this.count && this.tree[next] <= rest) {
        pos = next;
        rest -= this.tree[next];
      }
    }
    return Math.min(pos, this.count - 1);
  }
}

/** Markdown for log text: the app's one renderer (./markdown: raw HTML off, links shown, never followed). */
export function markdown(text: string): string {
  return renderMarkdown(text);
}

/** JSON text pretty-printed, or as it is when it does not parse (a cut text, a string). */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** "950", "12.3k", "4.56M": a token count in a narrow column. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1).replace(/\.?0+$/, "")}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1).replace(/\.?0+$/, "")}M`;
}

/** Every token a usage counts: input, output, cache read and cache write. */
export function totalTokens(u: Usage): number {
  return u.input + u.output + u.cache_read + u.cache_write;
}

/** "$1.23"; "<$0.01" for a cost under a cent. */
function dollars(c: number): string {
  if (c > 0 && c < 0.01) return "<$0.01";
  return `$${c.toFixed(2)}`;
}

/**
 * The tokens of a count that have no price, and the models behind them (SPEC 4 `unpriced`): the
 * engine names them; a count with neither a cost nor that list (a count made before prices were
 * looked up) is unpriced whole, its models unnamed.
 */
export function unpricedOf(u: Usage): { tokens: number; models: string[] } | null {
  if (u.unpriced && u.unpriced.tokens > 0) return { tokens: u.unpriced.tokens, models: u.unpriced.models };
  if ((u.cost === undefined || u.cost === null) && !u.unpriced && totalTokens(u) > 0) return { tokens: totalTokens(u), models: [] };
  return null;
}

/**
 * What a count costs, never hidden by a model without a price (SPEC 4): the priced part and the
 * tokens left unpriced beside it, "$6.27 + 1.2M tokens unpriced"; "1.2M tokens unpriced" when no
 * model has a price; "$1.23" when all have. Never "$0" for an unpriced model.
 */
export function formatCost(u: Usage): string {
  const rest = unpricedOf(u);
  const priced = u.cost === undefined || u.cost === null ? null : dollars(u.cost);
  if (rest === null) return priced ?? "$0.00";
  const tail = `${formatTokens(rest.tokens)} tokens unpriced`;
  return priced === null ? tail : `${priced} + ${tail}`;
}

/** The models a count leaves unpriced, for a tooltip: "unpriced: 1.2M tokens of mystery-model, other" or "". */
export function unpricedTitle(u: Usage): string {
  const rest = unpricedOf(u);
  if (rest === null) return "";
  const who = rest.models.length ? ` of ${rest.models.join(", ")}` : " (no model named)";
  return `unpriced: ${formatTokens(rest.tokens)} tokens${who}; the price table has no price for ${rest.models.length === 1 ? "it" : "them"}`;
}

/** A count's breakdown and, where some of it has no price, which models: a tooltip. */
export function usageTitle(u: Usage): string {
  const rest = unpricedTitle(u);
  return rest ? `${usageBreakdown(u)} · ${formatCost(u)}\n${rest}` : `${usageBreakdown(u)} · ${formatCost(u)}`;
}

/** "in 1.2k · out 300 · cache read 4k · cache write 0", for a tooltip or the inspector. */
export function usageBreakdown(u: Usage): string {
  return `in ${formatTokens(u.input)} · out ${formatTokens(u.output)} · cache read ${formatTokens(u.cache_read)} · cache write ${formatTokens(u.cache_write)}`;
}

/** The per-model lines of a summary, largest first. */
export function modelLines(s: UsageSummary): { model: string; tokens: string; cost: string; unpriced: boolean; detail: string }[] {
  return [...s.models]
    .sort((a, b) => totalTokens(b.usage) - totalTokens(a.usage))
    .map((m) => {
      const unpriced = unpricedOf(m.usage) !== null;
      return { model: m.model, tokens: formatTokens(totalTokens(m.usage)), cost: unpriced ? "unpriced" : formatCost(m.usage), unpriced, detail: usageBreakdown(m.usage) };
    });
}

/** What a part is called in the transcript. */
export const PART_LABEL: Record<PartKind, string> = {
  prompt: "prompt",
  text: "assistant",
  reasoning: "reasoning",
  "tool-call": "tool call",
  "tool-result": "tool result",
  spawn: "spawned",
  received: "received",
  compaction: "compaction",
  notice: "notice",
  usage: "model call",
  image: "image",
};

/** An image part's type and size, "image/png · 12.3 KB", for its marker. */
export function mediaLabel(m: Media | null): string {
  const type = m?.media_type ?? "image, type unknown";
  if (m?.bytes == null) return type;
  const b = m.bytes;
  const size = b < 1024 ? `${b} B` : b < 1024 * 1024 ? `${(b / 1024).toFixed(1)} KB` : `${(b / 1024 / 1024).toFixed(1)} MB`;
  return `${type} · ${size}`;
}

/** The turn and step of a row, "turn 3 · step 2", or "" when the log names neither. */
export function turnStep(r: Row): string {
  const t = r.turn === null ? "" : `turn ${r.turn}`;
  const s = r.step === null ? "" : `step ${r.step}`;
  return [t, s].filter(Boolean).join(" · ");
}

/** How a sub-agent was linked to its parent (`report::Link`), in a few words for people. */
export const LINK_LABEL: Record<Link, string> = {
  "start-edge": "linked by its start event",
  header: "linked by its header's parent session",
  "agent-id": "linked by the start event's parent id",
  "tool-call": "linked by the spawning tool call",
  "parent-tool-call-id": "linked by its parent tool-call id",
  meta: "linked by meta sidecar",
  "tool-result": "linked by the parent's tool result",
  "result-text": "linked by the agent id in the result text",
  "parent-uuid": "linked by its first parentUuid",
  prompt: "linked by matching prompt",
  "thread-spawn": "linked by its parent thread id",
  activity: "linked by sub-agent activity",
  "time-window": "linked by time (review window)",
  folder: "linked by its folder (the root session's)",
  "parent-id": "linked by its parentID (the session that made it)",
  inferred: "inferred (nothing names the parent)",
};

const two = (n: number) => String(n).padStart(2, "0");

/** "14:03:27": a row's clock time (epoch ms), in the local time zone. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** "850ms", "1.5s", "42s", "2m 03s", "1h 02m": a span of time, short. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(1).replace(/\.0$/, "")}s`;
  if (s < 60) return `${Math.floor(s)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${two(Math.floor(s % 60))}s`;
  return `${Math.floor(m / 60)}h ${two(m % 60)}m`;
}

/**
 * When the turn of row `i` began: the time of its first row, found by going back through the
 * rows held (`get`) to where the turn changes; null when the turn's start is not held (a turn
 * longer than what is held) or a row on the way has no time.
 */
export function turnStart(i: number, get: (i: number) => Row | undefined, limit = 500): number | null {
  const r = get(i);
  if (!r || r.turn === null) return null;
  let start = r.time;
  for (let j = i - 1; j >= Math.max(-1, i - limit); j--) {
    if (j < 0) return start;
    const o = get(j);
    if (!o) return null;
    if (o.turn !== r.turn) return start;
    if (o.time !== null) start = o.time;
  }
  return null;
}
