/**
 * The read-ahead of offset pages (`ReadAhead`) is bounded by page text as well as by
 * pages: with large pages it keeps fewer requests ahead than `concurrency`, never fewer than one.
 */
import { describe, expect, it } from 'vitest';
import type { FetchedPage } from '../../../src/pagination/fetch-page.js';
import { ReadAhead } from '../../../src/pagination/offset.js';

const MiB = 1024 * 1024;
/** The read-ahead's bound, 2 MiB (`READ_AHEAD_BYTES`). */
const BOUND = 2 * MiB;

/**
 * A fetcher of pages of `bytes` text each that resolve at once; counts the most pages launched and
 * not yet taken (the consumer's own page included).
 */
function fetcher(bytes: number) {
  const state = { launched: 0, taken: 0, most: 0 };
  const fetchPage = (n: number): Promise<FetchedPage> => {
    state.launched += 1;
    state.most = Math.max(state.most, state.launched - state.taken);
    const page = { members: [{ n }], view: undefined, totalItems: undefined } as unknown as FetchedPage['page'];
    return Promise.resolve({ url: new URL(`https://api.test/x?page=${n}`), status: 200, page, text: 'x'.repeat(bytes) });
  };
  return { fetchPage, state };
}

async function drain(ahead: ReadAhead, first: number, last: number, state: { taken: number }): Promise<void> {
  for (let n = first; n <= last; n++) {
    await ahead.take(n);
    state.taken += 1;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('ReadAhead byte bound', () => {
  it('pages of a third of the bound: at most 3 pages ahead (plus the one being taken), though concurrency is 8', async () => {
    const third = Math.floor(BOUND / 3);
    const { fetchPage, state } = fetcher(third);
    const ahead = new ReadAhead(fetchPage, 1, 20, 8, { pageBytes: third });
    await drain(ahead, 1, 20, state);
    expect(state.launched).toBe(20);
    expect(state.most).toBeLessThanOrEqual(4);
    expect(state.most).toBeGreaterThanOrEqual(3);
  });

  it('small pages: the page count is the bound (concurrency, plus the one being taken)', async () => {
    const { fetchPage, state } = fetcher(1000);
    const ahead = new ReadAhead(fetchPage, 1, 20, 4, { pageBytes: 1000 });
    await drain(ahead, 1, 20, state);
    expect(state.most).toBe(5);
  });

  it('a page larger than the bound still goes, one at a time', async () => {
    const { fetchPage, state } = fetcher(2 * BOUND);
    const ahead = new ReadAhead(fetchPage, 1, 5, 8, { pageBytes: 2 * BOUND });
    await drain(ahead, 1, 5, state);
    expect(state.launched).toBe(5);
    expect(state.most).toBeLessThanOrEqual(2);
  });
});

describe('ReadAhead items bound (--max-items)', () => {
  /** Pages of `sizes[n]` items (default 10); records each page number launched. */
  function itemFetcher(sizes: Record<number, number> = {}) {
    const launched: number[] = [];
    const fetchPage = (n: number): Promise<FetchedPage> => {
      launched.push(n);
      const members = Array.from({ length: sizes[n] ?? 10 }, (_, i) => ({ n, i }));
      const page = { members, view: undefined, totalItems: undefined } as unknown as FetchedPage['page'];
      return Promise.resolve({ url: new URL(`https://api.test/x?page=${n}`), status: 200, page, text: 'x'.repeat(100) });
    };
    return { fetchPage, launched };
  }

  /** Takes pages from `first` until `wanted` items were handed over; returns the items taken. */
  async function takeUntil(ahead: ReadAhead, first: number, wanted: number): Promise<number> {
    let items = 0;
    for (let n = first; items < wanted; n++) {
      items += (await ahead.take(n)).page.members.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return items;
  }

  it('25 items wanted in pages of 10, concurrency 8: pages 1–3 only, none past the one that completes them', async () => {
    const { fetchPage, launched } = itemFetcher();
    const ahead = new ReadAhead(fetchPage, 1, 20, 8, { wantedItems: 25, perPage: 10 });
    ahead.launch();
    expect(launched).toEqual([1, 2, 3]);
    expect(await takeUntil(ahead, 1, 25)).toBe(30);
    expect(launched).toEqual([1, 2, 3]);
  });

  it('a short page moves the limit on by the items it lacks', async () => {
    const { fetchPage, launched } = itemFetcher({ 2: 4 });
    const ahead = new ReadAhead(fetchPage, 1, 20, 8, { wantedItems: 25, perPage: 10 });
    // 10 + 4 + 10 = 24 items in pages 1–3: page 4 completes the 25.
    expect(await takeUntil(ahead, 1, 25)).toBe(34);
    expect(launched).toEqual([1, 2, 3, 4]);
  });

  it('nothing wanted: nothing requested ahead, yet a page asked for is fetched', async () => {
    const { fetchPage, launched } = itemFetcher();
    const ahead = new ReadAhead(fetchPage, 2, 20, 4, { wantedItems: 0, perPage: 10 });
    ahead.launch();
    expect(launched).toEqual([]);
    expect((await ahead.take(2)).page.members).toHaveLength(10);
    expect(launched).toEqual([2]);
  });
});

describe('ReadAhead stop', () => {
  /** A fetcher whose pages never come (`hang`) or come at once; keeps the signal each request got. */
  function signalFetcher(hang: boolean) {
    const signals: AbortSignal[] = [];
    const fetchPage = (n: number, signal: AbortSignal): Promise<FetchedPage> => {
      signals.push(signal);
      const page = { members: [{ n }], view: undefined, totalItems: undefined } as unknown as FetchedPage['page'];
      return hang
        ? new Promise<FetchedPage>(() => undefined)
        : Promise.resolve({ url: new URL(`https://api.test/x?page=${n}`), status: 200, page, text: 'x' });
    };
    return { fetchPage, signals };
  }

  it('aborts the requests still in flight', () => {
    const { fetchPage, signals } = signalFetcher(true);
    const ahead = new ReadAhead(fetchPage, 1, 5, 3);
    ahead.launch();
    expect(signals).toHaveLength(3);
    ahead.stop();
    expect(signals.every((s) => s.aborted)).toBe(true);
  });

  it('aborts nothing once every request has answered', async () => {
    const { fetchPage, signals } = signalFetcher(false);
    const ahead = new ReadAhead(fetchPage, 1, 3, 2);
    for (let n = 1; n <= 3; n++) await ahead.take(n);
    ahead.stop();
    expect(signals).toHaveLength(3);
    expect(signals.some((s) => s.aborted)).toBe(false);
  });
});
