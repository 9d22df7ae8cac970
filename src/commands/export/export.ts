/** An export command: flags validated into an {@link ExportPlan} before any request or file is touched, then run. */
import type { Context } from '../../context.js';
import { GET_COMMAND, idsFromFlags } from '../../endpoints.js';
import { optionsOfFlags } from '../../config/flags.js';
import { loadApiSettings } from '../../config/settings.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { ExportPlan } from '../../export/run/plan.js';
import { planLoneExport, runLonePlan } from '../../export/plan/plan.js';
import { isPostgresUrl } from '../../export/destinations/address.js';
import { runDryRun } from './dry-run.js';
import { withRequestHint } from '../error-text.js';
import { expandOut, isOutTemplate, outValues, runBatchExport, taxpayerList } from './batch.js';
import { parseShard, takeShard } from './shard.js';
import type { ExportCommandOptions, ExportFlags, GetCommandOptions } from '../flags.js';
import { lastSeenOf } from './last-seen.js';

/** For a POSIX shell. */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
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

function resumeCommandOf(argv: readonly string[]): string {
  return ['collections', ...argv.map(withoutPassword)].map(shellQuote).join(' ');
}

/**
 * A lone export's plan: `--out`'s template filled in, the profile's settings, the flags as options.
 * @param argv without the key and `--resume`, for the resume hint
 * @throws {UsageError} (exit 2) for missing or invalid settings, every invalid flag combination and gzip to a terminal
 */
export function planCommand(command: string, flags: ExportFlags, argv: readonly string[], ctx: Context): Promise<ExportPlan> {
  if (isOutTemplate(flags.out)) flags = { ...flags, out: expandOut(flags.out!, outValues(command, flags, ctx)) };
  const settings = loadApiSettings(flags, ctx);
  return planLoneExport({ command, options: optionsOfFlags(flags), settings, resumeCommand: resumeCommandOf(argv) }, ctx);
}

/**
 * Several taxpayers, or `--taxpayers-file`, make a run of many.
 * @returns 0 on success (also when the reader of stdout went away)
 * @throws {UsageError} (exit 2) as {@link planCommand}, and for `--quiet` with `--verbose`
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
    return runBatchExport({ command, flags, taxpayers, resumeCommand: resumeCommandOf(argv) }, ctx);
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
  const plan = await planCommand(command, flags, argv, ctx);
  const lastSeen = lastSeenOf(plan, ctx);
  try {
    if (flags.dryRun === true) return await runDryRun(plan, ctx);
    await runLonePlan(plan, ctx, { onPageFetched: lastSeen.onPageFetched });
    return ExitCode.Ok;
  } catch (err) {
    const query = flags.path?.includes('?') ? flags.path.slice(flags.path.indexOf('?') + 1) : '';
    throw withRequestHint(err, { ids: idsFromFlags(flags), baseUrl: plan.http.baseUrl, params: flags.param ?? [], query });
  } finally {
    await lastSeen.save();
  }
}
