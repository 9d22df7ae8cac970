/**
 * The parts of an `ExportPlan`, each from the flags and settings alone (`--since` and `--state`,
 * docs/nightly-sync.md; a database, docs/databases.md); `planExport` puts them together.
 */
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../../context.js';
import { loadApiSettings, type ApiSettings, type SettingsFlags } from '../../config/settings.js';
import type { RateLimitSnapshot } from '../../http/client.js';
import { builtInDefault, exportFlag } from '../../config/flags.js';
import { endpointUrl, idsFromFlags, isPathEndpoint, type Endpoint, type Ids } from '../../endpoints.js';
import { resolveSource } from './collection-path.js';
import { UsageError, hint, option } from '../../errors.js';
import { isSecretHeaderName } from '../../http/redact.js';
import { mergeHeaders } from '../../http/request-headers.js';
import { formatFromPath } from '../../output/writer.js';
import type { OutputFormat } from '../../format-names.js';
import { parseFields } from '../../output/fields.js';
import { sidecarPaths } from '../../export/files/sidecar.js';
import type { Compression } from '../../export/files/destination.js';
import type { DeletionsPlan, ExportPlan, HttpPlan, OutputPlan, PagesPlan, ProgressPlan } from '../../export/run/plan.js';
import { daysMs, deleteEventsOf, deleteEventsUrl } from '../../export/state/deletions.js';
import { conflictsWithSince, formatFilterTime, parseSince, readState, sinceParameter, stateKey, storedWatermark } from '../../export/state/state.js';
import { databaseAddress, isPostgresUrl, type DatabaseAddress } from '../../export/destinations/address.js';
import type { DatabasePlan } from '../../export/destinations/database.js';
import { defaultTableName, parseTableName, tableText } from '../../export/destinations/table-name.js';
import type { ExportFlags } from '../../commands/flags.js';

export type ResolvedExportSettings = Pick<ApiSettings, 'apiKey' | 'baseUrl' | 'defaults'> & Partial<Pick<ApiSettings, 'headers' | 'budget'>>;

export interface LoadedExportSettings {
  resolved: ResolvedExportSettings;
  /** For `ratelimit --cached`; never throws. */
  recordRateLimit: (endpointKey: string, snapshot: RateLimitSnapshot) => void;
}

/**
 * Adds the key and credential-like stored headers to `ctx.secrets`.
 * @throws {UsageError} (exit 2) when the key or base URL is missing or invalid, or a stored key
 *   would be sent to another origin than its profile's
 */
export function loadExportSettings(flags: SettingsFlags, ctx: Context): LoadedExportSettings {
  const { settings, store } = loadApiSettings(flags, ctx);
  const origin = settings.baseUrl.origin;
  return {
    resolved: {
      apiKey: settings.apiKey,
      baseUrl: settings.baseUrl,
      defaults: settings.defaults,
      headers: settings.headers,
      ...(settings.budget === undefined ? {} : { budget: settings.budget }),
    },
    recordRateLimit: (endpointKey, snapshot) => {
      store.recordRateLimit(origin, endpointKey, snapshot);
    },
  };
}

/** When neither a flag nor the profile gives one: times in ms, `maxWaitMs` Infinity = no limit. */
export const EXPORT_DEFAULTS = {
  itemsPerPage: builtInDefault('itemsPerPage'),
  firstPage: builtInDefault('page'),
  concurrency: builtInDefault('concurrency'),
  retries: builtInDefault('retries'),
  timeoutMs: builtInDefault('timeout'),
  maxWaitMs: builtInDefault('maxWait'),
  maxBodyBytes: builtInDefault('maxBodySize'),
  format: exportFlag('format').defaultValue as OutputFormat,
} as const;

/** How the plan of one taxpayer of a run with many differs from a lone export's. */
export interface UnitOfMany {
  /** With `--resume`, only a taxpayer that has a checkpoint continues; the others start afresh. */
  readonly resume: boolean;
  /** To the run manifest (`--manifest FILE`) instead of a manifest beside the output. */
  readonly collectManifest: boolean;
}

