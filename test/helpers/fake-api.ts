/**
 * A tiny honest Collection API for the client tests, deliberately not the sandbox: driven by hand,
 * with fixed rate-limit windows by the SERVER's clock (the test's virtual clock plus a skew), `Date`
 * rounded down to the second, `X-RateLimit-*` on every response including 429 and a choice of Reset
 * formats, offset pages with relative, query-only or absolute links. It logs every request with the
 * server time it was handled at and how many were in flight, so tests can check "never before the
 * reset" and the concurrency.
 */
import type { VirtualClock } from './virtual-clock.js';
import { FAKE_API_KEY } from './world.js';

/** Options of {@link createFakeApi}. */
export interface FakeApiOptions {
  clock: VirtualClock;
  /** serverTime − localTime, ms (positive: the local clock is slow). */
  skewMs?: number;
  /** Requests per window. */
  limit?: number;
  /** Window length, ms (a multiple of 1000). */
  windowMs?: number;
  /** Items in the collection. */
  total?: number;
  /** Items per page when the URL has no itemsPerPage. */
  perPage?: number;
  /** Reset header format. */
  resetFormat?: 'seconds' | 'ms' | 'iso';
  /** Link style: relative (`/entities?page=2`), query-only (`?page=2`), absolute; unprefixed keys. */
  links?: 'relative' | 'query' | 'absolute';
  unprefixed?: boolean;
  /** Base URL for absolute links. */
  base?: string;
}

/** One request the fake handled. */
export interface LogEntry {
  path: string;
  page: number;
  status: number;
  /** Server time the request was handled at, ms. */
  serverAt: number;
  /** The window's reset when it was handled, server ms. */
  resetAt: number;
  /** Requests being handled at once (fake fetch only). */
  inFlight: number;
}

/** A reply of {@link FakeApi.handle}: status, JSON body text and headers. */
export interface FakeReply {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** The fake API: a handler, its log, and a fetch over it. */
export interface FakeApi {
  /** Answers a GET of `url` with `apiKey` (401 unless it is {@link FAKE_API_KEY}). */
  handle(url: URL, apiKey: string | null): FakeReply;
  /** Every request handled, oldest first. */
  log: LogEntry[];
  /** A FetchLike over {@link FakeApi.handle}, answering after `turns` event-loop turns (real, not the virtual clock). */
  fetch(turns?: (n: number) => number): (input: string | URL, init?: RequestInit) => Promise<Response>;
  /** The most requests in flight at once through {@link FakeApi.fetch}. */
  maxInFlight: number;
}

/** The Hydra body of page `page` of `url`: its items (`item-<n>`), total and view links. */
function pageBody(url: URL, page: number, total: number, options: FakeApiOptions): Record<string, unknown> {
  const base = options.base ?? 'http://api.test';
  const perPage = Number(url.searchParams.get('itemsPerPage') ?? options.perPage ?? 3);
  const pages = Math.max(1, Math.ceil(total / perPage));
  const members = [];
  for (let i = (page - 1) * perPage; i < Math.min(total, page * perPage); i++) members.push({ id: `item-${i}`, n: i });
  const link = (p: number): string => {
    const u = new URL(url);
    u.searchParams.set('page', String(p));
    if (options.links === 'absolute') return `${base}${u.pathname}${u.search}`;
    if (options.links === 'query') return u.search;
    return `${u.pathname}${u.search}`;
  };
  const pre = options.unprefixed ? '' : 'hydra:';
  const view: Record<string, string> = { '@id': link(page), [`${pre}first`]: link(1), [`${pre}last`]: link(pages) };
  if (page < pages) view[`${pre}next`] = link(page + 1);
  if (page > 1) view[`${pre}previous`] = link(page - 1);
  return { [`${pre}member`]: members, [`${pre}totalItems`]: total, [`${pre}view`]: view };
}

/**
 * Creates a fake API (defaults: 1000 requests per 60 s window, 10 items, 3 per page, Reset in epoch
 * seconds, relative links with `hydra:` keys, absolute links on `http://api.test`).
 */
export function createFakeApi(options: FakeApiOptions): FakeApi {
  const clock = options.clock;
  const skew = options.skewMs ?? 0;
  const limit = options.limit ?? 1000;
  const windowMs = options.windowMs ?? 60_000;
  const total = options.total ?? 10;
  let windowStart = -1;
  let used = 0;
  let inFlight = 0;
  const log: LogEntry[] = [];
  const api: FakeApi = {
    log,
    maxInFlight: 0,
    handle(url, apiKey) {
      const serverAt = clock.now() + skew;
      const ws = Math.floor(serverAt / windowMs) * windowMs;
      if (ws !== windowStart) {
        windowStart = ws;
        used = 0;
      }
      const resetAt = ws + windowMs;
      const reset =
        options.resetFormat === 'ms' ? String(resetAt) : options.resetFormat === 'iso' ? new Date(resetAt).toISOString() : String(resetAt / 1000);
      const page = Number(url.searchParams.get('page') ?? '1');
      const headers: Record<string, string> = {
        Date: new Date(Math.floor(serverAt / 1000) * 1000).toUTCString(),
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Reset': reset,
        'X-Request-ID': `req-${log.length + 1}`,
      };
      const entry: LogEntry = { path: url.pathname, page, status: 200, serverAt, resetAt, inFlight };
      log.push(entry);
      if (apiKey !== FAKE_API_KEY) {
        entry.status = 401;
        return { status: 401, body: '{"message":"Invalid API key"}', headers: { ...headers, 'Content-Type': 'application/json' } };
      }
      if (used >= limit) {
        entry.status = 429;
        headers['X-RateLimit-Remaining'] = '0';
        return { status: 429, body: '{"message":"Too many requests"}', headers: { ...headers, 'Content-Type': 'application/json' } };
      }
      used++;
      headers['X-RateLimit-Remaining'] = String(limit - used);
      const body = pageBody(url, page, total, options);
      return { status: 200, body: JSON.stringify(body), headers: { ...headers, 'Content-Type': 'application/ld+json' } };
    },
    fetch(turns) {
      let n = 0;
      return async (input, init) => {
        const url = new URL(String(input));
        const key = new Headers(init?.headers).get('x-api-key');
        inFlight++;
        api.maxInFlight = Math.max(api.maxInFlight, inFlight);
        try {
          const reply = api.handle(url, key);
          const wait = turns?.(n++) ?? 1;
          for (let i = 0; i < wait; i++) await new Promise<void>((r) => setImmediate(r));
          init?.signal?.throwIfAborted();
          return new Response(reply.body, { status: reply.status, headers: reply.headers });
        } finally {
          inFlight--;
        }
      };
    },
  };
  return api;
}
