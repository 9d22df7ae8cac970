/**
 * What an export command does (the commander side is commands/export-command.ts): validates flags
 * into an {@link ExportPlan} before any request or file is touched, then runs it.
 */
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../context.js';
import { builtInDefault } from '../config/flag-readers.js';
import { exportFlag } from '../config/flags.js';
import { buildPath, idsFromFlags, resolveEndpoint, type Endpoint } from '../endpoints.js';
import { ExitCode, UsageError } from '../errors.js';
import { formatFromPath, type OutputFormat } from '../output/writer.js';
import { parseFields } from '../output/fields.js';
import { sidecarPaths } from '../export/sidecar.js';
import type { Compression } from '../export/gzip-destination.js';
import { runExport, type ExportPlan } from '../export/run.js';
import { planManifest } from '../export/manifest.js';
import { runDryRun } from './dry-run.js';
import { prepareFolders } from './folders.js';
import { withNotFoundHint } from './not-found.js';
import { expandOut, isOutTemplate, taxpayerList, utcDate, type TemplateValues } from './batch-plan.js';
import { runBatchExport } from './batch.js';
import { planIncremental, readStoredSince } from './export-incremental.js';
import { loadExportSettings, type LoadedExportSettings, type ResolvedExportSettings } from './export-settings.js';
import type { ExportFlags } from './flags.js';
import type { RateLimitSnapshot } from '../http/client.js';

export type { ExportFlags, GlobalFlags } from './flags.js';
export type { ResolvedExportSettings } from './export-settings.js';

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

/**
 * Joins the base URL's path prefix and an endpoint path: `https://h/api/` + `/entities` →
 * `https://h/api/entities`.
 */
function endpointUrl(baseUrl: URL, path: string): URL {
  const url = new URL(baseUrl.href);
  url.pathname = baseUrl.pathname.replace(/\/+$/, '') + path;
  url.search = '';
  url.hash = '';
  return url;
}

/**
 * Compression suffixes of `--out` that are not supported (only gzip is): refused rather than
 * written as plain text under a name that promises another format.
 */
const UNSUPPORTED_COMPRESSIONS = ['.zst', '.zstd', '.bz2', '.xz', '.lzma', '.lz4', '.lz', '.zip', '.7z', '.br', '.z'];

/**
 * The compression of an export: `--compress gzip`, or an `--out` ending in `.gz` (docs/files.md,
 * "Compressed output").
 * @param out the resolved `--out`, undefined for stdout
 * @param format the resolved format
 * @returns `gzip`, or undefined for plain text
 * @throws {UsageError} (exit 2) for an `--out` ending in another compression's suffix (`.zst`,
 *   `.bz2`, `.xz`, `.zip`, `.br`…), naming gzip as the supported one, and for gzip with
 *   `--format table`
 */
function planCompression(flags: ExportFlags, out: string | undefined, format: OutputFormat): Compression | undefined {
  const lower = out?.toLowerCase() ?? '';
  const suffix = UNSUPPORTED_COMPRESSIONS.find((s) => lower.endsWith(s));
  if (suffix !== undefined) {
    throw new UsageError(`--out ${out}: ${suffix} compression is not supported; the supported one is gzip`, {
      hint: 'name the file .gz (e.g. invoices.ndjson.gz), or add --compress gzip',
    });
  }
  const compress = flags.compress === 'gzip' || lower.endsWith('.gz') ? 'gzip' : undefined;
  if (compress && format === 'table')
    throw new UsageError('--format table cannot be compressed (it is for reading); use csv, json or ndjson with gzip');
  return compress;
}

/**
 * Checks `--resume` and `--restart` against the output.
 * @throws {UsageError} (exit 2) for both together, `--resume` to stdout or with `--format table`
 */
function checkResumeFlags(flags: ExportFlags, out: string | undefined, format: OutputFormat): void {
  if (flags.resume && flags.restart) throw new UsageError('--resume and --restart exclude each other: continue the checkpoint, or discard it');
  if (flags.resume && !out) throw new UsageError('--resume needs --out FILE (stdout exports have no checkpoint)');
  if (flags.resume && format === 'table') throw new UsageError('--resume does not work with --format table (it is built at the end); use csv');
}

