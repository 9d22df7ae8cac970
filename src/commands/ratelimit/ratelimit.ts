/**
 * `collections ratelimit` (README, "Checking the quota"): one light request (`itemsPerPage=1`) per
 * endpoint the given ids allow, then the quota each one reports (its `X-RateLimit-*` headers; the
 * API documentation, rate limiting). A 429 is an answer here, never waited on. `--cached` prints
 * what earlier commands saw and sends nothing (commands/ratelimit-cached.ts).
 */
import type { Context } from '../../context.js';
import { loadSettings, openConfigStore, requireApiSettings, stderrWarner } from '../../config/settings.js';
import type { ApiSettings, ResolvedSettings } from '../../config/settings.js';
import type { ConfigStore } from '../../config/store.js';
import { buildPath, endpointUrl, ENDPOINTS, ID_SPECS, idsFromFlags } from '../../endpoints.js';
import type { Endpoint, IdFlagValues, Ids } from '../../endpoints.js';
import { ExitCode, HttpError } from '../../errors.js';
import { formatLocalTime, formatTimeLeft } from '../../io/format.js';
import { createClient } from '../../http/client.js';
import { mergeHeaders } from '../../http/request-headers.js';
import type { Client, ClientOptions, ProbeResult, RateLimitSnapshot } from '../../http/client.js';
import { cell, newTable, resetSeconds, runCachedRatelimit, tableWidth } from './ratelimit-cached.js';
import { loadTableSupport } from '../../output/table-draw.js';
import type { GlobalFlags } from '../flags.js';

/** What the `ratelimit` command (commands/ratelimit-command.ts) hands {@link runRatelimit}: its flags as parsed. */
export interface RatelimitCommandOptions extends GlobalFlags, IdFlagValues {
  /** `-H, --header`, repeatable: headers sent with each probe besides the profile's. */
  header?: Array<[string, string]>;
  /** `--json`. */
  json: boolean;
  /** `--cached`. */
  cached: boolean;
}

/**
 * Runs `ratelimit` from its parsed flags: resolves the settings (flag, environment, profile; the key
 * and credential-like stored headers are added to `ctx.secrets` once known) and the headers to
 * send (the profile's, then `--header`s), then {@link showRatelimit}.
 * @throws as {@link showRatelimit}, and {@link UsageError} (exit 2) for invalid settings
 */
export async function runRatelimit(ctx: Context, options: RatelimitCommandOptions): Promise<number> {
  const { settings, store } = loadSettings(options, ctx);
  ctx.secrets.add(settings.apiKey);
  for (const [name, value] of settings.headers) ctx.secrets.addHeader(name, value);
  const headers = mergeHeaders(settings.headers, options.header ?? []);
  return showRatelimit({ settings, store, ...idsFromFlags(options), json: options.json, cached: options.cached, headers }, ctx);
}

/**
 * Options of {@link showRatelimit} (commander: the id flags of endpoints.ts, `--json`, `--cached`):
 * the ids given (`taxpayerId` from `--taxpayer <rfc>`, `invoiceId` from `--invoice <id>`) and the rest.
 */
