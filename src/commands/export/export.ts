/** An export command: flags validated into an {@link ExportPlan} before any request or file is touched, then run. */
import type { Context } from '../../context.js';
import { GET_COMMAND, idsFromFlags, isPathEndpoint } from '../../endpoints.js';
import { resolveSource } from '../../export/plan/collection-path.js';
import { ExitCode, UsageError, hint, option, toExitCode } from '../../errors.js';
import { formatDefinition } from '../../output/writer.js';
import type { OutputFormat } from '../../format-names.js';
import type { Compression } from '../../export/files/destination.js';
import { runExport, type ExportResult } from '../../export/run/run.js';
import { freezePlan, type ExportHooks, type ExportPlan, type OutputPlan } from '../../export/run/plan.js';
import { exportServices } from '../../export/run/services.js';
import { planManifest } from '../../export/manifest/manifest.js';
import { runDryRun } from './dry-run.js';
import { prepareOutputs, removeEmptyFolders } from '../../export/plan/folders.js';
import { withRequestHint } from '../error-text.js';
import { expandOut, isOutTemplate, runBatchExport, taxpayerList, utcDate, type TemplateValues } from './batch.js';
import { parseShard, takeShard } from './shard.js';
import { fingerprintOf, formatOf, loadExportSettings, outPathOf, planHttp, planOutput, planPages, planProgress } from '../../export/plan/parts.js';
import { addDatabaseSecrets, isDatabaseTable, planDatabase, planDeletions, planDestination, planTarget, withoutPassword } from '../../export/plan/parts.js';
import { staleWatermark } from '../../export/plan/parts.js';
import { readStoredSince, storedDatabaseSince, type LoadedExportSettings, type ResolvedExportSettings, type UnitOfMany } from '../../export/plan/parts.js';
import type { ExportCommandOptions, ExportFlags, GetCommandOptions } from '../flags.js';
import type { RateLimitSnapshot } from '../../http/client.js';
import type { PageStep } from '../../pagination/paginate.js';
import { showHeaderValue } from '../../secrets.js';

/** Refused rather than written as plain text under a name that promises another format. */
const UNSUPPORTED_COMPRESSIONS = ['.zst', '.zstd', '.bz2', '.xz', '.lzma', '.lz4', '.lz', '.zip', '.7z', '.br', '.z'];

/** @throws {UsageError} (exit 2) for another compression's suffix, and for gzip with a format that refuses it (`table`) */
function planCompression(flags: ExportFlags, out: string | undefined, format: OutputFormat): Compression | undefined {
  const lower = out?.toLowerCase() ?? '';
  const suffix = UNSUPPORTED_COMPRESSIONS.find((s) => lower.endsWith(s));
  if (suffix !== undefined) {
    throw new UsageError(`--out ${out}: ${suffix} compression is not supported; the supported one is gzip`, {
      hint: hint`name the file .gz (e.g. invoices.ndjson.gz), or add ${option('compress', 'gzip')}`,
    });
  }
  const compress = flags.compress === 'gzip' || lower.endsWith('.gz') ? 'gzip' : undefined;
  const limit = formatDefinition(format).compress;
  if (compress && !limit.compressible) throw new UsageError(limit.refusal);
  return compress;
}

/** @throws {UsageError} (exit 2) for both together, `--resume` to stdout or with a format that refuses it (`table`) */
function checkResumeFlags(flags: ExportFlags, out: string | undefined, format: OutputFormat): void {
  if (flags.resume && flags.restart) throw new UsageError('--resume and --restart exclude each other: continue the checkpoint, or discard it');
  if (flags.resume && !out) throw new UsageError('--resume needs --out FILE (stdout exports have no checkpoint)');
  const limit = formatDefinition(format).resume;
  if (flags.resume && !limit.resumable) throw new UsageError(limit.refusal);
}

