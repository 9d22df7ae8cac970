/**
 * `collections ratelimit` (cli-spec.md, `ratelimit`): one light request (`itemsPerPage=1`) per
 * endpoint the given ids allow, then the quota each one reports (api-contract.md §8 headers). A 429
 * is an answer here, never waited on. `--cached` prints what earlier commands saw and sends nothing.
 */
import Table from 'cli-table3';
import type { Context } from '../context.js';
import { openConfigStore, requireApiSettings, stderrWarner } from '../cli/settings.js';
import type { ResolvedSettings } from '../cli/settings.js';
import type { ConfigStore, RateLimitCacheEntry } from '../config/store.js';
import { buildPath, ENDPOINTS } from '../endpoints.js';
import type { Endpoint, Ids } from '../endpoints.js';
import { HttpError } from '../errors.js';
import { formatLocalTime, formatTimeLeft } from '../io/format.js';
import { createClient } from '../http/client.js';
import type { Client, ClientOptions, ProbeResult, RateLimitSnapshot } from '../http/client.js';

export { RATELIMIT_HELP } from '../cli/help.js';

/** Options of {@link runRatelimit} (commander: `--taxpayer`, `--invoice`, `--json`, `--cached`). */
export interface RatelimitOptions {
  /** Key, base URL and defaults (from resolveSettings); the key and URL are required unless `cached`. */
  settings: ResolvedSettings;
  /** `--taxpayer <id>`. */
  taxpayerId?: string;
  /** `--invoice <id>`. */
  invoiceId?: string;
  /** `--json`: an array of objects on stdout instead of a table. */
  json: boolean;
  /** `--cached`: show the last values seen, send nothing. */
  cached: boolean;
  /** A store to use instead of opening the one of `ctx.configDir` (tests). */
  store?: ConfigStore;
  /** Client factory (default createClient of http/client.ts); tests may inject one. */
  createClient?: (options: ClientOptions) => Client;
  /** Probes in flight at once (default 3). */
  concurrency?: number;
}

/** One row of `ratelimit --json` (live mode). */
export interface RatelimitRow {
  /** Endpoint key of endpoints.ts, e.g. `invoices`. */
  endpoint: string;
  /** The path requested, ids percent-encoded, e.g. `/taxpayers/ABC/invoices`. */
  path: string;
  /** HTTP status of the probe (200, 429, 404…). */
  status: number;
  limit: number | null;
  remaining: number | null;
  /** When the window resets by the server's clock (`X-RateLimit-Reset`), ISO 8601 UTC. */
  reset: string | null;
  /** Whole seconds until the reset (rounded up, never negative), corrected for the local clock's offset from the server's `Date`. */
  resetInSeconds: number | null;
  /** The response's `X-Request-ID`, when sent. */
  requestId?: string;
  /** The server's message for a non-2xx answer other than 429, when sent. */
  message?: string;
}

/** One row of `ratelimit --cached --json`. */
export interface CachedRatelimitRow {
  /** Origin of the API, e.g. `https://api.example.com`. */
  origin: string;
  endpoint: string;
  /** The endpoint's path template, e.g. `/taxpayers/{taxpayerId}/invoices`. */
  path: string;
  limit: number | null;
  remaining: number | null;
  reset: string | null;
  resetInSeconds: number | null;
  /** When the headers were seen, ISO 8601 UTC. */
  observedAt: string;
  /** Whole seconds since then. */
  ageSeconds: number;
}

/**
 * The endpoints a probe covers for the given ids: those whose ids are all given (so `entities` and
 * `events` always), in endpoints.ts order.
 */
export function selectProbeEndpoints(ids: Ids): Endpoint[] {
  return ENDPOINTS.filter((e) => e.ids.every((id) => ids[id] !== undefined));
}

/** Joins the base URL's path prefix and an endpoint path, and asks for one item per page. */
function probeUrl(baseUrl: URL, path: string): URL {
  const url = new URL(baseUrl.href);
  url.pathname = baseUrl.pathname.replace(/\/+$/, '') + path;
  url.search = '?itemsPerPage=1';
  url.hash = '';
  return url;
}




/**
 * A plain table: no ANSI colours, like the export's `table` format. (cli-table3 decides on colour
 * from the real process's terminal and environment, not from the Context, so colours would make
 * the output depend on where it runs.)
 */
