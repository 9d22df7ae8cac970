/**
 * `--dry-run` (docs/progress.md, "Dry run"): the real run's checks before its first request, then
 * the plan on stdout with one `itemsPerPage=1` request for the total and the quota. Nothing is
 * written: no folder, output, sidecar, checkpoint, lock or cache file.
 */
import type { Context } from '../../context.js';
import { CollectionsError, ExitCode, toExitCode } from '../../errors.js';
import type { ExportPlan } from '../../export/run/plan.js';
import { checkExport } from '../../export/run/run.js';
import type { OutputForecast } from '../../export/run/services.js';
import type { CheckpointFound } from '../../export/files/sidecar.js';
import type { LockFound } from '../../export/files/output-lock.js';
import { formatCount, formatTimeLeft } from '../../io/format.js';
import { inertText } from '../../io/terminal-text.js';
import { RUNS_TABLE } from '../../export/destinations/schema.js';
import { tableText } from '../../export/destinations/table-name.js';
import { mostSevere } from './batch-report.js';
import { errorText } from '../error-text.js';
import { prepareOutputs } from '../../export/plan/folders.js';
import { exportClient, requestHeaders } from '../../export/run/services.js';
import { maskSecret } from '../../http/redact.js';
import { fetchPage } from '../../pagination/fetch-page.js';
import { defined } from '../../json/object.js';

/**
 * One response never shows the window's length (`X-RateLimit-Reset` is when the current window
 * ends, and a run starts at any point of it), so none is derived from it.
 */
export interface DryRunProbe {
  totalItems?: number;
  limit?: number;
  remaining?: number;
  /** `X-RateLimit-Reset` as a local instant less when the response came, ms. */
  resetInMs?: number;
}

interface QuotaForecast {
  /** Requests the current window still allows. */
  now: number;
  /** Windows after the current one the other requests need (0: no rate-limit wait). */
  windows: number;
  limit: number;
  /** ms */
  resetInMs?: number;
}

/** `undefined` where unknown. */
interface DryRunEstimate {
  /** `--max-items` and the first `--page` taken into account. */
  items?: number;
  pages?: number;
  /** The pages, and in cursor mode the empty page that ends the chain. */
  requests?: number;
  /** Held by the checkpoint `--resume` continues; not fetched again. */
  done?: number;
}

/**
 * @param firstPage 1 in cursor mode
 * @param done held by the checkpoint `--resume` continues: only the pages after them are fetched
 */
export function estimateExport(
  probe: DryRunProbe,
  itemsPerPage: number,
  firstPage: number,
  maxItems: number | undefined,
  cursor = false,
  done = 0,
): DryRunEstimate {
  if (probe.totalItems === undefined) return {};
  const left = Math.max(0, probe.totalItems - (firstPage - 1) * itemsPerPage);
  const items = maxItems === undefined ? left : Math.min(left, maxItems);
  const pages = done > 0 ? Math.ceil(Math.max(0, items - done) / itemsPerPage) : Math.max(1, Math.ceil(items / itemsPerPage));
  // A cursor chain ends on its first empty page, unless --max-items stops the export first.
  const requests = pages + (cursor && (maxItems === undefined || maxItems > left) ? 1 : 0);
  return { items, pages, requests, ...(done > 0 ? { done } : {}) };
}

/** Those the window has left go now, the others wait for its reset and then `limit` a window. */
export function forecastQuota(requests: number, probe: DryRunProbe): QuotaForecast | undefined {
  const { limit, remaining, resetInMs } = probe;
  if (limit === undefined || remaining === undefined || limit <= 0) return undefined;
  const now = Math.min(requests, Math.max(0, remaining));
  return { now, windows: Math.ceil((requests - now) / limit), limit, ...(resetInMs === undefined ? {} : { resetInMs }) };
}

