/**
 * `collections ratelimit` (README, "Checking the quota"): one `itemsPerPage=1` request per endpoint
 * the ids allow, then its `X-RateLimit-*` headers. A 429 is an answer here, never waited on.
 */
import type { Context } from '../../context.js';
import { loadSettings, openLastSeenCache, requireApiSettings, stderrWarner } from '../../config/settings.js';
import type { ApiSettings, ResolvedSettings, SettingsFlags } from '../../config/settings.js';
import { buildPath, endpointUrl, ENDPOINTS, idsFromFlags } from '../../endpoints.js';
import type { Endpoint, IdFlagValues, Ids } from '../../endpoints.js';
import { ExitCode, HttpError } from '../../errors.js';
import { formatLocalTime, formatTimeLeft } from '../../io/format.js';
import { inertText, outputColumns } from '../../io/terminal-text.js';
import { createClient } from '../../http/client.js';
import { mergeHeaders } from '../../http/request-headers.js';
import type { Client, ProbeResult, RateLimitSnapshot } from '../../http/client.js';
import { defined } from '../../json/object.js';
import type { LastSeen, LastSeenCache } from '../../rate/index.js';
import { drawTable, loadTableSupport } from '../../output/table-draw.js';

export interface RatelimitCommandOptions extends SettingsFlags, IdFlagValues {
  /** `-H, --header`: sent with each probe after the profile's. */
  header?: Array<[string, string]>;
  json: boolean;
  cached: boolean;
}

/**
 * A 404 (unknown taxpayer or invoice) or other non-auth status shows in its row and still returns 0.
 * `cached` sends nothing and needs no key: the cache of the configured origin, else of all origins.
 * @throws {UsageError} (exit 2) for invalid settings, an empty or invalid id, or a missing key or base
 *   URL; {@link HttpError} (exit 3) when the key is rejected (401/403); whatever the client throws for
 *   network failures (exit 6); as {@link sharedBudget}
 */
export async function runRatelimit(ctx: Context, options: RatelimitCommandOptions): Promise<number> {
  const settings = loadSettings(options, ctx);
  if (options.budget !== undefined && !options.cached) return printQuotas(ctx, options.json, await sharedBudget(settings, ctx));
  const ids = idsFromFlags(options);
  const endpoints = selectProbeEndpoints(ids);
  // Validate every id (README, "Commands": an invalid id is exit 2) before opening or sending anything.
  const paths = endpoints.map((e) => buildPath(e, ids));
  const cache = await openLastSeenCache(ctx);
  if (options.cached) return printQuotas(ctx, options.json, cachedQuotas(cache, settings.baseUrl?.origin, ctx.clock.now()));

  const api = requireApiSettings(settings, stderrWarner(ctx.io));
  const client = probeClient(api, mergeHeaders(settings.headers, options.header ?? []), ctx);
  const answers = await mapLimited(endpoints, PROBES_IN_FLIGHT, (e, i) => probeOne(client, api, cache, e, paths[i]!));
  return printQuotas(ctx, options.json, liveQuotas(answers, ctx.clock.now()));
}

/** The quota of a row of `ratelimit --json`, `--cached --json` and `--budget --json`. */
interface QuotaFields {
  limit: number | null;
  remaining: number | null;
  /** `X-RateLimit-Reset` by the server's clock, ISO 8601 UTC. */
  reset: string | null;
  /** Rounded up, never negative, corrected for the local clock's offset from the server's `Date`. */
  resetInSeconds: number | null;
}

/** One row of `ratelimit --json`. */
export interface RatelimitRow extends QuotaFields {
  endpoint: string;
  /** Ids percent-encoded. */
  path: string;
  status: number;
  requestId?: string;
  /** The server's message for a non-2xx answer other than 429. */
  message?: string;
}

/** Those whose ids are all given (so `entities` and `events` always), in the endpoint table's order. */
export function selectProbeEndpoints(ids: Ids): Endpoint[] {
  return ENDPOINTS.filter((e) => e.ids.every((id) => ids[id] !== undefined));
}

const PROBES_IN_FLIGHT = 3;

