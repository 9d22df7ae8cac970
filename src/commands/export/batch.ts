/**
 * A run with many taxpayers (docs/many-taxpayers.md): the taxpayers and the `--out` template are
 * read and every export is planned before any request or write, then up to `--parallel` run at once. A failing taxpayer does not stop the others; a signal stops
 * the run, and so does a rejected key (the others would be rejected too).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { Context } from '../../context.js';
import { encodeId, isPathEndpoint } from '../../endpoints.js';
import { ExitCode, InterruptedError, UsageError, toExitCode } from '../../errors.js';
import { runExport } from '../../export/run/run.js';
import type { ExportHooks } from '../../export/run/plan.js';
import { exportServices } from '../../export/run/services.js';
import { sidecarPaths } from '../../export/files/sidecar.js';
import { earlierOutputs, writeRunManifest, type ManifestOutput } from '../../export/manifest/manifest.js';
import { runBatchDryRun, type DryRunUnit } from './dry-run.js';
import { errorText } from '../error-text.js';
import { inertText } from '../../io/terminal-text.js';
import { prepareOutputs, removeEmptyFolders } from '../../export/plan/folders.js';
import { createBatchReporter, mostSevere, type TaxpayerOutcome } from './batch-report.js';
import type { ExportFlags } from '../flags.js';
import { isDatabaseTable } from '../../export/plan/parts.js';
import { planExports } from '../../export/plan/plan.js';
import { resolveSource } from '../../export/plan/collection-path.js';
import { optionsOfFlags } from '../../config/flags.js';
import { loadApiSettings } from '../../config/settings.js';
import { lastSeenOf } from './last-seen.js';

/** Bytes: tens of thousands of ids. */
const MAX_LIST_BYTES = 1024 * 1024;

const PLACEHOLDERS = ['taxpayer', 'endpoint', 'date'] as const;

type Placeholder = (typeof PLACEHOLDERS)[number];

export interface TemplateValues {
  /** Undefined for endpoints without one. */
  taxpayer: string | undefined;
  endpoint: string;
  /** When the run started, UTC `YYYY-MM-DD`. */
  date: string;
}

/** `YYYY-MM-DD` of an epoch ms. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const PLACEHOLDER_PATTERN = /\{([A-Za-z0-9_-]*)\}/g;

/** `get`'s endpoint is the path's segments joined with `-`. */
export function outValues(command: string, flags: ExportFlags, ctx: Context): TemplateValues {
  const { endpoint, path } = resolveSource(command, flags);
  const name = isPathEndpoint(endpoint) ? path.slice(1).split('/').join('-') : endpoint.key;
  return { taxpayer: flags.taxpayer, endpoint: name, date: utcDate(ctx.clock.now()) };
}

/** An unknown `{name}` makes a template too, so {@link expandOut} refuses it instead of writing under the literal name. */
export function isOutTemplate(out: string | undefined): boolean {
  return out !== undefined && new RegExp(PLACEHOLDER_PATTERN.source).test(out);
}

/**
 * First, so an unknown `{taxpayr}` is named as such rather than reported as a missing `{taxpayer}`.
 * @throws {UsageError} (exit 2) naming the first unknown placeholder and listing the known ones
 */
export function checkPlaceholders(template: string): void {
  for (const [, name] of template.matchAll(PLACEHOLDER_PATTERN)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(name!)) {
      throw new UsageError(`--out has an unknown placeholder {${inertText(name!)}}; the known ones are {taxpayer}, {endpoint} and {date}`);
    }
  }
}

/**
 * The taxpayer id is already checked (`encodeId`: no `/`, `\`, NUL, `.` or `..`), so it cannot make
 * the path leave the template's folder.
 * @throws {UsageError} (exit 2) for an unknown `{name}`, or `{taxpayer}` on an endpoint without one
 */
export function expandOut(template: string, values: TemplateValues): string {
  checkPlaceholders(template);
  return template.replace(PLACEHOLDER_PATTERN, (_m, name: string) => {
    const value = values[name as Placeholder];
    if (value === undefined) throw new UsageError('--out uses {taxpayer}, but this export takes no --taxpayer');
    return value;
  });
}

/** @throws {UsageError} (exit 2) for an invalid id or one given twice, naming where it came from */
function checkIds(entries: ReadonlyArray<{ id: string; where: string }>): string[] {
  const seen = new Map<string, string>();
  for (const { id, where } of entries) {
    try {
      encodeId('taxpayerId', id);
    } catch (err) {
      if (where === '--taxpayer') throw err;
      throw new UsageError(`${where}: ${(err as Error).message}`);
    }
    const first = seen.get(id);
    if (first !== undefined) throw new UsageError(`${where}: taxpayer ${inertText(id)} is listed twice (first at ${first})`);
    seen.set(id, where);
  }
  return [...seen.keys()];
}

