/** An export command: flags validated into an {@link ExportPlan} before any request or file is touched, then run. */
import type { Context } from '../../context.js';
import { GET_COMMAND, idsFromFlags } from '../../endpoints.js';
import { optionsOfFlags } from '../../config/flags.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { ExportPlan } from '../../export/run/plan.js';
import { planLoneExport, planRequest, runLonePlan, type ExportRequest } from '../../export/plan/plan.js';
import { runDryRun } from './dry-run.js';
import { withRequestHint } from '../error-text.js';
import { expandOut, isOutTemplate, outValues, runBatchExport, taxpayerList } from './batch.js';
import { parseShard, takeShard } from './shard.js';
import { isDatabaseTable, storedDatabaseSince, withoutPassword } from '../../export/plan/parts.js';
import type { ExportCommandOptions, ExportFlags, GetCommandOptions } from '../flags.js';
import type { RateLimitSnapshot } from '../../http/client.js';
import { loadExportSettings, type LoadedExportSettings } from './settings.js';
import type { PageStep } from '../../pagination/paginate.js';

/** For a POSIX shell. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function resumeCommandOf(argv: readonly string[]): string {
  return ['collections', ...argv.map(withoutPassword)].map(shellQuote).join(' ');
}

/** What planning a command's export needs besides the context. */
function requestOf(command: string, flags: ExportFlags, argv: readonly string[], settings: LoadedExportSettings): ExportRequest {
  return { command, options: optionsOfFlags(flags), settings: settings.resolved, resumeCommand: resumeCommandOf(argv) };
}

/**
 * Nothing is sent or written.
 * @param argv without the key and `--resume`, for the resume hint
 * @throws {UsageError} (exit 2) for missing or invalid settings and every invalid flag combination
 */
export function prepareExport(command: string, flags: ExportFlags, argv: readonly string[], ctx: Context): ExportPlan {
  return planRequest(requestOf(command, flags, argv, loadExportSettings(flags, ctx)), ctx);
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
    const first = { ...flags, taxpayer: taxpayers[0] };
    // Read once before any request, after the first taxpayer's plan checked every flag.
    const table = first.incremental === true && first.out !== undefined && isDatabaseTable(first.out, ctx.cwd);
    const stored = table ? await storedDatabaseSince(prepareExport(command, first, argv, ctx), first, ctx) : undefined;
    return runBatchExport({ command, flags, taxpayers, resumeCommand, stored }, ctx);
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
  const settings = loadExportSettings(flags, ctx);
  const plan = await planLoneExport(requestOf(command, flags, argv, settings), ctx);
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
    if (last) await settings.recordRateLimit(plan.endpoint.key, last);
  }
}
