import { describe, expect, it } from 'vitest';
import { parseCount, parseHttpDate, parseRateLimitHeaders, parseReset, parseRetryAfter } from '../../../src/rate/headers.js';

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
