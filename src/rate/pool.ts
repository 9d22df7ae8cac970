/**
 * Which governor paces a request. The API documentation does not say whether two paths of one route
 * are one endpoint. A route of `ENDPOINTS` starts with one window for all its paths and learns
 * per-path counting when path B, sent after A's answer, has the same reset and a `Remaining` at least
 * A's; a route of `PATH_FAMILY` starts per path until B's first answer has less room than A had.
 */
import { createHash } from 'node:crypto';
import { ENDPOINTS, PATH_FAMILY } from '../endpoints.js';
import type { Clock } from '../time/clock.js';
import type { SharedQuota } from './budget.js';
import { RateLimitGovernor, type AcquireOptions, type ClientPacing, type Permit, type ResponseObservation } from './governor.js';
import { parseRateLimitHeaders, ServerClock, type HeaderSource, type RateLimitHeaders } from './headers.js';

/** A response's head as {@link BudgetPermit.record} reads it. */
export interface RecordedResponse {
  status: number;
  headers: HeaderSource;
  /** local ms */
  sentAt: number;
  /** When the response headers arrived, local ms. */
  receivedAt: number;
}

export interface BudgetPermit extends Permit {
  /** Parses the rate-limit headers, `Retry-After` and `Date`, narrows the server clock's offset, and releases the permit. */
  record(response: RecordedResponse): RateLimitHeaders;
}

/** One client's view of its pool: its waits told to it and bounded by its `maxWaitMs`. */
export interface ClientBudget {
  readonly serverClock: ServerClock;
  /**
   * Waits until a request to `url` may be sent, then reserves it in its endpoint's window.
   * @throws {RateLimitError} when the wait for the reset would exceed the client's `maxWaitMs`
   * @throws the signal's reason when aborted
   */
  reserve(url: URL, options?: AcquireOptions): Promise<BudgetPermit>;
  holdUntil(url: URL, localMs: number): void;
}

/** The governors and the server's clock the clients of one origin and key share. */
export interface GovernorPool {
  client(pacing: ClientPacing): ClientBudget;
}

interface Template {
  segments: string[];
  perPath: boolean;
}

const TEMPLATES: Template[] = [
  ...ENDPOINTS.map((e) => ({ segments: e.path.split('/').slice(1), perPath: false })),
  ...PATH_FAMILY.map((e) => ({ segments: e.path.split('/').slice(1), perPath: true })),
].sort((a, b) => b.segments.length - a.segments.length);

