/** The parts of an `ExportPlan`, each from the flags and settings alone; `planExport` puts them together. */
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../../context.js';
import { loadApiSettings, type ApiSettings, type SettingsFlags } from '../../config/settings.js';
import type { RateLimitSnapshot } from '../../http/client.js';
import { builtInDefault, exportFlag } from '../../config/flags.js';
import { endpointUrl, idsFromFlags, isPathEndpoint, type Endpoint, type Ids } from '../../endpoints.js';
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

export type ResolvedExportSettings = Pick<ApiSettings, 'apiKey' | 'baseUrl' | 'defaults'> & Partial<Pick<ApiSettings, 'headers'>>;

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
