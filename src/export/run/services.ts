/**
 * The real services of an export's run (`ExportServices`), made from its plan; each is opened by
 * the run once it has what they report to (its abort signal, progress's notes). Tests hand in fakes.
 */
import type { Context } from '../../context.js';
import { createClient } from '../../http/client.js';
import { mergeHeaders } from '../../http/request-headers.js';
import { createFormatter, prepareFormatter } from '../../output/writer.js';
import { outputColumns } from '../../io/terminal-text.js';
import type { FileSystem } from '../../io/files.js';
import { pageSteps } from './page-loop.js';
import { outputOpener } from './output-opener.js';
import { createManifestRecorder } from '../manifest/manifest.js';
import type { ExportPlan, ExportServices, HttpPlan, OutputPlan } from './plan.js';

/** The extra headers of an export's requests: `User-Agent: collections/<version>`, then the user's (which may replace it). */
export function requestHeaders(http: Pick<HttpPlan, 'headers'>, ctx: Pick<Context, 'version'>): Record<string, string> {
  return mergeHeaders([['User-Agent', `collections/${ctx.version}`]], Object.entries(http.headers ?? {}));
}

/**
 * Opens clients with the plan's limits and the context's transport, clock and rate budget. Clients
 * of one Context with the same origin and key share their rate-limit windows (`ctx.rateBudget`).
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

/** CSV keys first seen after the header are named on stderr (once each, also across a resume); the table fits the terminal. */
function formatterOpener(output: OutputPlan, ctx: Context): ExportServices['openFormatter'] {
  return async (resumed, note) => {
    const { format, formatter } = output;
    await prepareFormatter(format);
    const warn = formatter.warn ?? ((m: string) => note(`collections: ${m}`));
    return createFormatter(format, { ...formatter, columns: formatter.columns ?? outputColumns(ctx.io, ctx.env), warn }, resumed);
  };
}

/** @param options.fs the file system of the sidecar, checkpoint, device and manifest (default the real one); tests inject write errors */
export function exportServices(plan: ExportPlan, ctx: Context, options: { fs?: FileSystem } = {}): ExportServices {
  const { fs } = options;
  return {
    openClient: exportClientOpener(plan.http, ctx),
    openPages: (client, start, source) => pageSteps(plan.pages, client, start, source),
    openFormatter: formatterOpener(plan.output, ctx),
    openOutput: outputOpener(plan, ctx, fs),
    openManifest: (onManifest) => plan.manifest && createManifestRecorder(plan.manifest, { clock: ctx.clock, version: ctx.version, fs, onManifest }),
  };
}
