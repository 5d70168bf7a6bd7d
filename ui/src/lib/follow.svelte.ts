// The followed log's revisions, for every view that shows it: the app sets them as `changed`
// messages arrive (App.svelte), views either take the open log's `revision` prop (the tree, the
// findings, the timeline, the replies ask for what they show again on a new one) or subscribe
// here to learn what grew (a transcript grows at its bottom). It also keeps, for the latency
// benchmark (bench/follow-latency), when each revision was first drawn.

import type { Followed } from "./generated/app";

/** One change of the open log while it is followed. */
export interface RevisionChange {
  revision: number;
  /** What grew, the bytes read so far and the new counts (`open.rs` `Followed`). */
  followed: Followed;
}

export type RevisionListener = (change: RevisionChange) => void;

/**
 * When a followed revision was drawn: its bytes read, the wall clock (ms) of the drawing, and when
 * its change was shown to the views (after waiting, merged, for the change before to be drawn).
 */
export interface Drawn {
  revision: number;
  readTo: number;
  at: number;
  shown?: number;
}

/** When a followed revision's message came: its bytes read and the wall clock (ms). */
export interface Received {
  revision: number;
  readTo: number;
  at: number;
}

/** How long a change is held back while the page draws the one before, at most. */
const HOLD_MAX = 1000;

/** Two changes as one: the later one's revision and counts, what grew in either. */
function merged(a: RevisionChange | null, b: RevisionChange): RevisionChange {
  if (!a) return b;
  const union = (x: string[], y: string[]) => [...new Set([...x, ...y])];
  return {
    revision: b.revision,
    followed: {
      ...b.followed,
      grown: union(a.followed.grown, b.followed.grown),
      appeared: union(a.followed.appeared, b.followed.appeared),
      bytes: a.followed.bytes + b.followed.bytes,
      reread: b.followed.reread ?? a.followed.reread,
      errors: [...a.followed.errors, ...b.followed.errors],
    },
  };
}

export class Live {
  /** Whether what is open is followed. */
  following = $state(false);
  /** Date.now() when the last change arrived; null before any since Follow went on. */
  updatedAt = $state<number | null>(null);
  /** The revision of the last change (-1 before any). */
  revision = $state(-1);
  last = $state.raw<Followed | null>(null);
  private listeners = new Set<RevisionListener>();
  private readTo = new Map<number, number>();
  /** The drawn revisions, for the benchmark (the last thousand). */
  readonly drawn: Drawn[] = [];
  /** The messages as they came, for the benchmark (the last thousand): what the app took, and
   * what the page's waiting and drawing took, are told apart with them. */
  readonly received: Received[] = [];
  private shownAt = new Map<number, number>();
  /** The change the page is drawing (sent to the views, the tree not drawn yet), since when. */
  private drawing: { revision: number; since: number } | null = null;
  /** A change that came meanwhile (later ones merged in), and what shows it. */
  private held: RevisionChange | null = null;
  private show: (f: Followed) => void = () => {};
  private timer: ReturnType<typeof setTimeout> | null = null;

  /**
   * A `changed` message of the followed log came: `show` it (the app swaps the open summary, so
   * every view asks again) now, or, while the page is still drawing the change before, hold it
   * until the tree has drawn that one (at most HOLD_MAX), changes that come meanwhile merged in.
   * The page draws one change at a time and never falls behind by more than one: when changes
   * come faster than it draws, a view asked again before its answer came would ask forever.
   */
  receive(revision: number, followed: Followed, show: (f: Followed) => void, now = Date.now()): void {
    this.show = show;
    this.received.push({ revision, readTo: followed.read_to, at: now });
    if (this.received.length > 1000) this.received.splice(0, this.received.length - 1000);
    if (this.drawing && now - this.drawing.since < HOLD_MAX) {
      this.held = merged(this.held, { revision, followed });
      this.timer ??= setTimeout(() => this.release(Date.now()), HOLD_MAX);
      return;
    }
    this.take({ revision, followed: merged(this.held, { revision, followed }).followed }, now);
  }

  private take(c: RevisionChange, now: number): void {
    this.held = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.drawing = { revision: c.revision, since: now };
    this.shownAt.set(c.revision, now);
    this.show(c.followed);
    this.changed(c.revision, c.followed, now);
  }

  /** What was held goes to the page (its change before was drawn, or took too long). */
  private release(now: number): void {
    this.timer = null;
    this.drawing = null;
    if (this.held) this.take(this.held, now);
  }

  /**
   * Calls `listener` on every change of the followed log, after the open log's revision moved on
   * (so a view asking now gets the new revision). Answers the function that unsubscribes.
   */
  subscribe(listener: RevisionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Follow went on or off: the indicator starts again. */
  set(on: boolean): void {
    this.following = on;
    this.updatedAt = null;
    this.drawing = null;
    this.held = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** A `changed` message of the followed log arrived. */
  changed(revision: number, followed: Followed, now = Date.now()): void {
    if (revision <= this.revision) return;
    this.revision = revision;
    this.last = followed;
    this.updatedAt = now;
    this.readTo.set(revision, followed.read_to);
    for (const l of this.listeners) l({ revision, followed });
  }

  /** A view of the open log drew `revision` (the tree does, once its rows are on screen). */
  markDrawn(revision: number, now = Date.now()): void {
    if (this.drawing && revision >= this.drawing.revision) this.release(now);
    const readTo = this.readTo.get(revision);
    if (readTo === undefined) return;
    this.readTo.delete(revision);
    const shown = this.shownAt.get(revision);
    for (const r of this.shownAt.keys()) if (r <= revision) this.shownAt.delete(r);
    this.drawn.push(shown === undefined ? { revision, readTo, at: now } : { revision, readTo, at: now, shown });
    if (this.drawn.length > 1000) this.drawn.splice(0, this.drawn.length - 1000);
    if (typeof document !== "undefined") document.documentElement.dataset.drawnRevision = String(revision);
  }
}

/** The one followed log of the window. */
export const live = new Live();

// The latency benchmark (bench/follow-latency) reads the drawn revisions from the real app's page.
(globalThis as { __arborLive?: Live }).__arborLive = live;