function newTable(head: string[]): Table.Table {
  return new Table({ head, style: { head: [], border: [], compact: true } });
}

const cell = (v: number | undefined): string => (v === undefined ? '-' : String(v));

const resetSeconds = (resetAt: number | undefined, now: number): number | null =>
  resetAt === undefined ? null : Math.max(0, Math.ceil((resetAt - now) / 1000));

/** Runs `fn` over `items` with at most `limit` in flight, results in input order; stops starting new ones after a failure. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  const settled = await Promise.allSettled(workers);
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results;
}

/** Shows the cached observations (`--cached`); sends nothing. */
function runCached(options: RatelimitOptions, ctx: Context, store: ConfigStore): number {
  const now = ctx.clock.now();
  const origin = options.settings.baseUrl?.origin;
  const order = (e: RateLimitCacheEntry): number => {
    const i = ENDPOINTS.findIndex((row) => row.key === e.endpoint);
    return i < 0 ? ENDPOINTS.length : i;
  };
  const entries = store
    .rateLimits(origin)
    .sort((a, b) => a.origin.localeCompare(b.origin) || order(a) - order(b) || a.endpoint.localeCompare(b.endpoint));

  const rows: CachedRatelimitRow[] = entries.map((e) => ({
    origin: e.origin,
    endpoint: e.endpoint,
    path: ENDPOINTS.find((row) => row.key === e.endpoint)?.path ?? '',
    limit: e.limit ?? null,
    remaining: e.remaining ?? null,
    reset: e.resetAt === undefined ? null : new Date(e.resetAt).toISOString(),
    resetInSeconds: resetSeconds(e.resetLocalAt ?? e.resetAt, now),
    observedAt: new Date(e.observedAt).toISOString(),
    ageSeconds: Math.max(0, Math.floor((now - e.observedAt) / 1000)),
  }));

  if (options.json) {
    ctx.io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  } else if (rows.length === 0) {
    ctx.io.stderr.write(
      `No rate-limit headers seen yet${origin ? ` for ${origin}` : ''}; \`collections ratelimit\` checks them (one request per endpoint).\n`,
    );
  } else {
    const showOrigin = new Set(rows.map((r) => r.origin)).size > 1 || origin === undefined;
    const table = newTable([...(showOrigin ? ['origin'] : []), 'endpoint', 'limit', 'remaining', 'reset', 'time left', 'seen']);
    for (const e of entries) {
      const resetLocal = e.resetLocalAt ?? e.resetAt;
      const passed = resetLocal !== undefined && resetLocal <= now;
      table.push([
        ...(showOrigin ? [e.origin] : []),
        e.endpoint,
        cell(e.limit),
        cell(e.remaining),
        resetLocal === undefined ? '-' : formatLocalTime(resetLocal, now),
        resetLocal === undefined ? '-' : passed ? 'reset since' : formatTimeLeft(resetLocal - now),
        `${formatTimeLeft(now - e.observedAt)} ago`,
      ]);
    }
    ctx.io.stdout.write(`${table.toString()}\n`);
  }
  return 0;
}

/**
 * Runs `ratelimit`.
 *
 * Live mode: validates the ids and requires key and base URL before anything is sent; then probes
 * each endpoint of {@link selectProbeEndpoints} with `Client.probe` (`?itemsPerPage=1`), records
 * every rate-limit snapshot in the config store's cache, and prints a table (endpoint, limit,
 * remaining, reset in local time, time left; a status column when an answer was not 200) or, with
 * `json`, an array of {@link RatelimitRow}. A 404 (unknown taxpayer or invoice) or other non-auth
 * status shows in its row and the command still returns 0.
 *
 * `cached` mode: prints the cache (of the configured origin when a base URL is known, else of all
 * origins) with each entry's age; `ctx.fetch` is not called and no key is needed.
 *
 * @returns 0
 * @throws {UsageError} (exit 2) for an empty or invalid id, or a missing key or base URL;
 *   {@link HttpError} (exit 3) when the key is rejected (401/403); whatever the client throws for
 *   network failures (exit 6)
 */
