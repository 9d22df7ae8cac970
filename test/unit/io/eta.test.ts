/**
 * The ETA estimator (io/eta.ts): this run's rate only, over a moving window; the quota's time for
 * the requests still to send; the larger of the two. Times are given by hand (monotonic ms for the
 * rate, epoch ms for resets), so each case reads as a small story with its numbers.
 */
import { describe, expect, it } from 'vitest';
import type { RateLimitSnapshot } from '../../../src/rate/index.js';
import { createEtaEstimator, quotaEtaMs, RATE_WINDOW_MS } from '../../../src/io/eta.js';

const T0 = Date.UTC(2024, 3, 16, 18, 0, 0);

/** The headers of a response at `at` (epoch ms): `remaining` of 10 left until `reset`. */
const quota = (at: number, remaining: number, reset: number): RateLimitSnapshot => ({
  limit: 10,
  remaining,
  resetAt: reset,
  resetLocalAt: reset,
  observedAt: at,
});

describe('the rate', () => {
  it('counts only what this run fetched: 75,000 restored items are done, not fetched', () => {
    const eta = createEtaEstimator(0);
    eta.page(75_000, 75, 0);
    eta.page(76_000, 76, 500);
    // 1,000 items in 0.5 s, not 76,000.
    expect(eta.rate(500)).toBe(2_000);
    // 124,000 items left at 2,000 items/s.
    expect(eta.etaMs(200_000, 500, T0)).toBe(62_000);
  });

  it(`is measured over the last ${RATE_WINDOW_MS / 1000} s, so a change of pace shows`, () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    // 60 s at 1,000 items/s, then 60 s at 100 items/s.
    for (let s = 1; s <= 60; s++) eta.page(s * 1_000, s, s * 1_000);
    for (let s = 61; s <= 120; s++) eta.page(60_000 + (s - 60) * 100, s, s * 1_000);
    expect(eta.rate(120_000)).toBe(100);
  });

  it("after the first page only and no quota, the ETA takes that page's response time, not the start-up before it", () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    eta.response(100);
    // 1.9 s of start-up, then the first page of 1,000 in 100 ms.
    eta.page(1_000, 1, 2_000);
    expect(eta.rate(2_000)).toBe(500);
    // 99,000 items at 1,000 items per 100 ms.
    expect(eta.etaMs(100_000, 2_000, T0)).toBe(9_900);
  });

  it('counts from the first page once there are two: a slow start is not the pace', () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    // 5 s to the first page (start-up, a cold server), then a page every 0.5 s.
    eta.page(1_000, 1, 5_000);
    expect(eta.rate(5_000)).toBe(200);
    eta.page(2_000, 2, 5_500);
    expect(eta.rate(5_500)).toBe(2_000);
  });

  it('keeps the pace since the start when the page after the first is empty (the end of a cursor chain): not 0 items/s', () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    eta.page(600, 1, 1_000);
    eta.page(600, 2, 1_200);
    // 600 items in the 1.2 s since the start.
    expect(eta.rate(1_200)).toBe(500);
  });

  it('leaves rate-limit waits out of the pace the ETA uses (the quota estimate counts them), not out of the rate shown', () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    // 10 pages of 100 every 100 ms, a wait of 4 s, one more page 100 ms later.
    for (let p = 1; p <= 10; p++) eta.page(p * 100, p, p * 100);
    eta.wait({ ms: 4_000, until: T0 + 5_000 }, 1_000);
    eta.page(1_100, 11, 5_100);
    // From page 1 (100 ms) to 5.1 s: 1,000 items in 5 s, of which 4 s waiting.
    expect(eta.rate(5_100)).toBe(200);
    // No quota known (the wait named no limit): the ETA is the pace's, 1,000 items at 1,000 items/s.
    expect(eta.etaMs(2_100, 5_100, T0 + 5_100)).toBe(1_000);
  });

  it('falls while no page arrives (a stall is not hidden)', () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    eta.page(1_000, 1, 1_000);
    expect(eta.rate(1_000)).toBe(1_000);
    expect(eta.rate(4_000)).toBe(250);
  });
});

