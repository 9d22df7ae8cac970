/**
 * One export, top to bottom: its options become a frozen {@link ExportPlan} (every check before
 * anything is sent or written), the plan gets its services, and the run loop runs it. The command
 * line and the library's `exportCollection()` both come through here.
 */
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../../context.js';
import { ExitCode, UsageError, hint, option, toExitCode } from '../../errors.js';
import { parseSince } from '../state/state.js';
import { tableText } from '../destinations/table-name.js';
import { flagNamer, type OptionNamer } from '../../config/flags.js';
import { formatDefinition } from '../../output/writer.js';
import type { OutputFormat } from '../../format-names.js';
import type { Compression } from '../files/destination.js';
import { runExport, type ExportResult } from '../run/run.js';
import { freezePlan, type ExportHooks, type ExportPlan, type OutputPlan } from '../run/plan.js';
import { exportServices } from '../run/services.js';
import { planManifest } from '../manifest/manifest.js';
import { showHeaderValue } from '../../secrets.js';
import { defined } from '../../json/object.js';
import { prepareOutputs, removeEmptyFolders } from './folders.js';
import { fingerprintOf, formatOf, planDatabase, planDeletions, planDestination, planHttp, planOutput, planPages } from './parts.js';
import { planProgress, planTarget, readStoredSince, staleWatermark } from './parts.js';
import type { ResolvedExportSettings, StoredSince, UnitOfMany } from './parts.js';
import { resolveSource } from './collection-path.js';
import type { ExportOptions } from './options.js';

/** Refused rather than written as plain text under a name that promises another format. */
const UNSUPPORTED_COMPRESSIONS = ['.zst', '.zstd', '.bz2', '.xz', '.lzma', '.lz4', '.lz', '.zip', '.7z', '.br', '.z'];

/** @throws {UsageError} (exit 2) for another compression's suffix, and for gzip with a format that refuses it (`table`) */
function planCompression(options: ExportOptions, out: string | undefined, format: OutputFormat, name: OptionNamer): Compression | undefined {
  const lower = out?.toLowerCase() ?? '';
  const suffix = UNSUPPORTED_COMPRESSIONS.find((s) => lower.endsWith(s));
  if (suffix !== undefined) {
    throw new UsageError(`${name('out', out)}: ${suffix} compression is not supported; the supported one is gzip`, {
      hint: hint`name the file .gz (e.g. invoices.ndjson.gz), or add ${option('compress', 'gzip')}`,
    });
  }
  const compress = options.compress === 'gzip' || lower.endsWith('.gz') ? 'gzip' : undefined;
  const limit = formatDefinition(format).compress;
  if (compress && !limit.compressible) throw new UsageError(limit.refusal);
  return compress;
}

/** @throws {UsageError} (exit 2) for both together, `--resume` to stdout or with a format that refuses it (`table`) */
function checkResume(options: ExportOptions, out: string | undefined, format: OutputFormat, name: OptionNamer): void {
  if (options.resume && options.restart)
    throw new UsageError(`${name('resume')} and ${name('restart')} exclude each other: continue the checkpoint, or discard it`);
  if (options.resume && !out) throw new UsageError(`${name('resume')} needs ${name('out', 'FILE')} (stdout exports have no checkpoint)`);
  const limit = formatDefinition(format).resume;
  if (options.resume && !limit.resumable) throw new UsageError(limit.refusal);
}

/** One export as a door asks for it. */
export interface ExportRequest {
  readonly command: string;
  readonly options: ExportOptions;
  readonly settings: ResolvedExportSettings;
  readonly resumeCommand: string;
  /** How the door names an option in messages (default the command line's flags: `--total`; `total` in the library). */
  readonly name?: OptionNamer;
  /** One taxpayer of a run with many. */
  readonly many?: UnitOfMany;
}

/** What {@link planExport} plans from: the request, where its paths resolve, a database table's stored watermark. */
export interface PlanInput extends ExportRequest {
  readonly cwd: string;
  /** With the local clock, to tell a watermark older than the events' guarantee (a full refresh with `--prune` then, {@link staleWatermark}). */
  readonly stored?: StoredSince;
}

/**
 * The one place a plan is made, for one export and for each taxpayer of a run with many: the source
 * resolved once, then every part. Reads only the `--state` file.
 * @throws {UsageError} (exit 2) for every invalid combination, before anything is sent or written
 */
