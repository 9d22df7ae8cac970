/**
 * The governor pool: which governor (governor.ts) paces a request, and what the clients of one API
 * and key share.
 *
 * Scope (docs/rate-limits.md, "Rate limits, retries and safety"): the API documentation says limits are per key
 * and per endpoint, but not whether `/taxpayers/A/invoices` and `/taxpayers/B/invoices` are one
 * endpoint. The pool starts on the safe side: every path of one route (the endpoint's path template
 * of endpoints.ts, e.g. `/taxpayers/{taxpayerId}/invoices`, after any prefix of the base URL) shares
 * one window, so a per-route API never answers a second 429. It learns per-path counting from the
 * headers: a response on path B, sent after a response on path A of the same route arrived, that
 * reports the same reset and a `Remaining` at least A's cannot come from one shared counter (that
 * would have counted A's request first); from then on each path of the route has its own window.
 * A path that matches no template is its own window (as before).
 *
 * The routes of the current path family (path-family.ts, which `get` reads) start the other way:
 * each path counted alone until the headers show one shared counter: the first answer on path B
 * in a window, sent after an answer on path A of the route arrived in that window, with less room
 * than A had (B's own counter would have at least as much). Learnt in this process only.
 *
 * Sharing: a {@link GovernorPool} holds the governors and the server's clock of one origin and key;
 * every client created with the same rate budget (budget.ts) uses the same pool ({@link poolFor}),
 * and each client sees it through its own view (client-budget.ts), so the waits of a client's
 * requests are reported to that client and bounded by its `--max-wait`. What other processes share
 * comes from the budget's store (store.ts), opened once per pool.
 */
import { createHash } from 'node:crypto';
import { ENDPOINTS } from '../endpoints.js';
import { PATH_FAMILY } from '../path-family.js';
import type { Clock } from '../time/clock.js';
import type { RateBudget } from './budget.js';
import { createRateLimitGovernor } from './governor.js';
import type { RateLimitGovernor } from './governor-types.js';
import type { ResponseObservation } from './quota-window.js';
import { createServerClock, type ServerClock } from './server-clock.js';
import type { SharedQuota } from './store.js';

/** What the clients of one origin and key share; see {@link createGovernorPool}. */
export interface GovernorPool {
  readonly serverClock: ServerClock;
  /** Settles when what other processes share is open (or known to be unavailable); undefined once it is. */
  readonly opening: Promise<void> | undefined;
  /** The governor pacing `url` now. */
  resolve(url: URL): RateLimitGovernor;
  /**
   * Learns from one response to `url`.
   * @param sentAfter {@link GovernorPool.receipts} when its request was granted
   */
  learn(url: URL, sentAfter: number, obs: ResponseObservation): void;
  /** Responses learnt from so far. */
  readonly receipts: number;
  /** How the route of `url` is counted, as learnt so far. */
  scopeOf(url: URL): 'route' | 'path';
}

interface Template {
  segments: string[];
  perPath: boolean;
}

const TEMPLATES: Template[] = [
  ...ENDPOINTS.map((e) => ({ segments: e.path.split('/').slice(1), perPath: false })),
  ...PATH_FAMILY.map((e) => ({ segments: e.path.split('/').slice(1), perPath: true })),
].sort((a, b) => b.segments.length - a.segments.length);

/**
 * The route of a path: the longest template its last segments fit (a `{…}` segment fits any
 * non-empty one), after a base URL's prefix; a path no template fits is its own route.
 */
function matchRoute(pathname: string): { route: string; perPath: boolean } {
  const segments = pathname.split('/').slice(1);
  for (const template of TEMPLATES) {
    const offset = segments.length - template.segments.length;
    if (offset < 0) continue;
    const fits = template.segments.every((t, i) => {
      const s = segments[offset + i]!;
      return t.startsWith('{') ? s !== '' : t === s;
    });
    if (fits) return { route: ['', ...segments.slice(0, offset), ...template.segments].join('/'), perPath: template.perPath };
  }
  return { route: pathname, perPath: false };
}

/** e.g. `/v1/taxpayers/AAA/invoices` → `/v1/taxpayers/{taxpayerId}/invoices` (see {@link matchRoute}). */
export function routeOf(pathname: string): string {
  return matchRoute(pathname).route;
}

/** The lowest `Remaining` seen in a route's current window, and where. */
interface Floor {
  path: string;
  remaining: number;
  resetAt: number;
  receipt: number;
}

interface RouteGroup {
  route: string;
  perPath: boolean;
  startsPerPath: boolean;
  governor: RateLimitGovernor;
  paths: Map<string, RateLimitGovernor>;
  floor: Floor | undefined;
  answers: Map<string, Floor>;
}

const MAX_ANSWERS = 64;

/** Whether an answer of a route that starts per path shows one shared counter (the module comment says when). */
function learnsShared(g: RouteGroup, path: string, sentAfter: number, receipt: number, obs: ResponseObservation): boolean {
  const { remaining, resetAt } = obs.headers;
  if (obs.status < 200 || obs.status >= 300 || remaining === undefined || resetAt === undefined) return false;
  const first = g.answers.get(path)?.resetAt !== resetAt;
  let shared = false;
  if (first) {
    for (const [other, a] of g.answers) {
      if (other !== path && a.resetAt === resetAt && a.receipt <= sentAfter && remaining < a.remaining) shared = true;
    }
  }
  g.answers.delete(path);
  g.answers.set(path, { path, remaining, resetAt, receipt });
  if (g.answers.size > MAX_ANSWERS) g.answers.delete(g.answers.keys().next().value!);
  return shared;
}