/**
 * The one place a plan is made, for one export and for each taxpayer of a run with many. Pure apart
 * from path resolution against `cwd`.
 * @param storedSince the watermark of `--state` or of a database, epoch ms
 * @param nowMs with a database's watermark: the local clock, to tell a watermark older than the
 *   events' guarantee (then the run is a full refresh with `--prune`, {@link staleWatermark})
 * @throws {UsageError} (exit 2) for every invalid combination, before anything is sent or written
 */
export function planExport(
  command: string,
  flags: ExportFlags,
  settings: ResolvedExportSettings,
  cwd: string,
  resumeCommand: string,
  storedSince?: number,
  many?: UnitOfMany,
  nowMs?: number,
): ExportPlan {
  const stale = nowMs === undefined ? undefined : staleWatermark(command, flags, settings, storedSince, nowMs);
  if (stale) return freezePlan({ ...planExport(command, stale.flags, settings, cwd, resumeCommand, undefined, many), notes: [stale.note] });
  const target = planTarget(command, flags, cwd, storedSince);
  const { endpoint, inc } = target;
  const address = planDestination(flags, cwd);
  const table = address?.kind === 'parquet' ? undefined : address;
  const out = table ? undefined : outPathOf(flags, cwd);
  // A database is written NDJSON (each item as received), a Parquet file CSV first (flattened, like CSV).
  const format = table ? 'ndjson' : address ? 'csv' : formatOf(flags, out, settings);
  const compress = planCompression(flags, out, format);
  checkResumeFlags(flags, out ?? table?.shown, format);
  const output: OutputPlan = {
    ...planOutput(flags, endpoint, format, out, compress),
    ...(table ? { database: planDatabase(table, flags, target) } : {}),
    ...(address?.kind === 'parquet' ? { parquet: true } : {}),
  };
  const pages = planPages(target, flags, settings);
  const http = planHttp(flags, settings);
  const where = { flag: flags.manifest, target: address ? undefined : out, cwd, baseUrl: settings.baseUrl, collect: many?.collectManifest === true };
  const params = flags.param ?? [];
  const manifest = planManifest({
    ...where,
    endpoint,
    path: target.query === '' ? target.path : `${target.path}?${target.query}`,
    ids: target.ids,
    params,
    headers: shownHeaders(http.headers),
    format,
    cursor: target.cursor,
    compress,
    since: inc.filter?.[1],
  });
  return freezePlan({
    endpoint,
    http,
    pages,
    output,
    progress: planProgress(flags, many),
    resume: {
      resume: many ? many.resume : flags.resume === true,
      restart: flags.restart === true,
      fingerprint: fingerprintOf(target, flags, pages, output, http.headers),
      command: resumeCommand,
    },
    manifest,
    state: inc.state,
    ...withDeletions(planDeletions(target, flags, pages, output)),
  });
}

const withDeletions = (deletions: ExportPlan['deletions']): Pick<ExportPlan, 'deletions'> => (deletions === undefined ? {} : { deletions });

function shownHeaders(headers: Readonly<Record<string, string>> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, showHeaderValue(name, value)]));
}

/** For a POSIX shell. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function resumeCommandOf(argv: readonly string[]): string {
  return ['collections', ...argv.map(withoutPassword)].map(shellQuote).join(' ');
}

export interface PreparedExport {
  plan: ExportPlan;
  settings: LoadedExportSettings;
}

/**
 * Nothing is sent or written.
 * @param argv without the key and `--resume`, for the resume hint
 * @throws {UsageError} (exit 2) for missing or invalid settings and every invalid flag combination
 */
export function prepareExport(command: string, flags: ExportFlags, argv: readonly string[], ctx: Context, databaseSince?: number): PreparedExport {
  const settings = loadExportSettings(flags, ctx);
  const resumeCommand = resumeCommandOf(argv);
  const storedSince = databaseSince ?? readStoredSince(command, flags, ctx.cwd);
  const nowMs = databaseSince === undefined ? undefined : ctx.clock.now();
  const plan = planExport(command, flags, settings.resolved, ctx.cwd, resumeCommand, storedSince, undefined, nowMs);
  addDatabaseSecrets(plan, ctx);
  return { plan, settings };
}

