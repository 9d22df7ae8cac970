/** The export engine: pages → formatter → destination. */
import { setFlagsFromString } from 'node:v8';
import type { Context } from '../../context.js';
import type { CollectionsError } from '../../errors.js';
import type { Client, ClientEvent, RateLimitSnapshot } from '../../http/client.js';
import { BrokenPipeError } from '../../output/stream-sink.js';
import { loadProgress } from '../../io/progress.js';
import type { ModeNote, Progress, ProgressStats } from '../../io/events.js';
import { addResumeHint, createInterrupt } from './interrupt.js';
import type { Destination } from '../files/destination.js';
import { createWatermarkTracker, type WatermarkTracker } from '../state/state.js';
import type { ManifestRecorder } from '../manifest/manifest.js';
import { createCheckpointGroups, parseGroupMs, remaining, writePages, type Tally } from './page-loop.js';
import type { ClientWiring, ExportHooks, ExportPlan, ExportServices } from './plan.js';
import { checkOutput, type OutputForecast } from './services.js';
import { followDeletions } from './deletions.js';

/** What the summary and the rate-limit cache need. */
export interface ExportResult {
  stats: ProgressStats;
  /** True when stopped early because the reader of stdout went away (exit 0). */
  brokenPipe: boolean;
  /** Requests sent: attempts, including retries and those that got no response (`Client.requests`). */
  requests: number;
  rateLimit?: RateLimitSnapshot;
}

function openProgress(plan: ExportPlan, ctx: Context): Promise<Progress> {
  const { quiet, spinner, verbose, logFormat } = plan.progress;
  return loadProgress({ stderr: ctx.io.stderr, isTTY: ctx.io.stderrIsTTY, env: ctx.env, clock: ctx.clock, quiet, spinner, verbose, logFormat });
}

/** The watermark of the run: the state file's (`--state`), a database's, or none. */
function openWatermark(plan: ExportPlan, ctx: Context, progress: Progress, manifest: ManifestRecorder | undefined): WatermarkTracker {
  const { database } = plan.output;
  return createWatermarkTracker({
    state: plan.state,
    maxItems: plan.pages.maxItems,
    now: () => ctx.clock.now(),
    note: (l) => progress.note(l),
    manifest,
    inDestination: database && { stores: database.storeWatermark, where: `the watermark stored with ${database.table.name}` },
  });
}

/** Progress hears every client event first, then each listener in order. */
export function clientWiring(progress: Progress, signal: AbortSignal, ...listeners: Array<((event: ClientEvent) => void) | undefined>): ClientWiring {
  return {
    signal,
    onEvent: (event) => {
      progress.onClientEvent(event);
      for (const listener of listeners) listener?.(event);
    },
    // Only waits taken count (summaries, manifest): one aborted before it began is none; one cut counts the time waited.
    onWaitCut: (cut) => {
      const { stats } = progress;
      stats.waitMs = Math.max(0, stats.waitMs - cut.ms);
      if (!cut.begun) stats.waits = Math.max(0, stats.waits - 1);
    },
  };
}

/** The destination as the progress events name it: the table's database, the file, or stdout. */
function destinationText(plan: ExportPlan): string {
  const { files, database } = plan.output;
  return database ? database.address.shown : (files?.target ?? 'stdout');
}

/**
 * Opens the output before any request, writes page after page, checkpointed per group, and publishes.
 * @throws {CollectionsError} subclasses; {@link InterruptedError} on SIGINT / SIGTERM after the current
 *   write; errors after the first page keep the checkpoint and carry the "resume with" hint.
 */
