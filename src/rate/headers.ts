/**
 * Parsing of the rate-limit headers, pure: `X-RateLimit-Limit`, `X-RateLimit-Remaining`,
 * `X-RateLimit-Reset` (the API documentation, rate limiting), `Retry-After` and `Date` (RFC 9110).
 * What the values mean for the server's clock is server-clock.ts; how long to wait is wait.ts.
 *
 * Times: "server ms" are epoch milliseconds by the server's clock (from `Date`, `Reset`).
 */
import type { ServerClock } from './server-clock.js';

/** Anything with a case-insensitive `get` (a fetch `Headers`). */
export interface HeaderSource {
  get(name: string): string | null;
}

/** A parsed `Retry-After` (RFC 9110 §10.2.3): a delay, or an HTTP-date by the server's clock. */
export type RetryAfter = { kind: 'delay'; ms: number } | { kind: 'date'; at: number };

/** The rate-limit headers of one response, parsed. Absent or garbage values are undefined. */
export interface RateLimitHeaders {
  /** `X-RateLimit-Limit`: requests per window. */
  limit?: number;
  /** `X-RateLimit-Remaining`: requests left in the current window. */
  remaining?: number;
  /** `X-RateLimit-Reset`: when the window resets, server ms. */
  resetAt?: number;
  /** `Retry-After`, when sent. */
  retryAfter?: RetryAfter;
  /** `Date`: the server's time when it made the response, rounded down to the second (RFC 9110 §6.6.1), server ms. */
  date?: number;
}

const DAYS_SHORT = 'mon|tue|wed|thu|fri|sat|sun';
const DAYS_LONG = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_RE = MONTHS.join('|');
const IMF_FIXDATE = new RegExp(`^(?:${DAYS_SHORT}), (\\d{2}) (${MONTH_RE}) (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) (?:GMT|UTC)$`, 'i');
const RFC850_DATE = new RegExp(`^(?:${DAYS_LONG}), (\\d{2})-(${MONTH_RE})-(\\d{2}) (\\d{2}):(\\d{2}):(\\d{2}) GMT$`, 'i');
const ASCTIME_DATE = new RegExp(`^(?:${DAYS_SHORT}) (${MONTH_RE}) ([ \\d]\\d) (\\d{2}):(\\d{2}):(\\d{2}) (\\d{4})$`, 'i');

function utc(year: number, month: string, day: number, h: number, m: number, s: number): number | undefined {
  const mon = MONTHS.indexOf(month.toLowerCase());
  if (mon < 0 || day < 1 || day > 31 || h > 23 || m > 59 || s > 60) return undefined;
  const ms = Date.UTC(year, mon, day, h, m, s);
  // Reject 31 Feb and the like, which Date.UTC would roll into the next month.
  return new Date(ms).getUTCDate() === day || s === 60 ? ms : undefined;
}

/**
 * Parses an HTTP-date (RFC 9110 §5.6.7): IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), and the
 * obsolete rfc850-date (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime-date
 * (`Sun Nov  6 08:49:37 1994`), all UTC. `Date.parse` is not used because it reads asctime as local time.
 * @param value the header value
 * @param referenceMs for rfc850's two-digit year: a year more than 50 years after this instant's
 *   year means the century before (RFC 9110 §5.6.7); default: 00–69 → 20xx, 70–99 → 19xx
 * @returns epoch ms, or undefined for anything else
 */
