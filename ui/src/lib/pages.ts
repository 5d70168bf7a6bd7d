// Rows of a long list that stays on the Rust side (the tree, the findings), held here only for the
// window on screen and a bounded margin around it: rows are asked for in blocks, a block at most
// once at a time, and the blocks farthest from the window are dropped once more than `capacity`
// rows are held. Pure: the views tell it which rows they show and redraw when it says rows came.

/** What a page of rows answers: the rows from `offset`, of `total`, as of `revision`. */
export interface RowPage<T> {
  total: number;
  offset: number;
  revision: number;
  rows: T[];
}

/** How long a jump's window stays put before `RowCache.follow` asks for the rows beside it (ms). */
export const SETTLE = 150;

export type FetchRows<T> = (offset: number, limit: number) => Promise<RowPage<T>>;

export class RowCache<T> {
  /** Rows in all, as the last answer said (or as told). */
  total: number;
  /** The revision of the rows held. */
  revision = -1;
  /** Refreshed and not answered since: the length held is the revision before's. */
  private refreshed = false;
  private blocks = new Map<number, T[]>();
  /** Blocks of the revision before a `refresh`, shown until their new rows come. */
  private stale = new Map<number, T[]>();
  /** The blocks asked for and not answered yet. */
  private asking = new Map<number, Promise<void>>();
  /** Moves on at each reset: answers to an older generation are dropped. */
  private generation = 0;
  private last: [number, number] = [0, 0];
  private margin = true;
  /** The window `follow` was told last and has not asked for yet. */
  private wanted: [number, number] | null = null;
  /** `follow` has an ask on its way (of this generation). */
  private following = false;
  /** The window `follow` asked for last. */
  private followed: [number, number] | null = null;
  private settle: ReturnType<typeof setTimeout> | undefined;
  private paused: ReturnType<typeof setTimeout> | undefined;
  /**
   * With `pause` (ms), a jump's window is asked for only once the list stayed there that long: a
   * drag faster than that asks for nothing on its way, and draws placeholders.
   */
  pause = 0;
  /** An ask of `follow` failed. */
  onerror: (e: unknown) => void = () => {};

  constructor(
    private readonly fetch: FetchRows<T>,
    /** Called when rows arrived (or the total changed): redraw. */
    public onchange: () => void = () => {},
    readonly block = 100,
    readonly capacity = 2000,
    total = 0,
  ) {
    this.total = total;
  }

  /** The row at `index`, when it is held. */
  get(index: number): T | undefined {
    const b = Math.floor(index / this.block);
    return (this.blocks.get(b) ?? this.stale.get(b))?.[index % this.block];
  }

  /** How many rows are held (for tests: bounded by `capacity` plus the window). */
  get held(): number {
    let n = 0;
    for (const b of this.blocks.values()) n += b.length;
    return n;
  }

  /**
   * Asks for the blocks of rows `first..last` (and, with `margin`, a block either side) that are
   * not held or asked for yet. Resolves when the answers for those blocks are in (those asked for
   * before too). Without the margin, a list just refreshed asks only for what is on screen (a
   * followed log's change is drawn sooner); the stale blocks beside it are asked for as it scrolls.
   */
  async ensure(first: number, last: number, margin = true): Promise<void> {
    this.last = [first, last];
    this.margin = margin;
    const m = margin ? 1 : 0;
    const from = Math.max(0, Math.floor(first / this.block) - m);
    const to = Math.floor(Math.max(first, last - 1) / this.block) + m;
    const waits: Promise<void>[] = [];
    for (let b = from; b <= to; b++) {
      // Past the end, but for the first block while the length is not known (nothing answered
      // yet, or a list refreshed that was empty: a followed log's findings may come back).
      if (b * this.block >= this.total && !(b === 0 && this.total === 0 && (this.revision < 0 || this.refreshed))) continue;
      if (this.blocks.has(b)) continue;
      const asked = this.asking.get(b);
      if (asked) waits.push(asked);
      else {
        const ask = this.ask(b);
        this.asking.set(b, ask);
        waits.push(ask);
      }
    }
    await Promise.all(waits);
  }

  /**
   * Follows the window a list shows as it scrolls: asks for its rows once the ask before is
   * answered, so that a jump (the scrollbar dragged) asks for where the list is now, not for every
   * place it passed. A window within a block of the last one (a wheel, a page, the keyboard) is
   * asked for with the margin either side, which comes next; one farther away (a jump) only for
   * its own rows, and for the margin once it has stayed put `SETTLE` ms; with `pause`, only once
   * it has stayed put that long. Errors go to `onerror`.
   */
  follow(first: number, last: number): void {
    this.wanted = [first, last];
    if (this.following) return;
    clearTimeout(this.paused);
    if (this.pause > 0 && !this.near([first, last])) this.paused = setTimeout(() => !this.following && this.next(), this.pause);
    else this.next();
  }

  /** Within a block of the window asked for last. */
  private near(w: [number, number]): boolean {
    const was = this.followed;
    return was !== null && w[0] <= was[1] + this.block && w[1] >= was[0] - this.block;
  }

