/**
 * The export engine: pages → formatter → sink → checkpoint (reliability.md rule 7). A page is the unit
 * of durability: it is written, flushed, and only then recorded in the checkpoint, so a crash at any
 * moment leaves a state `--resume` completes exactly.
 */
import { rm } from 'node:fs/promises';
import type { Context } from '../context.js';
import type { Endpoint } from '../endpoints.js';
import { createClient, type ClientEvent, type FetchedPage } from '../http/client.js';
import { paginate, type PageStep } from '../pagination/paginate.js';
import { fetchOffsetPages } from '../pagination/offset.js';
import { createFormatter, type FormatterOptions, type OutputFormat } from '../output/writer.js';
import { BrokenPipeError, createFileSink, createStreamSink, type Sink } from '../output/sink.js';
import { loadCheckpoint, removeCheckpoint, saveCheckpoint, CHECKPOINT_VERSION, type Checkpoint } from './checkpoint.js';
import { loadProgress, type ProgressStats } from '../io/progress.js';
import { CollectionsError, InterruptedError, RateLimitError } from '../errors.js';
import type { TerminationSignal } from '../context.js';
import { formatCount } from '../io/format.js';

/**
 * How long after the first SIGINT / SIGTERM a repeat of the same signal counts as its echo rather
 * than a second press, ms. A person cannot press Ctrl-C twice this fast on purpose.
 */
export const SIGNAL_ECHO_MS = 250;

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
export interface ExportPlan {
  endpoint: Endpoint;
  /** The configured base URL (its origin bounds every request). */
  baseUrl: URL;
  /** First page, absolute, with `itemsPerPage`, `page` (offset mode) and `--param`s. */
  start: URL;
  /** Pagination headers (`X-Pagination-Style: cursor`, `X-Pagination-Enable-Partial: 0`). */
  headers: Record<string, string>;
  mode: 'cursor' | 'offset';
  /** Pages in flight in offset mode (1 = sequential). */
  concurrency: number;
  /** `--max-items`: stop after exactly this many items. */
  maxItems: number | undefined;
  format: OutputFormat;
  formatter: FormatterOptions;
  /** Undefined for stdout. */
  files: ExportFiles | undefined;
  /** `--resume`. */
  resume: boolean;
  /** Options that shape the output; stored in and compared with the checkpoint. */
  fingerprint: Record<string, unknown>;
  apiKey: string;
  retries: number;
  /** Per attempt, ms. */
  timeoutMs: number;
  /** Longest single rate-limit wait, ms (Infinity = any). */
  maxWaitMs: number;
  quiet: boolean;
  spinner: boolean;
  verbose: boolean;
  /** The command line to repeat with `--resume` (no key), for hints. */
  resumeCommand: string;
  /** Observer of every client event; optional. */
  onClientEvent?: (event: ClientEvent) => void;
  /** Observer of every page fetched (e.g. the rate-limit cache of `ratelimit --cached`); optional. */
  onPageFetched?: (page: FetchedPage) => void;
}

/** What an export did. */
export interface ExportResult {
  stats: ProgressStats;
  /** True when stopped early because the reader of stdout went away. */
  brokenPipe: boolean;
}

/**
 * Runs an export to completion.
 * @throws {CollectionsError} subclasses with their exit codes; {@link InterruptedError} on SIGINT /
 *   SIGTERM after the current write (checkpoint kept); errors after the first page keep the sidecar
 *   and checkpoint for `--resume`.
 */
