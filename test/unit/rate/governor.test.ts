import { describe, expect, it } from 'vitest';
import { RateLimitGovernor, type AcquireOptions, type GovernorWait, type ResponseObservation } from '../../../src/rate/governor.js';
import { ServerClock } from '../../../src/rate/headers.js';
import type { RateLimitHeaders } from '../../../src/rate/headers.js';
import { RateLimitError } from '../../../src/errors.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';

const T = Date.UTC(2024, 3, 16, 18, 0, 0);

function setup(maxWaitMs?: number) {
  const clock = createVirtualClock(T);
  const serverClock = new ServerClock();
  const waits: GovernorWait[] = [];
  const gov = new RateLimitGovernor({ clock, serverClock });
  const pacing = { onWait: (w: GovernorWait) => waits.push(w), maxWaitMs: maxWaitMs ?? Infinity };
  const acquire = (opts?: AcquireOptions) => gov.acquire(pacing, opts);
  const obs = (status: number, headers: RateLimitHeaders): ResponseObservation => {
    serverClock.observe(headers.date, clock.now(), clock.now());
    return { status, headers, receivedAt: clock.now() };
  };
  return { clock, serverClock, gov, acquire, pacing, waits, obs };
}

/** Resolves to true if `p` settles within a few event-loop turns. */
async function settles(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
  return done;
}

describe('rate-limit governor', () => {
  it('sends one request at a time until the quota is known, then reserves: never more in flight than Remaining', async () => {
    const { acquire, obs, clock, serverClock } = setup();
    const first = await acquire();
    const second = acquire();
    expect(await settles(second)).toBe(false);
    first.release(obs(200, { remaining: 3, resetAt: T + 60_000, date: clock.now() }));
    const p2 = await second;
    const p3 = await acquire();
    const p4 = await acquire();
    const p5 = acquire();
    expect(await settles(p5)).toBe(false);
    // Answers in the window that say less room than reserved lower the estimate; more does not raise it.
    p2.release(obs(200, { remaining: 2, resetAt: T + 60_000, date: clock.now() }));
    expect(await settles(p5)).toBe(false);
    p3.release(obs(200, { remaining: 1, resetAt: T + 60_000, date: clock.now() }));
    p4.release(obs(200, { remaining: 0, resetAt: T + 60_000, date: clock.now() }));
    // Spent and nothing in flight: p5 waits for the reset by the virtual clock.
    const granted = await p5;
    expect(clock.now()).toBe(T + 60_000);
    // The first request after the wait: a 429 on it means the server rounds its reset down.
    granted.release(obs(429, { remaining: 0, resetAt: T + 60_000, date: clock.now() }));
    expect(serverClock.marginMs).toBe(1000);
  });

  it('waits for the reset by the server clock (local clock 10 min slow) and reports one wait for many waiters', async () => {
    const { acquire, obs, clock, waits } = setup();
    const skew = 10 * 60_000;
    const p = await acquire();
    p.release(obs(200, { remaining: 0, limit: 60, resetAt: T + skew + 30_000, date: T + skew }));
    const first = acquire();
    const second = acquire();
    const p1 = await first;
    expect(clock.now()).toBe(T + 30_000);
    // The new window starts with one request; the second waits for its answer, not for the clock.
    expect(await settles(second)).toBe(false);
    p1.release(obs(200, { remaining: 59, limit: 60, resetAt: T + skew + 90_000, date: T + skew + 30_000 }));
    await second;
    expect(clock.now()).toBe(T + 30_000);
    expect(waits).toEqual([{ reason: 'pacing', ms: 30_000, until: T + 30_000, limit: 60, remaining: 0 }]);
  });

  it('ignores a late answer from the previous window, and a later Reset starts a new window', async () => {
    const { acquire, obs, clock } = setup();
    const a = await acquire();
    a.release(obs(200, { remaining: 5, resetAt: T + 60_000, date: T }));
    const b = await acquire();
    const c = await acquire();
    c.release(obs(200, { remaining: 9, resetAt: T + 120_000, date: T }));
    b.release(obs(200, { remaining: 0, resetAt: T + 60_000, date: T }));
    // Room for 8 (9, less b in flight), and the window ends at the later reset.
    const eight = await Promise.all(Array.from({ length: 8 }, () => acquire()));
    const ninth = acquire();
    expect(await settles(ninth)).toBe(false);
    for (const p of eight) p.release(obs(200, { remaining: 0, resetAt: T + 120_000, date: T }));
    await ninth;
    expect(clock.now()).toBe(T + 120_000);
  });

  it('a 429 right after a wait makes every later wait 1 s longer (the server rounds its reset down)', async () => {
    const { gov, acquire, pacing, obs, clock, serverClock } = setup();
    const a = await acquire();
    a.release(obs(200, { remaining: 0, resetAt: T + 10_000, date: T }));
    const b = await acquire();
    expect(clock.now()).toBe(T + 10_000);
    b.release(obs(429, { remaining: 0, resetAt: T + 10_000, date: T + 9_000 }));
    expect(serverClock.marginMs).toBe(1000);
    gov.blockUntil(clock.now() + 1000, pacing.onWait);
    const c = await acquire({ afterWait: true });
    c.release(obs(200, { remaining: 0, resetAt: T + 20_000, date: T + 11_000 }));
    await acquire();
    expect(clock.now()).toBe(T + 21_000);
  });

  it('a 429 not preceded by a wait does not add the margin', () => {
    const { acquire, obs, serverClock } = setup();
    return acquire().then((p) => {
      p.release(obs(429, { remaining: 0, resetAt: T + 10_000, date: T }));
      expect(serverClock.marginMs).toBe(0);
    });
  });

  it('refuses a pacing wait longer than maxWait with RateLimitError, without sleeping', async () => {
    const { acquire, obs, clock } = setup(60_000);
    const p = await acquire();
    p.release(obs(200, { remaining: 0, resetAt: T + 2 * 3600_000, date: T }));
    const err = await acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).resetAt).toBe(T + 2 * 3600_000);
    // In the library's words (the command line renders it as `raise --max-wait, …`).
    expect((err as RateLimitError).hint).toBe('raise maxWaitMs, or run again after the reset');
    expect(clock.now()).toBe(T);
  });

  it('without rate-limit headers it does not hold requests back', async () => {
    const { acquire, obs } = setup();
    const p = await acquire();
    p.release(obs(200, {}));
    const many = await Promise.all([acquire(), acquire(), acquire()]);
    expect(many).toHaveLength(3);
  });

  it('an abort rejects a waiting acquire with the signal reason', async () => {
    const { acquire } = setup();
    await acquire();
    const ctrl = new AbortController();
    const waiting = acquire({ signal: ctrl.signal });
    ctrl.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });

  it('probes (wait: false) are granted at once and still counted', async () => {
    const { acquire } = setup();
    const first = await acquire();
    const probe = await acquire({ wait: false });
    // The window is unknown: one request at a time, the probe included.
    first.release();
    const next = acquire();
    expect(await settles(next)).toBe(false);
    probe.release();
    expect(await settles(next)).toBe(true);
  });
});