  private next(): void {
    const w = this.wanted;
    this.following = w !== null;
    if (w === null) return;
    this.wanted = null;
    clearTimeout(this.settle);
    const near = this.near(w);
    this.followed = w;
    const mine = this.generation;
    this.ensure(w[0], w[1], near)
      .then(() => {
        if (near || mine !== this.generation) return;
        this.settle = setTimeout(() => {
          if (this.followed === w && mine === this.generation) this.ensure(w[0], w[1], true).catch(this.onerror);
        }, SETTLE);
      }, this.onerror)
      .finally(() => {
        if (mine === this.generation) this.next();
      });
  }

  private async ask(b: number): Promise<void> {
    const mine = this.generation;
    try {
      const page = await this.fetch(b * this.block, this.block);
      if (mine !== this.generation) return;
      this.blocks.set(b, page.rows);
      this.stale.delete(b);
      this.revision = page.revision;
      this.refreshed = false;
      const grew = page.total !== this.total;
      this.total = page.total;
      this.evict();
      this.onchange();
      // The total changed under the window: the window may need other blocks now.
      if (grew) void this.ensure(...this.last, this.margin);
    } finally {
      if (mine === this.generation) this.asking.delete(b);
    }
  }

  /** Drops the blocks farthest from the last window asked for, beyond `capacity` rows. */
  private evict(): void {
    const max = Math.ceil(this.capacity / this.block);
    if (this.blocks.size <= max) return;
    const centre = (this.last[0] + this.last[1]) / 2 / this.block;
    const far = [...this.blocks.keys()].sort((a, b) => Math.abs(b - centre) - Math.abs(a - centre));
    for (const b of far.slice(0, this.blocks.size - max)) this.blocks.delete(b);
  }

  /**
   * Forgets every row (the list changed: another revision, filter, or collapse state); with
   * `total`, that is the new length. Answers still on their way are dropped.
   */
  reset(total = this.total): void {
    this.generation++;
    this.restart();
    this.blocks.clear();
    this.stale.clear();
    this.asking.clear();
    this.total = total;
    this.revision = -1;
    this.refreshed = false;
    this.onchange();
  }

  /**
   * The list moved on to a newer revision of the same data (a followed log grew): every row is
   * asked for again, and until its block's new rows come the old ones stay shown, so the list
   * does not blink at each change.
   */
  refresh(): void {
    this.generation++;
    this.restart();
    this.refreshed = true;
    for (const [b, rows] of this.blocks) this.stale.set(b, rows);
    this.blocks.clear();
    this.asking.clear();
  }

  /** `follow` starts again (a new generation): the window it was told is asked for at once. */
  private restart(): void {
    clearTimeout(this.settle);
    clearTimeout(this.paused);
    this.following = false;
    this.followed = null;
    if (this.wanted !== null) queueMicrotask(() => !this.following && this.next());
  }
}

/**
 * A list asked for a page at a time under a key (the findings' filter, the usage table's sort):
 * a new key starts a new list, its window asked for; the same key at a new revision (a followed
 * log grew) keeps the rows shown until their new ones come, so the list is not emptied and drawn
 * again at each change. `changed` is told the total when rows come, `answered` once the window's
 * rows of a list are held, and `drawn` the frame after a revision's first rows are.
 */
export class KeyedRows<T> {
  cache: RowCache<T> | null = null;
  private key: string | null = null;
  private window: [number, number] = [0, 40];
  private told = -1;

  constructor(
    private readonly changed: (total: number) => void,
    private readonly answered: () => void,
    private readonly drawn: () => void = () => {},
  ) {}

  /**
   * Shows the list of `key` at `revision`, asking `fetch` for its rows when the key is new: those
   * of `at` when given (where the list opens, its length known: a list opened at row 40,000 asks
   * for that block, not for the first one and then that one), else the window it shows.
   */
  show(key: string, revision: number, fetch: FetchRows<T>, at?: { first: number; last: number; total: number }): "new" | "refreshed" {
    const window: [number, number] = at ? [at.first, at.last] : this.window;
    if (this.cache && this.key === key) {
      this.cache.refresh();
      this.ensure(revision, ...window, false);
      return "refreshed";
    }
    this.key = key;
    const cache: RowCache<T> = new RowCache<T>(fetch, () => this.changed(cache.total), undefined, undefined, at?.total ?? 0);
    this.cache = cache;
    this.ensure(revision, ...window);
    return "new";
  }

  /** The list shows rows `first..last` (`margin`: and a block either side). */
  ensure(revision: number, first: number, last: number, margin = true): void {
    this.window = [first, last];
    const c = this.cache;
    c?.ensure(first, last, margin).then(
      () => {
        if (c !== this.cache) return;
        this.answered();
        if (this.told !== revision) {
          this.told = revision;
          requestAnimationFrame(() => setTimeout(() => this.drawn(), 0));
        }
      },
      () => {},
    );
  }

  get(i: number): T | undefined {
    return this.cache?.get(i);
  }
}
