/**
 * The governor pool (rate/pool.ts), seen through its clients: routes by endpoint template, one
 * window per route until per-path counting is seen in the headers, and each client's waits
 * reported to that client.
 */
import { describe, expect, it } from 'vitest';
import { createRateBudget, type RateBudget, type SharedQuota } from '../../../src/rate/budget.js';
import { clientBudgetOf } from '../../../src/rate/index.js';
import type { GovernorWait, ResponseObservation } from '../../../src/rate/governor.js';
import { createGovernorPool, keyHashOf, matchRoute, type BudgetPermit, type ClientBudget } from '../../../src/rate/pool.js';

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

/** A client that accepts no wait over 1 s, of a pool of its own. */
function clientOf(quota?: SharedQuota): ClientBudget {
  return createGovernorPool({ clock: createVirtualClock(T), ...(quota === undefined ? {} : { quota }) }).client({
    maxWaitMs: 1000,
    onWait: () => undefined,
  });
}

/** A request granted at once, whatever its window says: what the pool learns does not depend on it. */
const send = (client: ClientBudget, url: URL): Promise<BudgetPermit> => client.reserve(url, { wait: false });

let spent = 0;

/** Whether a request to `b` waits for the window a 429 on `a` spent (a 429 teaches the pool nothing): one governor paces both. */
async function oneWindow(client: ClientBudget, a: URL, b: URL): Promise<boolean> {
  const headers = { limit: 60, remaining: 0, resetAt: RESET + 3_600_000 * ++spent, date: T };
  (await send(client, a)).release({ status: 429, headers, receivedAt: T });
  return client.reserve(b).then(
    (permit) => (permit.cancel(), false),
    () => true,
  );
}

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

  it('counts each path alone at first', async () => {
    const client = clientOf();
    expect(await oneWindow(client, X, Y)).toBe(false);
    expect(await oneWindow(client, X, new URL('http://api.test/entities/X/invoices?page=2'))).toBe(true);
  });

  it('learns one shared counter when the first answer on another path, sent after an answer arrived, has less room', async () => {
    const client = clientOf();
    (await send(client, X)).release(ok(57));
    (await send(client, Y)).release(ok(56));
    expect(await oneWindow(client, Y, X)).toBe(true);
    // For good: later answers that look per-path do not split it again.
    (await send(client, X)).release(ok(59, RESET + 60_000));
    (await send(client, Y)).release(ok(59, RESET + 60_000));
    expect(await oneWindow(client, X, Y)).toBe(true);
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
  ] as Array<[string, Array<[string, number, number, number?]>]>)('does not learn it from %s', async (_what, answers) => {
    // Each request is sent once `after` answers have arrived.
    const client = clientOf();
    const permits: BudgetPermit[] = [];
    let answered = 0;
    const sendDue = async (): Promise<void> => {
      for (const [j, [path, , after]] of answers.entries()) if (after === answered) permits[j] ??= await send(client, path === 'X' ? X : Y);
    };
    await sendDue();
    for (const [j, [, remaining, , reset]] of answers.entries()) {
      permits[j]!.release(ok(remaining, reset));
      answered++;
      await sendDue();
    }
    expect(await oneWindow(client, X, Y)).toBe(false);
  });
});

describe('governor pool', () => {
  it('starts with one window per route: the paths of a route share one governor', async () => {
    expect(await oneWindow(clientOf(), A, B)).toBe(true);
  });

  it('learns per-path counting when a later request on another path reports as much room as the first', async () => {
    const client = clientOf();
    (await send(client, A)).release(ok(59));
    (await send(client, B)).release(ok(59));
    expect(await oneWindow(client, B, A)).toBe(false);
  });

  it('does not learn it from a route-counted window, answers in any order', async () => {
    const client = clientOf();
    // Two requests in flight together: B's answer (counted first by the server) arrives second.
    const [a, b] = [await send(client, A), await send(client, B)];
    a.release(ok(57));
    b.release(ok(58));
    // Sent after both answers: a shared counter is lower than both.
    (await send(client, B)).release(ok(56));
    (await send(client, A)).release(ok(55));
    // A new window starts the comparison again.
    (await send(client, B)).release(ok(59, RESET + 60_000));
    (await send(client, A)).release(ok(58, RESET + 60_000));
    expect(await oneWindow(client, A, B)).toBe(true);
  });

  it('takes per-path counting another process learnt, and records what it learns', async () => {
    const learnt: string[] = [];
    const scopes: string[] = [];
    const quota: SharedQuota = {
      reserve: (scope) => (scopes.push(scope), { granted: true }),
      observe: () => false,
      cancel: () => undefined,
      learnPathScope: (route) => learnt.push(route),
      isPathScope: (route) => route === '/invoices/{invoiceId}/line-items',
    };
    const client = clientOf(quota);
    (await client.reserve(new URL('http://api.test/invoices/1f0c/line-items'))).cancel();
    expect(scopes).toEqual(['/invoices/1f0c/line-items']);
    (await send(client, A)).release(ok(59));
    (await send(client, B)).release(ok(59));
    expect(learnt).toEqual(['/taxpayers/{taxpayerId}/invoices']);
  });

  it('reports a pacing wait to the client whose request waits, bounded by that client’s --max-wait', async () => {
    const clock = createVirtualClock(T);
    const pool = createGovernorPool({ clock });
    const waits: Record<string, GovernorWait[]> = { one: [], two: [] };
    const one = pool.client({ maxWaitMs: Infinity, onWait: (w) => waits.one!.push(w) });
    const two = pool.client({ maxWaitMs: 1000, onWait: (w) => waits.two!.push(w) });
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
