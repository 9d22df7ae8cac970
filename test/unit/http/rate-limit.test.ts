import { describe, expect, it } from 'vitest';
import { parseCount, parseHttpDate, parseRateLimitHeaders, parseReset, parseRetryAfter, type RateLimitHeaders } from '../../../src/http/rate-limit.js';
import { serverToLocal, updateClockOffset, type ClockOffset } from '../../../src/http/server-clock.js';
import { clampTimerMs, floorWaitMs, planWait, waitMs } from '../../../src/http/wait.js';
import { MAX_TIMER_MS } from '../../../src/time/clock.js';

const T = Date.UTC(2024, 3, 16, 18, 0, 0); // 2024-04-16T18:00:00Z
const MIN = 60_000;

describe('parseHttpDate (RFC 9110 §5.6.7)', () => {
  it.each<[string, string | null, number | undefined]>([
    ['IMF-fixdate', 'Sun, 06 Nov 1994 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['IMF-fixdate, lower case', 'tue, 16 apr 2024 18:00:00 gmt', T],
    ['rfc850-date', 'Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['asctime-date, read as UTC', 'Sun Nov  6 08:49:37 1994', Date.UTC(1994, 10, 6, 8, 49, 37)],
    ['asctime-date, two-digit day', 'Tue Apr 16 18:00:00 2024', T],
    ['surrounding spaces', '  Tue, 16 Apr 2024 18:00:00 GMT ', T],
    ['31 February', 'Sat, 31 Feb 2024 00:00:00 GMT', undefined],
    ['hour 24', 'Tue, 16 Apr 2024 24:00:00 GMT', undefined],
    ['ISO is not an HTTP-date', '2024-04-16T18:00:00Z', undefined],
    ['not a zone', 'Tue, 16 Apr 2024 18:00:00 CEST', undefined],
    ['garbage', 'soon', undefined],
    ['null', null, undefined],
  ])('%s', (_n, value, expected) => {
    expect(parseHttpDate(value)).toBe(expected);
  });

  it('reads an rfc850 two-digit year more than 50 years ahead as the past century', () => {
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', Date.UTC(2030, 0, 1))).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseHttpDate('Monday, 06-Nov-34 08:49:37 GMT', Date.UTC(2030, 0, 1))).toBe(Date.UTC(2034, 10, 6, 8, 49, 37));
  });
});

describe('parseReset', () => {
  it.each<[string, string | null, number | undefined]>([
    ['epoch seconds', '1713290760', 1713290760_000],
    ['epoch seconds with a fraction', '1713290760.5', 1713290760_500],
    ['13-digit epoch milliseconds', '1713290760123', 1713290760123],
    ['ISO date-time, Z', '2024-04-16T18:06:00Z', T + 6 * MIN],
    ['ISO date-time with ms and offset', '2024-04-16T20:06:00.250+02:00', T + 6 * MIN + 250],
    ['ISO date-time, offset without colon', '2024-04-16T20:06:00+0200', T + 6 * MIN],
    ['ISO date-time without zone is UTC', '2024-04-16T18:06:00', T + 6 * MIN],
    ['HTTP-date', 'Tue, 16 Apr 2024 18:06:00 GMT', T + 6 * MIN],
    ['zero', '0', 0],
    ['negative', '-5', undefined],
    ['garbage', 'soon', undefined],
    ['empty', '', undefined],
    ['null', null, undefined],
  ])('%s', (_n, value, expected) => {
    expect(parseReset(value)).toBe(expected);
  });
});

describe('parseRetryAfter (RFC 9110 §10.2.3)', () => {
  it.each<[string, string | null, ReturnType<typeof parseRetryAfter>]>([
    ['delay-seconds', '120', { kind: 'delay', ms: 120_000 }],
    ['zero', '0', { kind: 'delay', ms: 0 }],
    ['HTTP-date', 'Tue, 16 Apr 2024 18:06:00 GMT', { kind: 'date', at: T + 6 * MIN }],
    ['negative', '-1', undefined],
    ['fraction', '1.5', undefined],
    ['garbage', 'later', undefined],
    ['absent', null, undefined],
  ])('%s', (_n, value, expected) => {
    expect(parseRetryAfter(value)).toEqual(expected);
  });
});

describe('parseCount', () => {
  it.each<[string | null, number | undefined]>([
    ['60', 60],
    [' 0 ', 0],
    ['5, 4', 4],
    ['-1', undefined],
    ['1e3', undefined],
    ['', undefined],
    [null, undefined],
  ])('%j → %j', (value, expected) => {
    expect(parseCount(value)).toBe(expected);
  });
});

describe('parseRateLimitHeaders', () => {
  it('reads all the headers case-insensitively from a Headers object', () => {
    const h = new Headers({
      'X-RateLimit-Limit': '60',
      'x-ratelimit-remaining': '56',
      'X-RATELIMIT-RESET': '1713290760',
      'Retry-After': '7',
      Date: 'Tue, 16 Apr 2024 18:00:00 GMT',
    });
    expect(parseRateLimitHeaders(h)).toEqual({
      limit: 60,
      remaining: 56,
      resetAt: 1713290760_000,
      retryAfter: { kind: 'delay', ms: 7000 },
      date: T,
    });
  });

  it('leaves out absent and garbage values', () => {
    expect(parseRateLimitHeaders(new Headers({ 'X-RateLimit-Remaining': 'many', 'X-RateLimit-Reset': 'x' }))).toEqual({});
  });
});

describe('updateClockOffset', () => {
  it('bounds the offset by [Date − receivedAt, Date + 1000 − sentAt]', () => {
    expect(updateClockOffset(undefined, T, T - 5_100, T - 5_000)).toEqual({ low: 5_000, high: 6_100, samples: 1 });
  });

  it('narrows to tens of ms over responses whose Date ticks at different instants', () => {
    const trueOffset = 5 * MIN + 437; // the server is 5 min 437 ms ahead
    let est: ClockOffset | undefined;
    let local = T;
    for (let i = 0; i < 40; i++) {
      local += 173; // requests every 173 ms, 20 ms round trips
      const sentAt = local;
      const receivedAt = local + 20;
      const serverAtHandling = sentAt + 10 + trueOffset;
      const date = Math.floor(serverAtHandling / 1000) * 1000;
      est = updateClockOffset(est, date, sentAt, receivedAt);
      expect(est.low).toBeLessThanOrEqual(trueOffset);
      expect(est.high).toBeGreaterThanOrEqual(trueOffset);
    }
    // The round trip (20 ms) bounds how narrow it can get.
    expect(est!.high - est!.low).toBeLessThanOrEqual(50);
    expect(est!.samples).toBe(40);
  });

  it('restarts when the intersection becomes empty (the server clock jumped)', () => {
    const a = updateClockOffset(undefined, T, T, T + 10);
    const b = updateClockOffset(a, T + 3_600_000, T + 100, T + 110);
    expect(b).toEqual({ low: 3_600_000 - 110, high: 3_600_000 + 1000 - 100, samples: 1 });
  });

  it('serverToLocal subtracts the lower bound, or trusts the local clock without an estimate', () => {
    expect(serverToLocal(T, { low: 300_000, high: 300_500, samples: 3 })).toBe(T - 300_000);
    expect(serverToLocal(T, undefined)).toBe(T);
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

describe('planWait', () => {
  const h = (o: RateLimitHeaders): RateLimitHeaders => o;
  type Row = [string, Parameters<typeof planWait>[0], { ms: number; reason: string; floored: boolean }];
  it.each<Row>([
    [
      'Reset − Date from the response, local clock 5 min fast',
      { headers: h({ date: T, resetAt: T + 6 * MIN }), receivedAt: T + 5 * MIN, kind: '429' },
      { ms: 6 * MIN, reason: 'rate-limit', floored: false },
    ],
    [
      'Reset − Date from the response, local clock 10 min slow',
      { headers: h({ date: T, resetAt: T + 6 * MIN }), receivedAt: T - 10 * MIN, kind: '429' },
      { ms: 6 * MIN, reason: 'rate-limit', floored: false },
    ],
    [
      'Reset in ms (13 digits) already parsed; with an estimate, ends at reset − low',
      { headers: h({ date: T, resetAt: T + 30_500 }), receivedAt: T - 2_000, offset: { low: 2_000, high: 2_200, samples: 9 }, kind: 'pacing' },
      { ms: 30_500, reason: 'pacing', floored: false },
    ],
    [
      'without Date the local clock is the fallback',
      { headers: h({ resetAt: T + 10_000 }), receivedAt: T, kind: '429' },
      { ms: 10_000, reason: 'rate-limit', floored: false },
    ],
    [
      'rounding margin adds 1 s',
      { headers: h({ date: T, resetAt: T + 10_000 }), receivedAt: T, marginMs: 1000, kind: 'pacing' },
      { ms: 11_000, reason: 'pacing', floored: false },
    ],
    [
      'Reset 0 gets the 1 s floor',
      { headers: h({ date: T, resetAt: 0 }), receivedAt: T, kind: '429', attempt: 1 },
      { ms: 1000, reason: 'rate-limit', floored: true },
    ],
    [
      'Reset in the past, third 429 in a row: floor grows to 4 s',
      { headers: h({ date: T, resetAt: T - 60_000 }), receivedAt: T, kind: '429', attempt: 3 },
      { ms: 4000, reason: 'rate-limit', floored: true },
    ],
    ['garbage (no Reset at all): floor', { headers: h({}), receivedAt: T, kind: '429', attempt: 2 }, { ms: 2000, reason: 'rate-limit', floored: true }],
    [
      'a 429 whose reset is 300 ms away still waits the floor',
      { headers: h({ date: T, resetAt: T + 300 }), receivedAt: T, kind: '429' },
      { ms: 1000, reason: 'rate-limit', floored: true },
    ],
    [
      'a pacing wait 300 ms away is not floored',
      { headers: h({ date: T, resetAt: T + 300 }), receivedAt: T, kind: 'pacing' },
      { ms: 300, reason: 'pacing', floored: false },
    ],
    ['pacing with an unusable reset waits 1 s', { headers: h({ date: T, resetAt: T }), receivedAt: T, kind: 'pacing' }, { ms: 1000, reason: 'pacing', floored: true }],
    [
      'Retry-After seconds, no Reset',
      { headers: h({ date: T, retryAfter: { kind: 'delay', ms: 7000 } }), receivedAt: T + 5 * MIN, kind: '429' },
      { ms: 7000, reason: 'retry-after', floored: false },
    ],
    [
      'Retry-After HTTP-date is read by the server clock',
      { headers: h({ date: T, retryAfter: { kind: 'date', at: T + 20_000 } }), receivedAt: T - 10 * MIN, kind: '429' },
      { ms: 20_000, reason: 'retry-after', floored: false },
    ],
    [
      'the later of Retry-After and Reset wins (Retry-After longer)',
      { headers: h({ date: T, resetAt: T + 5_000, retryAfter: { kind: 'delay', ms: 9000 } }), receivedAt: T, kind: '429' },
      { ms: 9000, reason: 'retry-after', floored: false },
    ],
    [
      'the later of Retry-After and Reset wins (Reset longer)',
      { headers: h({ date: T, resetAt: T + 50_000, retryAfter: { kind: 'delay', ms: 9000 } }), receivedAt: T, kind: '429' },
      { ms: 50_000, reason: 'rate-limit', floored: false },
    ],
    [
      'Retry-After is ignored for pacing',
      { headers: h({ date: T, resetAt: T + 5_000, retryAfter: { kind: 'delay', ms: 9000 } }), receivedAt: T, kind: 'pacing' },
      { ms: 5000, reason: 'pacing', floored: false },
    ],
  ])('%s', (_n, input, expected) => {
    const plan = planWait(input);
    expect({ ms: plan.ms, reason: plan.reason, floored: plan.floored }).toEqual(expected);
    expect(plan.until).toBe(input.receivedAt + plan.ms);
  });

  it('a reset two hours away is reported in full in `until` (for --max-wait) and clamped nowhere below the timer limit', () => {
    const plan = planWait({ headers: { date: T, resetAt: T + 2 * 3600_000 }, receivedAt: T, kind: '429' });
    expect(plan.ms).toBe(2 * 3600_000);
    expect(plan.until - T).toBe(2 * 3600_000);
  });

  it('a reset 30 days away is clamped below 2^31 − 1 ms but `until` keeps the truth', () => {
    const plan = planWait({ headers: { date: T, resetAt: T + 30 * 86_400_000 }, receivedAt: T, kind: '429' });
    expect(plan.ms).toBe(MAX_TIMER_MS);
    expect(plan.until).toBe(T + 30 * 86_400_000);
  });

  it('is never early against the true server clock, and within 1 s, for any skew and Date phase', () => {
    for (const skew of [-10 * MIN, -1234, 0, 987, 5 * MIN]) {
      for (const phase of [0, 1, 250, 999]) {
        const serverNow = T + phase; // the server's true time when it made the response
        const date = Math.floor(serverNow / 1000) * 1000;
        const reset = T + 6 * MIN; // falls on a second
        const receivedAt = serverNow - skew + 15; // 15 ms later by the local clock
        const plan = planWait({ headers: { date, resetAt: reset }, receivedAt, kind: '429' });
        const serverAtWake = plan.until + skew;
        expect(serverAtWake).toBeGreaterThanOrEqual(reset);
        expect(serverAtWake - reset).toBeLessThan(1000 + 15);
      }
    }
  });

  it('waitMs is the simple 429 wait', () => {
    expect(waitMs({ date: T, resetAt: T + 6 * MIN }, T + 5 * MIN)).toBe(6 * MIN);
    expect(waitMs({}, T)).toBe(1000);
  });
});
