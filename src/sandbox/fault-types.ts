/**
 * The vocabulary of sandbox faults: the kinds, a rule (a kind, its parameters and its scope), a
 * config of rules, what is known of a request when faults are decided, and the network faults the
 * transports act out.
 */

/** Every kind of fault the sandbox can inject. */
export const FAULT_KINDS = [
  /** A 5xx answer (`status`, default 503), optionally with `retryAfter` (seconds or `'http-date'`). */
  'status',
  /** Connection refused (in-process: ECONNREFUSED; on a socket: destroyed at once). */
  'refuse',
  /** The connection is reset before any header is sent. */
  'reset-before-headers',
  /** The connection is reset after `afterBytes` of the body (default half of it). */
  'reset-mid-body',
  /** A 200 whose body is cut after `afterBytes` (default half), with a matching length: invalid JSON. */
  'truncate',
  /** A 200 with a body that is not JSON. */
  'invalid-json',
  /** A 200 HTML page (a proxy's maintenance page). */
  'html',
  /** Headers never come; the request stays open until the client gives up. */
  'hang',
  /** The body comes `chunkBytes` (default 64) every `intervalMs` (default 200). */
  'drip',
  /** The server's clock is `offsetMs` ahead (negative: behind): `Date` and `X-RateLimit-Reset` shift, the windows do not. */
  'clock-offset',
  /** `X-RateLimit-Reset` as `iso`, `ms` (epoch milliseconds), `zero`, `past`, `garbage` or `far` (2 hours away). */
  'reset-format',
  /** On a 429: `Retry-After` (`format` `seconds` or `http-date`; `seconds` to override) and no `X-RateLimit-Reset`. */
  'retry-after',
  /** `X-RateLimit-Remaining: 0` on a successful answer. */
  'remaining-zero',
  /** A 429 whatever the counters say. */
  'permanent-429',
  /** Unprefixed Hydra terms (`member`, `totalItems`, `view`, `next`…). */
  'unprefixed',
  /** Absolute links (`http://host:port/…` of the request's own origin). */
  'absolute-links',
  /** Path-relative links (`invoices?itemsPerPage=10&page=2`, resolved against the page's own URL). */
  'relative-links',
  /**
   * `hydra:next` on another origin: `url` (an origin alone gets the real next path appended), or
   * `link`, written verbatim (for tricks no absolute URL spells: `//evil/x`, `/\\evil/x`).
   */
  'foreign-next',
  /** A 302 to `url` (an origin alone gets the request's path appended). */
  'redirect',
  /** `hydra:next` pointing to the page itself (`to: 'self'`, default) or to the first page (`to: 'first'`). */
  'loop-next',
] as const;

/** One of {@link FAULT_KINDS}. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** When a rule fires. Every condition given must hold; none given means every request. */
export interface FaultScope {
  /** Chance of firing on a matching request, 0..1 (default 1). */
  probability?: number;
  /** 1-based request numbers, counted over every request the sandbox receives. */
  requests?: number | number[] | { from?: number; to?: number };
  /** Page numbers (offset `page`; in cursor mode the page the slice falls on). Only collection requests have one. */
  pages?: number | number[];
  /** Endpoint key of src/endpoints.ts (e.g. `invoices`). */
  endpoint?: string;
  /** Fires at most this many times. */
  times?: number;
  /** Active from this many ms after the faults were set (server clock). */
  fromMs?: number;
  /** Active until this many ms after the faults were set (server clock), e.g. "refused for 3 s". */
  untilMs?: number;
}

/** A fault and its scope. */
export interface FaultRule extends FaultScope {
  kind: FaultKind;
  /** `status`: the status (500, 502, 503 or 504; default 503). */
  status?: number;
  /** `status`: a `Retry-After` header, seconds or `'http-date'` (1 s from now as an HTTP-date). */
  retryAfter?: number | 'http-date';
  /** `reset-mid-body`, `truncate`: bytes sent before the cut (default half the body). */
  afterBytes?: number;
  /** `drip`: bytes per chunk (default 64). */
  chunkBytes?: number;
  /** `drip`: ms between chunks (default 200). */
  intervalMs?: number;
  /** `clock-offset`: ms the server clock is ahead (default 300 000). */
  offsetMs?: number;
  /** `reset-format`: iso, ms, zero, past, garbage, far. `retry-after`: seconds (default) or http-date. */
  format?: 'iso' | 'ms' | 'zero' | 'past' | 'garbage' | 'far' | 'seconds' | 'http-date';
  /** `retry-after`: the wait in seconds (default: until the window ends, at least 1). */
  seconds?: number;
  /** `foreign-next`, `redirect`: the other origin or URL. */
  url?: string;
  /** `foreign-next`: the `hydra:next` value written as is, not parsed (scheme-relative, userinfo, backslash tricks). */
  link?: string;
  /** `loop-next`: where the looping next points. */
  to?: 'self' | 'first';
}

/** Rules plus the seed of their random draws. */
export interface FaultConfig {
  /** Seed of the draws (default: the sandbox seed). */
  seed?: number;
  rules: FaultRule[];
}

/** What is known about a request when faults are decided. */
export interface FaultContext {
  /** 1-based number of the request. */
  requestNumber: number;
  /** Endpoint key, when the path matched one. */
  endpoint: string | undefined;
  /** Page number, when the request is a collection page. */
  page: number | undefined;
  /** Path and query, which keys the random draws. */
  pathAndQuery: string;
  /** Server time, epoch ms. */
  nowMs: number;
}

/** A fault the transport acts out (attached to a sandbox reply). */
export type NetworkFault =
  | { kind: 'refuse' }
  | { kind: 'reset-before-headers' }
  | { kind: 'hang' }
  | { kind: 'reset-mid-body'; afterBytes: number }
  | { kind: 'drip'; chunkBytes: number; intervalMs: number };