export interface ExportTarget {
  readonly endpoint: Endpoint;
  readonly ids: Ids;
  /** Ids filled in, or the path given to `get`. */
  readonly path: string;
  /** `get`'s query (no `?`), sent first as typed; empty otherwise. */
  readonly query: string;
  readonly inc: IncrementalPlan;
  readonly cursor: boolean;
}

/**
 * An incremental export pages by cursor where the endpoint can, unless `--page` asks for offset
 * mode (docs/nightly-sync.md); `get` sends `--cursor` on any path.
 * @param storedSince the watermark of `--state`, epoch ms
 * @throws {UsageError} (exit 2) for unknown ids or an invalid path, an invalid incremental flag,
 *   and `--cursor`, `--total` or `--page` where they do not apply
 */
export function planTarget(command: string, flags: ExportFlags, cwd: string, storedSince: number | undefined): ExportTarget {
  const { endpoint, ids, path, query } = resolveSource(command, idsFromFlags(flags), flags.path, flags.sinceField);
  const queryPairs = [...new URLSearchParams(query)];
  const inc = planIncremental(endpoint, ids, flags, cwd, storedSince, queryPairs);
  const cursor = flags.cursor === true || (inc.incremental && endpoint.cursor && flags.page === undefined);
  if (cursor && !endpoint.cursor && !isPathEndpoint(endpoint))
    throw new UsageError(`--cursor is not supported by ${endpoint.path}; it pages by number only`);
  if (flags.total && !cursor) throw new UsageError('--total goes with --cursor (offset mode always reports the total)');
  if (cursor && flags.page !== undefined) throw new UsageError('--page is for offset mode; cursor mode starts at the first page');
  return { endpoint, ids, path, query, inc, cursor };
}

/** Undefined for stdout. */
export function outPathOf(flags: ExportFlags, cwd: string): string | undefined {
  return flags.out === undefined || flags.out === '-' ? undefined : resolvePath(cwd, flags.out);
}

/** `--format`, else the suffix of `--out`, else the profile's, else ndjson. */
export function formatOf(flags: ExportFlags, out: string | undefined, settings: ResolvedExportSettings): OutputFormat {
  return (flags.format as OutputFormat | undefined) ?? (out ? formatFromPath(out) : (settings.defaults.format ?? EXPORT_DEFAULTS.format));
}

/** @throws {UsageError} (exit 2) for an invalid `--fields` */
export function planOutput(
  flags: ExportFlags,
  endpoint: Endpoint,
  format: OutputFormat,
  out: string | undefined,
  compress?: Compression,
): OutputPlan {
  const fields = flags.fields === undefined ? undefined : parseFields(flags.fields);
  return {
    format,
    ...(compress ? { compress } : {}),
    formatter: { fields, tableFields: endpoint.tableFields, csvSafe: flags.csvSafe === true },
    files: out ? { target: out, ...sidecarPaths(out) } : undefined,
  };
}

/**
 * The default lowered to `--max-items` (every item of a page costs the server and the wire), but
 * not with `--page`, whose items depend on the page size. From flags only, so a `--resume` with
 * the same flags asks for the same pages.
 */
function pageSizeOf(flags: ExportFlags, settings: ResolvedExportSettings): number {
  if (flags.itemsPerPage !== undefined) return flags.itemsPerPage;
  const byDefault = settings.defaults.itemsPerPage ?? EXPORT_DEFAULTS.itemsPerPage;
  return flags.maxItems !== undefined && flags.page === undefined ? Math.min(flags.maxItems, byDefault) : byDefault;
}

function paginationHeaders(cursor: boolean, total: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  if (cursor) headers['X-Pagination-Style'] = 'cursor';
  if (cursor && total) headers['X-Pagination-Enable-Partial'] = '0';
  return headers;
}

