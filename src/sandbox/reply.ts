/**
 * The sandbox's request handler: authentication, routing, the rate limit, the planned answer
 * (a page, or a 400/404/405/429 message), the faults that fire, the request log and the
 * automatic mutations.
 */
import type { Clock } from '../time/clock.js';
import type { FaultInjector } from './faults.js';
import type { RateLimitDecision, RateLimiter } from './limiter.js';
import { parsePageQuery, planPage, type PagingRule, type SinglePage } from './pages.js';
import type { CollectionRegistry } from './registry.js';
import type { RequestLog } from './request-log.js';
import { finishDraft } from './respond.js';
import {
  createDraft,
  httpDate,
  JSON_TYPE,
  messageBody,
  PROBLEM_TYPE,
  requestIdOf,
  setFrameworkError,
  setMessage,
  type ErrorStyle,
  type PageDraft,
  type ResponseDraft,
} from './responses.js';
import { matchRoute, type Route } from './routes.js';
import type { LimitScope, RequestLogEntry, SandboxReply, SandboxRequest } from './types.js';
import type { CursorEnd } from './cursor.js';
import { violationProblem } from './validation.js';
import { encodeJson, type WireEncoding } from './wire.js';

/** What the handler works with; see {@link createReplyHandler}. */
export interface ReplyHandlerOptions {
  /** The accepted `X-Api-Key`. */
  apiKey: string;
  clock: Clock;
  /** The sandbox seed (seeds `X-Request-ID`). */
  seed: number;
  /** Latency added to each answer, ms, slept on `clock`. */
  latencyMs: number;
  cursorPrevious: 'previous' | 'last';
  /** How cursor chains end (sandbox/cursor.ts). */
  cursorEnd: CursorEnd;
  /** How bodies are written (sandbox/wire.ts). */
  wire: WireEncoding;
  /** How the framework's 400, 404 and 405 are written (responses.ts). */
  errors: ErrorStyle;
  /** How the paging mode is chosen where cursor mode is allowed (sandbox/pages.ts). */
  paging: PagingRule;
  /** A page that links nowhere: with its `view` or without (sandbox/pages.ts). */
  singlePage: SinglePage;
  limiter: RateLimiter;
  /** `route`: one window per endpoint key; `path`: one per concrete path (see SandboxOptions.limitScope). */
  limitScope: LimitScope;
  injector: FaultInjector;
  registry: CollectionRegistry;
  log: RequestLog;
  /** Called with the path of every answered request that is routed and not a 429. */
  mutate(pathname: string): void;
  /** Called after a page is rendered (warm-ahead), or nothing. */
  afterRender(page: PageDraft): void;
}

/** The 401 answer: no rate-limit headers and no faults (a 401 is always an honest 401). */
function unauthorized(nowMs: number, requestId: string): SandboxReply {
  return {
    status: 401,
    headers: { 'Content-Type': JSON_TYPE, Date: httpDate(nowMs), 'X-Request-ID': requestId },
    body: messageBody('Unauthorized'),
  };
}

/**
 * The answer a request gets before faults: a 429 past the limit, a 405 for a method other than GET,
 * a 404 for an unknown path or id, a 400 for bad paging parameters, a 422 for invalid filter values
 * (sandbox/validation.ts), else a page of the collection.
 */
function planAnswer(
  options: Pick<ReplyHandlerOptions, 'registry' | 'cursorEnd' | 'wire' | 'errors' | 'paging'>,
  req: SandboxRequest,
  url: URL,
  route: Route | undefined,
  decision: RateLimitDecision,
): ResponseDraft {
  const { registry, errors, wire } = options;
  const draft = createDraft(decision);
  if (decision.limited) {
    setMessage(draft, 429, 'Too Many Requests');
    return draft;
  }
  if (req.method !== 'GET') {
    setFrameworkError(draft, 405, 'Method Not Allowed', errors, wire);
    draft.extra.Allow = 'GET';
    return draft;
  }
  const state = route && registry.resolve(route);
  if (!route || !state) {
    setFrameworkError(draft, 404, 'Not Found', errors, wire, route === undefined);
    return draft;
  }
  const query = parsePageQuery(url.searchParams, route.endpoint.cursor, (name) => req.header(name), options.paging);
  if ('error' in query) {
    setFrameworkError(draft, 400, query.error, errors, wire);
    return draft;
  }
  const violations = registry.violationsFor(route, url);
  if (violations.length > 0) {
    draft.status = 422;
    draft.contentType = PROBLEM_TYPE;
    draft.body = Buffer.from(encodeJson(violationProblem(violations), wire));
    return draft;
  }
  const view = state.view(registry.filtersFor(route, url, query.mode === 'cursor'));
  const pagePlan = planPage(view, query, url.pathname, url.searchParams, options.cursorEnd);
  draft.page = { plan: pagePlan, view, state, links: { ...pagePlan.links }, prefixed: true };
  return draft;
}

/**
 * Creates the handler behind `Sandbox.reply`: answers one request as the Collection API would.
 * @returns a function that rejects with the clock's abort reason when `signal` aborts during the
 *   latency, and with the mutator's error for a bad mutation path
 */
export function createReplyHandler(options: ReplyHandlerOptions): (req: SandboxRequest, signal?: AbortSignal) => Promise<SandboxReply> {
  const { apiKey, clock, seed, latencyMs, limiter, injector, log } = options;

  return async (req, signal) => {
    const number = log.next();
    if (latencyMs > 0) await clock.sleep(latencyMs, signal);
    const now = clock.now();
    const url = new URL(req.url);
    const pathAndQuery = url.pathname + url.search;
    const key = req.header('x-api-key');
    const requestId = requestIdOf(seed, number, now);
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
      log.record(entry);
      return unauthorized(now, requestId);
    }
    const route = matchRoute(url.pathname);
    entry.endpoint = route?.endpoint.key;
    const counted = route === undefined ? 'unknown' : options.limitScope === 'path' ? url.pathname : route.endpoint.key;
    const draft = planAnswer(options, req, url, route, limiter.hit(key, counted, now));
    const page = draft.page?.plan.pageNumber;
    const fired = injector.decide({ requestNumber: number, endpoint: route?.endpoint.key, page, pathAndQuery, nowMs: now });
    entry.faults = fired.map((r) => r.kind);
    const reply = finishDraft(draft, fired, {
      url,
      pathAndQuery,
      nowMs: now,
      requestId,
      cursorPrevious: options.cursorPrevious,
      wire: options.wire,
      singlePage: options.singlePage,
      afterRender: (page) => options.afterRender(page),
    });
    entry.status = reply.network?.kind === 'reset-mid-body' ? 0 : reply.status;
    log.record(entry);
    if (reply.status !== 0 && route && reply.status !== 429) options.mutate(url.pathname);
    return reply;
  };
}
