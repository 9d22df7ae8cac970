/**
 * The parts of an `ExportPlan`, each from the options and settings alone (`--since` and `--state`,
 * docs/nightly-sync.md; a database, docs/databases.md); `planExport` puts them together.
 */
import { resolve as resolvePath } from 'node:path';
import { builtInDefault, exportFlag, flagNamer, type ExportDefaults, type FlagAttribute, type OptionNamer } from '../../config/flags.js';
import { endpointUrl, isPathEndpoint, type Endpoint, type Ids } from '../../endpoints.js';
import type { ExportSource } from './collection-path.js';
import { UsageError, hint, option } from '../../errors.js';
import { isSecretHeaderName } from '../../http/redact.js';
import { mergeHeaders } from '../../http/request-headers.js';
import { formatFromPath } from '../../output/writer.js';
import type { OutputFormat } from '../../format-names.js';
import { parseFields } from '../../output/fields.js';
import { sidecarPaths } from '../../export/files/sidecar.js';
import type { Compression } from '../../export/files/destination.js';
import type { DeletionsPlan, HttpPlan, OutputPlan, PagesPlan, ProgressPlan } from '../../export/run/plan.js';
import { daysMs, deleteEventsOf, deleteEventsUrl } from '../../export/run/deletions.js';
import { conflictsWithSince, formatFilterTime, parseSince, readState, sinceParameter, stateKey, storedWatermark } from '../../export/state/state.js';
import { databaseAddress, type DatabaseAddress } from '../../export/destinations/address.js';
import type { DatabasePlan } from '../../export/destinations/database.js';
import { defaultTableName, parseTableName, tableText } from '../../export/destinations/table-name.js';
import type { ExportOptions } from './options.js';

/** The connection and the profile's defaults (none in the library): what options do not give. */
export interface ResolvedExportSettings {
  readonly apiKey: string;
  readonly baseUrl: URL;
  readonly defaults: ExportDefaults;
  /** Stored headers, overridden by {@link ExportOptions.headers} of the same name. */
  readonly headers?: ReadonlyArray<readonly [string, string]>;
  /** The PostgreSQL URL of a shared rate budget. */
  readonly budget?: string;
}

