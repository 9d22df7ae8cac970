/**
 * The bundled Collection API as a function: `handle(Request) → Promise<Response>`, no socket
 * (docs/sandbox.md, "The sandbox"). server.ts adapts it to node:http, fetch.ts to an in-process `fetch`.
 *
 * What it implements: the seven GET endpoints of src/endpoints.ts; offset pagination with
 * `hydra:totalItems` and first/previous/next/last links; cursor pagination (`X-Pagination-Style:
 * cursor`, newest first, `id[lt]`/`id[gt]` cursors, totals only with `X-Pagination-Enable-Partial:
 * 0`) on the endpoints that support it; `itemsPerPage` validation (400); `X-Api-Key` (401);
 * unknown taxpayers, invoices and paths (404); fixed-window rate limits per key and endpoint with
 * the three `X-RateLimit-*` headers on every authenticated response (429 over the limit); `Date`
 * and `X-Request-ID` on every response; and the fault injection of faults.ts.
 *
 * This module only composes the parts: routes.ts (routing), registry.ts (collections by route),
 * reply.ts (the request handler), respond.ts and fault-table.ts (faults), request-log.ts,
 * mutations.ts and warm.ts. The public types live in types.ts and are re-exported here.
 */
import { systemClock, type Clock } from '../time/clock.js';
import type { ByteBudget } from './collection.js';
import { createDataset, type DataSizes } from './data.js';
import { DEFAULT_SANDBOX_KEY, DEFAULT_SIZES } from './defaults.js';
import { createFaultInjector, parseFaultSpec, type FaultConfig, type FaultRule } from './faults.js';
import { createRateLimiter } from './limiter.js';
import { createAutoMutator, insertItems } from './mutations.js';
import { createChurner } from './churn.js';
import { createDeletionRecorder } from './deletions.js';
import { createCollectionRegistry } from './registry.js';
import { createReplyHandler } from './reply.js';
import { createRequestLog } from './request-log.js';
import type { Sandbox, SandboxOptions } from './types.js';
import { createWarmer } from './warm.js';

export type { CursorEnd } from './cursor.js';
export type { WireEncoding } from './wire.js';
export type { ErrorStyle } from './responses.js';
export type { AutoMutation, RequestLogEntry, Sandbox, SandboxOptions, SandboxReply, SandboxRequest, SandboxStats } from './types.js';

/** The answer of `Sandbox.handle`: a network fault becomes a bodiless 502. */
async function handleWith(sandbox: Pick<Sandbox, 'reply'>, request: Request): Promise<Response> {
  const r = await sandbox.reply({ method: request.method, url: request.url, header: (n) => request.headers.get(n) });
  return new Response(r.status === 0 || r.status === 204 ? null : r.body, {
    status: r.status === 0 ? 502 : r.status,
    headers: r.headers,
  });
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Creates a sandbox. Nothing is generated until it is read (see data.ts). Faults apply to
 * authenticated requests only: a 401 is always an honest 401.
 * @throws {UsageError} for a bad fault spec; {RangeError} when `windowSeconds` is not > 0, or
 *   for `cursorOnly` with `ignorePaginationStyle`
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  if (options.cursorOnly && options.ignorePaginationStyle) throw new RangeError('cursorOnly and ignorePaginationStyle exclude each other');
  const apiKey = options.apiKey ?? DEFAULT_SANDBOX_KEY;
  const clock: Clock = options.clock ?? systemClock;
  const seed = options.seed ?? 1;
  const sizes: DataSizes = { ...DEFAULT_SIZES, ...stripUndefined(options.sizes ?? {}) };
  const dataset = createDataset(seed, sizes, { batchPayment: options.batchPayment ?? 'iri', oddText: options.oddText === true });
  const limiter = createRateLimiter({ limit: options.limit ?? 60, windowSeconds: options.windowSeconds ?? 60 });
  const budget: ByteBudget = { used: 0, limitBytes: options.cacheBytes ?? 2 * 1024 ** 3 };
  const injector = createFaultInjector(seed);
  const log = createRequestLog(options.logLimit ?? 100_000);
  const deletions = options.deletions ? createDeletionRecorder(dataset, clock, seed, options.eventRetentionDays) : undefined;
  const churn = createChurner({ perMinute: options.churn ?? 0, clock, seed, startMs: clock.now(), ...(deletions ? { deletions } : {}) });
  const registry = createCollectionRegistry(dataset, budget, seed, churn, options.wire ?? 'apiplatform', options.dates ?? 'iso');
  deletions?.wire(registry);
  const warm = createWarmer(budget);

  const setFaults = (faults: FaultConfig | FaultRule[] | string): void => {
    injector.set(typeof faults === 'string' ? parseFaultSpec(faults) : faults, clock.now());
  };
  if (options.faults !== undefined) setFaults(options.faults);

  const reply = createReplyHandler({
    apiKey,
    clock,
    seed,
    latencyMs: options.latencyMs ?? 0,
    cursorPrevious: options.cursorPrevious ?? 'previous',
    cursorEnd: options.cursorEnd ?? 'endless',
    wire: options.wire ?? 'apiplatform',
    errors: options.errors ?? 'message',
    paging: options.cursorOnly ? 'cursor-only' : options.ignorePaginationStyle ? 'ignore-header' : 'header',
    singlePage: options.singlePage ?? 'view',
    limiter,
    limitScope: options.limitScope ?? 'route',
    injector,
    registry,
    log,
    mutate: createAutoMutator({ mutations: options.mutations ?? [], registry, clock, seed }),
    afterRender({ plan, view, state }) {
      if (options.warmAhead && plan.end < view.length) warm(state.key, view, plan.end, plan.end - plan.start);
    },
  });

  return {
    apiKey,
    clock,
    reply,
    handle: (request) => handleWith({ reply }, request),
    taxpayers: () => dataset.taxpayers.map((p) => p.rfc),
    invoiceIds(taxpayerId) {
      const t = dataset.taxpayerIndex(taxpayerId);
      if (t < 0) return [];
      const view = registry.invoicesOf(t).view();
      return Array.from({ length: view.length }, (_, pos) => view.id(pos));
    },
    items(path) {
      const s = registry.resolvePath(path);
      const view = s.view();
      return Array.from({ length: view.length }, (_, pos) => s.parse(view, pos));
    },
    insert: (path, count = 1) => insertItems(registry.resolvePath(path), count, clock),
    remove: (path, id) => registry.resolvePath(path).remove(id),
    setFaults,
    requests: () => log.entries(),
    stats: () => ({ requests: log.count(), byStatus: log.byStatus(), limitedWindows: limiter.limitedWindows() }),
  };
}