export function planExport(input: PlanInput): ExportPlan {
  const { command, settings, cwd, stored, many, name = flagNamer } = input;
  const source = resolveSource(command, input.options, name);
  const stale = stored && staleWatermark(source, input.options, settings, stored);
  const options = stale?.options ?? input.options;
  const target = planTarget(source, options, cwd, stale ? undefined : (stored?.since ?? readStoredSince(source, options, cwd)), name);
  const { endpoint, inc } = target;
  const address = planDestination(options, cwd, name);
  const table = address?.kind === 'parquet' ? undefined : address;
  const out = table || options.out === undefined || options.out === '-' ? undefined : resolvePath(cwd, options.out);
  // A database is written NDJSON (each item as received), a Parquet file CSV first (flattened, like CSV).
  const format = table ? 'ndjson' : address ? 'csv' : formatOf(options, out, settings);
  const compress = planCompression(options, out, format, name);
  checkResume(options, out ?? table?.shown, format, name);
  const output: OutputPlan = {
    ...planOutput(options, endpoint, format, out, compress),
    ...(table ? { database: planDatabase(table, options, target) } : {}),
    ...(address?.kind === 'parquet' ? { parquet: true } : {}),
  };
  const pages = planPages(target, options, settings);
  const http = planHttp(options, settings);
  const manifest = planManifest({
    flag: options.manifest,
    target: address ? undefined : out,
    cwd,
    baseUrl: settings.baseUrl,
    collect: many?.collectManifest === true,
    endpoint,
    path: target.query === '' ? target.path : `${target.path}?${target.query}`,
    ids: target.ids,
    params: options.params ?? [],
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
    progress: planProgress(options, many),
    resume: {
      resume: many ? many.resume : options.resume === true,
      restart: options.restart === true,
      fingerprint: fingerprintOf(target, options, pages, output, http.headers),
      command: input.resumeCommand,
    },
    manifest,
    state: inc.state,
    ...defined({ deletions: planDeletions(target, options, pages, output), notes: stale && [stale.note] }),
  });
}

function shownHeaders(headers: Readonly<Record<string, string>> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, showHeaderValue(name, value)]));
}

/**
 * {@link planExport} where the door runs, its database password (from its URL or `PGPASSWORD`) added to the secrets.
 * @throws {UsageError} for gzip to a terminal: as gzip(1), compressed bytes are never written to one
 */
function planIn(request: ExportRequest, ctx: Context, since?: number): ExportPlan {
  const plan = planExport({ ...request, cwd: ctx.cwd, ...(since === undefined ? {} : { stored: { since, nowMs: ctx.clock.now() } }) });
  const address = plan.output.database?.address;
  if (address?.kind === 'postgres') {
    ctx.secrets.add(address.password);
    ctx.secrets.add(ctx.env.PGPASSWORD);
  }
  if (plan.output.compress && !plan.output.files && ctx.io.stdoutIsTTY) {
    throw new UsageError('gzip output is not written to a terminal', { hint: 'add --out FILE.gz, or pipe stdout into a file or a program' });
  }
  return plan;
}

/**
 * The plans of one export or of each taxpayer of a run, as the command line and `exportCollection()`
 * make them: planned to check every option, then, for `incremental` into a database (`since` wins,
 * as with `state`), again from the watermark stored with the table for their source. Twice, because
 * the table is read (one connection, through the first plan) only once every check has passed, and
 * the watermark changes the plan (its filter, paging mode, deletions, fingerprint, or a full refresh
 * with prune). Read read-only; a dry run that cannot read it plans without it, and its checks then
 * meet the same failure and report it as the run's.
 * @throws {UsageError} (exit 2) from planning, and when a stored watermark is not a time;
 *   {@link OutputError} (exit 7) when the table cannot be read
 */
export async function planExports(requests: readonly ExportRequest[], ctx: Context): Promise<ExportPlan[]> {
  const plans = requests.map((request) => planIn(request, ctx));
  const { options } = requests[0]!;
  const database = plans[0]!.output.database;
  if (database?.mode !== 'incremental' || options.since !== undefined) return plans;
  const { readWatermarks } = await import('../destinations/open-store.js');
  const read = await readWatermarks(database, ctx.env).catch((err: unknown) => {
    if (options.dryRun === true && toExitCode(err) === ExitCode.Output) return undefined;
    throw err;
  });
  const where = `the watermark stored with ${tableText(database.table)}`;
  const stored = new Map([...(read ?? [])].map(([source, since]) => [source, parseSince(since, `${where} for ${source}`)]));
  return plans.map((plan, i) => {
    const since = plan.output.database && stored.get(plan.output.database.source);
    return since === undefined ? plan : planIn(requests[i]!, ctx, since);
  });
}

/** {@link planExports} of one export. @throws as {@link planExports} */
export async function planLoneExport(request: ExportRequest, ctx: Context): Promise<ExportPlan> {
  return (await planExports([request], ctx))[0]!;
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