/** The longest template the path's last segments fit (after a base URL's prefix); else the path itself. */
export function matchRoute(pathname: string): { route: string; perPath: boolean } {
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

/** A 2xx answer with a `Remaining` and a `Reset`: the lowest of a route's current window, and where. */
interface Answer {
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
  floor: Answer | undefined;
  answers: Map<string, Answer>;
}

const MAX_ANSWERS = 64;

function learnsShared(g: RouteGroup, answer: Answer, sentAfter: number): boolean {
  const { path, remaining, resetAt } = answer;
  const shared =
    g.answers.get(path)?.resetAt !== resetAt &&
    [...g.answers.values()].some((a) => a.path !== path && a.resetAt === resetAt && a.receipt <= sentAfter && remaining < a.remaining);
  g.answers.delete(path);
  g.answers.set(path, answer);
  if (g.answers.size > MAX_ANSWERS) g.answers.delete(g.answers.keys().next().value!);
  return shared;
}

function learnsPerPath(g: RouteGroup, answer: Answer, sentAfter: number): boolean {
  const { path, remaining, resetAt } = answer;
  const f = g.floor;
  if (f !== undefined && f.resetAt === resetAt && f.path !== path && f.receipt <= sentAfter && remaining >= f.remaining) return true;
  if (f === undefined || resetAt > f.resetAt || (resetAt === f.resetAt && remaining < f.remaining)) g.floor = answer;
  return false;
}

/** A governor's permit that reads the response's headers, and teaches the pool with its answer (`learn`, once). */
function budgetPermit(permit: Permit, serverClock: ServerClock, learn: (obs: ResponseObservation) => void): BudgetPermit {
  let learnt = false;
  const release = (obs?: ResponseObservation): void => {
    permit.release(obs);
    if (obs === undefined || learnt) return;
    learnt = true;
    learn(obs);
  };
  return {
    cancel: () => permit.cancel(),
    release,
    record({ status, headers, sentAt, receivedAt }) {
      const rl = parseRateLimitHeaders(headers);
      serverClock.observe(rl.date, sentAt, receivedAt);
      release({ status, headers: rl, receivedAt });
      return rl;
    },
  };
}

export interface GovernorPoolOptions {
  clock: Clock;
  /** The shared quota, or its opening; none: this process alone. */
  quota?: SharedQuota | Promise<SharedQuota | undefined>;
}

export function createGovernorPool(options: GovernorPoolOptions): GovernorPool {
  const { clock } = options;
  const serverClock = new ServerClock();
  const groups = new Map<string, RouteGroup>();
  let receipts = 0;
  let quota = options.quota instanceof Promise ? undefined : options.quota;
  const open = async (pending: Promise<SharedQuota | undefined>): Promise<void> => {
    quota = await pending.catch(() => undefined);
    opening = undefined;
  };
  let opening = options.quota instanceof Promise ? open(options.quota) : undefined;
  const sharing = options.quota !== undefined;
  // The store's records show the API counts `scope` per path. A shared counter, once learnt of a route that starts per path, stays.
  const onPerPath = (scope: string): void => {
    const g = groups.get(scope);
    if (g !== undefined && !g.startsPerPath) g.perPath = true;
  };
  const make = (scope: string): RateLimitGovernor =>
    new RateLimitGovernor({
      clock,
      serverClock,
      name: scope,
      ...(sharing ? { shared: { quota: () => quota, scope, onPerPath: () => onPerPath(scope) } } : {}),
    });
  const groupOf = (url: URL): RouteGroup => {
    const { route, perPath } = matchRoute(url.pathname);
    let g = groups.get(route);
    if (g === undefined) {
      const learnt = quota?.isPathScope(route) ?? false;
      g = {
        route,
        perPath: perPath || learnt,
        startsPerPath: perPath,
        governor: make(route),
        paths: new Map(),
        floor: undefined,
        answers: new Map(),
      };
      groups.set(route, g);
    }
    return g;
  };
  const resolve = (url: URL): RateLimitGovernor => {
    const g = groupOf(url);
    if (!g.perPath) return g.governor;
    if (!g.paths.has(url.pathname)) g.paths.set(url.pathname, make(url.pathname));
    return g.paths.get(url.pathname)!;
  };
  /** @param sentAfter `receipts` when its request was granted */
  const learn = (url: URL, sentAfter: number, obs: ResponseObservation): void => {
    const receipt = ++receipts;
    const g = groupOf(url);
    const { remaining, resetAt } = obs.headers;
    if (obs.status < 200 || obs.status >= 300 || remaining === undefined || resetAt === undefined) return;
    const answer = { path: url.pathname, remaining, resetAt, receipt };
    if (g.startsPerPath) {
      if (g.perPath && learnsShared(g, answer, sentAfter)) g.perPath = false;
    } else if (!g.perPath && learnsPerPath(g, answer, sentAfter)) {
      g.perPath = true;
      quota?.learnPathScope(g.route);
    }
  };
  const client = (pacing: ClientPacing): ClientBudget => ({
    serverClock,
    async reserve(url, opts = {}) {
      if (opening !== undefined && opts.wait !== false) await opening;
      const permit = await resolve(url).acquire(pacing, opts);
      const sentAfter = receipts;
      return budgetPermit(permit, serverClock, (obs) => learn(url, sentAfter, obs));
    },
    holdUntil: (url, localMs) => resolve(url).blockUntil(localMs, pacing.onWait),
  });
  return { client };
}

/** How shared state names a key without holding it. */
export function keyHashOf(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}
