/**
 * The bundled Collection API as a function: `handle(Request) → Promise<Response>`, no socket
 * (conventions.md, rule 13). server.ts adapts it to node:http, fetch.ts to an in-process `fetch`.
 *
 * What it implements: the seven GET endpoints of src/endpoints.ts; offset pagination with
 * `hydra:totalItems` and first/previous/next/last links; cursor pagination (`X-Pagination-Style:
 * cursor`, newest first, `id[lt]`/`id[gt]` cursors, totals only with `X-Pagination-Enable-Partial:
 * 0`) on the endpoints that support it; `itemsPerPage` validation (400); `X-Api-Key` (401);
 * unknown taxpayers, invoices and paths (404); fixed-window rate limits per key and endpoint with
 * the three `X-RateLimit-*` headers on every authenticated response (429 over the limit); `Date`
 * and `X-Request-ID` on every response; and the fault injection of faults.ts.
 */
import { ENDPOINTS, type Endpoint } from '../endpoints.js';
import type { Clock } from '../time/clock.js';
import { systemClock } from '../time/clock.js';
import { createCollectionState, pickFilters, type ByteBudget, type CollectionState, type CollectionView } from './collection.js';
import { createDataset, type DataSizes, type Dataset } from './data.js';
import { DEFAULT_SANDBOX_KEY, DEFAULT_SIZES } from './defaults.js';

export { DEFAULT_SANDBOX_KEY, DEFAULT_SIZES };
import {
  createFaultInjector,
  parseFaultSpec,
  type FaultConfig,
  type FaultKind,
  type FaultRule,
  type NetworkFault,
} from './faults.js';
import { createRateLimiter, type LimitedWindow, type RateLimitDecision } from './limiter.js';
import { parsePageQuery, planPage, renderPage, type PageLinks, type PagePlan } from './pages.js';
import { hash32, hex32 } from './random.js';

/** An automatic change of a collection while clients page through it. */
export interface AutoMutation {
  /** Collection path, e.g. `/taxpayers/DMO140312KT5/invoices` (ids raw or percent-encoded). */
  path: string;
  /** After every `every`-th request to that path (any query), mutate. */
  every: number;
  /** Items inserted at the front each time (default 1). */
  insert?: number;
  /** Existing items deleted each time, at seeded random positions (default 0). */
  remove?: number;
}

/** Options of {@link createSandbox}. */
export interface SandboxOptions {
  /** Accepted `X-Api-Key` (default `sandbox-key`). */
  apiKey?: string;
  /** Requests per window per key and endpoint (default 60; 0 or Infinity = no limit). */
  limit?: number;
  /** Window length, seconds (default 60). Windows are fixed and end on whole seconds. */
  windowSeconds?: number;
  /** Seed of the generated records (default 1). */
  seed?: number;
  /** Collection sizes. */
  sizes?: {
    entities?: number;
    events?: number;
    /** Taxpayers generated (their RFCs are listed by {@link Sandbox.taxpayers}). */
    taxpayers?: number;
    /** Invoices per taxpayer. */
    invoicesPerTaxpayer?: number;
    /** Line items per invoice (average). */
    lineItemsPerInvoice?: number;
    /** Payments per taxpayer. */
    paymentsPerTaxpayer?: number;
  };
  /** Server clock (default the system clock). */
  clock?: Clock;
  /** Latency added to each response, ms, slept on `clock`. */
  latencyMs?: number;
  /** Faults to inject from the start: a config, a list of rules, or a spec string (see `parseFaultSpec`). */
  faults?: FaultConfig | FaultRule[] | string;
  /** Name of the previous link in cursor mode: `previous` (the guide, default) or `last` (the OpenAPI example). */
  cursorPrevious?: 'previous' | 'last';
  /** Automatic inserts/deletes while clients page. */
  mutations?: AutoMutation[];
  /** Bytes of item JSON kept in memory (default 2 GiB); past it, items are rebuilt on each read. */
  cacheBytes?: number;
  /**
   * After answering a page, build the next page's items in idle time (setImmediate batches), so a
   * client reading page k in another process finds page k+1 cached (default false; the
   * `collections sandbox` command turns it on).
   */
  warmAhead?: boolean;
  /** Entries kept in the request log (default 100 000; older ones are dropped). */
  logLimit?: number;
}



