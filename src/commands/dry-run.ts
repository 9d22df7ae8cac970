/**
 * `--dry-run` of an export command (docs/progress.md, "Dry run"): the real run's checks before its
 * first request (folders, the output, its lock and checkpoint), writing nothing, and when they pass
 * the plan of the export on stdout (it is the command's output), with one light request
 * (`itemsPerPage=1`) to learn the total and the quota; when they fail, the real run's error and
 * exit code. Nothing is written (no folder, output, sidecar, checkpoint, lock or cache file).
 */
import type { Context } from '../context.js';
import { CollectionsError, ExitCode, toExitCode } from '../errors.js';
import type { ExportPlan } from '../export/run/plan.js';
import { checkExport } from '../export/run/run.js';
import type { OutputForecast } from '../export/run/services.js';
import type { CheckpointFound } from '../export/files/sidecar.js';
import type { LockFound } from '../export/files/output-lock.js';
import { formatCount } from '../io/format.js';
import { inertText } from '../io/terminal-text.js';
import { RUNS_TABLE } from '../export/destinations/schema.js';
import { tableText } from '../export/destinations/table-name.js';
import { mostSevere } from './batch-report.js';
import { estimateExport, estimateText, quotaText, type DryRunEstimate, type DryRunProbe } from './dry-run-estimate.js';
import { errorText } from './error-text.js';
import { planOutputs } from './folders.js';
import { createClient } from '../http/client.js';
import { requestHeaders } from '../export/run/services.js';
import { maskSecret } from '../http/redact.js';
import { fetchPage } from '../pagination/fetch-page.js';

/**
 * The request headers of the export, in the order they are sent: the key masked (`****abcd`), and so
 * is the value of a credential-like header of the user's (secrets.ts `showHeader`).
 */
function shownHeaders(plan: ExportPlan, ctx: Context): Array<[string, string]> {
  const extras = Object.entries(requestHeaders(plan.http, ctx)).map(([name, value]): [string, string] => [name, ctx.secrets.showHeader(name, value)]);
  return [['Accept', 'application/ld+json'], ['X-Api-Key', maskSecret(plan.http.apiKey)], ...extras, ...Object.entries(plan.pages.headers)];
}

/**
 * Sends the light request: the first page with `itemsPerPage=1` (`page=1` with `--page`, else no
 * `page`, as the export's first request), no retry. The time to the reset is the reset as a local
 * instant (corrected by the server's `Date`) minus when the response arrived (the API
 * documentation, rate limiting).
 * @throws what {@link fetchPage} throws (401/403 exit 3, 404 exit 4, network exit 6…)
 */
async function probeExport(plan: ExportPlan, ctx: Context): Promise<DryRunProbe> {
  const { http, pages } = plan;
  const url = new URL(pages.start.href);
  url.searchParams.set('itemsPerPage', '1');
  if (url.searchParams.has('page')) url.searchParams.set('page', '1');
  const client = createClient({
    baseUrl: http.baseUrl,
    apiKey: http.apiKey,
    fetch: ctx.fetch,
    clock: ctx.clock,
    random: ctx.random,
    retries: 0,
    timeoutMs: http.timeoutMs,
    maxBodyBytes: http.maxBodyBytes,
    maxWaitMs: http.maxWaitMs,
    headers: requestHeaders(http, ctx),
    secrets: ctx.secrets,
  });
  const fetched = await fetchPage(client, url, { headers: pages.headers });
  const probe: DryRunProbe = {};
  if (fetched.page.totalItems !== undefined) probe.totalItems = fetched.page.totalItems;
  const rl = fetched.rateLimit;
  if (rl?.limit !== undefined) probe.limit = rl.limit;
  if (rl?.remaining !== undefined) probe.remaining = rl.remaining;
  const reset = rl?.resetLocalAt ?? rl?.resetAt;
  if (rl !== undefined && reset !== undefined) probe.resetInMs = Math.max(0, reset - rl.observedAt);
  return probe;
}

/** What the real run's checks before its first request found, writing nothing. */
interface Preflight {
  /** Folders the run would create first. */
  create: readonly string[];
  /** Its output as opening it would find it. */
  forecast: OutputForecast;
}