export interface RatelimitOptions extends Ids {
  /** Key, base URL and defaults (from resolveSettings); the key and URL are required unless `cached`. */
  settings: ResolvedSettings;
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
  /** The user's request headers (the profile's, then `--header`s), sent with each probe. */
  headers?: Readonly<Record<string, string>>;
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

/**
 * The endpoints a probe covers for the given ids: those whose ids are all given (so `entities` and
 * `events` always), in endpoints.ts order.
 */
export function selectProbeEndpoints(ids: Ids): Endpoint[] {
  return ENDPOINTS.filter((e) => e.ids.every((id) => ids[id] !== undefined));
}

/** The endpoint's URL under the base URL, asking for one item per page. */
function probeUrl(baseUrl: URL, path: string): URL {
  const url = endpointUrl(baseUrl, path);
  url.search = '?itemsPerPage=1';
  return url;
}

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

/** One probe's answer. */
interface ProbeAnswer {
  result: ProbeResult;
  path: string;
  endpoint: Endpoint;
}

/**
 * Sends one probe, records its rate-limit headers in the store's cache, and turns a thrown 404 into
 * an answer (it belongs in its row).
 * @throws {HttpError} for 401/403 (exit 3); whatever the client throws for network failures
 */
async function probeOne(client: Client, settings: ApiSettings, store: ConfigStore, endpoint: Endpoint, path: string): Promise<ProbeAnswer> {
  const url = probeUrl(settings.baseUrl, path);
  let result: ProbeResult;
  try {
    result = await client.probe(url);
  } catch (err) {
    // A client that throws for statuses instead of returning them: a 404 still belongs in its row.
    if (!(err instanceof HttpError && err.details.status === 404)) throw err;
    result = { url, status: 404 };
    if (err.details.requestId !== undefined) result.requestId = err.details.requestId;
    if (err.details.serverMessage !== undefined) result.serverMessage = err.details.serverMessage;
  }
  if (result.status === 401 || result.status === 403) {
    const details: ConstructorParameters<typeof HttpError>[0] = { method: 'GET', path: `${url.pathname}${url.search}`, status: result.status };
    if (result.serverMessage !== undefined) details.serverMessage = result.serverMessage;
    if (result.requestId !== undefined) details.requestId = result.requestId;
    throw new HttpError(details);
  }
  if (result.rateLimit !== undefined) store.recordRateLimit(settings.baseUrl.origin, endpoint.key, result.rateLimit);
  return { result, path, endpoint };
}

/** The client of the probes: the context's fetch and clock, the profile's retries and timeout. */
function probeClient(options: RatelimitOptions, settings: ApiSettings, ctx: Context): Client {
  const clientOptions: ClientOptions = {
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    fetch: ctx.fetch,
    clock: ctx.clock,
    random: ctx.random,
    headers: mergeHeaders([['User-Agent', `collections/${ctx.version}`]], Object.entries(options.headers ?? {})),
    secrets: ctx.secrets,
  };
  if (settings.defaults.retries !== undefined) clientOptions.retries = settings.defaults.retries;
  if (settings.defaults.timeoutMs !== undefined) clientOptions.timeoutMs = settings.defaults.timeoutMs;
  return (options.createClient ?? createClient)(clientOptions);
}

/** The `--json` row of an answer. */
function toRow({ result, path, endpoint }: ProbeAnswer, now: number): RatelimitRow {
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
}

/** The live table: endpoint, a status column when an answer was not 200, limit, remaining, reset, time left. */
function liveTable(answers: readonly ProbeAnswer[], rows: readonly RatelimitRow[], now: number, width: number): string {
  const showStatus = rows.some((r) => r.status !== 200);
  const table = newTable(['endpoint', ...(showStatus ? ['status'] : []), 'limit', 'remaining', 'reset', 'time left'], width);
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
  return table.toString();
}

/**
 * Shows the quota once the settings are resolved (what {@link runRatelimit} calls; tests give settings and a store).
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
export async function showRatelimit(options: RatelimitOptions, ctx: Context): Promise<number> {
  const ids: Ids = {};
  for (const { name } of ID_SPECS) if (options[name] !== undefined) ids[name] = options[name];
  const endpoints = selectProbeEndpoints(ids);
  // Validate every id (README, "Commands": an invalid id is exit 2) before opening or sending anything.
  const paths = endpoints.map((e) => buildPath(e, ids));

  if (options.cached) {
    const cachedOptions = { json: options.json, ...(options.settings.baseUrl ? { baseUrl: options.settings.baseUrl } : {}) };
    return runCachedRatelimit(cachedOptions, ctx, options.store ?? openConfigStore(ctx));
  }

  const settings = requireApiSettings(options.settings, stderrWarner(ctx.io));
  const store = options.store ?? openConfigStore(ctx);
  const client = probeClient(options, settings, ctx);
  const answers = await mapLimited(
    endpoints.map((_e, i) => i),
    Math.max(1, options.concurrency ?? 3),
    (i) => probeOne(client, settings, store, endpoints[i]!, paths[i]!),
  );

  const now = ctx.clock.now();
  const rows = answers.map((answer) => toRow(answer, now));
  if (options.json) ctx.io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else {
    await loadTableSupport();
    ctx.io.stdout.write(`${liveTable(answers, rows, now, tableWidth(ctx))}\n`);
  }
  return ExitCode.Ok;
}