describe('the ETA', () => {
  it('is unknown without a total, and 0 once everything is done', () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    eta.page(100, 1, 100);
    expect(eta.etaMs(undefined, 100, T0)).toBeUndefined();
    expect(eta.etaMs(100, 100, T0)).toBe(0);
  });

  it('before any time passed or any quota is known there is none', () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    expect(eta.etaMs(1_000, 0, T0)).toBeUndefined();
  });

  it("a fresh rate-limited run: no ETA until the window is known, then the quota's, not the first page's speed (10 a window of 5 s, 200 pages)", () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    // The run starts 3.4 s into a window: 9 left until its reset at T0 + 5 s, which tells nothing of the window's length.
    eta.response(100, T0 + 5_000);
    eta.page(1_000, 1, 100, quota(T0 + 3_500, 9, T0 + 5_000));
    expect(eta.etaMs(200_000, 100, T0 + 3_500)).toBeUndefined();
    for (let p = 2; p <= 10; p++) {
      eta.response(100, T0 + 5_000);
      eta.page(p * 1_000, p, p * 100, quota(T0 + 3_400 + p * 100, 10 - p, T0 + 5_000));
    }
    expect(eta.etaMs(200_000, 1_000, T0 + 4_400)).toBeUndefined();
    // The next window's first response: its reset 5 s after the last one.
    eta.response(100, T0 + 10_000);
    eta.page(11_000, 11, 1_700, quota(T0 + 5_100, 9, T0 + 10_000));
    // 189 pages: 9 now, 180 in 18 more windows: 4.9 s to the reset, 17 windows of 5 s, the last 10 requests at 100 ms.
    expect(eta.etaMs(200_000, 1_700, T0 + 5_100)).toBe(4_900 + 17 * 5_000 + 10 * 100);
  });

  it('needs no window length while the requests fit in this window and the next', () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    eta.response(100);
    eta.page(1_000, 1, 100, quota(T0 + 3_500, 9, T0 + 5_000));
    // 9 pages: this window's 9, at 100 ms each.
    expect(eta.etaMs(10_000, 100, T0 + 3_500)).toBe(900);
    // 19 pages: 9 now, 10 after the reset in 1.5 s.
    expect(eta.etaMs(20_000, 100, T0 + 3_500)).toBe(1_500 + 10 * 100);
    // Once the window has rolled over: a full window's 10 still go, 11 do not.
    expect(eta.etaMs(11_000, 100, T0 + 6_000)).toBe(10 * 100);
    expect(eta.etaMs(12_000, 100, T0 + 6_000)).toBeUndefined();
    // A cold first response of 2 s says nothing of the pages after it: the quota's time still decides.
    const cold = createEtaEstimator(0);
    cold.page(0, 0, 0);
    cold.response(2_000);
    cold.page(1_000, 1, 2_000, quota(T0, 9, T0 + 5_000));
    expect(cold.etaMs(20_000, 2_000, T0 + 2_000)).toBe(3_000 + 10 * 2_000);
  });

  it("learns the window from the responses' resets as they arrive, by the server's clock, 429s included", () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    eta.response(100, T0 + 5_000);
    eta.page(100, 1, 1, quota(T0 + 3_000, 9, T0 + 5_000));
    expect(eta.etaMs(100 + 100 * 20, 1, T0 + 3_000)).toBeUndefined();
    // A 429 of the next window (no page), then a response overtaken by it (the old window's).
    eta.response(100, T0 + 10_000);
    eta.response(100, T0 + 5_000);
    // 20 pages: 9 now, 10 after the reset, 1 a window later.
    expect(eta.etaMs(100 + 100 * 20, 1, T0 + 3_000)).toBe(2_000 + 5_000 + 100);
  });

  it('a window in which no response arrived makes a gap of two, until a gap of one is seen', () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    eta.response(0, T0 + 5_000);
    eta.response(0, T0 + 15_000);
    eta.page(100, 1, 1, quota(T0 + 11_000, 9, T0 + 15_000));
    // 29 pages: 9 now, 20 in two windows taken for 10 s.
    expect(eta.etaMs(100 + 100 * 29, 1, T0 + 11_000)).toBe(4_000 + 10_000);
    eta.response(0, T0 + 20_000);
    eta.page(200, 2, 2, quota(T0 + 16_000, 9, T0 + 20_000));
    // 29 pages: 9 now, 20 in two windows of 5 s.
    expect(eta.etaMs(200 + 100 * 29, 2, T0 + 16_000)).toBe(4_000 + 5_000);
  });

  it('a page fetched in an earlier window, written after later ones (offset mode), leaves the quota as it is', () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    eta.response(0, T0 + 5_000);
    eta.response(0, T0 + 10_000);
    eta.page(100, 1, 1, quota(T0 + 5_100, 9, T0 + 10_000));
    eta.page(200, 2, 2, quota(T0 + 4_000, 0, T0 + 5_000));
    // 29 pages: 9 now, 20 after the reset in 4.9 s and a window of 5 s.
    expect(eta.etaMs(200 + 100 * 29, 2, T0 + 5_100)).toBe(4_900 + 5_000);
  });

  it('by cursor, counts the empty page that ends the chain', () => {
    const eta = createEtaEstimator(0);
    eta.endsOnEmptyPage();
    eta.page(0, 0, 0);
    eta.response(100);
    eta.page(100, 1, 100, quota(T0, 0, T0 + 5_000));
    // Every item fetched, the window spent: the empty page waits for the reset.
    expect(eta.etaMs(100, 100, T0 + 100)).toBe(4_900 + 100);
    // One page of items and the empty page: both after the reset.
    expect(eta.etaMs(200, 100, T0 + 100)).toBe(4_900 + 2 * 100);
  });

  it('a wait spends the quota until its end', () => {
    const eta = createEtaEstimator(0);
    eta.page(0, 0, 0);
    eta.page(100, 1, 1, quota(T0, 9, T0 + 5_000));
    eta.wait({ ms: 7_000, until: T0 + 8_000, limit: 10 }, 1);
    // 5 pages, none left now: all after the wait.
    expect(eta.etaMs(600, 1, T0 + 1_000)).toBe(7_000);
  });
});