/** `60 requests, 57 left, resets in 3s`, or `unknown`. */
function quotaText(probe: DryRunProbe): string {
  if (probe.limit === undefined) return 'unknown';
  const left = probe.remaining === undefined ? '' : `, ${formatCount(probe.remaining)} left`;
  const reset = probe.resetInMs === undefined ? '' : `, resets in ${formatTimeLeft(probe.resetInMs)}`;
  return `${formatCount(probe.limit)} ${probe.limit === 1 ? 'request' : 'requests'}${left}${reset}`;
}

const plural = (n: number, one: string, many: string): string => `${formatCount(n)} ${n === 1 ? one : many}`;

/** Never a made-up duration: no response tells a window's length. */
function estimateText(requests: number | undefined, probe: DryRunProbe): string {
  if (requests === undefined) return 'unknown';
  const forecast = forecastQuota(requests, probe);
  if (forecast === undefined) return `unknown (${plural(requests, 'request', 'requests')}, no rate-limit headers)`;
  const all = plural(requests, 'request', 'requests');
  if (forecast.windows === 0) return `no rate-limit wait: the ${all} fit in the ${formatCount(probe.remaining ?? 0)} left`;
  const reset = forecast.resetInMs === undefined ? 'the reset' : `the reset in ${formatTimeLeft(forecast.resetInMs)}`;
  const head = `${all}: ${formatCount(forecast.now)} now, ${formatCount(requests - forecast.now)}`;
  if (forecast.windows === 1) {
    const text = `${head} after ${reset}`;
    return forecast.resetInMs === undefined ? text : `at least ${formatTimeLeft(forecast.resetInMs)}: ${text}`;
  }
  return `${head} in ${formatCount(forecast.windows)} more windows of ${formatCount(forecast.limit)} after ${reset}; no time given (no response tells a window's length)`;
}

/** In the order they are sent, the key and credential-like values masked. */
function shownHeaders(plan: ExportPlan, ctx: Context): Array<[string, string]> {
  const extras = Object.entries(requestHeaders(plan.http, ctx)).map(([name, value]): [string, string] => [name, ctx.secrets.showHeader(name, value)]);
  return [['Accept', 'application/ld+json'], ['X-Api-Key', maskSecret(plan.http.apiKey)], ...extras, ...Object.entries(plan.pages.headers)];
}

/**
 * `page=1` only with `--page`, as the export's first request; no retry.
 * @throws what {@link fetchPage} throws (401/403 exit 3, 404 exit 4, network exit 6…)
 */
async function probeExport(plan: ExportPlan, ctx: Context): Promise<DryRunProbe> {
  const { http, pages } = plan;
  const url = new URL(pages.start.href);
  url.searchParams.set('itemsPerPage', '1');
  if (url.searchParams.has('page')) url.searchParams.set('page', '1');
  const client = exportClient({ ...http, retries: 0 }, ctx);
  const fetched = await fetchPage(client, url, { headers: pages.headers });
  const rl = fetched.rateLimit;
  const reset = rl?.resetLocalAt ?? rl?.resetAt;
  return defined({
    totalItems: fetched.page.totalItems,
    limit: rl?.limit,
    remaining: rl?.remaining,
    resetInMs: rl === undefined || reset === undefined ? undefined : Math.max(0, reset - rl.observedAt),
  });
}

interface Preflight {
  /** Folders the run would create first. */
  create: readonly string[];
  forecast: OutputForecast;
}

async function orStop<T>(check: () => Promise<T>, ctx: Context): Promise<T> {
  try {
    return await check();
  } catch (err) {
    ctx.io.stdout.write(`dry run: the export would stop before its first request (exit ${toExitCode(err)}); nothing was sent or written\n`);
    throw err;
  }
}

const continuesText = ({ items, pages }: { items: number; pages: number }): string =>
  ` (--resume continues after ${formatCount(items)} items, ${plural(pages, 'page', 'pages')})`;

function checkpointText(path: string, found: CheckpointFound | undefined): string {
  const shown = inertText(path);
  if (found?.kind === 'resume') return `${shown}${continuesText(found.checkpoint)}`;
  if (found?.kind === 'published') return `${shown} (left after the export was published; --resume exports afresh)`;
  return found?.kind === 'discard' ? `${shown} (--restart discards it)` : shown;
}