describe('server clock estimate through the governor', () => {
  it('converges so a pacing wait ends within tens of ms of the reset, never before', async () => {
    const { acquire, clock, serverClock } = setup();
    const skew = 5 * 60_000 + 321; // server ahead by 5 min 321 ms
    // Many quick requests (virtual time advances 97 ms between them, 10 ms round trips).
    for (let i = 0; i < 30; i++) {
      const p = await acquire();
      const sentAt = clock.now();
      clock.advance(10);
      const receivedAt = clock.now();
      const date = Math.floor((sentAt + 5 + skew) / 1000) * 1000;
      serverClock.observe(date, sentAt, receivedAt);
      p.release({ status: 200, headers: { remaining: i === 29 ? 0 : 100, resetAt: T + skew - 321 + 60_000, date }, receivedAt });
      clock.advance(87);
    }
    await acquire();
    const serverAtWake = clock.now() + skew;
    const reset = T + skew - 321 + 60_000;
    expect(serverAtWake).toBeGreaterThanOrEqual(reset);
    expect(serverAtWake - reset).toBeLessThanOrEqual(30);
  });
});

/** A caller that hears no waits and accepts any. */
const ALONE = { onWait: () => undefined, maxWaitMs: Infinity };

describe('rate-limit governor sharing with other processes', () => {
  /** A governor whose shared quota counts the calls; each request is answered with `remaining` of `limit`. */
  async function callsFor(limit: number, remainingAfter: (n: number) => number, requests: number, holdsUntilTold = false) {
    const clock = createVirtualClock(T);
    const serverClock = new ServerClock();
    const calls = { reserve: 0, observe: 0 };
    const quota = {
      reserve: () => (calls.reserve++, { granted: true as const }),
      observe: () => (calls.observe++, false),
      cancel: () => undefined,
      learnPathScope: () => undefined,
      isPathScope: () => false,
      holdsUntilTold,
    };
    const gov = new RateLimitGovernor({ clock, serverClock, shared: { quota: () => quota, scope: '/entities' } });
    for (let n = 1; n <= requests; n++) {
      const permit = await gov.acquire(ALONE);
      const headers: RateLimitHeaders = { limit, remaining: remainingAfter(n), resetAt: T + 60_000, date: clock.now() };
      serverClock.observe(headers.date, clock.now(), clock.now());
      permit.release({ status: 200, headers, receivedAt: clock.now() });
    }
    return calls;
  }

  it('reserves and records every request of a small quota (60 a window)', async () => {
    expect(await callsFor(60, (n) => 60 - n, 20)).toEqual({ reserve: 20, observe: 20 });
  });

  it('skips the shared file while the window has plenty of room, and uses it again in its last quarter', async () => {
    // 1,000 a window: requests 1..10 leave 999..990 (roomy: only the first, whose window is unknown,
    // is reserved, and no answer is recorded). Then a window whose 2nd answer says 248 left: the
    // 2nd request went out on the 1st answer (roomy), every later one is reserved, and the answers
    // from the 2nd on are recorded.
    const roomy = await callsFor(1000, (n) => 1000 - n, 10);
    expect(roomy).toEqual({ reserve: 1, observe: 0 });
    const late = await callsFor(1000, (n) => (n === 1 ? 999 : 250 - n), 10);
    expect(late).toEqual({ reserve: 9, observe: 9 });
  });

  it('tells a store that holds the others while a reservation is out (the database) every reserved answer, roomy or not', async () => {
    expect(await callsFor(1000, (n) => 1000 - n, 10, true)).toEqual({ reserve: 1, observe: 1 });
    expect(await callsFor(1000, (n) => (n === 1 ? 999 : 250 - n), 10, true)).toEqual({ reserve: 9, observe: 10 });
  });
});