/** At most `limit` in flight, results in input order; starts none after a failure, and settles the others before throwing it. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) {
      results[i] = await fn(items[i]!, i).catch((err: unknown) => {
        next = items.length;
        throw err;
      });
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results;
}

interface ProbeAnswer {
  result: ProbeResult;
  path: string;
  endpoint: Endpoint;
}

/** @throws {HttpError} for 401/403 (exit 3); whatever the client throws for network failures */
async function probeOne(client: Client, settings: ApiSettings, cache: LastSeenCache, endpoint: Endpoint, path: string): Promise<ProbeAnswer> {
  const url = endpointUrl(settings.baseUrl, path);
  url.search = '?itemsPerPage=1';
  const result = await client.probe(url);
  if (result.status === 401 || result.status === 403) {
    const { status, serverMessage, requestId } = result;
    throw new HttpError({ method: 'GET', path: `${url.pathname}${url.search}`, status, ...defined({ serverMessage, requestId }) });
  }
  if (result.rateLimit !== undefined) cache.record(settings.baseUrl.origin, endpoint.key, result.rateLimit);
  return { result, path, endpoint };
}

/** @param headers the profile's and `-H`'s, which may replace the `User-Agent` */
function probeClient(settings: ApiSettings, headers: Record<string, string>, ctx: Context): Client {
  return createClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    fetch: ctx.fetch,
    clock: ctx.clock,
    random: ctx.random,
    headers: mergeHeaders([['User-Agent', `collections/${ctx.version}`]], Object.entries(headers)),
    secrets: ctx.secrets,
    ...defined({ retries: settings.defaults.retries, timeoutMs: settings.defaults.timeoutMs }),
  });
}

type Quota = Partial<RateLimitSnapshot> | undefined;

/** The local-clock instant of the reset (corrected by the server's `Date`): what a person's watch shows. */
const resetOf = (rl: Quota): number | undefined => rl?.resetLocalAt ?? rl?.resetAt;

function quotaOf(rl: Quota, now: number): QuotaFields {
  const resetAt = resetOf(rl);
  return {
    limit: rl?.limit ?? null,
    remaining: rl?.remaining ?? null,
    reset: rl?.resetAt === undefined ? null : new Date(rl.resetAt).toISOString(),
    resetInSeconds: resetAt === undefined ? null : Math.max(0, Math.ceil((resetAt - now) / 1000)),
  };
}

const QUOTA_HEAD = ['limit', 'remaining', 'reset', 'time left'];

/** The {@link QUOTA_HEAD} cells; `since`: a reset already passed says so. */
function quotaCells(rl: Quota, now: number, since = true): string[] {
  const resetAt = resetOf(rl);
  const reset =
    resetAt === undefined ? ['-', '-'] : [formatLocalTime(resetAt, now), since && resetAt <= now ? 'reset since' : formatTimeLeft(resetAt - now)];
  return [String(rl?.limit ?? '-'), String(rl?.remaining ?? '-'), ...reset];
}

/** What one of the three views prints: `rows` for `--json`, else the table, or `empty` on stderr when there are no rows. */
interface Quotas {
  rows: readonly object[];
  head: string[];
  cells: string[][];
  empty?: string;
}

/** Every cell is made inert: origins come from the config file and values from response headers. */
async function printQuotas(ctx: Context, json: boolean, { rows, head, cells, empty }: Quotas): Promise<number> {
  if (json) ctx.io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else if (rows.length === 0 && empty !== undefined) ctx.io.stderr.write(empty);
  else {
    await loadTableSupport();
    const columns = outputColumns(ctx.io, ctx.env) ?? Number.POSITIVE_INFINITY;
    const table = drawTable(
      head.map(inertText),
      cells.map((row) => row.map(inertText)),
      columns,
    );
    ctx.io.stdout.write(`${table}\n`);
  }
  return ExitCode.Ok;
}

const STATUS_TEXT: Readonly<Record<number, string>> = { 429: '429 limited', 404: '404 not found' };

/** A status column only when an answer was not 200. */
function liveQuotas(answers: readonly ProbeAnswer[], now: number): Quotas {
  const rows: RatelimitRow[] = answers.map(({ result, path, endpoint }) => {
    const { status, requestId } = result;
    const message = status !== 429 && (status < 200 || status > 299) ? result.serverMessage : undefined;
    return { endpoint: endpoint.key, path, status, ...quotaOf(result.rateLimit, now), ...defined({ requestId, message }) };
  });
  const showStatus = answers.some((a) => a.result.status !== 200);
  const cells = answers.map(({ result, endpoint }) => [
    endpoint.key,
    ...(showStatus ? [STATUS_TEXT[result.status] ?? String(result.status)] : []),
    ...quotaCells(result.rateLimit, now, false),
  ]);
  return { rows, head: ['endpoint', ...(showStatus ? ['status'] : []), ...QUOTA_HEAD], cells };
}