export function parseHttpDate(value: string | null | undefined, referenceMs?: number): number | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  let m = IMF_FIXDATE.exec(v);
  if (m) return utc(Number(m[3]), m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = RFC850_DATE.exec(v);
  if (m) {
    const yy = Number(m[3]);
    let year: number;
    if (referenceMs === undefined) {
      year = yy < 70 ? 2000 + yy : 1900 + yy;
    } else {
      const ref = new Date(referenceMs).getUTCFullYear();
      year = Math.floor(ref / 100) * 100 + yy;
      if (year > ref + 50) year -= 100;
    }
    return utc(year, m[2]!, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  m = ASCTIME_DATE.exec(v);
  if (m) return utc(Number(m[6]), m[1]!, Number(m[2]!.trim()), Number(m[3]), Number(m[4]), Number(m[5]));
  return undefined;
}

/**
 * Parses a non-negative integer header (`X-RateLimit-Limit`, `X-RateLimit-Remaining`). A list
 * (`5, 4`, from a duplicated header) gives its smallest value, the conservative reading.
 * @returns the integer, or undefined when absent or not a non-negative integer
 */
export function parseCount(value: string | null | undefined): number | undefined {
  if (value == null) return undefined;
  let result: number | undefined;
  for (const part of value.split(',')) {
    const p = part.trim();
    if (!/^\d{1,15}$/.test(p)) return undefined;
    const n = Number(p);
    result = result === undefined ? n : Math.min(result, n);
  }
  return result;
}

const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Parses `X-RateLimit-Reset`. The API documentation says UTC epoch seconds; its 429 response schema
 * types it as an ISO date-time, and some servers send epoch milliseconds:
 * - digits (optionally with a fraction) of up to 12 integer digits: epoch seconds;
 * - 13 or more integer digits: epoch milliseconds;
 * - ISO 8601 date-time (`2024-04-16T18:06:00Z`, offset optional and then UTC);
 * - an HTTP-date, for good measure.
 * @returns server ms, or undefined for garbage (the caller then applies the 1 s floor)
 */
export function parseReset(value: string | null | undefined): number | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  const num = /^(\d+)(?:\.(\d+))?$/.exec(v);
  if (num) {
    const n = Number(v);
    if (!Number.isFinite(n)) return undefined;
    return num[1]!.length >= 13 ? Math.floor(n) : Math.floor(n * 1000);
  }
  const iso = ISO_DATE_TIME.exec(v);
  if (iso) {
    let zone = iso[3] ?? 'Z';
    if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
    const ms = Date.parse(`${iso[1]}T${iso[2]}${zone.toUpperCase()}`);
    return Number.isFinite(ms) ? ms : undefined;
  }
  return parseHttpDate(v);
}

/**
 * Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds (`1*DIGIT`) or an HTTP-date.
 * @returns the delay in ms or the date in server ms; undefined when absent or garbage
 */
export function parseRetryAfter(value: string | null | undefined): RetryAfter | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return { kind: 'delay', ms: Number(v) * 1000 };
  const at = parseHttpDate(v);
  return at === undefined ? undefined : { kind: 'date', at };
}

/** Parses the rate-limit headers, `Retry-After` and `Date` of a response. Never throws. */
export function parseRateLimitHeaders(headers: HeaderSource): RateLimitHeaders {
  const out: RateLimitHeaders = {};
  const limit = parseCount(headers.get('x-ratelimit-limit'));
  if (limit !== undefined) out.limit = limit;
  const remaining = parseCount(headers.get('x-ratelimit-remaining'));
  if (remaining !== undefined) out.remaining = remaining;
  const resetAt = parseReset(headers.get('x-ratelimit-reset'));
  if (resetAt !== undefined) out.resetAt = resetAt;
  const retryAfter = parseRetryAfter(headers.get('retry-after'));
  if (retryAfter !== undefined) out.retryAfter = retryAfter;
  const date = parseHttpDate(headers.get('date'));
  if (date !== undefined) out.date = date;
  return out;
}

/** Rate-limit headers of a response (the API documentation, rate limiting), with their local reading. */
export interface RateLimitSnapshot {
  limit?: number;
  remaining?: number;
  /** Reset time by the server's clock, epoch ms. */
  resetAt?: number;
  /** When the response was received, epoch ms by the local clock. */
  observedAt: number;
  /** The reset as a local-clock instant (epoch ms), corrected by the server's `Date` when it sent one. */
  resetLocalAt?: number;
}

/**
 * The snapshot of a response's rate-limit headers, read on the server's clock as known now.
 * @param receivedAt when the response arrived, local ms
 * @returns undefined when the response had none of `X-RateLimit-Limit`, `-Remaining`, `-Reset`
 */
export function snapshotOf(rl: RateLimitHeaders, receivedAt: number, serverClock: ServerClock): RateLimitSnapshot | undefined {
  if (rl.limit === undefined && rl.remaining === undefined && rl.resetAt === undefined) return undefined;
  const s: RateLimitSnapshot = { observedAt: receivedAt };
  if (rl.limit !== undefined) s.limit = rl.limit;
  if (rl.remaining !== undefined) s.remaining = rl.remaining;
  if (rl.resetAt !== undefined) {
    s.resetAt = rl.resetAt;
    s.resetLocalAt = serverClock.toLocal(rl.resetAt);
  }
  return s;
}