/** `page` only when `--page` asks: the API's first page is its default, and a cursor-only endpoint refuses any `page`. */
export function planPages(target: ExportTarget, flags: ExportFlags, settings: ResolvedExportSettings): PagesPlan {
  const { cursor, inc } = target;
  const start = endpointUrl(settings.baseUrl, target.path);
  const added = new URLSearchParams();
  for (const [key, value] of flags.param ?? []) added.append(key, value);
  if (inc.filter) added.set(inc.filter[0], inc.filter[1]);
  added.set('itemsPerPage', String(pageSizeOf(flags, settings)));
  if (flags.page !== undefined) added.set('page', String(flags.page));
  // The query of a `get` path goes first, as typed (URLSearchParams would re-encode it).
  start.search = [target.query, added.toString()].filter((part) => part !== '').join('&');
  return {
    baseUrl: settings.baseUrl,
    start,
    headers: paginationHeaders(cursor, flags.total === true),
    cursorHeaders: paginationHeaders(true, flags.total === true),
    mode: cursor ? 'cursor' : 'offset',
    firstPage: flags.page,
    concurrency: cursor ? 1 : (flags.concurrency ?? settings.defaults.concurrency ?? EXPORT_DEFAULTS.concurrency),
    maxItems: flags.maxItems,
  };
}

/** Each limit: flag, else profile, else the built-in default. */
export function planHttp(flags: ExportFlags, settings: ResolvedExportSettings): HttpPlan {
  const headers = mergeHeaders(settings.headers ?? [], flags.header ?? []);
  return {
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    retries: flags.retries ?? settings.defaults.retries ?? EXPORT_DEFAULTS.retries,
    timeoutMs: flags.timeout ?? settings.defaults.timeoutMs ?? EXPORT_DEFAULTS.timeoutMs,
    maxWaitMs: flags.maxWait ?? settings.defaults.maxWaitMs ?? EXPORT_DEFAULTS.maxWaitMs,
    maxBodyBytes: flags.maxBodySize ?? EXPORT_DEFAULTS.maxBodyBytes,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(settings.budget === undefined ? {} : { budget: settings.budget }),
  };
}

/** Each export of a run with many is silent: the run reports one line per taxpayer. */
export function planProgress(flags: ExportFlags, many: UnitOfMany | undefined): ProgressPlan {
  if (many) return { quiet: true, spinner: false, verbose: flags.verbose === true, logFormat: 'text' };
  return {
    quiet: flags.quiet === true,
    spinner: flags.progress !== false,
    verbose: flags.verbose === true,
    logFormat: flags.logFormat === 'json' ? 'json' : 'text',
  };
}

/** The options that shape the output: `--resume` refuses a checkpoint of others. */
export function fingerprintOf(
  target: ExportTarget,
  flags: ExportFlags,
  pages: PagesPlan,
  output: OutputPlan,
  headers: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  const { inc } = target;
  // A credential's value is not kept (the checkpoint is no place for it, and a rotated token may resume).
  const shown = Object.entries(headers).map(([name, value]) => [name, isSecretHeaderName(name) ? '(credential)' : value]);
  return {
    origin: pages.baseUrl.origin,
    request: pages.start.pathname + pages.start.search,
    cursor: target.cursor,
    total: flags.total === true,
    format: output.format,
    fields: output.formatter.fields ?? null,
    csvSafe: output.formatter.csvSafe === true,
    maxItems: flags.maxItems ?? null,
    ...(inc.state ? { state: inc.state.key } : {}),
    ...databaseFingerprint(output.database),
    ...(output.compress ? { compress: output.compress } : {}),
    ...(shown.length > 0 ? { headers: Object.fromEntries(shown) } : {}),
  };
}

export interface IncrementalPlan {
  readonly incremental: boolean;
  /** e.g. `['updatedAt[after]', '2024-05-01T00:00:00+00:00']`; undefined = a full export. */
  readonly filter: readonly [string, string] | undefined;
  /** The path is absolute. */
  readonly state: { readonly path: string; readonly key: string } | undefined;
}