/**
 * The real run's checks before its first request, in its order, writing nothing: those of
 * commands/folders.ts `prepareOutputs` and the folders it would make (`planOutputs`), then what the run checks
 * (export/run/run.ts `checkExport`: the environment, the output, its lock and checkpoint).
 * @throws the error the real run would stop with before any request (exit 2 or 7)
 */
async function preflight(plan: ExportPlan, ctx: Context): Promise<Preflight> {
  const folders = await planOutputs([plan]);
  return { create: folders.create, forecast: await checkExport(plan, ctx) };
}

/** Runs `check`; when it throws, says on stdout that the export would stop there, then rethrows. */
async function orStop<T>(check: () => Promise<T>, ctx: Context): Promise<T> {
  try {
    return await check();
  } catch (err) {
    ctx.io.stdout.write(`dry run: the export would stop before its first request (exit ${toExitCode(err)}); nothing was sent or written\n`);
    throw err;
  }
}

/** The checkpoint row: its path, and what the run would do with one that is there. */
function checkpointText(path: string, found: CheckpointFound | undefined): string {
  const shown = inertText(path);
  if (found?.kind === 'resume') {
    const { items, pages } = found.checkpoint;
    return `${shown} (--resume continues after ${formatCount(items)} items, ${formatCount(pages)} ${pages === 1 ? 'page' : 'pages'})`;
  }
  return found?.kind === 'discard' ? `${shown} (--restart discards it)` : shown;
}

/** The lock row: its path, and the holder of a stale lock the run would take over. */
function lockText(path: string, found: LockFound | undefined): string {
  const shown = inertText(path);
  if (found?.kind !== 'stale') return shown;
  const owner = found.owner === undefined ? '' : `, pid ${found.owner.pid} since ${found.owner.since}`;
  return inertText(`${shown} (stale${owner}: the run takes it over)`);
}

/** Where the export would write, the folders it would make, and what it would keep beside the output. */
function fileLines(plan: ExportPlan, { create, forecast }: Preflight): Array<[string, string]> {
  const { files, database } = plan.output;
  const folders = create.map((f, i): [string, string] => [i === 0 ? 'folders' : '', `${inertText(f)} (would be created)`]);
  if (database) {
    const where = inertText(`${tableText(database.table)} in ${database.address.shown}`);
    return [
      ['output', `table ${where}, upserted by ${database.key?.join('.') ?? 'id (else @id)'} (not connected by a dry run)`],
      ...folders,
      ['checkpoint', `in ${inertText(RUNS_TABLE)}, for ${inertText(database.source)}`],
      ['lock', database.address.kind === 'postgres' ? 'a PostgreSQL advisory lock on the table and source' : "DuckDB's lock on the file"],
    ];
  }
  if (!files || forecast.kind === 'stdout') return [['output', 'stdout'], ...folders, ['checkpoint', 'none (stdout)'], ['lock', 'none (stdout)']];
  const target = inertText(files.target);
  if (forecast.kind === 'device')
    return [['output', `${target} (FIFO or device, written straight through)`], ...folders, ['checkpoint', 'none'], ['lock', 'none']];
  return [
    ['output', target],
    ...folders,
    ['checkpoint', checkpointText(files.checkpoint, forecast.checkpoint)],
    ['lock', lockText(`${files.target}.lock`, forecast.lock)],
  ];
}

/** Items the checkpoint `--resume` would continue holds (0 without one). */
const doneItems = (forecast: OutputForecast | undefined): number =>
  forecast?.checkpoint?.kind === 'resume' ? forecast.checkpoint.checkpoint.items : 0;

const unknown = (value: string | undefined): string => value ?? 'unknown';

/** The estimate of a plan's export from its probe (pure wrapper of {@link estimateExport}). */
function estimateOf(plan: ExportPlan, probe: DryRunProbe, done: number): DryRunEstimate & { itemsPerPage: number } {
  const { start, mode, maxItems } = plan.pages;
  const itemsPerPage = Number(start.searchParams.get('itemsPerPage'));
  const firstPage = plan.pages.firstPage ?? 1;
  return { ...estimateExport(probe, itemsPerPage, firstPage, maxItems, mode === 'cursor', done), itemsPerPage };
}