/** `-` is stdin. */
async function readListText(file: string, ctx: Context): Promise<string> {
  if (file === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError('--taxpayers-file - reads stdin, which is a terminal; pipe the list in or name a file');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.io.stdin) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > MAX_LIST_BYTES) throw new UsageError(`--taxpayers-file -: stdin holds more than ${MAX_LIST_BYTES} bytes`);
      chunks.push(buf);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
  const path = resolvePath(ctx.cwd, file);
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read --taxpayers-file ${inertText(file)}: ${code === 'ENOENT' ? 'no such file' : (code ?? String(err))}`);
  }
  if (buf.length > MAX_LIST_BYTES) throw new UsageError(`--taxpayers-file ${inertText(file)} is larger than ${MAX_LIST_BYTES} bytes`);
  return buf.toString('utf8');
}

/**
 * `--taxpayer`'s, then `--taxpayers-file`'s (blank lines and `#` lines ignored); empty when neither is given.
 * @throws {UsageError} (exit 2) for an empty entry (`A,,B`), an invalid or repeated id (naming the
 *   file and line), a file that cannot be read, or an empty file
 */
export async function taxpayerList(flags: ExportFlags, ctx: Context): Promise<string[]> {
  const entries: Array<{ id: string; where: string }> = [];
  if (flags.taxpayer !== undefined) {
    const split = flags.taxpayer.split(',');
    // One id is kept as typed (encodeId names any white space in it); list entries are trimmed.
    const parts = split.length === 1 ? split : split.map((p) => p.trim());
    if (parts.length > 1 && parts.some((p) => p === ''))
      throw new UsageError('--taxpayer has an empty entry in its list (e.g. A,,B or a trailing comma)');
    for (const id of parts) entries.push({ id, where: '--taxpayer' });
  }
  if (flags.taxpayersFile !== undefined) {
    const name = flags.taxpayersFile === '-' ? 'stdin' : flags.taxpayersFile;
    const lines = (await readListText(flags.taxpayersFile, ctx)).replace(/^\uFEFF/, '').split(/\r?\n/);
    const before = entries.length;
    lines.forEach((line, i) => {
      const id = line.trim();
      if (id !== '' && !id.startsWith('#')) entries.push({ id, where: `${inertText(name)}:${i + 1}` });
    });
    if (entries.length === before) throw new UsageError(`--taxpayers-file ${inertText(name)} lists no taxpayer`);
  }
  return checkIds(entries);
}

interface Unit extends DryRunUnit {
  /** Absolute. */
  target: string;
  doneEarlier: boolean;
}

export interface BatchRequest {
  command: string;
  flags: ExportFlags;
  /** At least one. */
  taxpayers: readonly string[];
  resumeCommand: string;
}

interface BatchPlan {
  units: Unit[];
  /** Absolute; undefined for a manifest beside each output. */
  manifestPath: string | undefined;
  /** By target. */
  collected: Map<string, ManifestOutput>;
  resumeCommand: string;
}

/**
 * @throws {UsageError} (exit 2) for stdout, an unknown placeholder, or several taxpayers without `{taxpayer}`
 */
function checkBatchFlags(flags: ExportFlags, taxpayers: readonly string[], cwd: string): string {
  const example = "e.g. --out 'exports/{taxpayer}/invoices-{date}.ndjson'";
  if (flags.out === undefined || flags.out === '-')
    throw new UsageError('several taxpayers need --out FILE, a template with {taxpayer} (stdout would mix them)', { hint: example });
  // Every taxpayer is a source of its own in one table (docs/databases.md).
  if (isDatabaseTable(flags.out, cwd)) return flags.out;
  checkPlaceholders(flags.out);
  if (taxpayers.length > 1 && !flags.out.includes('{taxpayer}'))
    throw new UsageError(`--out ${flags.out} has no {taxpayer}: every taxpayer would write the same file`, { hint: example });
  return flags.out;
}

/**
 * Reads the state file and a database table's watermarks; sends nothing, writes nothing.
 * @throws {UsageError} (exit 2) for the first invalid taxpayer or flag; {@link OutputError} (exit 7) when the table cannot be read
 */
async function planBatch(request: BatchRequest, ctx: Context): Promise<BatchPlan> {
  const { command, flags, taxpayers, resumeCommand } = request;
  const template = checkBatchFlags(flags, taxpayers, ctx.cwd);
  const table = isDatabaseTable(template, ctx.cwd);
  const settings = loadApiSettings(flags, ctx);
  const values = outValues(command, { ...flags, taxpayer: taxpayers[0] }, ctx);
  const manifestPath = flags.manifest === undefined ? undefined : resolvePath(ctx.cwd, flags.manifest);
  const units = taxpayers.map((taxpayer) => {
    const out = expandOut(template, { ...values, taxpayer });
    const target = table ? out : resolvePath(ctx.cwd, out);
    // A database table keeps each taxpayer's unfinished run itself; --resume continues it, or starts afresh.
    const resume = flags.resume === true && (table || existsSync(sidecarPaths(target).checkpoint));
    const many = { resume, collectManifest: manifestPath !== undefined };
    const request = { command, options: optionsOfFlags({ ...flags, taxpayer, out }), settings, resumeCommand, many };
    return { taxpayer, target, doneEarlier: flags.resume === true && !resume && existsSync(target), request };
  });
  const plans = await planExports(
    units.map((u) => u.request),
    ctx,
  );
  const planned = units.map(({ taxpayer, target, doneEarlier }, i): Unit => {
    const plan = plans[i]!;
    return { taxpayer, plan, target: plan.output.database?.address.shown ?? target, doneEarlier };
  });
  return { units: planned, manifestPath, collected: new Map(), resumeCommand };
}