/**
 * Feeds one answer into a route's floor (the lowest `Remaining` of its window, and where).
 * @returns true when it shows per-path counting: a 2xx on another path than the floor's, sent after
 *   the floor's answer arrived, with the same reset and at least as much room
 */
function learnsPerPath(g: RouteGroup, path: string, sentAfter: number, receipt: number, obs: ResponseObservation): boolean {
  const { remaining, resetAt } = obs.headers;
  if (obs.status < 200 || obs.status >= 300 || remaining === undefined || resetAt === undefined) return false;
  const f = g.floor;
  if (f !== undefined && f.resetAt === resetAt && f.path !== path && f.receipt <= sentAfter && remaining >= f.remaining) return true;
  if (f === undefined || resetAt > f.resetAt || (resetAt === f.resetAt && remaining < f.remaining)) g.floor = { path, remaining, resetAt, receipt };
  return false;
}

/** A shared counter, once learnt of a route that starts per path, stays: its governor takes no per-path lesson from the store. */
function newGroup(
  route: string,
  startsPerPath: boolean,
  learntPerPath: boolean,
  make: (scope: string, onPerPath?: () => void) => RateLimitGovernor,
): RouteGroup {
  const group: RouteGroup = {
    route,
    perPath: startsPerPath || learntPerPath,
    startsPerPath,
    governor: make(
      route,
      startsPerPath
        ? undefined
        : () => {
            group.perPath = true;
          },
    ),
    paths: new Map(),
    floor: undefined,
    answers: new Map(),
  };
  return group;
}

/** Options of {@link createGovernorPool}. */
export interface GovernorPoolOptions {
  clock: Clock;
  /** What other processes share (reservations and windows by route or path), or its opening; none: this process alone. */
  quota?: SharedQuota | Promise<SharedQuota | undefined>;
}

/** Creates an empty {@link GovernorPool} (no window known, every route counted as one window). */
export function createGovernorPool(options: GovernorPoolOptions): GovernorPool {
  const { clock } = options;
  const serverClock = createServerClock();
  const groups = new Map<string, RouteGroup>();
  let receipts = 0;
  let quota: SharedQuota | undefined;
  let opening: Promise<void> | undefined;
  if (options.quota instanceof Promise) {
    opening = options.quota.then(
      (q) => {
        quota = q;
        opening = undefined;
      },
      () => {
        opening = undefined;
      },
    );
  } else {
    quota = options.quota;
  }
  const sharing = options.quota !== undefined;
  const make = (scope: string, onPerPath?: () => void): RateLimitGovernor =>
    createRateLimitGovernor({
      clock,
      serverClock,
      name: scope,
      ...(sharing ? { shared: { quota: () => quota, scope, ...(onPerPath === undefined ? {} : { onPerPath }) } } : {}),
    });
  const groupOf = (url: URL): RouteGroup => {
    const { route, perPath } = matchRoute(url.pathname);
    let g = groups.get(route);
    if (g === undefined) {
      g = newGroup(route, perPath, quota?.isPathScope(route) ?? false, make);
      groups.set(route, g);
    }
    return g;
  };
  return {
    serverClock,
    get opening() {
      return opening;
    },
    get receipts() {
      return receipts;
    },
    scopeOf: (url) => (groupOf(url).perPath ? 'path' : 'route'),
    resolve(url) {
      const g = groupOf(url);
      if (!g.perPath) return g.governor;
      let p = g.paths.get(url.pathname);
      if (p === undefined) {
        p = make(url.pathname);
        g.paths.set(url.pathname, p);
      }
      return p;
    },
    learn(url, sentAfter, obs) {
      const receipt = ++receipts;
      const g = groupOf(url);
      if (g.startsPerPath) {
        if (g.perPath && learnsShared(g, url.pathname, sentAfter, receipt, obs)) g.perPath = false;
      } else if (!g.perPath && learnsPerPath(g, url.pathname, sentAfter, receipt, obs)) {
        g.perPath = true;
        quota?.learnPathScope(g.route);
      }
    },
  };
}

/** The SHA-256 of an API key, hex: how shared state names a key without holding it. */
export function keyHashOf(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/**
 * The pool of `origin` and `apiKey` in `budget` (made on first use, with what other processes share
 * when the budget has a store), or a pool of this client alone without a budget.
 */
export function poolFor(budget: RateBudget | undefined, origin: string, apiKey: string, clock: Clock): GovernorPool {
  if (budget === undefined) return createGovernorPool({ clock });
  const keyHash = keyHashOf(apiKey);
  return budget.share(`governors ${origin} ${keyHash}`, () => {
    const quota = budget.store?.open(origin, keyHash);
    return createGovernorPool({ clock, ...(quota === undefined ? {} : { quota }) });
  });
}
