/**
 * `--dry-run` of an export command (docs/progress.md, "Dry run"): the plan of a validated export printed on
 * stdout (it is the command's output), with one light request (`itemsPerPage=1`) to learn the total
 * and the quota; nothing is written (no output, sidecar, checkpoint, lock or cache file).
 */
import type { Context } from '../context.js';
import { CollectionsError, ExitCode } from '../errors.js';
import type { ExportPlan } from '../export/run/plan.js';
import { formatCount, formatDuration } from '../io/format.js';
import { statOrUndefined } from '../io/files.js';
import { inertText } from '../io/terminal-text.js';
import { createClient } from '../http/client.js';
import { requestHeaders } from '../export/run/export-client.js';
import { maskSecret } from '../http/redact.js';
import { fetchPage } from '../pagination/fetch-page.js';

/** What the light request told: the total when the API sent one, and the quota of its window. */
export interface DryRunProbe {
  /** `hydra:totalItems`, when sent. */
  totalItems?: number;
  /** `X-RateLimit-Limit`: requests per window. */
  limit?: number;
  /** `X-RateLimit-Remaining`. */
  remaining?: number;
  /** Window length estimate, ms: `X-RateLimit-Reset` minus the response's `Date`. */
  windowMs?: number;
}

/** The work an export would do, from a {@link DryRunProbe}: `undefined` where it is unknown. */
export interface DryRunEstimate {
  /** Items the export would write (`--max-items` and the first `--page` taken into account). */
  items?: number;
  /** Requests of `itemsPerPage` items it would send. */
  pages?: number;
  /** pages / limit per window × window length, ms. */
  durationMs?: number;
}

/**
 * The items, pages and time an export would take (pure).
 * @param itemsPerPage items per page of the real export
 * @param firstPage first page in offset mode (1 in cursor mode)
 */
export function estimateExport(probe: DryRunProbe, itemsPerPage: number, firstPage: number, maxItems: number | undefined): DryRunEstimate {
  const out: DryRunEstimate = {};
  if (probe.totalItems === undefined) return out;
  const left = Math.max(0, probe.totalItems - (firstPage - 1) * itemsPerPage);
  const items = maxItems === undefined ? left : Math.min(left, maxItems);
  const pages = Math.max(1, Math.ceil(items / itemsPerPage));
  out.items = items;
  out.pages = pages;
  if (probe.limit !== undefined && probe.limit > 0 && probe.windowMs !== undefined && probe.windowMs > 0) {
    out.durationMs = (pages / probe.limit) * probe.windowMs;
  }
  return out;
}

/**
 * The request headers of the export, in the order they are sent: the key masked (`****abcd`), and so
 * is the value of a credential-like header of the user's (secrets.ts `showHeader`).
 */
function shownHeaders(plan: ExportPlan, ctx: Context): Array<[string, string]> {
  const extras = Object.entries(requestHeaders(plan.http, ctx)).map(([name, value]): [string, string] => [name, ctx.secrets.showHeader(name, value)]);
  return [['Accept', 'application/ld+json'], ['X-Api-Key', maskSecret(plan.http.apiKey)], ...extras, ...Object.entries(plan.pages.headers)];
}

/**
 * Sends the light request: the first page with `itemsPerPage=1` (page 1 in offset mode), no retry.
 * The window length is the reset as a local instant (corrected by the server's `Date`) minus when
 * the response arrived, i.e. `X-RateLimit-Reset` − `Date` (the API documentation, rate limiting).
 * @throws what {@link fetchPage} throws (401/403 exit 3, 404 exit 4, network exit 6…)
 */
async function probeExport(plan: ExportPlan, ctx: Context): Promise<DryRunProbe> {
  const { http, pages } = plan;
  const url = new URL(pages.start.href);
  url.searchParams.set('itemsPerPage', '1');
  if (pages.mode === 'offset') url.searchParams.set('page', '1');
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
  if (rl !== undefined && reset !== undefined && reset > rl.observedAt) probe.windowMs = reset - rl.observedAt;
  return probe;
}

/** Where the export would write, and what it would keep beside the output. */
async function fileLines(plan: ExportPlan): Promise<Array<[string, string]>> {
  const { files } = plan.output;
  if (!files)
    return [
      ['output', 'stdout'],
      ['checkpoint', 'none (stdout)'],
      ['lock', 'none (stdout)'],
    ];
  const info = await statOrUndefined(files.target);
  const device = info !== undefined && !info.isFile() && !info.isDirectory();
  const target = inertText(files.target);
  if (device)
    return [
      ['output', `${target} (FIFO or device, written straight through)`],
      ['checkpoint', 'none'],
      ['lock', 'none'],
    ];
  return [
    ['output', target],
    ['checkpoint', inertText(files.checkpoint)],
    ['lock', `${target}.lock`],
  ];
}

const unknown = (value: string | undefined): string => value ?? 'unknown';

/** The quota a probe saw: `60 requests per 1m, 57 left`, or `unknown`. */
function quotaText(probe: DryRunProbe): string {
  if (probe.limit === undefined) return 'unknown';
  const window = probe.windowMs === undefined ? 'window of unknown length' : formatDuration(probe.windowMs);
  return `${formatCount(probe.limit)} requests per ${window}${probe.remaining === undefined ? '' : `, ${formatCount(probe.remaining)} left`}`;
}

