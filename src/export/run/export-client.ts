/**
 * The HTTP client of one export (export/run/run.ts): the plan's limits, the context's transport and
 * clock, progress and the plan's observer as listeners of its events.
 */
import type { Context } from '../../context.js';
import { createClient, type Client, type ClientEvent } from '../../http/client.js';
import type { Progress } from '../../io/progress.js';

/** What the client takes from the export's plan (export/run/run.ts `ExportPlan` has these fields). */
export interface ExportClientPlan {
  /** The configured base URL: its origin bounds every request. */
  baseUrl: URL;
  apiKey: string;
  retries: number;
  /** Per attempt, ms. */
  timeoutMs: number;
  /** Longest single rate-limit wait, ms (Infinity = any). */
  maxWaitMs: number;
  /** Largest response body accepted, bytes (default the client's). */
  maxBodyBytes?: number;
  /** Observer of every client event; optional. */
  onClientEvent?: (event: ClientEvent) => void;
}

/**
 * Creates the client of one export, sending `User-Agent: collections/<version>`. Clients of one
 * Context with the same base URL origin and key share their rate-limit windows (`ctx.rateBudget`).
 * Progress hears every client event; a wait its requests did not take in full (they were aborted)
 * is taken out of its counts again.
 * @param signal aborts waits and requests in flight (SIGINT / SIGTERM)
 */
export function createExportClient(plan: ExportClientPlan, ctx: Context, progress: Progress, signal: AbortSignal): Client {
  return createClient({
    baseUrl: plan.baseUrl,
    apiKey: plan.apiKey,
    fetch: ctx.fetch,
    clock: ctx.clock,
    random: ctx.random,
    retries: plan.retries,
    timeoutMs: plan.timeoutMs,
    maxWaitMs: plan.maxWaitMs,
    ...(plan.maxBodyBytes === undefined ? {} : { maxBodyBytes: plan.maxBodyBytes }),
    headers: { 'User-Agent': `collections/${ctx.version}` },
    signal,
    ...(ctx.rateBudget === undefined ? {} : { budget: ctx.rateBudget }),
    onEvent: (event) => {
      progress.onClientEvent(event);
      plan.onClientEvent?.(event);
    },
    // The summary, `--log-format json`'s summary and the manifest count only waits taken: a wait
    // its aborted requests never began is none, one cut midway counts the time really waited.
    onWaitCut: (cut) => {
      const { stats } = progress;
      stats.waitMs = Math.max(0, stats.waitMs - cut.ms);
      if (!cut.begun) stats.waits = Math.max(0, stats.waits - 1);
    },
  });
}