/** One row of `ratelimit --cached --json`; `path` is the endpoint's template, or the path `get` exported. */
type CachedRatelimitRow = Omit<RatelimitRow, 'status' | 'requestId' | 'message'> & {
  origin: string;
  /** ISO 8601 UTC. */
  observedAt: string;
  ageSeconds: number;
};

/** @param origin only its entries when known, else every origin's */
function cachedQuotas(cache: LastSeenCache, origin: string | undefined, now: number): Quotas {
  const order = (e: LastSeen): number => {
    const i = ENDPOINTS.findIndex((row) => row.key === e.endpoint);
    return i < 0 ? ENDPOINTS.length : i;
  };
  const entries = cache.list(origin).sort((a, b) => a.origin.localeCompare(b.origin) || order(a) - order(b) || a.endpoint.localeCompare(b.endpoint));

  const rows: CachedRatelimitRow[] = entries.map((e) => ({
    origin: e.origin,
    endpoint: e.endpoint,
    // The key of a path exported by `get` is the path itself.
    path: ENDPOINTS.find((row) => row.key === e.endpoint)?.path ?? (e.endpoint.startsWith('/') ? e.endpoint : ''),
    ...quotaOf(e, now),
    observedAt: new Date(e.observedAt).toISOString(),
    ageSeconds: Math.max(0, Math.floor((now - e.observedAt) / 1000)),
  }));
  const showOrigin = new Set(rows.map((r) => r.origin)).size > 1 || origin === undefined;
  const cells = entries.map((e) => [
    ...(showOrigin ? [e.origin] : []),
    e.endpoint,
    ...quotaCells(e, now),
    `${formatTimeLeft(now - e.observedAt)} ago`,
  ]);
  return {
    rows,
    head: [...(showOrigin ? ['origin'] : []), 'endpoint', ...QUOTA_HEAD, 'seen'],
    cells,
    empty: `No rate-limit headers seen yet${origin ? ` for ${inertText(origin)}` : ''}; \`collections ratelimit\` checks them (one request per endpoint).\n`,
  };
}

/** One row of `ratelimit --budget --json`: a window of the shared budget. */
export interface SharedBudgetRow extends QuotaFields {
  /** The route template, or a path once the API was seen to count per path. */
  endpoint: string;
  /** Requests counted in the window by every host, sent or about to be. */
  reserved: number;
  /** Requests each host holds in flight (unexpired), by host name and pid; never the key. */
  holders: Array<{ host: string; pid: number; requests: number }>;
}

/**
 * `ratelimit --budget URL`: the windows the database holds for this origin and key; sends nothing to the API.
 * @throws {UsageError} (exit 2) without a key or base URL; {@link CollectionsError} (exit 7) when
 *   the database cannot be reached (named without its password)
 */
async function sharedBudget(settings: ResolvedSettings, ctx: Context): Promise<Quotas> {
  const api = requireApiSettings(settings, stderrWarner(ctx.io));
  const [{ openBudgetSession }, { readSharedBudget }] = await Promise.all([
    import('../../export/destinations/budget-session.js'),
    import('../../rate/index.js'),
  ]);
  const session = await openBudgetSession(api.budget!, ctx.env);
  const now = ctx.clock.now();
  const windows = await readSharedBudget(session, api.baseUrl.origin, api.apiKey, now).finally(() => session.end().catch(() => undefined));
  const rows: SharedBudgetRow[] = windows
    .sort((a, b) => a.scope.localeCompare(b.scope))
    .map((w) => ({
      endpoint: w.scope,
      ...quotaOf(w, now),
      reserved: w.reserved,
      holders: Object.entries(w.holders).map(([holder, requests]) => {
        const cut = holder.lastIndexOf(' ');
        return { host: holder.slice(0, cut), pid: Number(holder.slice(cut + 1)), requests };
      }),
    }));
  const cells = rows.map((row, i) => [
    row.endpoint,
    ...quotaCells(windows[i], now),
    String(row.reserved),
    row.holders.length === 0 ? '-' : row.holders.map((h) => `${h.host} (pid ${h.pid}): ${h.requests}`).join(', '),
  ]);
  return {
    rows,
    head: ['endpoint', ...QUOTA_HEAD, 'reserved', 'in flight by host'],
    cells,
    empty: `No shared rate budget recorded yet for ${inertText(api.baseUrl.origin)} and this key.\n`,
  };
}
