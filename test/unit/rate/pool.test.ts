/**
 * The governor pool (rate/pool.ts): routes by endpoint template, one window per route until
 * per-path counting is seen in the headers, and each client's waits reported to that client
 * (rate/index.ts).
 */
import { describe, expect, it } from 'vitest';
import { createRateBudget, type RateBudget, type SharedQuota } from '../../../src/rate/budget.js';
import { clientBudgetOf, createClientBudget } from '../../../src/rate/index.js';
import type { GovernorWait, ResponseObservation } from '../../../src/rate/governor.js';
import { createGovernorPool, keyHashOf, matchRoute } from '../../../src/rate/pool.js';

const routeOf = (pathname: string): string => matchRoute(pathname).route;
import { createVirtualClock } from '../../helpers/virtual-clock.js';

const T = Date.UTC(2024, 3, 16, 18, 0, 0);
const RESET = T + 60_000;
const A = new URL('http://api.test/taxpayers/A/invoices');
const B = new URL('http://api.test/taxpayers/B/invoices');
const ok = (remaining: number, resetAt = RESET): ResponseObservation => ({
  status: 200,
  headers: { limit: 60, remaining, resetAt, date: T },
  receivedAt: T,
});

describe('routeOf', () => {
  it('names the endpoint template a path fits, after any prefix of the base URL', () => {
    expect(routeOf('/taxpayers/AAA/invoices')).toBe('/taxpayers/{taxpayerId}/invoices');
    expect(routeOf('/v1/taxpayers/A%26B/invoices')).toBe('/v1/taxpayers/{taxpayerId}/invoices');
    expect(routeOf('/taxpayers/AAA/invoices/line-items')).toBe('/taxpayers/{taxpayerId}/invoices/line-items');
    expect(routeOf('/taxpayers/AAA/invoices/payments')).toBe('/taxpayers/{taxpayerId}/invoices/payments');
    expect(routeOf('/taxpayers/AAA/invoices/1f0c/line-items')).toBe('/taxpayers/{taxpayerId}/invoices/{invoiceId}/line-items');
    expect(routeOf('/invoices/1f0c/line-items')).toBe('/invoices/{invoiceId}/line-items');
    expect(routeOf('/entities')).toBe('/entities');
    expect(routeOf('/somewhere/else')).toBe('/somewhere/else');
  });

  it('names the template of the current path family (get)', () => {
    expect(routeOf('/entities/0190/invoices')).toBe('/entities/{entityId}/invoices');
    expect(routeOf('/v1/entities/0190/invoices/line-items')).toBe('/v1/entities/{entityId}/invoices/line-items');
    expect(routeOf('/entities/0190/events')).toBe('/entities/{entityId}/events');
    expect(routeOf('/invoices/payments')).toBe('/invoices/payments');
  });
});

describe('governor pool: the current path family (paths of get)', () => {
  const X = new URL('http://api.test/entities/X/invoices');
  const Y = new URL('http://api.test/entities/Y/invoices');

  it('counts each path alone at first', () => {
    const pool = createGovernorPool({ clock: createVirtualClock(T) });
    expect(pool.scopeOf(X)).toBe('path');
    expect(pool.resolve(X)).not.toBe(pool.resolve(Y));
    expect(pool.resolve(X)).toBe(pool.resolve(new URL('http://api.test/entities/X/invoices?page=2')));
  });

  it('learns one shared counter when the first answer on another path, sent after an answer arrived, has less room', () => {
    const pool = createGovernorPool({ clock: createVirtualClock(T) });
    pool.learn(X, pool.receipts, ok(57));
    pool.learn(Y, pool.receipts, ok(56));
    expect(pool.scopeOf(Y)).toBe('route');
    expect(pool.resolve(X)).toBe(pool.resolve(Y));
    // For good: later answers that look per-path do not split it again.
    pool.learn(X, pool.receipts, ok(59, RESET + 60_000));
    pool.learn(Y, pool.receipts, ok(59, RESET + 60_000));
    expect(pool.scopeOf(X)).toBe('route');
  });

  it.each([
    [
      'as much room on the other path (its own counter)',
      [
        ['X', 57, 0],
        ['Y', 59, 1],
      ],
    ],
    [
      'the other request sent before the answer arrived (in flight together)',
      [
        ['X', 57, 0],
        ['Y', 56, 0],
      ],
    ],
    [
      'another window',
      [
        ['X', 57, 0],
        ['Y', 56, 1, RESET + 60_000],
      ],
    ],
    [
      'not the first answer on that path in the window',
      [
        ['X', 57, 0],
        ['Y', 59, 1],
        ['Y', 56, 2],
      ],
    ],
  ] as Array<[string, Array<[string, number, number, number?]>]>)('does not learn it from %s', (_what, answers) => {
    const pool = createGovernorPool({ clock: createVirtualClock(T) });
    const sentAt = [0];
    for (const [path, remaining, after, reset] of answers) {
      pool.learn(path === 'X' ? X : Y, sentAt[after] ?? pool.receipts, ok(remaining, reset));
      sentAt.push(pool.receipts);
    }
    expect(pool.scopeOf(X)).toBe('path');
  });
});