export async function runExport(plan: ExportPlan, ctx: Context, services: ExportServices, hooks: ExportHooks = {}): Promise<ExportResult> {
  const { endpoint, pages, resume } = plan;
  const { files, format, database } = plan.output;
  // CSV, table and `--fields` make many young objects (the values): the young generation may grow again (cli/main.ts `run()`).
  if ((format !== 'ndjson' && format !== 'json') || plan.output.formatter.fields?.length) setFlagsFromString('--semi-space-growth-factor=2');
  const progress = await openProgress(plan, ctx);
  progress.start({ command: endpoint.command, endpoint: endpoint.path, mode: pages.mode, format, destination: destinationText(plan) });
  for (const line of plan.notes ?? []) progress.note(line);
  const interrupt = createInterrupt(ctx, (signal) => {
    progress.stop();
    // The last checkpoint is consistent whatever is in flight (SIGKILL-safe), so it is kept.
    ctx.io.stderr.write(
      `collections: interrupted again by ${signal}; stopped at once${files || database ? `; checkpoint kept; resume with: ${resume.command} --resume` : ''}\n`,
    );
  });
  const tally: Tally = { items: 0, pages: 0, totalItems: undefined, pending: '', wrotePage: false, rateLimit: undefined };
  const manifest = services.openManifest(hooks.onManifest);
  let out: Destination | undefined;
  let client: Client | undefined;
  const output = services.openOutput({
    signal: interrupt.signal,
    note: (line) => progress.note(line),
    onLost: (error) => interrupt.fail(error),
    stats: () => ({ ...progress.stats, requests: client?.requests ?? progress.stats.requests }),
  });
  const watermark = openWatermark(plan, ctx, progress, manifest);
  // Complete but not whole (a database kept items apart): thrown after the summary, with no resume hint.
  let apart: CollectionsError | undefined;
  const result = (brokenPipe: boolean): ExportResult => ({
    stats: progress.stats,
    brokenPipe,
    requests: client?.requests ?? 0,
    ...(tally.rateLimit ? { rateLimit: tally.rateLimit } : {}),
  });
  try {
    const groupMs = parseGroupMs(ctx.env);
    out = watermark.wrap(await output.open());
    const resumed = out.resumed;
    const formatter = await services.openFormatter(resumed?.formatter, (line) => progress.note(line));
    if (resumed) Object.assign(tally, { items: resumed.items, pages: resumed.pages, totalItems: resumed.totalItems });
    else tally.pending = formatter.begin();
    progress.onPage(tally.items, tally.pages, tally.totalItems);
    const groups = createCheckpointGroups({ out, clock: ctx.clock, groupMs });
    // Before the client sleeps (a rate-limit wait, a retry's backoff), the checkpoint is brought up to date.
    const commitBeforeWaits = (event: ClientEvent): void => {
      if (event.type === 'wait' || event.type === 'retry') groups.request();
    };
    client = services.openClient(clientWiring(progress, interrupt.signal, commitBeforeWaits, hooks.onClientEvent));
    const startFrom = resumed ? resumed.next : pages.start.href;
    if (startFrom !== null && remaining(pages, tally) > 0) {
      // A checkpoint written before modes were recorded is of the mode asked for: those versions never changed it.
      const source = { tally, resumedMode: resumed ? (resumed.mode ?? pages.mode) : undefined, onMode: (n: ModeNote) => progress.modeChanged(n) };
      const steps = watermark.observe(services.openPages(client, new URL(startFrom), source));
      await writePages(steps, { plan: pages, onPageFetched: hooks.onPageFetched, formatter, out, progress, interrupt, tally, manifest, groups });
    }
    await out.settle();
    interrupt.throwIfStopped();
    await followDeletions(plan, { client, interrupt, out, manifest, note: (line) => progress.note(line) });
    watermark.finishing(out, tally.items);
    await out.finish(tally.pending + formatter.end());
    await manifest?.write(out, progress.stats);
    await watermark.commit(tally.items);
    progress.done(out.name, out.deleted);
    apart = out.keptApart?.();
    if (apart === undefined) return result(false);
  } catch (err) {
    progress.stop();
    await out?.abort(tally.wrotePage);
    if (err instanceof BrokenPipeError) return result(true);
    const { device } = output;
    const toFile = (files !== undefined || database !== undefined) && !device;
    throw addResumeHint(err, { toFile, device, resumable: tally.wrotePage || out?.resumed !== undefined, resumeCommand: resume.command });
  } finally {
    // After the manifest and the state file, so the lock covers every file of the run.
    await output.release();
    interrupt.release();
  }
  throw apart;
}

/** {@link runExport}'s checks before a request, in order, writing nothing (the dry run's). @throws as it would, same exit code */
export async function checkExport(plan: ExportPlan, ctx: Pick<Context, 'env'>): Promise<OutputForecast> {
  parseGroupMs(ctx.env);
  return checkOutput(plan, ctx.env);
}
