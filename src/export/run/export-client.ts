/**
 * The HTTP client of one export, a service handed to the run beside its plan (export/run/plan.ts
 * `ExportServices`): export/run/services.ts makes the opener from `plan.http` and the Context, and the
 * run opens the client once it has its abort signal and listeners (export/run/run.ts
 * `clientWiring`). So the run depends on the client's interface only, and tests may hand in
 * another client.
 */
import type { Context } from '../../context.js';
import { createClient } from '../../http/client.js';
import { mergeHeaders } from '../../http/request-headers.js';
import type { ExportServices, HttpPlan } from './plan.js';

/** The extra headers of an export's requests: `User-Agent: collections/<version>`, then the user's (which may replace it). */
export function requestHeaders(http: Pick<HttpPlan, 'headers'>, ctx: Pick<Context, 'version'>): Record<string, string> {
  return mergeHeaders([['User-Agent', `collections/${ctx.version}`]], Object.entries(http.headers ?? {}));
}

/**
 * Opens clients with the plan's limits and the context's transport, clock and rate budget, sending
 * `User-Agent: collections/<version>` and the user's headers. Clients of one Context with the same base URL origin and key
 * share their rate-limit windows (`ctx.rateBudget`).
 */
export function exportClientOpener(http: HttpPlan, ctx: Context): ExportServices['openClient'] {
  return (wiring) =>
    createClient({
      baseUrl: http.baseUrl,
      apiKey: http.apiKey,
      fetch: ctx.fetch,
      clock: ctx.clock,
      random: ctx.random,
      retries: http.retries,
      timeoutMs: http.timeoutMs,
      maxWaitMs: http.maxWaitMs,
      ...(http.maxBodyBytes === undefined ? {} : { maxBodyBytes: http.maxBodyBytes }),
      headers: requestHeaders(http, ctx),
      secrets: ctx.secrets,
      signal: wiring.signal,
      ...(ctx.rateBudget === undefined ? {} : { budget: ctx.rateBudget }),
      onEvent: wiring.onEvent,
      onWaitCut: wiring.onWaitCut,
    });
}
