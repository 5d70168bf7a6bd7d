import { describe, expect, it } from "vitest";
import { KeyedRows, RowCache, SETTLE, type RowPage } from "./pages";

/** A list of `n` rows (row i is i) answered after the test releases each ask. */
function source(n: number, revision = 1) {
  const asked: Array<[number, number]> = [];
  const pending: Array<() => void> = [];
  const fetch = (offset: number, limit: number) => {
    asked.push([offset, limit]);
    return new Promise<RowPage<number>>((resolve) => {
      pending.push(() => {
        const rows = Array.from({ length: Math.max(0, Math.min(limit, n - offset)) }, (_, k) => offset + k);
        resolve({ total: n, offset, revision, rows });
      });
    });
  };
  /** Answers every ask, and the asks those answers lead to, until none is left. */
  const release = async () => {
    do {
      while (pending.length) pending.shift()!();
      await new Promise((r) => setTimeout(r, 0));
    } while (pending.length);
  };
  return { fetch, asked, release, grow: (m: number) => (n = m) };
}

describe("RowCache", () => {
  it("asks for the first block to learn the length, then for the blocks around the window", async () => {
    const s = source(1000);
    let changes = 0;
    const cache = new RowCache(s.fetch, () => changes++, 100, 2000);
    void cache.ensure(0, 30);
    await s.release();
    expect(s.asked).toEqual([[0, 100], [100, 100]]);
    expect(cache.total).toBe(1000);
    expect([cache.get(0), cache.get(29), cache.get(150), cache.get(250)]).toEqual([0, 29, 150, undefined]);
    expect(changes).toBeGreaterThan(0);
    // A window further down asks only for what it lacks, once, however often it is asked.
    void cache.ensure(420, 460);
    void cache.ensure(420, 460);
    await s.release();
    expect(s.asked.slice(2)).toEqual([[300, 100], [400, 100], [500, 100]]);
  });

  it("waits for a block already asked for before it says the rows are in", async () => {
    const s = source(1000);
    const cache = new RowCache(s.fetch, () => {}, 100, 2000);
    void cache.ensure(0, 10);
    let done = false;
    const second = cache.ensure(4, 5).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 0));
    expect(done).toBe(false);
    await s.release();
    await second;
    expect(cache.get(4)).toBe(4);
    expect(s.asked.filter(([o]) => o === 0)).toHaveLength(1);
  });

  it("holds a bounded number of rows, dropping the blocks farthest from the window", async () => {
    const s = source(100_000);
    const cache = new RowCache(s.fetch, () => {}, 100, 500);
    for (let first = 0; first < 50_000; first += 7_000) {
      void cache.ensure(first, first + 40);
      await s.release();
      expect(cache.get(first)).toBe(first);
      expect(cache.held).toBeLessThanOrEqual(500);
    }
  });

  it("drops answers that come after a reset and learns a new length", async () => {
    const s = source(300);
    const cache = new RowCache(s.fetch, () => {}, 100, 2000);
    void cache.ensure(0, 10);
    cache.reset(50);
    await s.release();
    expect(cache.get(0)).toBeUndefined();
    expect(cache.total).toBe(50);
    s.grow(120);
    void cache.ensure(0, 10);
    await s.release();
    // The answer says 120: the window's neighbour block is asked for then.
    expect(cache.total).toBe(120);
    expect(cache.get(110)).toBe(110);
  });

  it("keeps showing the old rows after a refresh until the new ones come", async () => {
    let revision = 1;
    const waiting: (() => void)[] = [];
    const answer = () => waiting.splice(0).forEach((done) => done());
    const cache = new RowCache<string>((offset, limit) => {
      const r = revision;
      const page = { total: 10 * r, offset, revision: r, rows: Array.from({ length: Math.min(limit, 10 * r - offset) }, (_, i) => `${r}:${offset + i}`) };
      return r === 1 ? Promise.resolve(page) : new Promise((done) => waiting.push(() => done(page)));
    }, () => {}, 5);
    await cache.ensure(0, 5);
    expect(cache.get(0)).toBe("1:0");
    revision = 2;
    cache.refresh();
    const asked = cache.ensure(0, 5);
    expect(cache.get(0)).toBe("1:0");
    answer();
    await asked;
    expect(cache.get(0)).toBe("2:0");
    expect(cache.total).toBe(20);
  });

  it("asks again after a refresh when the list was empty (a followed log's findings came back)", async () => {
    const s = source(0);
    const cache = new RowCache(s.fetch, () => {}, 100);
    void cache.ensure(0, 40, false);
    await s.release();
    expect(cache.total).toBe(0);
    s.grow(17);
    cache.refresh();
    void cache.ensure(0, 40, false);
    await s.release();
    expect(cache.total).toBe(17);
    expect(cache.get(16)).toBe(16);
    // Still empty after a refresh: one ask, then none until the next refresh.
    s.grow(0);
    cache.refresh();
    void cache.ensure(0, 40, false);
    await s.release();
    s.asked.length = 0;
    void cache.ensure(0, 40, false);
    await s.release();
    expect(s.asked).toEqual([]);
  });

  it("follows a dragged scrollbar with one ask at a time, for where the list is now", async () => {
    const s = source(100_000);
    const cache = new RowCache(s.fetch, () => {}, 100, 2000);
    void cache.ensure(0, 30);
    await s.release();
    s.asked.length = 0;
    // Three jumps before the first is answered: the first is asked for, the second never.
    cache.follow(50_000, 50_030);
    cache.follow(60_000, 60_030);
    cache.follow(70_050, 70_130);
    expect(s.asked).toEqual([[50_000, 100]]);
    await s.release();
    // A jump asks for its own rows only: no margin block either side.
    expect(s.asked).toEqual([[50_000, 100], [70_000, 100], [70_100, 100]]);
    expect(cache.get(60_000)).toBeUndefined();
    // Once it stayed put, the rows beside it.
    await new Promise((r) => setTimeout(r, SETTLE + 20));
    await s.release();
    expect(s.asked.slice(3)).toEqual([[69_900, 100], [70_200, 100]]);
    // Scrolling on from there asks with the margin at once.
    cache.follow(70_150, 70_250);
    await s.release();
    expect(s.asked.slice(5)).toEqual([[70_300, 100]]);
  });

  it("follows the window again at once after a reset, without waiting for the dropped answer", async () => {
    const s = source(1000);
    const cache = new RowCache(s.fetch, () => {}, 100, 2000);
    cache.follow(0, 30);
    cache.follow(500, 530);
    cache.reset(1000);
    cache.follow(800, 830);
    await new Promise((r) => setTimeout(r, 0));
    expect(s.asked).toEqual([[0, 100], [800, 100]]);
    await s.release();
    expect(cache.get(810)).toBe(810);
    expect(cache.get(0)).toBeUndefined();
  });

  it("with a pause, asks for nothing while the list jumps on, and for where it stopped", async () => {
    const s = source(100_000);
    const cache = new RowCache(s.fetch, () => {}, 100, 2000);
    cache.pause = 30;
    void cache.ensure(0, 30);
    await s.release();
    s.asked.length = 0;
    const frame = () => new Promise((r) => setTimeout(r, 10));
    for (const top of [20_000, 40_000, 60_000, 80_000]) {
      cache.follow(top, top + 30);
      await frame();
    }
    expect(s.asked).toEqual([]);
    await new Promise((r) => setTimeout(r, 40));
    expect(s.asked).toEqual([[80_000, 100]]);
    // Scrolling on from there is asked for at once.
    await s.release();
    cache.follow(80_090, 80_120);
    expect(s.asked.slice(1)).toEqual([[79_900, 100], [80_100, 100], [80_200, 100]]);
  });
});

describe("KeyedRows", () => {
  it("shows a new key where it is told, its length known: the first block is never asked for", async () => {
    globalThis.requestAnimationFrame ??= (f: FrameRequestCallback) => setTimeout(() => f(0), 0) as unknown as number;
    const s = source(50_000);
    let total = 0;
    const rows = new KeyedRows<number>((n) => (total = n), () => {});
    rows.show("k", 0, s.fetch, { first: 40_000, last: 40_012, total: 50_000 });
    await s.release();
    expect(s.asked).toEqual([[39_900, 100], [40_000, 100], [40_100, 100]]);
    expect([rows.get(40_000), rows.get(40_011), rows.get(0)]).toEqual([40_000, 40_011, undefined]);
    expect(total).toBe(50_000);
    // Without `at`, a list starts from its first rows, its length learnt from them.
    const t = source(500);
    new KeyedRows<number>(() => {}, () => {}).show("other", 0, t.fetch);
    await t.release();
    expect(t.asked[0]).toEqual([0, 100]);
  });
});
