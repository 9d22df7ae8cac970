/**
 * The parts of an export plan (export/run/plan.ts), each from the flags and settings alone:
 * endpoint and paging mode, the first request's URL, the pages, the client's limits, progress,
 * output and the checkpoint's fingerprint. commands/export.ts `planExport` puts them together in
 * one plan, for one export or for each taxpayer of a run with many.
 */
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../../context.js';
import { builtInDefault } from '../../config/flag-readers.js';
import { loadApiSettings, type ExportDefaults, type SettingsFlags } from '../../config/settings.js';
import type { RateLimitSnapshot } from '../../http/client.js';
import { exportFlag } from '../../config/flags.js';
import { endpointUrl, idsFromFlags, type Endpoint, type Ids } from '../../endpoints.js';
import { isPathEndpoint } from '../../path-family.js';
import { resolveSource } from './collection-path.js';
import { UsageError } from '../../errors.js';
import { isSecretHeaderName } from '../../http/redact.js';
import { mergeHeaders } from '../../http/request-headers.js';
import { formatFromPath } from '../../output/writer.js';
import type { OutputFormat } from '../../format-names.js';
import { parseFields } from '../../output/fields.js';
import { sidecarPaths } from '../../export/files/sidecar.js';
import type { Compression } from '../../export/files/gzip-destination.js';
import type { HttpPlan, OutputPlan, PagesPlan, ProgressPlan } from '../../export/run/plan.js';
import { planIncremental, type IncrementalPlan } from './export-incremental.js';
import { databaseFingerprint } from './export-database.js';
import type { ExportFlags } from '../flags.js';

/** Settings that come from flags, environment or profile (see config/settings.ts). */
export interface ResolvedExportSettings {
  apiKey: string;
  baseUrl: URL;
  /** Profile defaults for export flags not given on the command line. */
  defaults: ExportDefaults;
  /** Request headers stored in the profile, in order (`--header` adds to them); none when absent. */
  headers?: ReadonlyArray<readonly [string, string]>;
}

/** Resolved settings plus a recorder of the rate-limit headers of each page. */
export interface LoadedExportSettings {
  resolved: ResolvedExportSettings;
  /** Records a rate-limit snapshot under `endpointKey` for `ratelimit --cached` (never throws). */
  recordRateLimit: (endpointKey: string, snapshot: RateLimitSnapshot) => void;
}

/**
 * Loads the settings of an export, adding the key and the values of credential-like stored headers
 * to `ctx.secrets`; warns on stderr before anything is sent when the base URL is plain `http://`
 * to a host other than loopback.
 * @throws {UsageError} (exit 2) when the key or base URL is missing or invalid, or a stored key
 *   would be sent to another origin than its profile's
 */
export function loadExportSettings(flags: SettingsFlags, ctx: Context): LoadedExportSettings {
  const { settings, store } = loadApiSettings(flags, ctx);
  ctx.secrets.add(settings.apiKey);
  for (const [name, value] of settings.headers) ctx.secrets.addHeader(name, value);
  const origin = settings.baseUrl.origin;
  return {
    resolved: { apiKey: settings.apiKey, baseUrl: settings.baseUrl, defaults: settings.defaults, headers: settings.headers },
    recordRateLimit: (endpointKey, snapshot) => {
      store.recordRateLimit(origin, endpointKey, snapshot);
    },
  };
}

/**
 * Export defaults when neither a flag nor the profile gives one, from the flag table
 * (config/flags.ts; README, "Export options"): times in milliseconds, `maxWaitMs` Infinity = no limit.
 */
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

/** How the plan of one taxpayer of a run with many differs from a lone export's (commands/batch.ts). */
export interface UnitOfMany {
  /** Whether to continue a checkpoint: with `--resume`, only a taxpayer that has one does; the others start afresh. */
  readonly resume: boolean;
  /** Whether the finished output goes to the run manifest (`--manifest FILE`) instead of a manifest beside it. */
  readonly collectManifest: boolean;
}

/** What an export asks for: the endpoint, its ids and path, the incremental part and the paging mode. */
export interface ExportTarget {
  readonly endpoint: Endpoint;
  readonly ids: Ids;
  /** The endpoint path with the ids filled in (endpoints.ts `buildPath`), or the path given to `get`. */
  readonly path: string;
  /** `get`'s query (no `?`), sent first as typed; empty otherwise. */
  readonly query: string;
  readonly inc: IncrementalPlan;
  /** Cursor mode (`--cursor`, or an incremental export on an endpoint that has it), else offset mode. */
  readonly cursor: boolean;
}