/** A database a dry run cannot read (exit 7) leaves the watermarks unread; any other failure is thrown. */
function unreadInDryRun(err: unknown): undefined {
  if (toExitCode(err) !== ExitCode.Output) throw err;
  return undefined;
}

/**
 * Read once before any request, after the first taxpayer's plan checked every flag. A dry run that
 * cannot read them plans without them: its checks then meet the same failure and report it as the
 * run's.
 */
async function batchDatabaseSince(
  command: string,
  first: ExportFlags,
  argv: readonly string[],
  ctx: Context,
): Promise<Map<string, number> | undefined> {
  if (first.incremental !== true || first.out === undefined || !isDatabaseTable(first.out, ctx.cwd)) return undefined;
  const stored = storedDatabaseSince(prepareExport(command, first, argv, ctx).plan, first, ctx);
  return first.dryRun === true ? stored.catch(unreadInDryRun) : stored;
}

/** `get`'s endpoint is the path's segments joined with `-`. */
function outValues(command: string, flags: ExportFlags, ctx: Context): TemplateValues {
  const { endpoint, path } = resolveSource(command, idsFromFlags(flags), flags.path, flags.sinceField);
  const name = isPathEndpoint(endpoint) ? path.slice(1).split('/').join('-') : endpoint.key;
  return { taxpayer: flags.taxpayer, endpoint: name, date: utcDate(ctx.clock.now()) };
}

/**
 * Several taxpayers, or `--taxpayers-file`, make a run of many.
 * @returns 0 on success (also when the reader of stdout went away)
 * @throws {UsageError} (exit 2) as {@link prepareExport}, for `--quiet` with `--verbose`, and for gzip to stdout when it is a terminal
 * @throws {CollectionsError} subclasses mapped to exit codes by main()
 */
export async function runExportCommand(ctx: Context, { command, flags, argv }: ExportCommandOptions): Promise<number> {
  checkQuietVerbose(flags);
  const shard = flags.shard === undefined ? undefined : parseShard(flags.shard, ctx.env);
  const listed = await taxpayerList(flags, ctx);
  const taxpayers = shard === undefined ? listed : takeShard(listed, shard);
  if (shard !== undefined && taxpayers.length === 0) {
    if (listed.length === 0) throw new UsageError('--shard splits the listed taxpayers: give them with --taxpayer a,b or --taxpayers-file');
    if (flags.quiet !== true)
      ctx.io.stderr.write(`collections: shard ${shard.index}/${shard.count} holds none of the ${listed.length} taxpayers listed; nothing to do\n`);
    return ExitCode.Ok;
  }
  if (taxpayers.length > 1 || flags.taxpayersFile !== undefined || shard !== undefined) {
    const resumeCommand = resumeCommandOf(argv);
    const stored = await batchDatabaseSince(command, { ...flags, taxpayer: taxpayers[0] }, argv, ctx);
    const planOne = (one: ExportFlags, settings: ResolvedExportSettings, many: UnitOfMany): ExportPlan => {
      const plan = planExport(command, one, settings, ctx.cwd, resumeCommand, readStoredSince(command, one, ctx.cwd), many);
      const since = plan.output.database && stored?.get(plan.output.database.source);
      return since === undefined ? plan : planExport(command, one, settings, ctx.cwd, resumeCommand, since, many, ctx.clock.now());
    };
    return runBatchExport({ command, flags, taxpayers, resumeCommand, planOne }, ctx);
  }
  return runLoneExport(command, flags, argv, ctx);
}

/** `get <path>`: a lone export of the endpoint built from the path. @throws as {@link runExportCommand} */
export function runGetCommand(ctx: Context, { path, flags, argv }: GetCommandOptions): Promise<number> {
  checkQuietVerbose(flags);
  return runLoneExport(GET_COMMAND, { ...flags, path }, argv, ctx);
}