export async function runExport(plan: ExportPlan, ctx: Context): Promise<ExportResult> {
  const progress = await loadProgress({
    stderr: ctx.io.stderr,
    isTTY: ctx.io.stderrIsTTY,
    env: ctx.env,
    clock: ctx.clock,
    quiet: plan.quiet,
    spinner: plan.spinner,
    verbose: plan.verbose,
  });

  // Signals: the first stops after the current write; a second exits at once. A repeat of the
  // first signal within SIGNAL_ECHO_MS is not a second Ctrl-C but the echo of a library that
  // re-raises the signal it saw so the process dies of it (when-exit, loaded with conf, does
  // `process.kill(process.pid, signal)`): counted as a second press it would skip the message.
  const controller = new AbortController();
  let stopSignal: TerminationSignal | undefined;
  let stopAt = 0;
  const unsubscribe = ctx.onSignal((signal) => {
    if (stopSignal !== undefined) {
      if (signal === stopSignal && ctx.clock.monotonic() - stopAt < SIGNAL_ECHO_MS) return;
      progress.stop();
      // The last checkpoint is consistent whatever is in flight (SIGKILL-safe), so it is kept.
      ctx.io.stderr.write(`collections: interrupted again by ${signal}; stopped at once${plan.files ? `; checkpoint kept; resume with: ${plan.resumeCommand} --resume` : ''}\n`);
      ctx.forceExit(new InterruptedError(signal).exitCode);
      return;
    }
    stopSignal = signal;
    stopAt = ctx.clock.monotonic();
    controller.abort(new InterruptedError(signal));
  });

  let sink: Sink | undefined;
  let checkpoint: Checkpoint | undefined;
  let wrotePage = false;
  // Whether this run started the sidecar afresh: only then may a failure before the first page
  // clean it up. A --resume that is refused (foreign or corrupt checkpoint, missing partial file)
  // must leave the interrupted export's sidecar and checkpoint exactly as they were.
  let freshSidecar = false;
  try {
    // Validate and open the output before any request (reliability.md rule 8).
    if (plan.files) {
      if (plan.resume) {
        checkpoint = await loadCheckpoint(plan.files.checkpoint, plan.fingerprint);
        if (!checkpoint) progress.note(`collections: no checkpoint for ${plan.files.target}; starting afresh`);
      }
      if (!checkpoint) {
        // Starting afresh: a checkpoint left by an earlier run describes bytes this run is about
        // to overwrite; were it kept, a crash before the first page and a --resume would splice
        // two exports. (Validation of the paths happens in createFileSink, before it writes.)
        // Its temp file is harmless (only a rename makes it a checkpoint) and is left alone.
        await rm(plan.files.checkpoint, { force: true }).catch(() => undefined);
      }
      sink = await createFileSink({
        target: plan.files.target,
        sidecar: plan.files.sidecar,
        resumeAtBytes: checkpoint?.bytes,
      });
      freshSidecar = !checkpoint;
      if (checkpoint) {
        progress.note(`collections: resuming after ${formatCount(checkpoint.items)} items (${formatCount(checkpoint.pages)} pages)`);
      }
    } else {
      sink = createStreamSink(ctx.io.stdout);
    }

    // CSV keys first seen after the header are named on stderr (once each, also across a resume);
    // the table fits the terminal's width when there is one.
    const formatter = createFormatter(
      plan.format,
      { ...plan.formatter, columns: plan.formatter.columns ?? ctx.io.columns, warn: plan.formatter.warn ?? ((m) => progress.note(`collections: ${m}`)) },
      checkpoint?.formatter,
    );
    let items = checkpoint?.items ?? 0;
    let pages = checkpoint?.pages ?? 0;
    let totalItems = checkpoint?.totalItems;
    let pending = checkpoint ? '' : formatter.begin();
    progress.onPage(items, pages, totalItems);

    const client = createClient({
      baseUrl: plan.baseUrl,
      apiKey: plan.apiKey,
      fetch: ctx.fetch,
      clock: ctx.clock,
      random: ctx.random,
      retries: plan.retries,
      timeoutMs: plan.timeoutMs,
      maxWaitMs: plan.maxWaitMs,
      headers: { 'User-Agent': `collections/${ctx.version}` },
      signal: controller.signal,
      onEvent: (event) => {
        progress.onClientEvent(event);
        plan.onClientEvent?.(event);
      },
    });

    const startFrom = checkpoint ? checkpoint.next : plan.start.href;
    const remaining = (): number => (plan.maxItems === undefined ? Infinity : plan.maxItems - items);

    // Durability runs one page behind: while page k is flushed and checkpointed, page k+1 is fetched.
    // Durability is one chain that runs beside the fetching: each time it finishes, it flushes the
    // sidecar (fsync) and then checkpoints the latest page written, so a checkpoint never counts a
    // byte that is not on disk (reliability.md rule 7), while fetching and writing never wait for a
    // disk flush. Under a fast network several pages share one flush.
    let latest: Checkpoint | undefined;
    let durable: Promise<void> = Promise.resolve();
    let chainRunning = false;
    const makeDurable = (s: Sink, cp: string): Promise<void> => {
      chainRunning = true;
      const run = async (): Promise<void> => {
        try {
          while (latest !== undefined) {
            const snapshot = latest;
            latest = undefined;
            await s.sync();
            await saveCheckpoint(cp, snapshot);
          }
        } finally {
          chainRunning = false;
        }
      };
      return run();
    };
    if (startFrom !== null && remaining() > 0) {
      const start = new URL(startFrom);
      const steps: AsyncGenerator<PageStep, void, void> =
        plan.mode === 'offset' && plan.concurrency > 1
          ? fetchOffsetPages({ client, baseUrl: plan.baseUrl, start, concurrency: plan.concurrency, headers: plan.headers })
          : paginate({ client, baseUrl: plan.baseUrl, start, headers: plan.headers });
      try {
        for await (const step of steps) {
          plan.onPageFetched?.(step);
          let members = step.page.members;
          const left = remaining();
          const last = members.length >= left || step.next === undefined;
          if (members.length > left) members = members.slice(0, left);
          if (step.page.totalItems !== undefined) totalItems = step.page.totalItems;
          const text = pending + formatter.page(members);
          pending = '';
          if (text.length > 0) await sink.write(text);
          wrotePage = true;
          items += members.length;
          pages += 1;
          progress.onPage(items, pages, totalItems);
          if (plan.files) {
            const snapshot: Checkpoint = {
              version: CHECKPOINT_VERSION,
              fingerprint: plan.fingerprint,
              next: last ? null : step.next!.href,
              pages,
              items,
              bytes: sink.bytes,
              formatter: formatter.state(),
              ...(totalItems !== undefined ? { totalItems } : {}),
              updatedAt: new Date(ctx.clock.now()).toISOString(),
            };
            latest = snapshot;
            if (!chainRunning) {
              // A failed flush or checkpoint surfaces here, on the next page, or at the end.
              await durable;
              durable = makeDurable(sink, plan.files.checkpoint);
            }
          }
          if (stopSignal !== undefined) break;
          if (last) break;
        }
      } catch (err) {
        await durable.catch(() => undefined);
        if (stopSignal !== undefined && (err instanceof InterruptedError || isAbort(err))) {
          throw new InterruptedError(stopSignal);
        }
        throw err;
      }
    }
    await durable;
    if (stopSignal !== undefined) throw new InterruptedError(stopSignal);

    await sink.write(pending + formatter.end());
    await sink.commit();
    if (plan.files) await removeCheckpoint(plan.files.checkpoint);
    progress.done(plan.files ? plan.files.target : 'stdout');
    return { stats: progress.stats, brokenPipe: false };
  } catch (err) {
    progress.stop();
    if (err instanceof BrokenPipeError) {
      await sink?.abort();
      return { stats: progress.stats, brokenPipe: true };
    }
    await sink?.abort();
    if (plan.files && freshSidecar && !wrotePage) {
      // Nothing was written: leave no trace (the spec's "nothing was written" for exits 2-4).
      await rm(plan.files.sidecar, { force: true }).catch(() => undefined);
      await removeCheckpoint(plan.files.checkpoint).catch(() => undefined);
    }
    throw decorate(err, plan, wrotePage || checkpoint !== undefined);
  } finally {
    // Once interrupted, the listener stays for the rest of the process: without it the echo above
    // (or a late second Ctrl-C) would kill the process by the signal before the message is out.
    if (stopSignal === undefined) unsubscribe();
  }
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/** Adds the "resume with" hint to failures that keep a checkpoint. */
function decorate(err: unknown, plan: ExportPlan, resumable: boolean): unknown {
  if (!(err instanceof CollectionsError)) return err;
  const resumeHint = plan.files && resumable ? `resume with: ${plan.resumeCommand} --resume` : undefined;
  if (err instanceof InterruptedError) {
    const hint = resumeHint ?? (plan.files ? undefined : 'stdout exports cannot resume; use --out FILE');
    return new InterruptedError(err.signal, `interrupted by ${err.signal}${plan.files ? '; checkpoint kept' : ''}`, { hint });
  }
  if (err instanceof RateLimitError && resumeHint) {
    return new RateLimitError(err.message, err.resetAt, { hint: resumeHint, cause: err });
  }
  if (resumeHint && err.exitCode === 6) {
    return new CollectionsError(err.message, err.code, { hint: `${err.hint ? `${err.hint}; ` : ''}${resumeHint}`, cause: err });
  }
  return err;
}