/** When neither a flag nor the profile gives one: times in ms, `maxWaitMs` Infinity = no limit. */
export const EXPORT_DEFAULTS = {
  itemsPerPage: builtInDefault('itemsPerPage'),
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

export interface ExportTarget extends ExportSource {
  readonly inc: IncrementalPlan;
  readonly cursor: boolean;
}

/**
 * An incremental export pages by cursor where the endpoint can, unless `--page` asks for offset
 * mode (docs/nightly-sync.md); `get` sends `--cursor` on any path.
 * @param storedSince the watermark of `--state`, epoch ms
 * @throws {UsageError} (exit 2) for an invalid incremental flag, and `--cursor`, `--total` or
 *   `--page` where they do not apply
 */
export function planTarget(
  source: ExportSource,
  options: ExportOptions,
  cwd: string,
  storedSince: number | undefined,
  name: OptionNamer = flagNamer,
): ExportTarget {
  const { endpoint } = source;
  const inc = planIncremental(source, options, cwd, storedSince, name);
  const cursor = options.cursor === true || (inc.incremental && endpoint.cursor && options.page === undefined);
  if (cursor && !endpoint.cursor && !isPathEndpoint(endpoint))
    throw new UsageError(`${name('cursor')} is not supported by ${endpoint.path}; it pages by number only`);
  if (options.total && !cursor) throw new UsageError(`${name('total')} goes with ${name('cursor')} (offset mode always reports the total)`);
  if (cursor && options.page !== undefined) throw new UsageError(`${name('page')} is for offset mode; cursor mode starts at the first page`);
  return { ...source, inc, cursor };
}

/** `--format`, else the suffix of `--out`, else the profile's, else ndjson. */
export function formatOf(options: ExportOptions, out: string | undefined, settings: ResolvedExportSettings): OutputFormat {
  return (options.format as OutputFormat | undefined) ?? (out ? formatFromPath(out) : (settings.defaults.format ?? EXPORT_DEFAULTS.format));
}

/** @throws {UsageError} (exit 2) for an invalid `--fields` */
export function planOutput(
  options: ExportOptions,
  endpoint: Endpoint,
  format: OutputFormat,
  out: string | undefined,
  compress?: Compression,
): OutputPlan {
  const fields = options.fields === undefined ? undefined : parseFields(options.fields);
  return {
    format,
    ...(compress ? { compress } : {}),
    formatter: { fields, tableFields: endpoint.tableFields, csvSafe: options.csvSafe === true },
    files: out ? { target: out, ...sidecarPaths(out) } : undefined,
  };
}

/**
 * The default lowered to `--max-items` (every item of a page costs the server and the wire), but
 * not with `--page`, whose items depend on the page size. From options only, so a `--resume` with
 * the same options asks for the same pages.
 */
function pageSizeOf(options: ExportOptions, settings: ResolvedExportSettings): number {
  if (options.itemsPerPage !== undefined) return options.itemsPerPage;
  const byDefault = settings.defaults.itemsPerPage ?? EXPORT_DEFAULTS.itemsPerPage;
  return options.maxItems !== undefined && options.page === undefined ? Math.min(options.maxItems, byDefault) : byDefault;
}

function paginationHeaders(cursor: boolean, total: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  if (cursor) headers['X-Pagination-Style'] = 'cursor';
  if (cursor && total) headers['X-Pagination-Enable-Partial'] = '0';
  return headers;
}

/** `page` only when `--page` asks: the API's first page is its default, and a cursor-only endpoint refuses any `page`. */
export function planPages(target: ExportTarget, options: ExportOptions, settings: ResolvedExportSettings): PagesPlan {
  const { cursor, inc } = target;
  const start = endpointUrl(settings.baseUrl, target.path);
  const added = new URLSearchParams();
  for (const [key, value] of options.params ?? []) added.append(key, value);
  if (inc.filter) added.set(inc.filter[0], inc.filter[1]);
  added.set('itemsPerPage', String(pageSizeOf(options, settings)));
  if (options.page !== undefined) added.set('page', String(options.page));
  // The query of a `get` path goes first, as typed (URLSearchParams would re-encode it).
  start.search = [target.query, added.toString()].filter((part) => part !== '').join('&');
  return {
    baseUrl: settings.baseUrl,
    start,
    headers: paginationHeaders(cursor, options.total === true),
    cursorHeaders: paginationHeaders(true, options.total === true),
    mode: cursor ? 'cursor' : 'offset',
    firstPage: options.page,
    concurrency: cursor ? 1 : (options.concurrency ?? settings.defaults.concurrency ?? EXPORT_DEFAULTS.concurrency),
    maxItems: options.maxItems,
  };
}

/** Each limit: flag, else profile, else the built-in default. */
export function planHttp(options: ExportOptions, settings: ResolvedExportSettings): HttpPlan {
  const headers = mergeHeaders(settings.headers ?? [], options.headers ?? []);
  return {
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    retries: options.retries ?? settings.defaults.retries ?? EXPORT_DEFAULTS.retries,
    timeoutMs: options.timeoutMs ?? settings.defaults.timeoutMs ?? EXPORT_DEFAULTS.timeoutMs,
    maxWaitMs: options.maxWaitMs ?? settings.defaults.maxWaitMs ?? EXPORT_DEFAULTS.maxWaitMs,
    maxBodyBytes: options.maxBodyBytes ?? EXPORT_DEFAULTS.maxBodyBytes,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    ...(settings.budget === undefined ? {} : { budget: settings.budget }),
  };
}

/** Each export of a run with many is silent: the run reports one line per taxpayer. */
export function planProgress(options: ExportOptions, many: UnitOfMany | undefined): ProgressPlan {
  if (many) return { quiet: true, spinner: false, verbose: options.verbose === true, logFormat: 'text' };
  return {
    quiet: options.quiet === true,
    spinner: options.progress !== false,
    verbose: options.verbose === true,
    logFormat: options.logFormat === 'json' ? 'json' : 'text',
  };
}

/** The options that shape the output: `--resume` refuses a checkpoint of others. */
export function fingerprintOf(
  target: ExportTarget,
  options: ExportOptions,
  pages: PagesPlan,
  output: OutputPlan,
  headers: Readonly<Record<string, string>> = {},
): Record<string, unknown> {
  const { inc } = target;
  const { database } = output;
  // A credential's value is not kept (the checkpoint is no place for it, and a rotated token may resume).
  const shown = Object.entries(headers).map(([name, value]) => [name, isSecretHeaderName(name) ? '(credential)' : value]);
  return {
    origin: pages.baseUrl.origin,
    request: pages.start.pathname + pages.start.search,
    cursor: target.cursor,
    total: options.total === true,
    format: output.format,
    fields: output.formatter.fields ?? null,
    csvSafe: output.formatter.csvSafe === true,
    maxItems: options.maxItems ?? null,
    ...(inc.state ? { state: inc.state.key } : {}),
    ...(database ? { table: tableText(database.table), key: database.key ?? null, prune: database.prune } : {}),
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
 * @throws {UsageError} (exit 2) for a corrupt state file
 */
export function readStoredSince({ endpoint, ids }: ExportSource, options: ExportOptions, cwd: string): number | undefined {
  if (options.state === undefined || options.since !== undefined) return undefined;
  if (endpoint.watermark === undefined) return undefined;
  const path = resolvePath(cwd, options.state);
  return storedWatermark(readState(path), stateKey(endpoint, ids), path);
}

/**
 * @throws {UsageError} (exit 2) for `--since`/`--state` on an endpoint without a documented date
 *   filter (line items, payments) or a path of `get` without `--since-field`, an invalid `--since`,
 *   a `--param` or query pair that sets the same filter, and `--since-field` without either
 */
function planIncremental(
  { endpoint, ids, query }: ExportSource,
  options: ExportOptions,
  cwd: string,
  storedSince: number | undefined,
  name: OptionNamer,
): IncrementalPlan {
  const incremental = options.since !== undefined || options.state !== undefined || options.incremental === true;
  if (options.lookbackMs !== undefined && (!incremental || options.since !== undefined))
    throw new UsageError(`${name('lookback')} goes with ${name('state')} or ${name('incremental')} (it moves their stored watermark back)`);
  if (!incremental) {
    if (options.sinceField !== undefined)
      throw new UsageError(
        `${name('sinceField')} goes with ${name('since')}, ${name('state')} or ${name('incremental')} (it names the field they filter on)`,
      );
    return { incremental, filter: undefined, state: undefined };
  }
  const flag = name(options.since !== undefined ? 'since' : options.state !== undefined ? 'state' : 'incremental');
  const parameter = sinceParameter(endpoint, flag);
  const clash = (options.params ?? []).find(([key]) => conflictsWithSince(endpoint, key));
  if (clash) throw new UsageError(`${name('param')} ${clash[0]} and ${flag} set the same filter; give one of them`);
  const inPath = [...new URLSearchParams(query).keys()].find((key) => conflictsWithSince(endpoint, key));
  if (inPath !== undefined) throw new UsageError(`the path's ${inPath} and ${flag} set the same filter; give one of them`);
  const since =
    options.since !== undefined ? parseSince(options.since) : storedSince === undefined ? undefined : storedSince - (options.lookbackMs ?? 0);
  return {
    incremental,
    filter: since === undefined ? undefined : [parameter, formatFilterTime(since)],
    state: options.state === undefined ? undefined : { path: resolvePath(cwd, options.state), key: stateKey(endpoint, ids) },
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

/**
 * @throws {UsageError} (exit 2): `--format`, `--compress`, `--manifest` or `--csv-safe` with a
 *   database or Parquet `--out`; `--fields`, `--state` with a database; `--table`, `--key`,
 *   `--incremental`, `--prune` without one; `--prune` with `--incremental`, `--since`,
 *   `--max-items` or `--page`
 */
export function planDestination(options: ExportOptions, cwd: string, name: OptionNamer = flagNamer): DatabaseAddress | undefined {
  const address = databaseAddress(options.out, cwd);
  const table = address !== undefined && address.kind !== 'parquet';
  const refuse = (attribute: FlagAttribute, why: string): never => {
    throw new UsageError(`${name(attribute)} ${why}`);
  };
  const out = name('out');
  if (!table) {
    const needs = address === undefined ? `needs a database ${out} (postgres://…, F.duckdb)` : 'is for a database table, not a Parquet file';
    if (options.table !== undefined) refuse('table', needs);
    if (options.key !== undefined) refuse('key', needs);
    if (options.incremental === true) refuse('incremental', `${needs}; incremental file exports use ${name('state', 'FILE')}`);
    if (options.prune === true) refuse('prune', needs);
  }
  if (address === undefined) return address;
  const kind = address.kind === 'parquet' ? `a Parquet ${out}` : `a database ${out}`;
  if (options.format !== undefined) refuse('format', `goes with a file ${out}; ${kind} has its own format`);
  if (options.compress !== undefined) refuse('compress', `goes with a file ${out}, not ${kind}`);
  if (options.manifest !== undefined) refuse('manifest', `goes with a file ${out}, not ${kind}`);
  if (options.csvSafe === true) refuse('csvSafe', `is for CSV read by spreadsheets, not ${kind}`);
  if (!table) return address;
  if (options.fields !== undefined) refuse('fields', 'projects items, and a database stores each item as received; query its item column instead');
  if (options.state !== undefined) refuse('state', `is the watermark file of file exports; a database keeps its own: use ${name('incremental')}`);
  if (options.prune === true) {
    const partial = (['incremental', 'since', 'maxItems', 'page'] as const).find(
      (attribute) => options[attribute] !== undefined && options[attribute] !== false,
    );
    if (partial !== undefined)
      refuse('prune', `needs a complete, full run: with ${name(partial)} the run does not see every item, so it cannot tell which rows were deleted`);
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
  options: ExportOptions,
  target: { readonly endpoint: Endpoint; readonly ids: Ids; readonly path: string },
): DatabasePlan {
  // From the path, so `get <path>` and the named commands name their tables alike (`/taxpayers/X/invoices/payments` → payments).
  const table = parseTableName(options.table ?? defaultTableName(target.path));
  let key: string[] | undefined;
  if (options.key !== undefined) {
    key = options.key.split('.');
    if (key.some((s) => s === ''))
      throw new UsageError(`--key '${options.key.slice(0, 100)}' has an empty path segment`, {
        hint: hint`e.g. ${option('key', 'uuid')} or ${option('key', 'timbre.uuid')}`,
      });
  }
  const incremental = options.incremental === true;
  return {
    address,
    table,
    key,
    source: sourceOf(target.path, options.params ?? []),
    taxpayer: target.ids.taxpayerId,
    mode: incremental ? 'incremental' : 'full',
    prune: options.prune === true,
    storeWatermark: target.endpoint.watermark !== undefined && options.maxItems === undefined && (incremental || options.since === undefined),
  };
}

/**
 * An incremental export of a collection with delete events (invoices, entities) follows the
 * deletions since its watermark, into a database (`--incremental`) or beside a file (`--since`,
 * `--state`: `F.deleted.ndjson`); not under `--max-items`.
 */
export function planDeletions(target: ExportTarget, options: ExportOptions, pages: PagesPlan, output: OutputPlan): DeletionsPlan | undefined {
  const since = target.inc.filter?.[1];
  const { database } = output;
  // Into a table with --incremental, or beside a file (`--since`, `--state`): stdout and Parquet have no place for them.
  const follows = database ? database.mode === 'incremental' : output.files !== undefined && output.parquet !== true;
  if (since === undefined || options.maxItems !== undefined || !follows) return undefined;
  const events = deleteEventsOf(target.endpoint, target.path, target.ids);
  if (events === undefined) return undefined;
  const size = Number(pages.start.searchParams.get('itemsPerPage'));
  return { start: deleteEventsUrl(pages.baseUrl, events, since, size), type: events.type, key: database?.key };
}

/** A watermark stored with a database table, and the local clock when the run is planned; epoch ms. */
export interface StoredSince {
  readonly since: number;
  readonly nowMs: number;
}

/** A stored watermark older than the events' guarantee: the run does not trust the events since. */
export interface StaleWatermark {
  /** The options of the run instead: a full run with `--prune`. */
  readonly options: ExportOptions;
  /** The note that says so, once. */
  readonly note: string;
}

/**
 * Whether `--incremental` into a database, from the watermark stored with the table, must be a full
 * refresh with `--prune` instead: the collection's deletions are followed through the events, which
 * the API keeps for `--events-retention` days (default 7), and the watermark is older.
 */
export function staleWatermark(
  { endpoint, ids, path }: ExportSource,
  options: ExportOptions,
  settings: ResolvedExportSettings,
  { since, nowMs }: StoredSince,
): StaleWatermark | undefined {
  if (options.incremental !== true || options.since !== undefined || options.maxItems !== undefined) return undefined;
  if (deleteEventsOf(endpoint, path, ids) === undefined) return undefined;
  const days = options.eventsRetentionDays ?? settings.defaults.eventsRetentionDays ?? builtInDefault('eventsRetention');
  if (nowMs - since <= daysMs(days)) return undefined;
  const age = Math.floor((nowMs - since) / daysMs(1));
  return {
    // Paged as the incremental run would be: by cursor where the endpoint can.
    options: { ...options, incremental: undefined, prune: true, ...(endpoint.cursor && options.page === undefined ? { cursor: true } : {}) },
    note:
      `collections: the watermark of ${sourceOf(path, options.params ?? [])} is ${age} days old, older than the ${days} days the API keeps its events; ` +
      'this run is a full refresh with --prune',
  };
}