/** `label: value` rows, labels padded to one width (an empty label continues the row above). */
function padRows(rows: ReadonlyArray<[string, string]>): string[] {
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => (k ? `${k}:` : '').padEnd(width) + v);
}

/** The rows every plan shares: headers (the key masked), mode and format. */
function commonRows(plan: ExportPlan, ctx: Context): Array<[string, string]> {
  const { pages } = plan;
  return [
    ...shownHeaders(plan, ctx).map(([k, v], i): [string, string] => [i === 0 ? 'headers' : '', `${k}: ${inertText(v)}`]),
    ['mode', pages.mode === 'offset' ? `offset (${pages.concurrency} ${pages.concurrency === 1 ? 'page' : 'pages'} in flight)` : 'cursor'],
    ['format', plan.output.format],
  ];
}

/** The items row: the output's items, and those a resumed checkpoint holds already. */
function itemsText(estimate: DryRunEstimate): string {
  if (estimate.items === undefined) return 'unknown';
  return `${formatCount(estimate.items)}${estimate.done === undefined ? '' : ` (${formatCount(estimate.done)} written before)`}`;
}

/** The lines of the plan, `label: value`, labels padded to one width. */
function planLines(plan: ExportPlan, ctx: Context, checked: Preflight, probe: DryRunProbe): string[] {
  const estimate = estimateOf(plan, probe, doneItems(checked.forecast));
  const toGo = estimate.done === undefined ? '' : ' to go';
  return padRows([
    ['request', `GET ${inertText(plan.pages.start.href)}`],
    ...commonRows(plan, ctx),
    ...fileLines(plan, checked),
    ['items', itemsText(estimate)],
    [
      'pages',
      unknown(estimate.pages === undefined ? undefined : `${formatCount(estimate.pages)} of ${formatCount(estimate.itemsPerPage)} items${toGo}`),
    ],
    ['quota', quotaText(probe)],
    ['estimate', estimateText(estimate.requests, probe)],
  ]);
}

/**
 * Runs a dry run of a validated export: the real run's checks before its first request (writing
 * nothing), then one light request and the plan on stdout. Records nothing in the rate-limit cache.
 * @returns 0
 * @throws what the real run would throw before its first request (a checkpoint left without
 *   `--resume`: exit 2; a folder that cannot be made, a live lock: exit 7), after a line on stdout
 *   saying so; what the light request throws (HttpError exit 3/4, ApiUnavailableError exit 6…)
 */
export async function runDryRun(plan: ExportPlan, ctx: Context): Promise<number> {
  const checked = await orStop(() => preflight(plan, ctx), ctx);
  const probe = await probeExport(plan, ctx);
  const lines = ['dry run: nothing was written; one request (itemsPerPage=1) was sent', ...planLines(plan, ctx, checked, probe)];
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return ExitCode.Ok;
}

/** One taxpayer of a run with many, as its dry run sees it. */
export interface DryRunUnit {
  taxpayer: string;
  plan: ExportPlan;
  /** `--resume` found it finished earlier: the run does nothing for it. */
  doneEarlier?: boolean;
}

/** What the dry run found of one taxpayer: its line, the exit code its export would have, and its light request's answer. */
interface UnitForecast {
  line: string;
  code: number;
  probe?: DryRunProbe;
  estimate?: DryRunEstimate;
}

/** A taxpayer's line: `A: GET <first request> → <file> (what)`. */
function unitLine(unit: DryRunUnit, what: string): string {
  const { database, files } = unit.plan.output;
  const to = database ? `${tableText(database.table)} in ${database.address.shown}` : (files?.target ?? 'stdout');
  return inertText(`${unit.taxpayer}: GET ${unit.plan.pages.start.href} → ${to} (${what})`);
}

/** `250 items, 1 page`, with the items a resumed checkpoint holds; `items unknown`. */
function countsText(estimate: DryRunEstimate): string {
  if (estimate.items === undefined) return 'items unknown';
  const pages = `${formatCount(estimate.pages ?? 0)} ${estimate.pages === 1 ? 'page' : 'pages'}`;
  if (estimate.done === undefined) return `${formatCount(estimate.items)} items, ${pages}`;
  return `${formatCount(estimate.items)} items, ${formatCount(estimate.done)} written before: ${pages} to go`;
}