describe('quotaEtaMs', () => {
  const q = { limit: 10, remaining: 4, resetAt: T0 + 3_000 };
  it.each([
    ['fewer requests than the window has left: their own time', 4, q, T0, 4 * 100],
    ['one more than left: the reset, then one request', 5, q, T0, 3_000 + 100],
    ['three windows more', 4 + 30, q, T0, 3_000 + 2 * 5_000 + 10 * 100],
    ['the window rolled over since the last response: a full quota', 10, q, T0 + 4_000, 10 * 100],
    ['rolled over twice: the next reset is the third', 11, q, T0 + 9_000, 3_000 + 5_000 + 5_000 - 9_000 + 100],
  ])('%s', (_name, requests, quotaNow, now, expected) => {
    expect(quotaEtaMs(requests, quotaNow, 5_000, now, 100)).toBe(expected);
  });
  it.each([
    ['fewer requests than left', 4, T0, 4 * 100],
    ['this window and the next', 14, T0, 3_000 + 10 * 100],
    ['beyond the next window', 15, T0, undefined],
    ['rolled over, one window', 10, T0 + 4_000, 10 * 100],
    ['rolled over, more', 11, T0 + 4_000, undefined],
  ])('without the window length, %s', (_name, requests, now, expected) => {
    expect(quotaEtaMs(requests, q, undefined, now, 100)).toBe(expected);
  });
});