/** @throws {UsageError} (exit 2): "nothing but errors" and "a line per request" have no right order */
function checkQuietVerbose(flags: ExportFlags): void {
  if (flags.quiet === true && flags.verbose === true) throw new UsageError('--quiet and --verbose exclude each other; give one of them');
}

/** A named command's, or `get`'s with `flags.path`. @throws as {@link runExportCommand} */
async function runLoneExport(command: string, flags: ExportFlags, argv: readonly string[], ctx: Context): Promise<number> {
  const template = isOutTemplate(flags.out);
  if (template) flags = { ...flags, out: expandOut(flags.out!, outValues(command, flags, ctx)) };
  let settings: PreparedExport['settings'] | undefined;
  const plan = await planLoneExport(
    (since) => {
      const prepared = prepareExport(command, flags, argv, ctx, since);
      settings = prepared.settings;
      return prepared.plan;
    },
    flags,
    ctx,
  );
  // Only the headers: holding the page would keep its items alive.
  let last: RateLimitSnapshot | undefined;
  const onPageFetched = (page: PageStep): void => {
    if (page.rateLimit) last = page.rateLimit;
  };
  try {
    if (flags.dryRun === true) return await runDryRun(plan, ctx);
    await runLonePlan(plan, ctx, { onPageFetched });
    return ExitCode.Ok;
  } catch (err) {
    const query = flags.path?.includes('?') ? flags.path.slice(flags.path.indexOf('?') + 1) : '';
    throw withRequestHint(err, { ids: idsFromFlags(flags), baseUrl: plan.http.baseUrl, params: flags.param ?? [], query });
  } finally {
    if (last) settings!.recordRateLimit(plan.endpoint.key, last);
  }
}

/**
 * The plan of one export, as the command and the library's `exportCollection()` make it: planned
 * once to check every flag, then, for `--incremental` into a database, again from the watermark
 * stored with the table (read read-only; a dry run that cannot read it plans without it, and its
 * checks then meet the same failure and report it as the run's).
 * @param plan plans the export from a stored watermark (epoch ms), or from the flags alone
 * @throws {UsageError} (exit 2) from planning; {@link OutputError} (exit 7) when the table cannot be read
 */
export async function planLoneExport(plan: (since?: number) => ExportPlan, flags: ExportFlags, ctx: Context): Promise<ExportPlan> {
  const first = plan();
  const source = first.output.database?.source;
  if (source === undefined) return checkTerminal(first, ctx);
  const stored = storedDatabaseSince(first, flags, ctx);
  const since = (await (flags.dryRun === true ? stored.catch(unreadInDryRun) : stored))?.get(source);
  return checkTerminal(since === undefined ? first : plan(since), ctx);
}

/** @throws {UsageError} for gzip to a terminal: as gzip(1), compressed bytes are never written to one */
function checkTerminal(plan: ExportPlan, ctx: Context): ExportPlan {
  if (plan.output.compress && !plan.output.files && ctx.io.stdoutIsTTY) {
    throw new UsageError('gzip output is not written to a terminal', { hint: 'add --out FILE.gz, or pipe stdout into a file or a program' });
  }
  return plan;
}

/**
 * Runs one planned export, as the command and `exportCollection()` do: the pre-flight before the
 * first request (`prepareOutputs`), then the run; folders it made and left empty go when it fails.
 * @throws what `prepareOutputs` and `runExport` throw, with their exit codes
 */
export async function runLonePlan(plan: ExportPlan, ctx: Context, hooks: ExportHooks): Promise<ExportResult> {
  const made = await prepareOutputs([plan]);
  try {
    return await runExport(plan, ctx, exportServices(plan, ctx), hooks);
  } catch (err) {
    await removeEmptyFolders(made);
    throw err;
  }
}