export async function runRatelimit(options: RatelimitOptions, ctx: Context): Promise<number> {
  const ids: Ids = {};
  if (options.taxpayerId !== undefined) ids.taxpayerId = options.taxpayerId;
  if (options.invoiceId !== undefined) ids.invoiceId = options.invoiceId;
  const endpoints = selectProbeEndpoints(ids);
  // Validate every id (rule 8 of reliability.md) before opening anything or sending anything.
  const paths = endpoints.map((e) => buildPath(e, ids));

  if (options.cached) return runCached(options, ctx, options.store ?? openConfigStore(ctx));

  const settings = requireApiSettings(options.settings, stderrWarner(ctx.io));
  const store = options.store ?? openConfigStore(ctx);
  const clientOptions: ClientOptions = {
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    fetch: ctx.fetch,
    clock: ctx.clock,
    random: ctx.random,
    headers: { 'User-Agent': `collections/${ctx.version}` },
  };
  if (settings.defaults.retries !== undefined) clientOptions.retries = settings.defaults.retries;
  if (settings.defaults.timeoutMs !== undefined) clientOptions.timeoutMs = settings.defaults.timeoutMs;
  const client = (options.createClient ?? createClient)(clientOptions);
  const origin = settings.baseUrl.origin;

  const probeOne = async (index: number): Promise<{ result: ProbeResult; path: string; endpoint: Endpoint }> => {
    const endpoint = endpoints[index]!;
    const path = paths[index]!;
    const url = probeUrl(settings.baseUrl, path);
    let result: ProbeResult;
    try {
      result = await client.probe(url);
    } catch (err) {
      // A client that throws for statuses instead of returning them: a 404 still belongs in its row.
      if (err instanceof HttpError && err.details.status === 404) {
        result = { url, status: 404 };
        if (err.details.requestId !== undefined) result.requestId = err.details.requestId;
        if (err.details.serverMessage !== undefined) result.serverMessage = err.details.serverMessage;
      } else {
        throw err;
      }
    }
    if (result.status === 401 || result.status === 403) {
      const details: ConstructorParameters<typeof HttpError>[0] = {
        method: 'GET',
        path: `${url.pathname}${url.search}`,
        status: result.status,
      };
      if (result.serverMessage !== undefined) details.serverMessage = result.serverMessage;
      if (result.requestId !== undefined) details.requestId = result.requestId;
      throw new HttpError(details);
    }
    if (result.rateLimit !== undefined) store.recordRateLimit(origin, endpoint.key, result.rateLimit);
    return { result, path, endpoint };
  };

  const answers = await mapLimited(
    endpoints.map((_e, i) => i),
    Math.max(1, options.concurrency ?? 3),
    probeOne,
  );

  const now = ctx.clock.now();
  const rows: RatelimitRow[] = answers.map(({ result, path, endpoint }) => {
    const rl: RateLimitSnapshot | undefined = result.rateLimit;
    const row: RatelimitRow = {
      endpoint: endpoint.key,
      path,
      status: result.status,
      limit: rl?.limit ?? null,
      remaining: rl?.remaining ?? null,
      reset: rl?.resetAt === undefined ? null : new Date(rl.resetAt).toISOString(),
      resetInSeconds: resetSeconds(rl?.resetLocalAt ?? rl?.resetAt, now),
    };
    if (result.requestId !== undefined) row.requestId = result.requestId;
    if (result.serverMessage !== undefined && result.status !== 429 && (result.status < 200 || result.status > 299)) {
      row.message = result.serverMessage;
    }
    return row;
  });

  if (options.json) {
    ctx.io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const showStatus = rows.some((r) => r.status !== 200);
  const table = newTable(['endpoint', ...(showStatus ? ['status'] : []), 'limit', 'remaining', 'reset', 'time left']);
  for (const [i, row] of rows.entries()) {
    // The local-clock instant of the reset (corrected by the server's Date) is what a person's watch shows.
    const rl = answers[i]!.result.rateLimit;
    const resetAt = rl?.resetLocalAt ?? rl?.resetAt;
    const status = row.status === 429 ? '429 limited' : row.status === 404 ? '404 not found' : String(row.status);
    table.push([
      row.endpoint,
      ...(showStatus ? [status] : []),
      cell(row.limit ?? undefined),
      cell(row.remaining ?? undefined),
      resetAt === undefined ? '-' : formatLocalTime(resetAt, now),
      resetAt === undefined ? '-' : formatTimeLeft(resetAt - now),
    ]);
  }
  ctx.io.stdout.write(`${table.toString()}\n`);
  return 0;
}