/**
 * An explicit `--since` wins: the file is then only written.
 * @returns epoch ms; undefined without `--state`, with `--since`, or when the file or entry is missing
 * @throws {UsageError} (exit 2) for a corrupt state file or an unknown command / id set
 */
export function readStoredSince(command: string, flags: ExportFlags, cwd: string): number | undefined {
  if (flags.state === undefined || flags.since !== undefined) return undefined;
  const { endpoint, ids } = resolveSource(command, idsFromFlags(flags), flags.path, flags.sinceField);
  if (endpoint.watermark === undefined) return undefined;
  const path = resolvePath(cwd, flags.state);
  return storedWatermark(readState(path), stateKey(endpoint, ids), path);
}

/**
 * @param storedSince epoch ms
 * @param query of `get`'s path
 * @throws {UsageError} (exit 2) for `--since`/`--state` on an endpoint without a documented date
 *   filter (line items, payments) or a path of `get` without `--since-field`, an invalid `--since`,
 *   a `--param` or query pair that sets the same filter, and `--since-field` without either
 */
function planIncremental(
  endpoint: Endpoint,
  ids: Ids,
  flags: ExportFlags,
  cwd: string,
  storedSince?: number,
  query: ReadonlyArray<readonly [string, string]> = [],
): IncrementalPlan {
  const incremental = flags.since !== undefined || flags.state !== undefined || flags.incremental === true;
  if (!incremental) {
    if (flags.sinceField !== undefined)
      throw new UsageError('--since-field goes with --since, --state or --incremental (it names the field they filter on)');
    return { incremental, filter: undefined, state: undefined };
  }
  const flag = flags.since !== undefined ? '--since' : flags.state !== undefined ? '--state' : '--incremental';
  const parameter = sinceParameter(endpoint, flag);
  const clash = (flags.param ?? []).find(([key]) => conflictsWithSince(endpoint, key));
  if (clash) throw new UsageError(`--param ${clash[0]} and ${flag} set the same filter; give one of them`);
  const inPath = query.find(([key]) => conflictsWithSince(endpoint, key));
  if (inPath) throw new UsageError(`the path's ${inPath[0]} and ${flag} set the same filter; give one of them`);
  const since = flags.since !== undefined ? parseSince(flags.since) : storedSince;
  return {
    incremental,
    filter: since === undefined ? undefined : [parameter, formatFilterTime(since)],
    state: flags.state === undefined ? undefined : { path: resolvePath(cwd, flags.state), key: stateKey(endpoint, ids) },
  };
}

/**
 * The path and the `--param`s as a query: the lock, the watermark and `--prune` belong to it, so a
 * filtered export never prunes or advances what an unfiltered one saw.
 */
export function sourceOf(path: string, params: ReadonlyArray<readonly [string, string]>): string {
  return params.length === 0 ? path : `${path}?${new URLSearchParams(params.map(([k, v]): [string, string] => [k, v])).toString()}`;
}

/** PostgreSQL or DuckDB: every taxpayer of a run is a source of one table. */
export function isDatabaseTable(out: string, cwd: string): boolean {
  const address = databaseAddress(out, cwd);
  return address !== undefined && address.kind !== 'parquet';
}

function refuse(flag: string, why: string): never {
  throw new UsageError(`${flag} ${why}`);
}

/**
 * @throws {UsageError} (exit 2): `--format`, `--compress`, `--manifest` or `--csv-safe` with a
 *   database or Parquet `--out`; `--fields`, `--state` with a database; `--table`, `--key`,
 *   `--incremental`, `--prune` without one; `--prune` with `--incremental`, `--since`,
 *   `--max-items` or `--page`
 */
