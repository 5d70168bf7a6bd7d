// The followed log's revisions, for every view that shows it: the app sets them as `changed`
// messages arrive (App.svelte), views either take the open log's `revision` prop (the tree, the
// findings, the timeline, the replies ask for what they show again on a new one) or subscribe
// here to learn what grew (a transcript grows at its bottom). It also keeps, for the latency
// benchmark (bench/follow-latency), when each revision was first drawn.

import type { Followed } from "./generated/app";

/** One change of the open log while it is followed. */
export interface RevisionChange {
  revision: number;
  /** What grew, the bytes read so far and the new counts (`follow.rs` `Followed`). */
  followed: Followed;
}

export type RevisionListener = (change: RevisionChange) => void;

/** When a followed revision was drawn: its bytes read and the wall clock (ms) of the drawing. */
export interface Drawn {
  revision: number;
  readTo: number;
  at: number;
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
    const readTo = this.readTo.get(revision);
    if (readTo === undefined) return;
    this.readTo.delete(revision);
    this.drawn.push({ revision, readTo, at: now });
    if (this.drawn.length > 1000) this.drawn.splice(0, this.drawn.length - 1000);
    document.documentElement.dataset.drawnRevision = String(revision);
  }
}

/** The one followed log of the window. */
export const live = new Live();

// The latency benchmark (bench/follow-latency) reads the drawn revisions from the real app's page.
(globalThis as { __arborLive?: Live }).__arborLive = live;