/** The pagination headers of the API: `X-Pagination-Style: cursor`, and `X-Pagination-Enable-Partial: 0` for `--total`. */
function paginationHeaders(cursor: boolean, total: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  if (cursor) headers['X-Pagination-Style'] = 'cursor';
  if (cursor && total) headers['X-Pagination-Enable-Partial'] = '0';
  return headers;
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

/**
 * Validates flags into a plan. Pure apart from path resolution against `cwd`. An incremental export
 * (`--since`, `--state`) pages by cursor where the endpoint can, unless `--page` asks for offset
 * mode (docs/nightly-sync.md, "Nightly sync").
 * @param storedSince the watermark of `--state`, epoch ms (see `readStoredSince`)
 * @throws {UsageError} (exit 2) for every invalid combination, before anything is sent or written
 */
export function planExport(
  command: string,
  flags: ExportFlags,
  settings: ResolvedExportSettings,
  cwd: string,
  resumeCommand: string,
  storedSince?: number,
): ExportPlan {
  const ids = idsFromFlags(flags);
  const endpoint: Endpoint = resolveEndpoint(command, ids);
  const path = buildPath(endpoint, ids);
  const inc = planIncremental(endpoint, ids, flags, cwd, storedSince);

  const cursor = flags.cursor === true || (inc.incremental && endpoint.cursor && flags.page === undefined);
  if (cursor && !endpoint.cursor) throw new UsageError(`--cursor is not supported by ${endpoint.path}; it pages by number only`);
  if (flags.total && !cursor) throw new UsageError('--total goes with --cursor (offset mode always reports the total)');
  if (cursor && flags.page !== undefined) throw new UsageError('--page is for offset mode; cursor mode starts at the first page');

  const out = flags.out === undefined || flags.out === '-' ? undefined : resolvePath(cwd, flags.out);
  const format = (flags.format as OutputFormat | undefined) ?? (out ? formatFromPath(out) : (settings.defaults.format ?? EXPORT_DEFAULTS.format));
  const compress = planCompression(flags, out, format);
  checkResumeFlags(flags, out, format);
  const fields = flags.fields === undefined ? undefined : parseFields(flags.fields);

  const itemsPerPage = pageSizeOf(flags, settings);
  const firstPage = flags.page ?? EXPORT_DEFAULTS.firstPage;
  const start = endpointUrl(settings.baseUrl, path);
  const params = flags.param ?? [];
  for (const [key, value] of params) start.searchParams.append(key, value);
  if (inc.filter) start.searchParams.set(inc.filter[0], inc.filter[1]);
  start.searchParams.set('itemsPerPage', String(itemsPerPage));
  if (!cursor) start.searchParams.set('page', String(firstPage));

  const headers = paginationHeaders(cursor, flags.total === true);
  const where = { flag: flags.manifest, target: out, cwd, baseUrl: settings.baseUrl };
  const manifest = planManifest({ ...where, endpoint, path, ids, params, format, cursor, compress, since: inc.filter?.[1] });

  const csvSafe = flags.csvSafe === true;
  const fingerprint: Record<string, unknown> = {
    origin: settings.baseUrl.origin,
    request: start.pathname + start.search,
    cursor,
    total: flags.total === true,
    format,
    fields: fields ?? null,
    csvSafe,
    maxItems: flags.maxItems ?? null,
    ...(inc.state ? { state: inc.state.key } : {}),
    ...(compress ? { compress } : {}),
  };

  return {
    endpoint,
    baseUrl: settings.baseUrl,
    start,
    headers,
    mode: cursor ? 'cursor' : 'offset',
    concurrency: cursor ? 1 : (flags.concurrency ?? settings.defaults.concurrency ?? EXPORT_DEFAULTS.concurrency),
    maxItems: flags.maxItems,
    format,
    ...(compress ? { compress } : {}),
    formatter: { fields, tableFields: endpoint.tableFields, csvSafe },
    files: out ? { target: out, ...sidecarPaths(out) } : undefined,
    manifest,
    resume: flags.resume === true,
    restart: flags.restart === true,
    fingerprint,
    apiKey: settings.apiKey,
    retries: flags.retries ?? settings.defaults.retries ?? EXPORT_DEFAULTS.retries,
    timeoutMs: flags.timeout ?? settings.defaults.timeoutMs ?? EXPORT_DEFAULTS.timeoutMs,
    maxWaitMs: flags.maxWait ?? settings.defaults.maxWaitMs ?? EXPORT_DEFAULTS.maxWaitMs,
    maxBodyBytes: flags.maxBodySize ?? EXPORT_DEFAULTS.maxBodyBytes,
    quiet: flags.quiet === true,
    spinner: flags.progress !== false,
    verbose: flags.verbose === true,
    logFormat: flags.logFormat === 'json' ? 'json' : 'text',
    resumeCommand,
    ...(inc.state ? { state: inc.state } : {}),
  };
}

/** Quotes a word for a POSIX shell when needed, for the "resume with" hint. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command line to repeat with `--resume`, shell-quoted: `collections` and `argv` (given without the key and `--resume`). */
function resumeCommandOf(argv: readonly string[]): string {
  return ['collections', ...argv].map(shellQuote).join(' ');
}

/** A validated export and the settings it came from. */
export interface PreparedExport {
  plan: ExportPlan;
  settings: LoadedExportSettings;
}

/**
 * Loads the settings of `flags` (flag, environment, profile) and validates everything into a plan;
 * nothing is sent or written. The API key is pushed to `secrets` as soon as it is known.
 * @param argv the command line without the key and without `--resume`, for the resume hint
 * @throws {UsageError} (exit 2) for missing or invalid settings and every invalid flag combination
 */
export function prepareExport(command: string, flags: ExportFlags, argv: readonly string[], ctx: Context, secrets: string[]): PreparedExport {
  const settings = loadExportSettings(flags, ctx);
  secrets.push(settings.resolved.apiKey);
  const resumeCommand = resumeCommandOf(argv);
  const storedSince = readStoredSince(command, flags, ctx.cwd);
  return { plan: planExport(command, flags, settings.resolved, ctx.cwd, resumeCommand, storedSince), settings };
}

/** The values of an `--out` template for one export: its taxpayer, endpoint key and the UTC date now. */
function outValues(command: string, flags: ExportFlags, ctx: Context): TemplateValues {
  return { taxpayer: flags.taxpayer, endpoint: resolveEndpoint(command, idsFromFlags(flags)).key, date: utcDate(ctx.clock.now()) };
}

/**
 * Runs export `command` from parsed flags: {@link prepareExport}, then the export, or with
 * `--dry-run` the plan and one light request (commands/dry-run.ts), writing nothing. Several
 * taxpayers, or `--taxpayers-file`, make a run of many (commands/batch.ts); one export with an
 * `--out` template has it filled and its folders created.
 * @param argv the command line without the key and without `--resume`, for the resume hint
 * @param secrets receives the API key once known, so error text can scrub it
 * @returns 0 on success (also when the reader of stdout went away)
 * @throws {UsageError} (exit 2) as {@link prepareExport}, for `--quiet` with `--verbose`, and for gzip to stdout when it is a terminal
 * @throws {CollectionsError} subclasses mapped to exit codes by main()
 */
export async function runExportCommand(
  command: string,
  flags: ExportFlags,
  argv: readonly string[],
  ctx: Context,
  secrets: string[],
): Promise<number> {
  // One says "print nothing but errors", the other "a line per request": no order of the two is right.
  if (flags.quiet === true && flags.verbose === true) throw new UsageError('--quiet and --verbose exclude each other; give one of them');
  const taxpayers = await taxpayerList(flags, ctx);
  if (taxpayers.length > 1 || flags.taxpayersFile !== undefined) {
    const resumeCommand = resumeCommandOf(argv);
    const planOne = (one: ExportFlags, settings: ResolvedExportSettings): ExportPlan =>
      planExport(command, one, settings, ctx.cwd, resumeCommand, readStoredSince(command, one, ctx.cwd));
    return runBatchExport({ command, flags, taxpayers, resumeCommand, planOne }, ctx, secrets);
  }
  const template = isOutTemplate(flags.out);
  if (template) flags = { ...flags, out: expandOut(flags.out!, outValues(command, flags, ctx)) };
  const { plan, settings } = prepareExport(command, flags, argv, ctx, secrets);
  const ids = idsFromFlags(flags);
  if (flags.dryRun === true) {
    try {
      return await runDryRun(plan, ctx);
    } catch (err) {
      throw withNotFoundHint(err, ids, plan.baseUrl);
    }
  }
  // As gzip(1) does: compressed bytes are never written to a terminal.
  if (plan.compress && !plan.files && ctx.io.stdoutIsTTY) {
    throw new UsageError('gzip output is not written to a terminal', { hint: 'add --out FILE.gz, or pipe stdout into a file or a program' });
  }
  // Before the first request: a template's folders and the state file's folder are made and checked.
  await prepareFolders(template ? plan.files?.target : undefined, plan.state?.path);
  // The last quota seen is recorded once, at the end, for `ratelimit --cached` (only the headers:
  // holding the page itself would keep its items alive).
  let last: RateLimitSnapshot | undefined;
  plan.onPageFetched = (page) => {
    if (page.rateLimit) last = page.rateLimit;
  };
  try {
    await runExport(plan, ctx);
  } catch (err) {
    throw withNotFoundHint(err, ids, plan.baseUrl);
  } finally {
    if (last) settings.recordRateLimit(plan.endpoint.key, last);
  }
  return ExitCode.Ok;
}
