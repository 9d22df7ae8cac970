/**
 * The export engine: pages → formatter → destination (docs/files.md, "Files, checkpoints and `--resume`").
 * This module is the run loop; signals are in interrupt.ts, the sidecar file, its durability chain
 * and the checkpoint in sidecar.ts, stdout in destination.ts.
 */
import type { Context } from '../context.js';
import type { Endpoint } from '../endpoints.js';
import type { Client, ClientEvent, RateLimitSnapshot } from '../http/client.js';
import { createFormatter, type FormatterOptions, type OutputFormat } from '../output/writer.js';
import { BrokenPipeError } from '../output/stream-sink.js';
import { loadTableSupport } from '../output/table.js';
import { loadProgress, type Progress, type ProgressStats } from '../io/progress.js';
import type { LogFormat } from '../io/events.js';
import { outputColumns } from '../io/columns.js';
import { createInterrupt, type Interrupt } from './interrupt.js';
import { createExportClient } from './export-client.js';
import { openStdout, type Destination } from './destination.js';
import { lockTarget, openSidecar } from './sidecar.js';
import type { OutputLock } from './output-lock.js';
import { openDevice, outputKind, type OutputKind } from './device.js';
import type { FileSystem } from '../io/files.js';
import { withCompression, type CompressionOptions } from './gzip-destination.js';
import { addResumeHint } from './resume-hint.js';
import { createWatermarkTracker } from './watermark.js';
import { createManifestRecorder, type ManifestPlan } from './manifest.js';
import { pageSteps, remaining, writePages, type PageLoopPlan, type Tally } from './page-loop.js';
import { createCheckpointGroups, parseGroupMs, type CheckpointGroups } from './checkpoint-group.js';

/** Where a file export writes. */
export interface ExportFiles {
  /** The final file (`--out`), absolute. */
  target: string;
  /** The sidecar the export writes first, absolute. */
  sidecar: string;
  /** The checkpoint beside it, absolute. */
  checkpoint: string;
}

/** Everything an export needs, validated (commands/export.ts builds it from flags). */
export interface ExportPlan extends CompressionOptions, PageLoopPlan {
  endpoint: Endpoint;
  /** The output format and its options. */
  format: OutputFormat;
  formatter: FormatterOptions;
  /** First page, absolute, with `itemsPerPage`, `page` (offset mode) and `--param`s. */
  start: URL;
  /** Undefined for stdout. */
  files: ExportFiles | undefined;
  /** `--resume`. */
  resume: boolean;
  /** `--restart`: discard an existing checkpoint and start afresh. */
  restart: boolean;
  /** The manifest written when a file export completes (export/manifest.ts); undefined for stdout. */
  manifest?: ManifestPlan;
  /** The file system of the sidecar and checkpoint; tests inject write errors (default the real one). */
  fs?: FileSystem;
  /** Options that shape the output; stored in and compared with the checkpoint. */
  fingerprint: Record<string, unknown>;
  apiKey: string;
  retries: number;
  /** Per attempt, ms. */
  timeoutMs: number;
  /** `--max-body-size`: largest response body accepted, bytes (default the client's, 256 MiB). */
  maxBodyBytes?: number;
  /** Longest single rate-limit wait, ms (Infinity = any). */
  maxWaitMs: number;
  quiet: boolean;
  spinner: boolean;
  verbose: boolean;
  /** `--log-format`: `json` writes progress as JSON lines (io/events.ts); default `text`. */
  logFormat?: LogFormat;
  /** The command line to repeat with `--resume` (no key), for hints. */
  resumeCommand: string;
  /** `--state`: the state file (absolute) and this export's key in it (export/state.ts); undefined otherwise. */
  state?: { path: string; key: string };
  /** Observer of every client event; optional. */
  onClientEvent?: (event: ClientEvent) => void;
}

/** What an export did: what the summary and the rate-limit cache need. */
export interface ExportResult {
  /** Items, pages, responses, retries and waits, as counted by the progress reporter. */
  stats: ProgressStats;
  /** True when stopped early because the reader of stdout went away (exit 0). */
  brokenPipe: boolean;
  /** Requests sent: attempts, including retries and those that got no response (`Client.requests`). */
  requests: number;
  /** The rate-limit headers of the last page that had them; undefined when none did. */
  rateLimit?: RateLimitSnapshot;
}

/** The output lock of a file export: taken by {@link openDestination}, released when the run ends, whatever the ending. */
interface LockHolder {
  lock?: OutputLock;
}

/**
 * Opens stdout, a device or FIFO (written straight through), or the sidecar, before any request:
 * first the output lock (kept in `holder`; a lost lock stops the run at once through `interrupt`),
 * then the checkpoint is validated and read.
 */
async function openDestination(plan: ExportPlan, kind: OutputKind, ctx: Context, progress: Progress, interrupt: Interrupt, holder: LockHolder) {
  if (!plan.files || kind.type === 'stdout') return openStdout(ctx.io.stdout);
  const { target, sidecar, checkpoint } = plan.files;
  const { signal } = interrupt;
  if (kind.type === 'device') return openDevice({ target, info: kind.info, signal, clock: ctx.clock, ...(plan.fs ? { fs: plan.fs } : {}) });
  holder.lock = await lockTarget(target, {
    now: () => ctx.clock.now(),
    note: (line) => progress.note(line),
    onLost: (error) => interrupt.fail(error),
  });
  return openSidecar({
    held: holder.lock,
    target,
    sidecar,
    checkpoint,
    resume: plan.resume,
    restart: plan.restart,
    expectedLink: { origin: plan.baseUrl.origin, path: plan.start.pathname },
    fingerprint: plan.fingerprint,
    now: () => ctx.clock.now(),
    note: (line) => progress.note(line),
    ...(plan.fs ? { fs: plan.fs } : {}),
  });
}

