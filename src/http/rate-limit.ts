/**
 * Rate-limit arithmetic, pure (conventions.md rule 7): parsing of `X-RateLimit-*`, `Retry-After`
 * and `Date`, the server-clock offset estimator, and the length of a wait. The client and the
 * governor only sleep on the answers.
 *
 * Times: "server ms" are epoch milliseconds by the server's clock (from `Date`, `Reset`);
 * "local ms" are epoch milliseconds by the injected Clock's `now()`. Waits are computed from the
 * server's clock (reliability.md rule 1), so a skewed local clock neither wakes early nor sleeps long.
 */
import { MAX_TIMER_MS } from '../time/clock.js';

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
 * Parses `X-RateLimit-Reset`. The contract says UTC epoch seconds; the real service's 429 schema
 * types it as an ISO date-time (real-service.md), and some servers send epoch milliseconds:
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

/**
 * What the responses so far say about `offset = serverTime − localTime`, ms: it lies in
 * `[low, high]`. Each response bounds it, since the server's time when it wrote `Date` was in
 * `[Date, Date + 1000)` (Date is rounded down to the second) at some local instant between sending
 * and receiving (reliability.md rule 1).
 */
export interface ClockOffset {
  /** Lower bound, ms. Waits use it, so they never end early. */
  low: number;
  /** Upper bound, ms. */
  high: number;
  /** Responses intersected since the last reset of the estimate. */
  samples: number;
}

/**
 * Narrows the clock-offset estimate with one response: its interval is
 * `[Date − receivedAt, Date + 1000 − sentAt]`, intersected with the previous estimate. When the
 * intersection is empty (the server's or the local clock jumped), the estimate restarts from this
 * response alone.
 * @param previous the estimate so far, or undefined
 * @param dateMs the response's `Date`, server ms
 * @param sentAt when the request was sent, local ms
 * @param receivedAt when the response headers arrived, local ms
 */
export function updateClockOffset(
  previous: ClockOffset | undefined,
  dateMs: number,
  sentAt: number,
  receivedAt: number,
): ClockOffset {
  const low = dateMs - receivedAt;
  const high = dateMs + 1000 - Math.min(sentAt, receivedAt);
  if (previous === undefined) return { low, high, samples: 1 };
  const l = Math.max(previous.low, low);
  const h = Math.min(previous.high, high);
  if (l > h) return { low, high, samples: 1 };
  return { low: l, high: h, samples: previous.samples + 1 };
}

/**
 * The local instant by which the server's clock has certainly reached `serverMs`:
 * `serverMs − offset.low`. Without an estimate (no `Date` seen) the local clock is trusted.
 * @returns local ms
 */
export function serverToLocal(serverMs: number, offset: ClockOffset | undefined): number {
  return offset === undefined ? serverMs : serverMs - offset.low;
}

/** The smallest rate-limit wait, ms: zero, past or garbage waits become this (reliability.md rule 3). */
export const RATE_LIMIT_FLOOR_MS = 1000;

/** The extra wait once the server was seen to round its reset down (reliability.md rule 1), ms. */
export const ROUNDING_MARGIN_MS = 1000;

/**
 * The floor of the `attempt`-th consecutive 429 of one request: 1 s, 2 s, 4 s… (exponential growth,
 * so a server that keeps answering 429 with a zero wait is not hammered), clamped to timer range.
 * @param attempt 1-based count of consecutive 429s of the same request
 */
export function floorWaitMs(attempt: number): number {
  const n = Math.max(1, Math.floor(attempt));
  return Math.min(RATE_LIMIT_FLOOR_MS * 2 ** Math.min(n - 1, 40), MAX_TIMER_MS);
}

/** Clamps a delay to a Node timer's range `[0, 2^31 − 1]` ms; longer timers would fire at once. */
export function clampTimerMs(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}