/**
 * One taxpayer of a dry run with many, as its export would go: nothing to do when finished earlier;
 * the checks its export makes before its first request (a failure is that taxpayer's, as in the
 * run); then its light request (a 404 is its `not found, exit 4`).
 * @throws what its light request throws other than a 404
 */
async function dryRunUnit(unit: DryRunUnit, ctx: Context): Promise<UnitForecast> {
  if (unit.doneEarlier === true) return { line: unitLine(unit, 'done earlier, nothing to do'), code: ExitCode.Ok };
  let forecast: OutputForecast;
  try {
    forecast = await checkExport(unit.plan, ctx);
  } catch (err) {
    const code = toExitCode(err);
    return { line: unitLine(unit, `would fail, exit ${code}: ${errorText(err, ctx.secrets, { hint: false })}`), code };
  }
  try {
    const probe = await probeExport(unit.plan, ctx);
    const estimate = estimateOf(unit.plan, probe, doneItems(forecast));
    return { line: unitLine(unit, countsText(estimate)), code: ExitCode.Ok, probe, estimate };
  } catch (err) {
    if (!(err instanceof CollectionsError) || err.exitCode !== ExitCode.NotFound) throw err;
    return { line: unitLine(unit, 'not found, exit 4'), code: ExitCode.NotFound };
  }
}

/**
 * The dry run of a run with many taxpayers (docs/progress.md, "Dry run"): the folders the run
 * would make first (one that cannot be made stops it, as it stops the run), then per taxpayer, one
 * after the other, the checks its export makes and one light request; one line per taxpayer (its
 * first request, file, items and pages, or why it would fail or was done earlier), and the total
 * with its estimate (the requests of every taxpayer against the quota of the last answer: they
 * share the endpoint's budget). Writes nothing, makes no folder.
 * @returns the exit code the run would end with: the most severe of the taxpayers'
 * @throws what the run would throw before any request (exit 7 for a folder); what a light request
 *   throws other than a 404 (exit 3 for the key, 6 for the network…)
 */
export async function runBatchDryRun(units: readonly DryRunUnit[], parallel: number, ctx: Context): Promise<number> {
  await orStop(() => planOutputs(units.filter((u) => u.doneEarlier !== true).map((u) => u.plan)), ctx);
  const forecasts: UnitForecast[] = [];
  for (const unit of units) forecasts.push(await dryRunUnit(unit, ctx));
  const probe = forecasts.findLast((f) => f.probe !== undefined)?.probe ?? {};
  const estimates = forecasts.flatMap((f) => (f.estimate ? [f.estimate] : []));
  const items = estimates.some((e) => e.items === undefined) ? undefined : estimates.reduce((sum, e) => sum + (e.items ?? 0), 0);
  const pages = estimates.reduce((sum, e) => sum + (e.pages ?? 0), 0);
  const requests = estimates.reduce((sum, e) => sum + (e.requests ?? 0), 0);
  const sent = forecasts.filter((f) => f.probe !== undefined || f.code === ExitCode.NotFound).length;
  const head = `dry run: nothing was written; ${sent} ${sent === 1 ? 'request' : 'requests'} (itemsPerPage=1) ${sent === 1 ? 'was' : 'were'} sent, one per taxpayer`;
  const rows = padRows([
    ['taxpayers', `${formatCount(units.length)} (${parallel} at a time)`],
    ...commonRows(units[0]!.plan, ctx),
    ['total', items === undefined ? 'unknown' : `${formatCount(items)} items, ${formatCount(pages)} ${pages === 1 ? 'page' : 'pages'}`],
    ['quota', quotaText(probe)],
    ['estimate', estimateText(items === undefined ? undefined : requests, probe)],
  ]);
  ctx.io.stdout.write(`${[head, ...forecasts.map((f) => f.line), ...rows].join('\n')}\n`);
  return mostSevere(forecasts.map((f) => f.code));
}