/** The estimate of a plan's export from its probe (pure wrapper of {@link estimateExport}). */
function estimateOf(plan: ExportPlan, probe: DryRunProbe): DryRunEstimate & { itemsPerPage: number } {
  const { start, mode, maxItems } = plan.pages;
  const itemsPerPage = Number(start.searchParams.get('itemsPerPage'));
  const firstPage = mode === 'offset' ? Number(start.searchParams.get('page')) : 1;
  return { ...estimateExport(probe, itemsPerPage, firstPage, maxItems), itemsPerPage };
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

/** The lines of the plan, `label: value`, labels padded to one width. */
function planLines(plan: ExportPlan, ctx: Context, files: Array<[string, string]>, probe: DryRunProbe): string[] {
  const estimate = estimateOf(plan, probe);
  return padRows([
    ['request', `GET ${inertText(plan.pages.start.href)}`],
    ...commonRows(plan, ctx),
    ...files,
    ['items', unknown(estimate.items === undefined ? undefined : formatCount(estimate.items))],
    ['pages', unknown(estimate.pages === undefined ? undefined : `${formatCount(estimate.pages)} of ${formatCount(estimate.itemsPerPage)} items`)],
    ['quota', quotaText(probe)],
    ['estimate', unknown(estimate.durationMs === undefined ? undefined : `${formatDuration(estimate.durationMs)} at the current quota`)],
  ]);
}

/**
 * Runs a dry run of a validated export: one light request, then the plan on stdout. Writes no file
 * and records nothing in the rate-limit cache.
 * @returns 0
 * @throws what the light request throws (HttpError exit 3/4, ApiUnavailableError exit 6…)
 */
export async function runDryRun(plan: ExportPlan, ctx: Context): Promise<number> {
  const files = await fileLines(plan);
  const probe = await probeExport(plan, ctx);
  const lines = ['dry run: nothing was written; one request (itemsPerPage=1) was sent', ...planLines(plan, ctx, files, probe)];
  ctx.io.stdout.write(`${lines.join('\n')}\n`);
  return ExitCode.Ok;
}

/** One taxpayer of a run with many, as its dry run sees it. */
export interface DryRunUnit {
  taxpayer: string;
  plan: ExportPlan;
}

/** A taxpayer's line: `A: GET <first request> → <file> (250 items, 1 page)`, or `not found`. */
function unitLine(unit: DryRunUnit, estimate: DryRunEstimate | undefined): string {
  const counts =
    estimate === undefined
      ? 'not found, exit 4'
      : estimate.items === undefined
        ? 'items unknown'
        : `${formatCount(estimate.items)} items, ${formatCount(estimate.pages ?? 0)} ${estimate.pages === 1 ? 'page' : 'pages'}`;
  return inertText(`${unit.taxpayer}: GET ${unit.plan.pages.start.href} → ${unit.plan.output.files?.target ?? 'stdout'} (${counts})`);
}

/**
 * The dry run of a run with many taxpayers (docs/progress.md, "Dry run"): one light request per taxpayer, one
 * after the other, then one line per taxpayer (first request, file, items) and the total with its
 * estimate (the pages of every taxpayer at the quota of the last answer: they share the endpoint's
 * budget). A taxpayer the API does not know is named on its line; the others are still planned.
 * Writes nothing, makes no folder.
 * @returns 0, or 4 when a taxpayer was not found
 * @throws what a light request throws other than a 404 (exit 3 for the key, 6 for the network…)
 */
export async function runBatchDryRun(units: readonly DryRunUnit[], parallel: number, ctx: Context): Promise<number> {
  const lines: string[] = [];
  let probe: DryRunProbe = {};
  let items: number | undefined = 0;
  let pages = 0;
  let code: number = ExitCode.Ok;
  for (const unit of units) {
    let estimate: (DryRunEstimate & { itemsPerPage: number }) | undefined;
    try {
      probe = await probeExport(unit.plan, ctx);
      estimate = estimateOf(unit.plan, probe);
    } catch (err) {
      if (!(err instanceof CollectionsError) || err.exitCode !== ExitCode.NotFound) throw err;
      code = ExitCode.NotFound;
    }
    if (estimate !== undefined) {
      items = items === undefined || estimate.items === undefined ? undefined : items + estimate.items;
      pages += estimate.pages ?? 0;
    }
    lines.push(unitLine(unit, estimate));
  }
  const first = units[0]!.plan;
  const durationMs =
    probe.limit !== undefined && probe.limit > 0 && probe.windowMs !== undefined ? (pages / probe.limit) * probe.windowMs : undefined;
  const n = units.length;
  const head = `dry run: nothing was written; ${n} requests (itemsPerPage=1) were sent, one per taxpayer`;
  const rows = padRows([
    ['taxpayers', `${formatCount(n)} (${parallel} at a time)`],
    ...commonRows(first, ctx),
    ['total', items === undefined ? 'unknown' : `${formatCount(items)} items, ${formatCount(pages)} ${pages === 1 ? 'page' : 'pages'}`],
    ['quota', quotaText(probe)],
    ['estimate', items === undefined || durationMs === undefined ? 'unknown' : `${formatDuration(durationMs)} at the current quota`],
  ]);
  ctx.io.stdout.write(`${[head, ...lines, ...rows].join('\n')}\n`);
  return code;
}