/** Inputs of {@link planWait}. */
export interface WaitInput {
  /** The response's parsed headers. */
  headers: RateLimitHeaders;
  /** When the response arrived, local ms: waits are measured from here, not from when we sleep. */
  receivedAt: number;
  /** The clock-offset estimate including this response (see {@link updateClockOffset}). */
  offset?: ClockOffset;
  /** Added to waits derived from Reset or a Retry-After date: 0, or {@link ROUNDING_MARGIN_MS} once the server rounded down. */
  marginMs?: number;
  /**
   * `429`: the response was a 429 (Retry-After honoured, floor grows with `attempt`);
   * `pacing`: a 2xx with `Remaining: 0` (wait for the reset, 1 s floor when the reset is unusable).
   */
  kind: '429' | 'pacing';
  /** 1-based count of consecutive 429s of the same request (ignored for pacing). */
  attempt?: number;
}

/** The answer of {@link planWait}. */
export interface WaitPlan {
  /** How long to wait from `receivedAt`, ms, clamped to timer range. */
  ms: number;
  /** When the wait ends, local ms (`receivedAt + ms` before clamping: compare it with `--max-wait`). */
  until: number;
  /** What set the wait: the Reset (`rate-limit` / `pacing`) or `Retry-After`. */
  reason: 'rate-limit' | 'pacing' | 'retry-after';
  /** True when the floor replaced a zero, past, missing or garbage wait. */
  floored: boolean;
}

/**
 * How long to wait after a response, from the server's clock (reliability.md rules 1 and 3):
 * - Reset: it ends at the local instant `serverToLocal(Reset, offset)`; with one response that is
 *   `receivedAt + (Reset − Date)`, the wait measured from the response; without `Date`, Reset is
 *   read against the local clock;
 * - `Retry-After` (on a 429): seconds from `receivedAt`, or an HTTP-date read like Reset; the wait
 *   is at least that long (the later of Retry-After and Reset wins);
 * - `marginMs` is added to server-clock instants;
 * - a 429's wait is at least {@link floorWaitMs}(attempt); a pacing wait with no usable future reset
 *   is {@link RATE_LIMIT_FLOOR_MS}.
 */
export function planWait(input: WaitInput): WaitPlan {
  const { headers, receivedAt, kind } = input;
  const margin = input.marginMs ?? 0;
  const resetReason = kind === 'pacing' ? 'pacing' : 'rate-limit';
  let end = -Infinity;
  let reason: WaitPlan['reason'] = resetReason;
  const toLocal = (serverMs: number): number => {
    // With no estimate yet but a Date, measure from the response (the same as a one-sample estimate).
    if (input.offset === undefined && headers.date !== undefined) return receivedAt + (serverMs - headers.date);
    return serverToLocal(serverMs, input.offset);
  };
  if (headers.resetAt !== undefined) {
    const e = toLocal(headers.resetAt);
    if (e > receivedAt) end = e + margin;
  }
  if (kind === '429' && headers.retryAfter !== undefined) {
    const ra = headers.retryAfter;
    const e = ra.kind === 'delay' ? receivedAt + ra.ms : toLocal(ra.at) + margin;
    if (e > receivedAt && e >= end) {
      end = e;
      reason = 'retry-after';
    }
  }
  let wait = end - receivedAt;
  let floored = false;
  const floor = kind === '429' ? floorWaitMs(input.attempt ?? 1) : RATE_LIMIT_FLOOR_MS;
  if (!(wait > 0)) {
    wait = floor;
    floored = true;
    reason = resetReason;
  } else if (kind === '429' && wait < floor) {
    wait = floor;
    floored = true;
  }
  return { ms: clampTimerMs(wait), until: receivedAt + wait, reason, floored };
}

/**
 * The simple form of conventions.md rule 7: ms to wait after a 429 received at `receivedAt`
 * (local ms), from the server's clock, with the floor. See {@link planWait}.
 */
export function waitMs(headers: RateLimitHeaders, receivedAt: number): number {
  return planWait({ headers, receivedAt, kind: '429', attempt: 1 }).ms;
}