export function planDestination(flags: ExportFlags, cwd: string): DatabaseAddress | undefined {
  const address = databaseAddress(flags.out, cwd);
  const table = address !== undefined && address.kind !== 'parquet';
  if (!table) {
    const needs = address === undefined ? 'needs a database --out (postgres://…, F.duckdb)' : 'is for a database table, not a Parquet file';
    if (flags.table !== undefined) refuse('--table', needs);
    if (flags.key !== undefined) refuse('--key', needs);
    if (flags.incremental === true) refuse('--incremental', `${needs}; incremental file exports use --state FILE`);
    if (flags.prune === true) refuse('--prune', needs);
  }
  if (address === undefined) return address;
  const kind = address.kind === 'parquet' ? 'a Parquet --out' : 'a database --out';
  if (flags.format !== undefined) refuse('--format', `goes with a file --out; ${kind} has its own format`);
  if (flags.compress !== undefined) refuse('--compress', `goes with a file --out, not ${kind}`);
  if (flags.manifest !== undefined) refuse('--manifest', `goes with a file --out, not ${kind}`);
  if (flags.csvSafe === true) refuse('--csv-safe', `is for CSV read by spreadsheets, not ${kind}`);
  if (!table) return address;
  if (flags.fields !== undefined) refuse('--fields', 'projects items, and a database stores each item as received; query its item column instead');
  if (flags.state !== undefined) refuse('--state', 'is the watermark file of file exports; a database keeps its own: use --incremental');
  if (flags.prune === true) {
    const partial = flags.incremental
      ? '--incremental'
      : flags.since !== undefined
        ? '--since'
        : flags.maxItems !== undefined
          ? '--max-items'
          : flags.page !== undefined
            ? '--page'
            : undefined;
    if (partial !== undefined)
      refuse('--prune', `needs a complete, full run: with ${partial} the run does not see every item, so it cannot tell which rows were deleted`);
  }
  return address;
}

/**
 * A full run without `--since` stores its watermark too (it saw everything, so the next
 * `--incremental` may start there); never under `--max-items`, nor where the API has no date filter.
 * @throws {UsageError} (exit 2) for a bad `--table` or `--key`
 */
export function planDatabase(
  address: Exclude<DatabaseAddress, { kind: 'parquet' }>,
  flags: ExportFlags,
  target: { readonly endpoint: Endpoint; readonly ids: Ids; readonly path: string },
): DatabasePlan {
  // From the path, so `get <path>` and the named commands name their tables alike (`/taxpayers/X/invoices/payments` → payments).
  const table = parseTableName(flags.table ?? defaultTableName(target.path));
  let key: string[] | undefined;
  if (flags.key !== undefined) {
    key = flags.key.split('.');
    if (key.some((s) => s === ''))
      throw new UsageError(`--key '${flags.key.slice(0, 100)}' has an empty path segment`, {
        hint: hint`e.g. ${option('key', 'uuid')} or ${option('key', 'timbre.uuid')}`,
      });
  }
  const incremental = flags.incremental === true;
  return {
    address,
    table,
    key,
    source: sourceOf(target.path, flags.param ?? []),
    taxpayer: target.ids.taxpayerId,
    mode: incremental ? 'incremental' : 'full',
    prune: flags.prune === true,
    storeWatermark: target.endpoint.watermark !== undefined && flags.maxItems === undefined && (incremental || flags.since === undefined),
  };
}

/**
 * An incremental export of a collection with delete events (invoices, entities) follows the
 * deletions since its watermark, into a database (`--incremental`) or beside a file (`--since`,
 * `--state`: `F.deleted.ndjson`); not under `--max-items`.
 */
export function planDeletions(target: ExportTarget, flags: ExportFlags, pages: PagesPlan, output: OutputPlan): DeletionsPlan | undefined {
  const since = target.inc.filter?.[1];
  const { database } = output;
  // Into a table with --incremental, or beside a file (`--since`, `--state`): stdout and Parquet have no place for them.
  const follows = database ? database.mode === 'incremental' : output.files !== undefined && output.parquet !== true;
  if (since === undefined || flags.maxItems !== undefined || !follows) return undefined;
  const events = deleteEventsOf(target.endpoint, target.path, target.ids);
  if (events === undefined) return undefined;
  const size = Number(pages.start.searchParams.get('itemsPerPage'));
  return { start: deleteEventsUrl(pages.baseUrl, events, since, size), type: events.type, key: database?.key };
}