describe('rate-limit governor: a permit never sent is given back', () => {
  /** A governor sharing with a quota that grants with a ticket and records what is given back. */
  function sharing(autoAdvance = true, holdsUntilTold = false) {
    const clock = createVirtualClock(T, { autoAdvance });
    const serverClock = new ServerClock();
    const cancels: unknown[][] = [];
    const quota = {
      reserve: () => ({ granted: true as const, ticket: { resetAt: T + 60_000, seen: 0 } }),
      observe: () => false,
      cancel: (...args: unknown[]) => void cancels.push(args),
      learnPathScope: () => undefined,
      isPathScope: () => false,
      holdsUntilTold,
    };
    const gov = new RateLimitGovernor({ clock, serverClock, shared: { quota: () => quota, scope: '/entities' } });
    const acquire = (opts?: AcquireOptions) => gov.acquire(ALONE, opts);
    const answer = (remaining: number): ResponseObservation => {
      const headers: RateLimitHeaders = { limit: 60, remaining, resetAt: T + 60_000, date: clock.now() };
      serverClock.observe(headers.date, clock.now(), clock.now());
      return { status: 200, headers, receivedAt: clock.now() };
    };
    return { clock, acquire, cancels, answer };
  }

  it('cancel returns the slot to the window and the reservation to the shared quota, once', async () => {
    const { acquire, cancels, answer } = sharing();
    (await acquire()).release(answer(2));
    const p = await acquire();
    p.cancel();
    p.cancel();
    p.release(answer(0));
    expect(cancels).toEqual([['/entities', { resetAt: T + 60_000, seen: 0 }]]);
    // Its slot is back and the later answer ignored: room for two at once, a third waits.
    const [sent] = [await acquire(), await acquire()];
    expect(await settles(acquire())).toBe(false);
    // A permit that was sent is not given back by a later cancel.
    sent.release(answer(1));
    sent.cancel();
    expect(cancels).toHaveLength(1);
  });

  it('a reserved request answered without the quota headers, or not at all, gives its reservation back to a store that holds the others', async () => {
    const alone = sharing();
    (await alone.acquire()).release({ status: 502, headers: {}, receivedAt: T });
    (await alone.acquire()).release();
    expect(alone.cancels).toEqual([]);
    const { acquire, cancels } = sharing(true, true);
    (await acquire()).release({ status: 502, headers: {}, receivedAt: T });
    (await acquire()).release();
    expect(cancels).toEqual([
      ['/entities', { resetAt: T + 60_000, seen: 0 }],
      ['/entities', { resetAt: T + 60_000, seen: 0 }],
    ]);
  });

  it('an abort while a request is held to probe the server clock gives its reservation back', async () => {
    // The clock moves only when told, so the hold is still under way when the abort comes.
    const { acquire, cancels, answer, clock } = sharing(false);
    (await acquire()).release(answer(2));
    const controller = new AbortController();
    // More requests will follow than the window holds: its last ones are held for the next tick of the server clock.
    const held = acquire({ demand: 10, signal: controller.signal });
    expect(await settles(held)).toBe(false);
    controller.abort();
    await expect(held).rejects.toThrow();
    expect(cancels).toHaveLength(1);
    // Its slot is back: room for two at once, a third waits.
    await acquire();
    await acquire();
    expect(await settles(acquire())).toBe(false);
    expect(clock.now()).toBe(T);
  });
});
