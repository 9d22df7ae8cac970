/**
 * The rate-limit headers (the API documentation, rate limiting), `Retry-After` and `Date` (RFC
 * 9110), parsed, and the server's clock they are read by. "Server ms" are epoch ms by the server's
 * clock (`Date`, `Reset`), which may be minutes away from the local one; "local ms" by the injected
 * Clock's `now()`.
 */
import { defined } from '../json/object.js';

export type HeaderSource = Pick<Headers, 'get'>;

/** RFC 9110 §10.2.3: a delay, or an HTTP-date by the server's clock. */
export type RetryAfter = { kind: 'delay'; ms: number } | { kind: 'date'; at: number };

/** Absent or garbage values are undefined. */
export interface RateLimitHeaders {
  limit?: number;
  remaining?: number;
  /** `X-RateLimit-Reset`, server ms. */
  resetAt?: number;
  retryAfter?: RetryAfter;
  /** server ms, rounded down to the second (RFC 9110 §6.6.1) */
  date?: number;
}

const DAYS_SHORT = 'mon|tue|wed|thu|fri|sat|sun';
const DAYS_LONG = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_RE = MONTHS.join('|');
const TIME = '(?<h>\\d{2}):(?<m>\\d{2}):(?<s>\\d{2})';
const HTTP_DATES = [
  `^(?:${DAYS_SHORT}), (?<day>\\d{2}) (?<month>${MONTH_RE}) (?<year>\\d{4}) ${TIME} (?:GMT|UTC)$`,
  `^(?:${DAYS_LONG}), (?<day>\\d{2})-(?<month>${MONTH_RE})-(?<year>\\d{2}) ${TIME} GMT$`,
  `^(?:${DAYS_SHORT}) (?<month>${MONTH_RE}) (?<day>[ \\d]\\d) ${TIME} (?<year>\\d{4})$`,
].map((source) => new RegExp(source, 'i'));

function utc(year: number, month: string, day: number, h: number, m: number, s: number): number | undefined {
  const mon = MONTHS.indexOf(month.toLowerCase());
  if (mon < 0 || day < 1 || day > 31 || h > 23 || m > 59 || s > 60) return undefined;
  const ms = Date.UTC(year, mon, day, h, m, s);
  // Reject 31 Feb and the like, which Date.UTC would roll into the next month.
  return new Date(ms).getUTCDate() === day || s === 60 ? ms : undefined;
}

/**
 * An HTTP-date (RFC 9110 §5.6.7, the obsolete forms too), epoch ms; not `Date.parse`, which reads asctime as local time.
 * @param referenceMs for rfc850's two-digit year: more than 50 years after it is the century before; default 00–69 → 20xx
 */
export function parseHttpDate(value: string | null | undefined, referenceMs?: number): number | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  const g = HTTP_DATES.map((re) => re.exec(v)?.groups).find((groups) => groups !== undefined);
  if (g === undefined) return undefined;
  let year = Number(g.year);
  if (g.year!.length === 2) {
    // Read as in 2019, the rule gives the default: 00–69 → 20xx.
    const ref = referenceMs === undefined ? 2019 : new Date(referenceMs).getUTCFullYear();
    year += Math.floor(ref / 100) * 100;
    if (year > ref + 50) year -= 100;
  }
  return utc(year, g.month!, Number(g.day!.trim()), Number(g.h), Number(g.m), Number(g.s));
}

/** A non-negative integer; a list (`5, 4`, a duplicated header) gives its smallest value, the conservative reading. */
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
 * `X-RateLimit-Reset`, server ms. The API documentation says epoch seconds, its 429 schema an ISO
 * date-time (no offset: UTC); some servers send epoch ms (13 or more digits), or an HTTP-date.
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

/** RFC 9110 §10.2.3: delay-seconds (`1*DIGIT`) or an HTTP-date. */
export function parseRetryAfter(value: string | null | undefined): RetryAfter | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return { kind: 'delay', ms: Number(v) * 1000 };
  const at = parseHttpDate(v);
  return at === undefined ? undefined : { kind: 'date', at };
}

/** Never throws. */
export function parseRateLimitHeaders(headers: HeaderSource): RateLimitHeaders {
  return defined({
    limit: parseCount(headers.get('x-ratelimit-limit')),
    remaining: parseCount(headers.get('x-ratelimit-remaining')),
    resetAt: parseReset(headers.get('x-ratelimit-reset')),
    retryAfter: parseRetryAfter(headers.get('retry-after')),
    date: parseHttpDate(headers.get('date')),
  });
}

/** The rate-limit headers of a response (`X-RateLimit-Limit`, `-Remaining`, `-Reset`), with their local reading. */
export interface RateLimitSnapshot {
  limit?: number;
  remaining?: number;
  /** The reset by the server's clock, epoch ms. */
  resetAt?: number;
  /** When the response was received, epoch ms by the local clock. */
  observedAt: number;
  /** The reset as a local-clock instant (epoch ms), corrected by the server's `Date` when it sent one. */
  resetLocalAt?: number;
}

/** undefined when the response had none of the three headers. */
export function snapshotOf(rl: RateLimitHeaders, receivedAt: number, serverClock: ServerClock): RateLimitSnapshot | undefined {
  const { limit, remaining, resetAt } = rl;
  if (limit === undefined && remaining === undefined && resetAt === undefined) return undefined;
  const resetLocalAt = resetAt === undefined ? undefined : serverClock.toLocal(resetAt);
  return { observedAt: receivedAt, ...defined({ limit, remaining, resetAt, resetLocalAt }) };
}

/**
 * `serverTime − localTime` lies in `[low, high]`, ms: the server wrote `Date` (rounded down to the
 * second, RFC 9110 §6.6.1) at some local instant between sending and receiving.
 */
export interface ClockOffset {
  /** Waits use it, so they never end early. */
  low: number;
  high: number;
  samples: number;
}

/**
 * Intersects `[Date − receivedAt, Date + 1000 − sentAt]` with the previous estimate; an empty
 * intersection (a clock jumped) restarts from this response alone.
 */
export function updateClockOffset(previous: ClockOffset | undefined, dateMs: number, sentAt: number, receivedAt: number): ClockOffset {
  const low = dateMs - receivedAt;
  const high = dateMs + 1000 - Math.min(sentAt, receivedAt);
  if (previous === undefined) return { low, high, samples: 1 };
  const l = Math.max(previous.low, low);
  const h = Math.min(previous.high, high);
  if (l > h) return { low, high, samples: 1 };
  return { low: l, high: h, samples: previous.samples + 1 };
}

/** The local instant (ms) by which the server's clock has certainly reached `serverMs`; without an estimate, the local clock is trusted. */
export function serverToLocal(serverMs: number, offset: ClockOffset | undefined): number {
  return offset === undefined ? serverMs : serverMs - offset.low;
}

/** Added to every wait, ms, once a request sent right after a wait still got a 429: the server rounds its reset down. */
const ROUNDING_MARGIN_MS = 1000;

/** The server's clock as this process's responses tell it. */
export class ServerClock {
  /** undefined before the first `Date` */
  offset: ClockOffset | undefined;
  /** 0, or {@link ROUNDING_MARGIN_MS} */
  marginMs = 0;

  observe(dateMs: number | undefined, sentAt: number, receivedAt: number): void {
    if (dateMs !== undefined) this.offset = updateClockOffset(this.offset, dateMs, sentAt, receivedAt);
  }

  noteRoundedDown(): void {
    this.marginMs = ROUNDING_MARGIN_MS;
  }

  toLocal(serverMs: number): number {
    return serverToLocal(serverMs, this.offset);
  }
}