/** A request as the sandbox needs it: any transport can build one cheaply. */
export interface SandboxRequest {
  method: string;
  /** Absolute URL (its origin is used for absolute-link faults). */
  url: string;
  /** A request header by lower-case name, or null. */
  header(name: string): string | null;
}

/** The sandbox's answer before it becomes a `Response` or bytes on a socket. */
export interface SandboxReply {
  status: number;
  /** Response headers (names as sent). */
  headers: Record<string, string>;
  /** The whole body. */
  body: Buffer;
  /** A network fault the transport must act out instead of (or while) sending this reply. */
  network?: NetworkFault;
}

/** One request as the sandbox saw it. */
export interface RequestLogEntry {
  /** 1-based request number. */
  number: number;
  /** Server clock time (without any clock-offset fault), epoch ms. */
  timeMs: number;
  method: string;
  /** Path and query as received. */
  url: string;
  /** Status answered; 0 when a network fault replaced the answer. */
  status: number;
  /** Whether an `X-Api-Key` header was present (its value is never logged). */
  hasApiKey: boolean;
  /** Endpoint key, when the path matched one. */
  endpoint: string | undefined;
  /** Kinds of the faults that fired. */
  faults: FaultKind[];
}

/** Counters of a sandbox. */
export interface SandboxStats {
  requests: number;
  /** Answers per status (0 = network fault). */
  byStatus: Record<number, number>;
  /** 429s per endpoint and window (from the limiter; permanent-429 faults are counted in byStatus only). */
  limitedWindows: LimitedWindow[];
}

/** A running in-process sandbox. */
export interface Sandbox {
  /** Answers one request as the Collection API would. Network faults ride along: see {@link networkFaultOf}. */
  handle(request: Request): Promise<Response>;
  /** Answers one request without building a `Response` (used by the socket server and the fetch adapter). */
  reply(request: SandboxRequest, signal?: AbortSignal): Promise<SandboxReply>;
  /** RFCs of the generated taxpayers. */
  taxpayers(): string[];
  /** Current invoice ids of a taxpayer, in API order (newest first); [] for an unknown taxpayer. */
  invoiceIds(taxpayerId: string): string[];
  /** The full current item list of a collection path (e.g. `/taxpayers/X/invoices`), in the API's order. */
  items(path: string): unknown[];
  /**
   * Inserts `count` (default 1) new items at the front of a collection.
   * @returns their ids, newest last
   * @throws {Error} when the path is not a collection of the sandbox
   */
  insert(path: string, count?: number): string[];
  /** Deletes an item of a collection by id; false when it is not there. @throws {Error} for an unknown collection path */
  remove(path: string, id: string): boolean;
  /** Replaces the fault rules (a config, a list, or a spec string); `[]` clears them. */
  setFaults(faults: FaultConfig | FaultRule[] | string): void;
  /** The request log, oldest first. */
  requests(): RequestLogEntry[];
  /** Counters. */
  stats(): SandboxStats;
  /** The accepted API key. */
  readonly apiKey: string;
  /** The server clock. */
  readonly clock: Clock;
}

const networkFaults = new WeakMap<Response, NetworkFault>();

/** The network fault a `Response` from {@link Sandbox.handle} stands for, if any (for transport adapters). */
export function networkFaultOf(response: Response): NetworkFault | undefined {
  return networkFaults.get(response);
}

interface Route {
  endpoint: Endpoint;
  taxpayerId?: string;
  invoiceId?: string;
}

const ROUTES = ENDPOINTS.map((endpoint) => ({ endpoint, segments: endpoint.path.split('/').slice(1) }));

/** Matches a percent-encoded path against the endpoint table; ids come back decoded. */
function matchRoute(pathname: string): Route | undefined {
  const segments = pathname.split('/').slice(1);
  for (const { endpoint, segments: pattern } of ROUTES) {
    if (pattern.length !== segments.length) continue;
    const route: Route = { endpoint };
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      const want = pattern[i]!;
      const got = segments[i]!;
      if (want.startsWith('{')) {
        let value: string;
        try {
          value = decodeURIComponent(got);
        } catch {
          return undefined;
        }
        if (value === '') ok = false;
        else if (want === '{taxpayerId}') route.taxpayerId = value;
        else route.invoiceId = value;
      } else if (want !== got) {
        ok = false;
      }
    }
    if (ok) return route;
  }
  return undefined;
}