/** Only the count is read: this run wrote the checkpoint, and `--resume` checks it in full before trusting it. */
async function checkpointItems(path: string | undefined): Promise<number | undefined> {
  if (path === undefined) return undefined;
  try {
    const items = (JSON.parse(await readFile(path, 'utf8')) as { items?: unknown }).items;
    return typeof items === 'number' && Number.isSafeInteger(items) && items >= 0 ? items : undefined;
  } catch {
    return undefined;
  }
}

/** Never throws. */
async function runUnit(unit: Unit, batch: BatchPlan, ctx: Context): Promise<TaxpayerOutcome> {
  const { taxpayer, plan, target } = unit;
  if (unit.doneEarlier) return { taxpayer, target, status: 'done earlier', code: ExitCode.Ok };
  const lastSeen = lastSeenOf(plan, ctx);
  const hooks: ExportHooks = { onPageFetched: lastSeen.onPageFetched, onManifest: (output) => batch.collected.set(target, output) };
  try {
    const result = await runExport(plan, ctx, exportServices(plan, ctx), hooks);
    return { taxpayer, target, status: 'ok', code: ExitCode.Ok, items: result.stats.items };
  } catch (err) {
    const status = err instanceof InterruptedError ? 'interrupted' : 'failed';
    const items = await checkpointItems(plan.output.files?.checkpoint);
    return {
      taxpayer,
      target,
      status,
      code: toExitCode(err),
      reason: errorText(err, ctx.secrets, { hint: false }),
      ...(items === undefined ? {} : { items }),
    };
  } finally {
    await lastSeen.save();
  }
}

/** After a signal or a rejected key no unit starts; the running ones end as they do alone. */
async function runUnits(batch: BatchPlan, parallel: number, ctx: Context, report: (o: TaxpayerOutcome) => void): Promise<TaxpayerOutcome[]> {
  const { units } = batch;
  const outcomes: Array<TaxpayerOutcome | undefined> = units.map(() => undefined);
  let stopped: number | undefined;
  const unsubscribe = ctx.onSignal((signal) => {
    stopped ??= new InterruptedError(signal).exitCode;
  });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (stopped === undefined && next < units.length) {
      const i = next++;
      const outcome = await runUnit(units[i]!, batch, ctx);
      outcomes[i] = outcome;
      report(outcome);
      if (outcome.code === ExitCode.Auth) stopped ??= ExitCode.Auth;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(parallel, units.length) }, worker));
  } finally {
    unsubscribe();
  }
  return outcomes.map((o, i) => {
    if (o) return o;
    const { taxpayer, target } = units[i]!;
    // Not started: after a signal it is unfinished like the interrupted ones; after a rejected key it failed with it.
    return { taxpayer, target, status: 'not started', code: stopped ?? ExitCode.Ok };
  });
}

/** With `--resume`, also those finished earlier that an earlier run manifest listed. */
async function writeBatchManifest(batch: BatchPlan, startedMs: number, ctx: Context): Promise<void> {
  if (batch.manifestPath === undefined) return;
  const earlier = await earlierOutputs(
    batch.manifestPath,
    batch.units.filter((u) => u.doneEarlier).map((u) => u.target),
  );
  const outputs = batch.units.flatMap((u) => batch.collected.get(u.target) ?? earlier.get(u.target) ?? []);
  if (outputs.length === 0) return;
  await writeRunManifest(batch.manifestPath, outputs, { version: ctx.version, startedMs, finishedMs: ctx.clock.now() });
}

/**
 * Folders still empty at the end are removed.
 * @returns the most severe exit code of the taxpayers
 * @throws {UsageError} (exit 2) before any request for invalid flags or ids, or an output an
 *   incremental export would narrow; {@link OutputError} (exit 7) before any request when a folder
 *   cannot be made or written, and when the run manifest cannot be written
 */
export async function runBatchExport(request: BatchRequest, ctx: Context): Promise<number> {
  const { flags } = request;
  const startedMs = ctx.clock.now();
  const batch = await planBatch(request, ctx);
  if (flags.dryRun === true) return runBatchDryRun(batch.units, flags.parallel ?? 1, ctx);
  const made = await prepareOutputs(batch.units.filter((u) => !u.doneEarlier).map((u) => u.plan));
  const reporter = createBatchReporter(ctx, { total: batch.units.length, quiet: flags.quiet === true, json: flags.logFormat === 'json' });
  const outcomes = await runUnits(batch, flags.parallel ?? 1, ctx, (o) => reporter.ended(o));
  await removeEmptyFolders(made);
  const code = mostSevere(outcomes.map((o) => o.code));
  reporter.finished(outcomes, code, batch.resumeCommand);
  await writeBatchManifest(batch, startedMs, ctx);
  return code;
}
