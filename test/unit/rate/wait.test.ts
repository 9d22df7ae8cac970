import { describe, expect, it, vi } from 'vitest';
import type { ClockOffset, RateLimitHeaders } from '../../../src/rate/headers.js';
import { MAX_TIMER_MS } from '../../../src/time/clock.js';
import { clampTimerMs, decideWait, describeTooLong, floorWaitMs } from '../../../src/rate/wait.js';

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
    const d = decideWait({
      kind: 'pacing',
      response,
      now: T,
      serverClock: { offset: { low: 5_000, high: 5_400, samples: 3 }, marginMs: 0 },
      maxWaitMs: Infinity,
    });
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
    expect(decideWait({ kind: 'retry', response: date, now: T - 10 * MIN, serverClock: noClock, maxWaitMs: Infinity, backoffMs: () => 0 }).ms).toBe(
      20_000,
    );
    expect(decideWait({ kind: 'retry', response: seconds, now: T, serverClock: noClock, maxWaitMs: Infinity, backoffMs: () => 9_000 })).toMatchObject(
      {
        reason: 'backoff',
        ms: 9_000,
      },
    );
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

describe('floorWaitMs and clampTimerMs', () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [5, 16_000],
    [0, 1000],
    [200, MAX_TIMER_MS],
  ])('floorWaitMs(%i) = %i', (attempt, expected) => {
    expect(floorWaitMs(attempt)).toBe(expected);
  });

  it.each([
    [-5, 0],
    [Number.NaN, 0],
    [1500, 1500],
    [2 ** 40, MAX_TIMER_MS],
    [Number.POSITIVE_INFINITY, MAX_TIMER_MS],
  ])('clampTimerMs(%d) = %d', (ms, expected) => {
    expect(clampTimerMs(ms)).toBe(expected);
  });
});

/** A wait decided the moment its response arrived, so `ms` is the whole wait. */
interface WaitAt {
  headers: RateLimitHeaders;
  receivedAt: number;
  kind: '429' | 'pacing';
  attempt?: number;
  offset?: ClockOffset;
  marginMs?: number;
}

function decideAt(input: WaitAt) {
  const { headers, receivedAt, kind } = input;
  const serverClock = { offset: input.offset, marginMs: input.marginMs ?? 0 };
  const common = { response: { headers, receivedAt }, now: receivedAt, serverClock, maxWaitMs: Infinity };
  return kind === '429' ? decideWait({ ...common, kind, attempt: input.attempt ?? 1 }) : decideWait({ ...common, kind });
}