describe('governor pool', () => {
  it('starts with one window per route: the paths of a route share one governor', () => {
    const pool = createGovernorPool({ clock: createVirtualClock(T) });
    expect(pool.resolve(A)).toBe(pool.resolve(B));
    expect(pool.scopeOf(A)).toBe('route');
  });

  it('learns per-path counting when a later request on another path reports as much room as the first', () => {
    const pool = createGovernorPool({ clock: createVirtualClock(T) });
    pool.learn(A, pool.receipts, ok(59));
    const sentAfter = pool.receipts;
    pool.learn(B, sentAfter, ok(59));
    expect(pool.scopeOf(B)).toBe('path');
    expect(pool.resolve(A)).not.toBe(pool.resolve(B));
  });

  it('does not learn it from a route-counted window, answers in any order', () => {
    const pool = createGovernorPool({ clock: createVirtualClock(T) });
    const sent0 = pool.receipts;
    // Two requests in flight together: B's answer (counted first by the server) arrives second.
    pool.learn(A, sent0, ok(57));
    pool.learn(B, sent0, ok(58));
    // Sent after both answers: a shared counter is lower than both.
    const sent2 = pool.receipts;
    pool.learn(B, sent2, ok(56));
    pool.learn(A, pool.receipts, ok(55));
    // A new window starts the comparison again.
    pool.learn(B, pool.receipts, ok(59, RESET + 60_000));
    pool.learn(A, pool.receipts, ok(58, RESET + 60_000));
    expect(pool.scopeOf(A)).toBe('route');
  });

  it('takes per-path counting another process learnt, and records what it learns', () => {
    const learnt: string[] = [];
    const quota: SharedQuota = {
      reserve: () => ({ granted: true }),
      observe: () => false,
      cancel: () => undefined,
      learnPathScope: (route) => learnt.push(route),
      isPathScope: (route) => route === '/entities',
    };
    const pool = createGovernorPool({ clock: createVirtualClock(T), quota });
    expect(pool.scopeOf(new URL('http://api.test/entities'))).toBe('path');
    pool.learn(A, pool.receipts, ok(59));
    pool.learn(B, pool.receipts, ok(59));
    expect(learnt).toEqual(['/taxpayers/{taxpayerId}/invoices']);
  });

  it('reports a pacing wait to the client whose request waits, bounded by that client’s --max-wait', async () => {
    const clock = createVirtualClock(T);
    const pool = createGovernorPool({ clock });
    const waits: Record<string, GovernorWait[]> = { one: [], two: [] };
    const one = createClientBudget(pool, { maxWaitMs: Infinity, onWait: (w) => waits.one!.push(w) });
    const two = createClientBudget(pool, { maxWaitMs: 1000, onWait: (w) => waits.two!.push(w) });
    const p = await one.reserve(A);
    p.release(ok(0));
    await expect(two.reserve(B)).rejects.toThrow(/resets in 60 s, longer than the longest wait allowed \(1 s\)/);
    const later = one.reserve(A);
    await later;
    expect(waits.one).toEqual([expect.objectContaining({ reason: 'pacing', ms: 60_000 })]);
    expect(waits.two).toEqual([]);
    expect(clock.now()).toBe(RESET);
  });

  it('is shared by the clients of one budget, origin and key, and by no others', () => {
    const clock = createVirtualClock(T);
    const budget = createRateBudget();
    // A pool's server clock is its own.
    const poolOf = (b: RateBudget | undefined, origin: string, apiKey: string) =>
      clientBudgetOf(b, { origin, apiKey, clock, maxWaitMs: Infinity, onWait: () => undefined }).serverClock;
    const pool = poolOf(budget, 'http://api.test', 'k1');
    expect(poolOf(budget, 'http://api.test', 'k1')).toBe(pool);
    expect(poolOf(budget, 'http://api.test', 'k2')).not.toBe(pool);
    expect(poolOf(budget, 'http://other.test', 'k1')).not.toBe(pool);
    expect(poolOf(undefined, 'http://api.test', 'k1')).not.toBe(pool);
    expect(keyHashOf('k1')).toMatch(/^[0-9a-f]{64}$/);
  });
});