function lockText(path: string, found: LockFound | undefined): string {
  const shown = inertText(path);
  if (found?.kind !== 'stale') return shown;
  const owner = found.owner === undefined ? '' : `, pid ${found.owner.pid} since ${found.owner.since}`;
  return inertText(`${shown} (stale${owner}: the run takes it over)`);
}

/** Rows of a database destination, as the read-only look found it (`forecast.database`). */
function databaseLines(plan: ExportPlan, folders: Array<[string, string]>, forecast: OutputForecast): Array<[string, string]> {
  const database = plan.output.database!;
  const found = forecast.database;
  const where = inertText(`${tableText(database.table)} in ${database.address.shown}`);
  const creates = found?.creates === 'file' ? ' (the file and the table would be created)' : found?.creates === 'table' ? ' (would be created)' : '';
  const continues =
    found?.resumes !== undefined ? continuesText(found.resumes) : plan.resume.resume ? ' (nothing to continue: --resume starts afresh)' : '';
  return [
    ['output', `table ${where}, upserted by ${database.key?.join('.') ?? 'id (else @id)'}${creates}`],
    ...folders,
    ['checkpoint', `in ${inertText(RUNS_TABLE)}, for ${inertText(database.source)}${continues}`],
    ['lock', `${database.address.kind === 'postgres' ? 'a PostgreSQL advisory lock on the table and source' : "DuckDB's lock on the file"} (free)`],
  ];
}

function fileLines(plan: ExportPlan, { create, forecast }: Preflight): Array<[string, string]> {
  const { files, database } = plan.output;
  const folders = create.map((f, i): [string, string] => [i === 0 ? 'folders' : '', `${inertText(f)} (would be created)`]);
  if (database) return databaseLines(plan, folders, forecast);
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

/** The items of the checkpoint `--resume` continues (a file's or a table's) are not fetched again. */
function estimateOf(plan: ExportPlan, probe: DryRunProbe, forecast: OutputForecast): DryRunEstimate & { itemsPerPage: number } {
  const { start, mode, maxItems, firstPage = 1 } = plan.pages;
  const itemsPerPage = Number(start.searchParams.get('itemsPerPage'));
  const done = forecast.checkpoint?.kind === 'resume' ? forecast.checkpoint.checkpoint.items : (forecast.database?.resumes?.items ?? 0);
  return { ...estimateExport(probe, itemsPerPage, firstPage, maxItems, mode === 'cursor', done), itemsPerPage };
}

/** An empty label continues the row above. */
function padRows(rows: ReadonlyArray<[string, string]>): string[] {
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => (k ? `${k}:` : '').padEnd(width) + v);
}

function commonRows(plan: ExportPlan, ctx: Context): Array<[string, string]> {
  const { pages } = plan;
  return [
    ...shownHeaders(plan, ctx).map(([k, v], i): [string, string] => [i === 0 ? 'headers' : '', `${k}: ${inertText(v)}`]),
    ['mode', pages.mode === 'offset' ? `offset (${pages.concurrency} ${pages.concurrency === 1 ? 'page' : 'pages'} in flight)` : 'cursor'],
    ['format', plan.output.format],
  ];
}

function itemsText(estimate: DryRunEstimate): string {
  if (estimate.items === undefined) return 'unknown';
  return `${formatCount(estimate.items)}${estimate.done === undefined ? '' : ` (${formatCount(estimate.done)} written before)`}`;
}