/**
 * Resolves the endpoint of `command` and its ids (or, for `get`, the endpoint of its path), and the
 * paging mode. An incremental export (`--since`, `--state`) pages by cursor where the endpoint
 * can, unless `--page` asks for offset mode (docs/nightly-sync.md, "Nightly sync"); `get` sends
 * `--cursor` on any path.
 * @param storedSince the watermark of `--state`, epoch ms (commands/export-incremental.ts `readStoredSince`)
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

/** `--out` resolved against `cwd`; undefined for stdout (no `--out`, or `-`). */
export function outPathOf(flags: ExportFlags, cwd: string): string | undefined {
  return flags.out === undefined || flags.out === '-' ? undefined : resolvePath(cwd, flags.out);
}

/** The output format: `--format`, else the suffix of `--out`, else the profile's, else ndjson. */
export function formatOf(flags: ExportFlags, out: string | undefined, settings: ResolvedExportSettings): OutputFormat {
  return (flags.format as OutputFormat | undefined) ?? (out ? formatFromPath(out) : (settings.defaults.format ?? EXPORT_DEFAULTS.format));
}

/**
 * What is written and where.
 * @throws {UsageError} (exit 2) for an invalid `--fields`
 */
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
 * Items per page (README, `--max-items`): `--items-per-page` as given; else the default (the
 * profile's, else 1000), lowered to `--max-items` when that is smaller, so `--max-items 2` asks
 * for 2 items and not 1000 (every item of a page costs the server and the wire). Not with `--page`,
 * whose meaning (which items the page holds) depends on the page size. Derived from flags only, so
 * a `--resume` with the same flags asks for the same pages (the checkpoint's fingerprint holds them).
 */
function pageSizeOf(flags: ExportFlags, settings: ResolvedExportSettings): number {
  if (flags.itemsPerPage !== undefined) return flags.itemsPerPage;
  const byDefault = settings.defaults.itemsPerPage ?? EXPORT_DEFAULTS.itemsPerPage;
  return flags.maxItems !== undefined && flags.page === undefined ? Math.min(flags.maxItems, byDefault) : byDefault;
}

/** The pagination headers of the API: `X-Pagination-Style: cursor`, and `X-Pagination-Enable-Partial: 0` for `--total`. */
function paginationHeaders(cursor: boolean, total: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  if (cursor) headers['X-Pagination-Style'] = 'cursor';
  if (cursor && total) headers['X-Pagination-Enable-Partial'] = '0';
  return headers;
}

/**
 * The pages to ask for: the first request's URL (the endpoint under the base URL's path, the query
 * of a `get` path, the `--param`s in order, the incremental filter, `itemsPerPage`, and `page` only
 * when `--page` asks: the API's first page is its default, and a cursor-only endpoint refuses any
 * `page`), the pagination headers, the mode and the pages in flight.
 */
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

/** The profile's headers, then `--header`s. */
function userHeaders(flags: Pick<ExportFlags, 'header'>, settings: Pick<ResolvedExportSettings, 'headers'>): Record<string, string> {
  return mergeHeaders(settings.headers ?? [], flags.header ?? []);
}

/** The client's limits (flag, else profile, else the built-in default) and the user's headers. */
export function planHttp(flags: ExportFlags, settings: ResolvedExportSettings): HttpPlan {
  const headers = userHeaders(flags, settings);
  return {
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    retries: flags.retries ?? settings.defaults.retries ?? EXPORT_DEFAULTS.retries,
    timeoutMs: flags.timeout ?? settings.defaults.timeoutMs ?? EXPORT_DEFAULTS.timeoutMs,
    maxWaitMs: flags.maxWait ?? settings.defaults.maxWaitMs ?? EXPORT_DEFAULTS.maxWaitMs,
    maxBodyBytes: flags.maxBodySize ?? EXPORT_DEFAULTS.maxBodyBytes,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  };
}

/** Progress on stderr; each export of a run with many is silent (the run reports one line per taxpayer, commands/batch-report.ts). */
export function planProgress(flags: ExportFlags, many: UnitOfMany | undefined): ProgressPlan {
  if (many) return { quiet: true, spinner: false, verbose: flags.verbose === true, logFormat: 'text' };
  return {
    quiet: flags.quiet === true,
    spinner: flags.progress !== false,
    verbose: flags.verbose === true,
    logFormat: flags.logFormat === 'json' ? 'json' : 'text',
  };
}

/**
 * The options that shape the output, stored in the checkpoint and compared on `--resume` (a
 * checkpoint of other options is refused): the origin and first request, paging, format and its
 * options, `--max-items`, the state entry, the compression and the user's request headers (a
 * credential-like one by name only).
 */
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
