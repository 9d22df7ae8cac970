import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/app.js';
import { createRateLimiter, UNLIMITED } from '../../../src/sandbox/limiter.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { get, KEY } from './helpers.js';

const T0 = Date.UTC(2024, 3, 16, 18, 0, 7, 250);

describe('createRateLimiter', () => {
  it('aligns windows on epoch multiples so they end on whole seconds', () => {
    const limiter = createRateLimiter({ limit: 2, windowSeconds: 60 });
    const d = limiter.hit('k', 'e', T0);
    expect(d.windowStartMs).toBe(Date.UTC(2024, 3, 16, 18, 0, 0));
    expect(d.resetMs).toBe(Date.UTC(2024, 3, 16, 18, 1, 0));
    expect(d.remaining).toBe(1);
  });

  it('counts per key and per endpoint, limits past the limit and resets with the next window', () => {
    const limiter = createRateLimiter({ limit: 2, windowSeconds: 10 });
    expect(limiter.hit('k', 'a', T0).limited).toBe(false);
    expect(limiter.hit('k', 'a', T0).remaining).toBe(0);
    const third = limiter.hit('k', 'a', T0 + 100);
    expect(third).toMatchObject({ limited: true, remaining: 0 });
    expect(limiter.hit('k', 'b', T0).limited).toBe(false);
    expect(limiter.hit('other', 'a', T0).limited).toBe(false);
    const resetMs = third.resetMs;
    expect(limiter.hit('k', 'a', resetMs - 1).limited).toBe(true);
    expect(limiter.hit('k', 'a', resetMs)).toMatchObject({ limited: false, remaining: 1 });
    expect(limiter.limitedWindows()).toEqual([{ endpoint: 'a', windowStartMs: resetMs - 10_000, count: 2 }]);
  });

  it.each([0, Infinity])('never limits with limit %s', (limit) => {
    const limiter = createRateLimiter({ limit, windowSeconds: 60 });
    let last;
    for (let i = 0; i < 500; i++) last = limiter.hit('k', 'e', T0);
    expect(last).toMatchObject({ limited: false, limit: UNLIMITED });
  });

  it('peek does not count', () => {
    const limiter = createRateLimiter({ limit: 1, windowSeconds: 60 });
    limiter.peek('k', 'e', T0);
    expect(limiter.hit('k', 'e', T0).limited).toBe(false);
  });
});

describe('rate limiting over HTTP', () => {
  it('sends the three headers on every response and a 429 past the limit, per endpoint', async () => {
    const clock = createVirtualClock(T0);
    const sb = createSandbox({ apiKey: KEY, clock, limit: 3, windowSeconds: 60 });
    const reset = String(Date.UTC(2024, 3, 16, 18, 1, 0) / 1000);
    const seen: Array<[number, string | null, string | null, string | null]> = [];
    for (const path of ['/entities', '/entities?itemsPerPage=0', '/entities/x', '/entities', '/entities', '/events']) {
      const res = await get(sb, path);
      seen.push([res.status, res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining'), res.headers.get('x-ratelimit-reset')]);
      if (res.status === 429) expect(await res.json()).toEqual({ message: 'Too Many Requests' });
    }
    expect(seen).toEqual([
      [200, '3', '2', reset],
      [400, '3', '1', reset],
      // An unknown path has its own bucket.
      [404, '3', '2', reset],
      [200, '3', '0', reset],
      [429, '3', '0', reset],
      [200, '3', '2', reset],
    ]);
    expect(sb.stats().limitedWindows).toEqual([{ endpoint: 'entities', windowStartMs: Date.UTC(2024, 3, 16, 18, 0, 0), count: 1 }]);
  });

  it('opens a new window exactly at the Reset second on the server clock', async () => {
    const clock = createVirtualClock(T0);
    const sb = createSandbox({ apiKey: KEY, clock, limit: 1, windowSeconds: 5 });
    const first = await get(sb, '/events');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset * 1000).toBe(Date.UTC(2024, 3, 16, 18, 0, 10));
    expect((await get(sb, '/events')).status).toBe(429);
    clock.advance(reset * 1000 - clock.now() - 1);
    expect((await get(sb, '/events')).status).toBe(429);
    clock.advance(1);
    const after = await get(sb, '/events');
    expect(after.status).toBe(200);
    expect(Number(after.headers.get('x-ratelimit-reset'))).toBe(reset + 5);
  });

  it('answers a wrong key with 401 without spending the quota', async () => {
    const clock = createVirtualClock(T0);
    const sb = createSandbox({ apiKey: KEY, clock, limit: 1 });
    expect((await get(sb, '/entities', { 'X-Api-Key': 'other' })).status).toBe(401);
    expect((await get(sb, '/entities')).status).toBe(200);
    expect((await get(sb, '/entities')).status).toBe(429);
  });

  it('sends a large limit when unlimited', async () => {
    const sb = createSandbox({ apiKey: KEY, clock: createVirtualClock(T0), limit: 0 });
    const res = await get(sb, '/entities');
    expect(Number(res.headers.get('x-ratelimit-limit'))).toBe(UNLIMITED);
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(1000);
  });

  it.each([
    ['route', ['1', '0', '429'], [{ endpoint: 'invoices', count: 1 }]],
    [undefined, ['1', '0', '429'], [{ endpoint: 'invoices', count: 1 }]],
    ['path', ['1', '1', '0'], []],
  ] as const)('--limit-scope %s: the invoices of two taxpayers share a window only in route scope', async (limitScope, remaining, limited) => {
    const clock = createVirtualClock(T0);
    const sb = createSandbox({ apiKey: KEY, clock, limit: 2, windowSeconds: 60, sizes: { taxpayers: 2 }, ...(limitScope ? { limitScope } : {}) });
    const [a, b] = sb.taxpayers().map((rfc) => `/taxpayers/${encodeURIComponent(rfc)}/invoices`);
    const seen: string[] = [];
    for (const path of [a!, b!, a!]) {
      const res = await get(sb, path);
      seen.push(res.status === 429 ? '429' : res.headers.get('x-ratelimit-remaining')!);
    }
    expect(seen).toEqual(remaining);
    expect(sb.stats().limitedWindows.map(({ endpoint, count }) => ({ endpoint, count }))).toEqual(limited);
  });
});