/** A stored watermark older than the events' guarantee: the run does not trust the events since. */
export interface StaleWatermark {
  /** The flags of the run instead: a full run with `--prune`. */
  readonly flags: ExportFlags;
  /** The note that says so, once. */
  readonly note: string;
}

/**
 * Whether `--incremental` into a database, from the watermark `since` stored with the table, must be
 * a full refresh with `--prune` instead: the collection's deletions are followed through the
 * events, which the API keeps for `--events-retention` days (default 7), and the watermark is older.
 * @param since epoch ms; @param nowMs the local clock's
 */
export function staleWatermark(
  command: string,
  flags: ExportFlags,
  settings: ResolvedExportSettings,
  since: number | undefined,
  nowMs: number,
): StaleWatermark | undefined {
  if (since === undefined || flags.incremental !== true || flags.since !== undefined || flags.maxItems !== undefined) return undefined;
  const { endpoint, ids, path } = resolveSource(command, idsFromFlags(flags), flags.path, flags.sinceField);
  if (deleteEventsOf(endpoint, path, ids) === undefined) return undefined;
  const days = flags.eventsRetention ?? settings.defaults.eventsRetentionDays ?? builtInDefault('eventsRetention');
  if (nowMs - since <= daysMs(days)) return undefined;
  const age = Math.floor((nowMs - since) / daysMs(1));
  return {
    // Paged as the incremental run would be: by cursor where the endpoint can.
    flags: { ...flags, incremental: undefined, prune: true, ...(endpoint.cursor && flags.page === undefined ? { cursor: true } : {}) },
    note:
      `collections: the watermark of ${sourceOf(path, flags.param ?? [])} is ${age} days old, older than the ${days} days the API keeps its events; ` +
      'this run is a full refresh with --prune',
  };
}

function databaseFingerprint(database: DatabasePlan | undefined): Record<string, unknown> {
  if (database === undefined) return {};
  return { table: tableText(database.table), key: database.key ?? null, prune: database.prune };
}

/**
 * `--since` wins, as with `--state`; one connection, before any request.
 * @returns epoch ms by source; undefined when there is nothing to read
 * @throws {CollectionsError} (exit 7) when the database cannot be reached; {@link UsageError}
 *   (exit 2) when a stored watermark is not a time
 */
export async function storedDatabaseSince(plan: ExportPlan, flags: ExportFlags, ctx: Pick<Context, 'env'>): Promise<Map<string, number> | undefined> {
  const database = plan.output.database;
  if (database === undefined || database.mode !== 'incremental' || flags.since !== undefined) return undefined;
  const { readWatermarks } = await import('../../export/destinations/open-store.js');
  const stored = await readWatermarks(database, ctx.env);
  const where = `the watermark stored with ${tableText(database.table)}`;
  return new Map([...stored].map(([source, since]) => [source, parseSince(since, `${where} for ${source}`)]));
}

/** From its URL or `PGPASSWORD`: no output shows it. */
export function addDatabaseSecrets(plan: ExportPlan, ctx: Pick<Context, 'env' | 'secrets'>): void {
  const address = plan.output.database?.address;
  if (address?.kind !== 'postgres') return;
  ctx.secrets.add(address.password);
  ctx.secrets.add(ctx.env.PGPASSWORD);
}

/** The "resume with" hint is printed. */
export function withoutPassword(word: string): string {
  if (!isPostgresUrl(word)) return word;
  try {
    const url = new URL(word);
    if (url.password === '') return word;
    url.password = '';
    return url.href;
  } catch {
    return word;
  }
}
