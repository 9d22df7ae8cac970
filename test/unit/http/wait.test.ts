import { describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS } from '../../../src/time/clock.js';
import { decideWait, describeTooLong } from '../../../src/http/wait.js';

const T = Date.UTC(2024, 3, 16, 18, 0, 0);
const MIN = 60_000;
const noClock = { offset: undefined, marginMs: 0 };

describe('decideWait: 429', () => {
  it('waits for the reset by the server clock, measured from the response', () => {
    // The local clock is 5 min fast: Date says T, the response arrived at T + 5 min local.
    const d = decideWait({
      kind: '429',
      response: { headers: { date: T, resetAt: T + MIN }, receivedAt: T + 5 * MIN },
      attempt: 1,
      now: T + 5 * MIN + 200,
      serverClock: noClock,
      maxWaitMs: Infinity,
    });
    expect(d).toEqual({ reason: 'rate-limit', until: T + 6 * MIN, ms: MIN - 200, neededMs: MIN, tooLong: false });
  });

  it('adds the rounding margin and honours a longer Retry-After', () => {
    const d = decideWait({
      kind: '429',
      response: { headers: { date: T, resetAt: T + 2_000, retryAfter: { kind: 'delay', ms: 10_000 } }, receivedAt: T },
      attempt: 1,
      now: T,
      serverClock: { offset: undefined, marginMs: 1000 },
      maxWaitMs: Infinity,
    });
    expect(d).toMatchObject({ reason: 'retry-after', until: T + 10_000, ms: 10_000 });
  });

  it('is too long when the wait from the response exceeds maxWait', () => {
    const d = decideWait({
      kind: '429',
      response: { headers: { date: T, resetAt: T + 2 * 3600_000 }, receivedAt: T },
      attempt: 1,
      now: T,
      serverClock: noClock,
      maxWaitMs: 10 * MIN,
    });
    expect(d).toMatchObject({ tooLong: true, neededMs: 2 * 3600_000, until: T + 2 * 3600_000 });
  });

  it('floors a garbage reset at 1 s, 2 s… by attempt', () => {
    const at = (attempt: number) =>
      decideWait({ kind: '429', response: { headers: {}, receivedAt: T }, attempt, now: T, serverClock: noClock, maxWaitMs: Infinity }).ms;
    expect([at(1), at(2), at(3)]).toEqual([1000, 2000, 4000]);
  });
});

describe('decideWait: pacing', () => {
  it('waits from now until the reset; a reset already past needs no wait and is never too long', () => {
    const response = { headers: { date: T, resetAt: T + 30_000, remaining: 0 }, receivedAt: T };
    expect(decideWait({ kind: 'pacing', response, now: T + 10_000, serverClock: noClock, maxWaitMs: 5_000 })).toEqual({
      reason: 'pacing',
      until: T + 30_000,
      ms: 20_000,
      neededMs: 20_000,
      tooLong: true,
    });
    expect(decideWait({ kind: 'pacing', response, now: T + 40_000, serverClock: noClock, maxWaitMs: 0 })).toMatchObject({ ms: 0, tooLong: false });
  });

  it('reads the reset with the offset estimate when there is one', () => {
    const response = { headers: { resetAt: T + 30_000 }, receivedAt: T };
    const d = decideWait({ kind: 'pacing', response, now: T, serverClock: { offset: { low: 5_000, high: 5_400, samples: 3 }, marginMs: 0 }, maxWaitMs: Infinity });
    expect(d.until).toBe(T + 25_000);
  });
});

describe('decideWait: retry', () => {
  it('waits the backoff when there is no Retry-After', () => {
    const d = decideWait({ kind: 'retry', now: T, serverClock: noClock, maxWaitMs: Infinity, backoffMs: () => 750 });
    expect(d).toEqual({ reason: 'backoff', until: T + 750, ms: 750, neededMs: 0, tooLong: false });
  });

  it('waits at least a 5xx Retry-After, in seconds or as an HTTP date on the server clock', () => {
    const seconds = { headers: { retryAfter: { kind: 'delay' as const, ms: 7_000 } }, receivedAt: T };
    expect(decideWait({ kind: 'retry', response: seconds, now: T, serverClock: noClock, maxWaitMs: Infinity, backoffMs: () => 500 })).toMatchObject({
      reason: 'retry-after',
      ms: 7_000,
      neededMs: 7_000,
    });
    // Local clock 10 min slow: the date is 20 s after the response's Date.
    const date = { headers: { date: T, retryAfter: { kind: 'date' as const, at: T + 20_000 } }, receivedAt: T - 10 * MIN };
    expect(decideWait({ kind: 'retry', response: date, now: T - 10 * MIN, serverClock: noClock, maxWaitMs: Infinity, backoffMs: () => 0 }).ms).toBe(20_000);
    expect(decideWait({ kind: 'retry', response: seconds, now: T, serverClock: noClock, maxWaitMs: Infinity, backoffMs: () => 9_000 })).toMatchObject({
      reason: 'backoff',
      ms: 9_000,
    });
  });

  it('is too long when the Retry-After exceeds maxWait, and then draws no backoff', () => {
    const backoffMs = vi.fn(() => 100);
    const response = { headers: { retryAfter: { kind: 'delay' as const, ms: 3600_000 } }, receivedAt: T };
    const d = decideWait({ kind: 'retry', response, now: T, serverClock: noClock, maxWaitMs: MIN, backoffMs });
    expect(d).toMatchObject({ tooLong: true, neededMs: 3600_000 });
    expect(backoffMs).not.toHaveBeenCalled();
  });

  it('clamps the delay to the timer range', () => {
    const response = { headers: { retryAfter: { kind: 'delay' as const, ms: MAX_TIMER_MS * 2 } }, receivedAt: T };
    expect(decideWait({ kind: 'retry', response, now: T, serverClock: noClock, maxWaitMs: Infinity, backoffMs: () => 0 }).ms).toBe(MAX_TIMER_MS);
  });
});

describe('describeTooLong', () => {
  it('rounds the wait up and the ceiling down, in seconds', () => {
    expect(describeTooLong(7_200_001, 600_999)).toBe('7201 s, longer than the longest wait allowed (600 s)');
  });
});