/** The progress of an export: spinner and lines, or JSON events (io/progress.ts). */
function openProgress(plan: ExportPlan, ctx: Context): Promise<Progress> {
  const { io } = ctx;
  const { quiet, spinner, verbose, logFormat } = plan;
  return loadProgress({ stderr: io.stderr, isTTY: io.stderrIsTTY, env: ctx.env, clock: ctx.clock, quiet, spinner, verbose, logFormat });
}

/**
 * The plan with a client observer that commits the pages written so far before the client sleeps
 * (a rate-limit wait or a retry's backoff), so the checkpoint is current while nothing moves.
 */
function withCommitBeforeWaits(plan: ExportPlan, groups: CheckpointGroups): ExportPlan {
  return {
    ...plan,
    onClientEvent: (event) => {
      if (event.type === 'wait' || event.type === 'retry') groups.request();
      plan.onClientEvent?.(event);
    },
  };
}

/**
 * Runs an export to completion: opens the output before any request, then writes page after page,
 * made durable and checkpointed per group of pages (export/checkpoint-group.ts), and publishes the output at the end.
 * @returns the counts, requests and last rate-limit state; `brokenPipe` when the reader of stdout
 *   went away (the export ends quietly, exit 0)
 * @throws {CollectionsError} subclasses with their exit codes; {@link InterruptedError} on SIGINT /
 *   SIGTERM after the current write (checkpoint kept); errors after the first page keep the sidecar
 *   and checkpoint for `--resume` and carry the "resume with" hint.
 */
export async function runExport(plan: ExportPlan, ctx: Context): Promise<ExportResult> {
  const { stderr } = ctx.io;
  const progress = await openProgress(plan, ctx);
  const { endpoint, mode, format } = plan;
  progress.start({ command: endpoint.command, endpoint: endpoint.path, mode, format, destination: plan.files?.target ?? 'stdout' });
  const interrupt = createInterrupt(ctx, (signal) => {
    progress.stop();
    // The last checkpoint is consistent whatever is in flight (SIGKILL-safe), so it is kept.
    stderr.write(
      `collections: interrupted again by ${signal}; stopped at once${plan.files ? `; checkpoint kept; resume with: ${plan.resumeCommand} --resume` : ''}\n`,
    );
  });
  const tally: Tally = { items: 0, pages: 0, totalItems: undefined, pending: '', wrotePage: false, rateLimit: undefined };
  const manifest =
    plan.manifest && createManifestRecorder(plan.manifest, { clock: ctx.clock, version: ctx.version, ...(plan.fs ? { fs: plan.fs } : {}) });
  let out: Destination | undefined;
  let kind: OutputKind | undefined;
  let client: Client | undefined;
  const held: LockHolder = {};
  const watermark = createWatermarkTracker({
    state: plan.state,
    maxItems: plan.maxItems,
    now: () => ctx.clock.now(),
    note: (l) => progress.note(l),
    manifest,
  });
  const result = (brokenPipe: boolean): ExportResult => ({
    stats: progress.stats,
    brokenPipe,
    requests: client?.requests ?? 0,
    ...(tally.rateLimit ? { rateLimit: tally.rateLimit } : {}),
  });
  try {
    const groupMs = parseGroupMs(ctx.env);
    kind = await outputKind(plan);
    out = watermark.wrap(await withCompression(await openDestination(plan, kind, ctx, progress, interrupt, held), plan.compress));
    if (manifest) out = manifest.observe(out, progress.stats);
    const resumed = out.resumed;
    if (plan.format === 'table') await loadTableSupport();
    // CSV keys first seen after the header are named on stderr (once each, also across a resume);
    // the table fits the terminal's width when there is one.
    const warn = plan.formatter.warn ?? ((m: string) => progress.note(`collections: ${m}`));
    const formatter = createFormatter(
      plan.format,
      { ...plan.formatter, columns: plan.formatter.columns ?? outputColumns(ctx.io, ctx.env), warn },
      resumed?.formatter,
    );
    if (resumed) Object.assign(tally, { items: resumed.items, pages: resumed.pages, totalItems: resumed.totalItems });
    else tally.pending = formatter.begin();
    progress.onPage(tally.items, tally.pages, tally.totalItems);
    const groups = createCheckpointGroups({ out, clock: ctx.clock, groupMs });
    client = createExportClient(withCommitBeforeWaits(plan, groups), ctx, progress, interrupt.signal);
    const startFrom = resumed ? resumed.next : plan.start.href;
    if (startFrom !== null && remaining(plan, tally) > 0) {
      const steps = watermark.observe(pageSteps(plan, client, new URL(startFrom), tally));
      await writePages(steps, { plan, formatter, out, progress, interrupt, tally, manifest, groups });
    }
    await out.settle();
    interrupt.throwIfStopped();
    await out.finish(tally.pending + formatter.end());
    await watermark.commit(tally.items);
    progress.done(out.name);
    return result(false);
  } catch (err) {
    progress.stop();
    await out?.abort(tally.wrotePage);
    if (err instanceof BrokenPipeError) return result(true);
    const resumable = tally.wrotePage || out?.resumed !== undefined;
    const device = kind?.type === 'device';
    throw addResumeHint(err, { toFile: plan.files !== undefined && !device, device, resumable, resumeCommand: plan.resumeCommand });
  } finally {
    // After the manifest and the state file, so the lock covers every file of the run.
    await held.lock?.release();
    interrupt.release();
  }
}