function planLines(plan: ExportPlan, ctx: Context, checked: Preflight, probe: DryRunProbe): string[] {
  const estimate = estimateOf(plan, probe, checked.forecast);
  const toGo = estimate.done === undefined ? '' : ' to go';
  return padRows([
    ['request', `GET ${inertText(plan.pages.start.href)}`],
    ...commonRows(plan, ctx),
    ...fileLines(plan, checked),
    ['items', itemsText(estimate)],
    ['pages', estimate.pages === undefined ? 'unknown' : `${formatCount(estimate.pages)} of ${formatCount(estimate.itemsPerPage)} items${toGo}`],
    ['quota', quotaText(probe)],
    ['estimate', estimateText(estimate.requests, probe)],
  ]);
}

/**
 * Records nothing in the rate-limit cache.
 * @throws what the real run would throw before its first request (a checkpoint left without
 *   `--resume`: exit 2; a folder that cannot be made, a live lock: exit 7), after a line on stdout
 *   saying so; what the light request throws (HttpError exit 3/4, ApiUnavailableError exit 6…)
 */
export async function runDryRun(plan: ExportPlan, ctx: Context): Promise<number> {
  // The real run's checks, in its order.
  const checked = await orStop(
    async (): Promise<Preflight> => ({ create: await prepareOutputs([plan], { dryRun: true }), forecast: await checkExport(plan, ctx) }),
    ctx,
  );
  const probe = await probeExport(plan, ctx);
  const lines = ['dry run: nothing was written; one request (itemsPerPage=1) was sent', ...planLines(plan, ctx, checked, probe)];
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return ExitCode.Ok;
}

export interface DryRunUnit {
  taxpayer: string;
  plan: ExportPlan;
  /** `--resume` found its output there without a checkpoint: finished earlier. */
  doneEarlier?: boolean;
}

interface UnitForecast {
  line: string;
  code: number;
  probe?: DryRunProbe;
  estimate?: DryRunEstimate;
}

function unitLine(unit: DryRunUnit, what: string): string {
  const { database, files } = unit.plan.output;
  const to = database ? `${tableText(database.table)} in ${database.address.shown}` : (files?.target ?? 'stdout');
  return inertText(`${unit.taxpayer}: GET ${unit.plan.pages.start.href} → ${to} (${what})`);
}

function countsText(estimate: DryRunEstimate): string {
  if (estimate.items === undefined) return 'items unknown';
  const pages = plural(estimate.pages ?? 0, 'page', 'pages');
  if (estimate.done === undefined) return `${formatCount(estimate.items)} items, ${pages}`;
  return `${formatCount(estimate.items)} items, ${formatCount(estimate.done)} written before: ${pages} to go`;
}

/** A failed check is that taxpayer's, as in the run. @throws what its light request throws other than a 404 */
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
    const estimate = estimateOf(unit.plan, probe, forecast);
    return { line: unitLine(unit, countsText(estimate)), code: ExitCode.Ok, probe, estimate };
  } catch (err) {
    if (!(err instanceof CollectionsError) || err.exitCode !== ExitCode.NotFound) throw err;
    return { line: unitLine(unit, 'not found, exit 4'), code: ExitCode.NotFound };
  }
}

/**
 * Taxpayers one after the other; the estimate sets every taxpayer's requests against the quota of
 * the last answer: they share the endpoint's budget.
 * @returns the most severe of the taxpayers' exit codes
 * @throws what the run would throw before any request (exit 7 for a folder); what a light request
 *   throws other than a 404 (exit 3 for the key, 6 for the network…)
 */
export async function runBatchDryRun(units: readonly DryRunUnit[], parallel: number, ctx: Context): Promise<number> {
  await orStop(
    () =>
      prepareOutputs(
        units.filter((u) => u.doneEarlier !== true).map((u) => u.plan),
        { dryRun: true },
      ),
    ctx,
  );
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
    ['total', items === undefined ? 'unknown' : `${formatCount(items)} items, ${plural(pages, 'page', 'pages')}`],
    ['quota', quotaText(probe)],
    ['estimate', estimateText(items === undefined ? undefined : requests, probe)],
  ]);
  ctx.io.stdout.write(`${[head, ...forecasts.map((f) => f.line), ...rows].join('\n')}\n`);
  return mostSevere(forecasts.map((f) => f.code));
}