describe('decideWait: the end of a 429 or pacing wait', () => {
  const h = (o: RateLimitHeaders): RateLimitHeaders => o;
  type Row = [string, WaitAt, { ms: number; reason: string }];
  it.each<Row>([
    [
      'Reset − Date from the response, local clock 5 min fast',
      { headers: h({ date: T, resetAt: T + 6 * MIN }), receivedAt: T + 5 * MIN, kind: '429' },
      { ms: 6 * MIN, reason: 'rate-limit' },
    ],
    [
      'Reset − Date from the response, local clock 10 min slow',
      { headers: h({ date: T, resetAt: T + 6 * MIN }), receivedAt: T - 10 * MIN, kind: '429' },
      { ms: 6 * MIN, reason: 'rate-limit' },
    ],
    [
      'Reset in ms (13 digits) already parsed; with an estimate, ends at reset − low',
      { headers: h({ date: T, resetAt: T + 30_500 }), receivedAt: T - 2_000, offset: { low: 2_000, high: 2_200, samples: 9 }, kind: 'pacing' },
      { ms: 30_500, reason: 'pacing' },
    ],
    [
      'without Date the local clock is the fallback',
      { headers: h({ resetAt: T + 10_000 }), receivedAt: T, kind: '429' },
      { ms: 10_000, reason: 'rate-limit' },
    ],
    [
      'rounding margin adds 1 s',
      { headers: h({ date: T, resetAt: T + 10_000 }), receivedAt: T, marginMs: 1000, kind: 'pacing' },
      { ms: 11_000, reason: 'pacing' },
    ],
    [
      'Reset 0 gets the 1 s floor',
      { headers: h({ date: T, resetAt: 0 }), receivedAt: T, kind: '429', attempt: 1 },
      { ms: 1000, reason: 'rate-limit' },
    ],
    [
      'Reset in the past, third 429 in a row: floor grows to 4 s',
      { headers: h({ date: T, resetAt: T - 60_000 }), receivedAt: T, kind: '429', attempt: 3 },
      { ms: 4000, reason: 'rate-limit' },
    ],
    ['garbage (no Reset at all): floor', { headers: h({}), receivedAt: T, kind: '429', attempt: 2 }, { ms: 2000, reason: 'rate-limit' }],
    [
      'a 429 whose reset is 300 ms away still waits the floor',
      { headers: h({ date: T, resetAt: T + 300 }), receivedAt: T, kind: '429' },
      { ms: 1000, reason: 'rate-limit' },
    ],
    [
      'a pacing wait 300 ms away is not floored',
      { headers: h({ date: T, resetAt: T + 300 }), receivedAt: T, kind: 'pacing' },
      { ms: 300, reason: 'pacing' },
    ],
    [
      'pacing with an unusable reset waits 1 s',
      { headers: h({ date: T, resetAt: T }), receivedAt: T, kind: 'pacing' },
      { ms: 1000, reason: 'pacing' },
    ],
    [
      'Retry-After seconds, no Reset',
      { headers: h({ date: T, retryAfter: { kind: 'delay', ms: 7000 } }), receivedAt: T + 5 * MIN, kind: '429' },
      { ms: 7000, reason: 'retry-after' },
    ],
    [
      'Retry-After HTTP-date is read by the server clock',
      { headers: h({ date: T, retryAfter: { kind: 'date', at: T + 20_000 } }), receivedAt: T - 10 * MIN, kind: '429' },
      { ms: 20_000, reason: 'retry-after' },
    ],
    [
      'the later of Retry-After and Reset wins (Retry-After longer)',
      { headers: h({ date: T, resetAt: T + 5_000, retryAfter: { kind: 'delay', ms: 9000 } }), receivedAt: T, kind: '429' },
      { ms: 9000, reason: 'retry-after' },
    ],
    [
      'the later of Retry-After and Reset wins (Reset longer)',
      { headers: h({ date: T, resetAt: T + 50_000, retryAfter: { kind: 'delay', ms: 9000 } }), receivedAt: T, kind: '429' },
      { ms: 50_000, reason: 'rate-limit' },
    ],
    [
      'Retry-After is ignored for pacing',
      { headers: h({ date: T, resetAt: T + 5_000, retryAfter: { kind: 'delay', ms: 9000 } }), receivedAt: T, kind: 'pacing' },
      { ms: 5000, reason: 'pacing' },
    ],
  ])('%s', (_n, input, expected) => {
    const plan = decideAt(input);
    expect({ ms: plan.ms, reason: plan.reason }).toEqual(expected);
    expect(plan.until).toBe(input.receivedAt + plan.ms);
  });

  it('a reset two hours away is reported in full in `until` (for --max-wait) and clamped nowhere below the timer limit', () => {
    const plan = decideAt({ headers: { date: T, resetAt: T + 2 * 3600_000 }, receivedAt: T, kind: '429' });
    expect(plan.ms).toBe(2 * 3600_000);
    expect(plan.until - T).toBe(2 * 3600_000);
  });

  it('a reset 30 days away, past the timer limit, is reported in full (the clock clamps its timer)', () => {
    const plan = decideAt({ headers: { date: T, resetAt: T + 30 * 86_400_000 }, receivedAt: T, kind: '429' });
    expect(plan.neededMs).toBe(30 * 86_400_000);
    expect(plan.until).toBe(T + 30 * 86_400_000);
  });

  it('is never early against the true server clock, and within 1 s, for any skew and Date phase', () => {
    for (const skew of [-10 * MIN, -1234, 0, 987, 5 * MIN]) {
      for (const phase of [0, 1, 250, 999]) {
        const serverNow = T + phase; // the server's true time when it made the response
        const date = Math.floor(serverNow / 1000) * 1000;
        const reset = T + 6 * MIN; // falls on a second
        const receivedAt = serverNow - skew + 15; // 15 ms later by the local clock
        const plan = decideAt({ headers: { date, resetAt: reset }, receivedAt, kind: '429' });
        const serverAtWake = plan.until + skew;
        expect(serverAtWake).toBeGreaterThanOrEqual(reset);
        expect(serverAtWake - reset).toBeLessThan(1000 + 15);
      }
    }
  });

  it("a first 429's plain wait", () => {
    expect(decideAt({ headers: { date: T, resetAt: T + 6 * MIN }, receivedAt: T + 5 * MIN, kind: '429', attempt: 1 }).ms).toBe(6 * MIN);
    expect(decideAt({ headers: {}, receivedAt: T, kind: '429', attempt: 1 }).ms).toBe(1000);
  });
});