const JSON_TYPE = 'application/json';
const LD_TYPE = 'application/ld+json; charset=utf-8';
const messageBody = (message: string): Buffer => Buffer.from(JSON.stringify({ message }));
const HTML_PAGE = Buffer.from(
  '<!DOCTYPE html><html><head><title>Maintenance</title></head><body><h1>We’ll be right back</h1></body></html>',
);
/** `NaN` is not JSON (RFC 8259 §6), so every parser rejects this. */
const INVALID_JSON = Buffer.from('{"@context":"/contexts/Error","hydra:member":[{"id":NaN,}]');
const STATUS_TEXT: Record<number, string> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** HTTP-date (RFC 9110 §5.6.7) of an epoch ms, rounded down to the second. */
function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/** `target` when it has a path; else `target`'s origin followed by `pathAndQuery`. */
function foreignTarget(target: string, pathAndQuery: string): string {
  const u = new URL(target);
  return u.pathname === '/' && u.search === '' ? `${u.origin}${pathAndQuery}` : target;
}

/**
 * Creates a sandbox. Nothing is generated until it is read (see data.ts). Faults apply to
 * authenticated requests only: a 401 is always an honest 401.
 * @throws {UsageError} for a bad fault spec; {RangeError} when `windowSeconds` is not > 0
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const apiKey = options.apiKey ?? DEFAULT_SANDBOX_KEY;
  const clock = options.clock ?? systemClock;
  const seed = options.seed ?? 1;
  const latencyMs = options.latencyMs ?? 0;
  const cursorPrevious = options.cursorPrevious ?? 'previous';
  const sizes: DataSizes = { ...DEFAULT_SIZES, ...stripUndefined(options.sizes ?? {}) };
  const dataset: Dataset = createDataset(seed, sizes);
  const limiter = createRateLimiter({ limit: options.limit ?? 60, windowSeconds: options.windowSeconds ?? 60 });
  const budget: ByteBudget = { used: 0, limitBytes: options.cacheBytes ?? 2 * 1024 ** 3 };
  const injector = createFaultInjector(seed);
  const logLimit = options.logLimit ?? 100_000;
  const log: RequestLogEntry[] = [];
  const byStatus: Record<number, number> = {};
  const states = new Map<string, CollectionState>();
  const invoiceOwner = new Map<string, number>();
  const mutations = (options.mutations ?? []).map((m) => ({ ...m, key: '', hits: 0, rounds: 0 }));
  let requestCount = 0;
  const warming = new Set<string>();

  /** Builds (and so caches) `count` items from `from` in batches of 50, one batch per event-loop turn. */
  const warm = (key: string, view: CollectionView, from: number, count: number): void => {
    if (warming.has(key) || budget.used >= budget.limitBytes) return;
    warming.add(key);
    const end = Math.min(view.length, from + count);
    let pos = from;
    const step = (): void => {
      const stop = Math.min(end, pos + 50);
      for (; pos < stop; pos++) view.bytes(pos);
      if (pos < end && budget.used < budget.limitBytes) setImmediate(step);
      else warming.delete(key);
    };
    setImmediate(step);
  };

  const setFaults = (faults: FaultConfig | FaultRule[] | string): void => {
    injector.set(typeof faults === 'string' ? parseFaultSpec(faults) : faults, clock.now());
  };
  if (options.faults !== undefined) setFaults(options.faults);

  const state = (key: string, make: () => Parameters<typeof createCollectionState>[1]): CollectionState => {
    let s = states.get(key);
    if (!s) {
      s = createCollectionState(key, make(), budget, seed);
      states.set(key, s);
    }
    return s;
  };
  const invoicesOf = (t: number): CollectionState => state(`invoices:${t}`, () => dataset.invoices(t));

  /** Finds the taxpayer owning a current invoice, or -1. */
  const ownerOf = (invoiceId: string): number => {
    const known = invoiceOwner.get(invoiceId);
    if (known !== undefined && invoicesOf(known).has(invoiceId)) return known;
    for (let t = 0; t < dataset.taxpayers.length; t++) {
      if (invoicesOf(t).has(invoiceId)) {
        if (invoiceOwner.size > 10_000) invoiceOwner.clear();
        invoiceOwner.set(invoiceId, t);
        return t;
      }
    }
    return -1;
  };

  /** The collection a route names, or a 404 message. */
  const resolve = (route: Route): CollectionState | undefined => {
    let t = -1;
    if (route.taxpayerId !== undefined) {
      t = dataset.taxpayerIndex(route.taxpayerId);
      if (t < 0) return undefined;
    }
    switch (route.endpoint.key) {
      case 'entities':
        return state('entities', () => dataset.entities());
      case 'events':
        return state('events', () => dataset.events());
      case 'invoices':
        return invoicesOf(t);
      case 'taxpayer-line-items':
        return state(`taxpayer-line-items:${t}`, () => dataset.taxpayerLineItems(t));
      case 'payments':
        return state(`payments:${t}`, () => dataset.payments(t));
      case 'taxpayer-invoice-line-items':
      case 'invoice-line-items': {
        const invoiceId = route.invoiceId!;
        const owner = ownerOf(invoiceId);
        if (owner < 0 || (t >= 0 && owner !== t)) return undefined;
        const index = invoicesOf(owner).baseIndexOf(invoiceId);
        return state(`line-items:${invoiceId}`, () => dataset.invoiceLineItems(owner, index));
      }
      default:
        return undefined;
    }
  };

  const resolvePath = (path: string): CollectionState => {
    const pathname = new URL(path, 'http://sandbox.invalid').pathname;
    const route = matchRoute(pathname);
    const s = route && resolve(route);
    if (!s) throw new Error(`not a sandbox collection: ${path}`);
    return s;
  };

  const insertInto = (s: CollectionState, count: number): string[] => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(s.insert(clock.now()));
    return ids;
  };

  const runMutations = (pathname: string): void => {
    for (const m of mutations) {
      if (m.key === '') m.key = resolvePath(m.path).key;
      const route = matchRoute(pathname);
      const s = route && resolve(route);
      if (!s || s.key !== m.key) continue;
      m.hits++;
      if (m.hits % Math.max(1, m.every) !== 0) continue;
      m.rounds++;
      insertInto(s, m.insert ?? 1);
      for (let k = 0; k < (m.remove ?? 0); k++) {
        const view = s.view();
        if (view.length === 0) break;
        s.remove(view.id(hash32(seed, m.rounds, k, 4242) % view.length));
      }
    }
  };

  const record = (entry: RequestLogEntry): void => {
    log.push(entry);
    if (log.length > logLimit) log.splice(0, log.length - logLimit);
    byStatus[entry.status] = (byStatus[entry.status] ?? 0) + 1;
  };

  async function reply(req: SandboxRequest, signal?: AbortSignal): Promise<SandboxReply> {
    const number = ++requestCount;
    if (latencyMs > 0) await clock.sleep(latencyMs, signal);
    const now = clock.now();
    const url = new URL(req.url);
    const pathAndQuery = url.pathname + url.search;
    const key = req.header('x-api-key');
    const requestId = `Root=1-${hex32(Math.floor(now / 1000))}-${hex32(hash32(seed, number, 1))}${hex32(hash32(seed, number, 2))}${hex32(hash32(seed, number, 3))}`;
    const entry: RequestLogEntry = {
      number,
      timeMs: now,
      method: req.method,
      url: pathAndQuery,
      status: 0,
      hasApiKey: key !== null,
      endpoint: undefined,
      faults: [],
    };

    if (key !== apiKey) {
      entry.status = 401;
      record(entry);
      return {
        status: 401,
        headers: { 'Content-Type': JSON_TYPE, Date: httpDate(now), 'X-Request-ID': requestId },
        body: messageBody('Unauthorized'),
      };
    }

    const route = matchRoute(url.pathname);
    entry.endpoint = route?.endpoint.key;
    const rl = limiter.hit(key, route?.endpoint.key ?? 'unknown', now);
    let status = 200;
    let contentType = LD_TYPE;
    let body: Buffer = Buffer.alloc(0);
    let page: { plan: PagePlan; s: CollectionState } | undefined;
    const extra: Record<string, string> = {};
    const fail = (code: number, message: string): void => {
      status = code;
      contentType = JSON_TYPE;
      body = messageBody(message);
    };

    if (rl.limited) {
      fail(429, 'Too Many Requests');
    } else if (req.method !== 'GET') {
      fail(405, 'Method Not Allowed');
      extra.Allow = 'GET';
    } else if (!route) {
      fail(404, 'Not Found');
    } else {
      const s = resolve(route);
      if (!s) {
        fail(404, 'Not Found');
      } else {
        const query = parsePageQuery(url.searchParams, route.endpoint.cursor, req.header);
        if ('error' in query) {
          fail(400, query.error);
        } else {
          const view = s.view(filtersFor(route, url));
          page = { plan: planPage(view, query, url.pathname, url.searchParams), s };
          const fired = injector.decide({ requestNumber: number, endpoint: route.endpoint.key, page: page.plan.pageNumber, pathAndQuery, nowMs: now });
          return finish(fired, view);
        }
      }
    }
    const fired = injector.decide({ requestNumber: number, endpoint: route?.endpoint.key, page: undefined, pathAndQuery, nowMs: now });
    return finish(fired, undefined);

    function finish(fired: FaultRule[], view: CollectionView | undefined): SandboxReply {
      entry.faults = fired.map((r) => r.kind);
      const rule = (kind: FaultKind): FaultRule | undefined => fired.find((r) => r.kind === kind);
      const offset = fired.reduce((sum, r) => (r.kind === 'clock-offset' ? sum + (r.offsetMs ?? 300_000) : sum), 0);
      const serverNow = now + offset;
      const headers: Record<string, string> = {};
      let decision: RateLimitDecision = rl;

      const early = rule('refuse') ?? rule('reset-before-headers') ?? rule('hang');
      if (early) {
        record(entry);
        return { status: 0, headers: {}, body: Buffer.alloc(0), network: { kind: early.kind } as NetworkFault };
      }

      const redirect = rule('redirect');
      const permanent = rule('permanent-429');
      const failure = rule('status');
      if (redirect) {
        status = 302;
        contentType = JSON_TYPE;
        body = messageBody('Found');
        extra.Location = foreignTarget(redirect.url!, pathAndQuery);
      } else if (permanent) {
        fail(429, 'Too Many Requests');
        decision = { ...rl, remaining: 0 };
      } else if (failure) {
        status = failure.status ?? 503;
        contentType = 'application/problem+json';
        body = Buffer.from(
          JSON.stringify({ type: 'about:blank', title: STATUS_TEXT[status] ?? 'Server Error', status, detail: 'Injected fault' }),
        );
        if (failure.retryAfter === 'http-date') extra['Retry-After'] = httpDate(Math.ceil(serverNow / 1000 + 1) * 1000);
        else if (failure.retryAfter !== undefined) extra['Retry-After'] = String(failure.retryAfter);
      } else if (page && view) {
        const { plan, s } = page;
        const links: PageLinks = { ...plan.links };
        const loop = rule('loop-next');
        if (loop) {
          links.next = loop.to === 'first' ? firstLink(plan, url) : links.view;
        }
        const foreign = rule('foreign-next');
        if (foreign) links.next = foreign.link ?? foreignTarget(foreign.url!, links.next ?? links.view);
        if (rule('relative-links')) {
          // RFC 3986 §5.2: a reference without a leading slash replaces the last path segment.
          const folder = url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1);
          for (const k of ['view', 'first', 'last', 'previous', 'next'] as const) {
            const v = links[k];
            if (v !== undefined && v.startsWith(folder) && v.length > folder.length) links[k] = v.slice(folder.length);
          }
        }
        if (rule('absolute-links')) {
          for (const k of ['view', 'first', 'last', 'previous', 'next'] as const) {
            const v = links[k];
            if (v !== undefined && v.startsWith('/')) links[k] = url.origin + v;
          }
        }
        body = renderPage(view, plan, links, url.pathname, s.context, { prefixed: !rule('unprefixed'), cursorPrevious });
        if (options.warmAhead && plan.end < view.length) warm(s.key, view, plan.end, plan.end - plan.start);
        if (rule('html')) {
          contentType = 'text/html; charset=utf-8';
          body = HTML_PAGE;
        } else if (rule('invalid-json')) {
          body = INVALID_JSON;
        } else {
          const truncate = rule('truncate');
          if (truncate) body = body.subarray(0, Math.min(body.length - 1, truncate.afterBytes ?? Math.floor(body.length / 2)));
        }
      }

      headers['Content-Type'] = contentType;
      headers.Date = httpDate(serverNow);
      headers['X-Request-ID'] = requestId;
      headers['X-RateLimit-Limit'] = String(decision.limit);
      headers['X-RateLimit-Remaining'] = String(rule('remaining-zero') && status < 300 ? 0 : decision.remaining);
      const resetMs = decision.resetMs + offset;
      const format = rule('reset-format')?.format;
      headers['X-RateLimit-Reset'] =
        format === 'iso'
          ? new Date(resetMs).toISOString()
          : format === 'ms'
            ? String(resetMs)
            : format === 'zero'
              ? '0'
              : format === 'past'
                ? String(Math.floor(serverNow / 1000) - 3600)
                : format === 'garbage'
                  ? 'soon'
                  : format === 'far'
                    ? String(Math.ceil(serverNow / 1000) + 7200)
                    : String(Math.ceil(resetMs / 1000));
      const retryAfter = rule('retry-after');
      if (retryAfter && status === 429) {
        delete headers['X-RateLimit-Reset'];
        const seconds = retryAfter.seconds ?? Math.max(1, Math.ceil((decision.resetMs - now) / 1000));
        headers['Retry-After'] =
          retryAfter.format === 'http-date' ? httpDate(Math.ceil(serverNow / 1000 + seconds) * 1000) : String(seconds);
      }
      Object.assign(headers, extra);

      let network: NetworkFault | undefined;
      const midBody = rule('reset-mid-body');
      const drip = rule('drip');
      if (midBody) network = { kind: 'reset-mid-body', afterBytes: Math.min(body.length - 1, midBody.afterBytes ?? Math.floor(body.length / 2)) };
      else if (drip) network = { kind: 'drip', chunkBytes: Math.max(1, drip.chunkBytes ?? 64), intervalMs: Math.max(0, drip.intervalMs ?? 200) };

      entry.status = network?.kind === 'reset-mid-body' ? 0 : status;
      record(entry);
      if (route && status !== 429) runMutations(url.pathname);
      return network ? { status, headers, body, network } : { status, headers, body };
    }
  }

  /** Exact-match filters of the collection's generated type (only invoices and events have any). */
  function filtersFor(route: Route, url: URL): ReadonlyMap<string, string> | undefined {
    const base =
      route.endpoint.key === 'invoices' ? dataset.invoices(0) : route.endpoint.key === 'events' ? dataset.events() : undefined;
    return base ? pickFilters(base, url.searchParams) : undefined;
  }

  return {
    apiKey,
    clock,
    reply,
    async handle(request) {
      const r = await reply({ method: request.method, url: request.url, header: (n) => request.headers.get(n) });
      const response = new Response(r.status === 0 || r.status === 204 ? null : r.body, {
        status: r.status === 0 ? 502 : r.status,
        headers: r.headers,
      });
      if (r.network) networkFaults.set(response, r.network);
      return response;
    },
    taxpayers: () => dataset.taxpayers.map((p) => p.rfc),
    invoiceIds(taxpayerId) {
      const t = dataset.taxpayerIndex(taxpayerId);
      if (t < 0) return [];
      const view = invoicesOf(t).view();
      return Array.from({ length: view.length }, (_, pos) => view.id(pos));
    },
    items(path) {
      const s = resolvePath(path);
      const view = s.view();
      return Array.from({ length: view.length }, (_, pos) => s.parse(view, pos));
    },
    insert: (path, count = 1) => insertInto(resolvePath(path), count),
    remove: (path, id) => resolvePath(path).remove(id),
    setFaults,
    requests: () => log.map((e) => ({ ...e, faults: [...e.faults] })),
    stats: () => ({ requests: requestCount, byStatus: { ...byStatus }, limitedWindows: limiter.limitedWindows() }),
  };
}

/** The first page's link of a plan: `page=1` in offset mode, the cursor-less URL in cursor mode. */
function firstLink(plan: PagePlan, url: URL): string {
  if (plan.links.first !== undefined) return plan.links.first;
  const kept = new URLSearchParams();
  for (const [k, v] of url.searchParams) if (k !== 'page' && k !== 'id[lt]' && k !== 'id[gt]') kept.append(k, v);
  if (plan.mode === 'offset') kept.append('page', '1');
  const q = kept.toString();
  return q === '' ? url.pathname : `${url.pathname}?${q}`;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
