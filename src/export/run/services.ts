/** The real services of an export's run, made from its plan; each opened by the run once it has what they report to. */
import { basename, dirname } from 'node:path';
import type { Context } from '../../context.js';
import { createClient, type ClientOptions } from '../../http/client.js';
import { mergeHeaders } from '../../http/request-headers.js';
import { createFormatter, formatNamedBy, prepareFormatter } from '../../output/writer.js';
import { outputColumns } from '../../io/terminal-text.js';
import { checkFolder, statOrUndefined, type FileSystem } from '../../io/files.js';
import { pageSteps } from './page-loop.js';
import { createManifestRecorder } from '../manifest/manifest.js';
import { namesStdout, openDevice, openStdout, outputKind, withCompression, type Destination, type OutputKind } from '../files/destination.js';
import { checkCheckpoint, lockTarget, openSidecar, type CheckpointFound } from '../files/sidecar.js';
import { checkFileSink } from '../files/file-sink.js';
import { boundaryCheck } from '../files/checkpoint.js';
import { checkLock, type LockFound, type OutputLock } from '../files/output-lock.js';
import type { DatabaseDestination, DatabaseForecast } from '../destinations/database.js';
import type { ExportFiles, ExportOutput, ExportPlan, ExportServices, HttpPlan, OutputPlan, OutputWiring } from './plan.js';

/** The extra headers of an export's requests: `User-Agent: collections/<version>`, then the user's (which may replace it). */
export function requestHeaders(http: Pick<HttpPlan, 'headers'>, ctx: Pick<Context, 'version'>): Record<string, string> {
  return mergeHeaders([['User-Agent', `collections/${ctx.version}`]], Object.entries(http.headers ?? {}));
}

/** The options of an export's client, with no rate budget (the dry run's request has none). */
export function clientOptionsOf(http: HttpPlan, ctx: Context): ClientOptions {
  return {
    baseUrl: http.baseUrl,
    apiKey: http.apiKey,
    fetch: ctx.fetch,
    clock: ctx.clock,
    random: ctx.random,
    retries: http.retries,
    timeoutMs: http.timeoutMs,
    maxWaitMs: http.maxWaitMs,
    maxBodyBytes: http.maxBodyBytes,
    headers: requestHeaders(http, ctx),
    secrets: ctx.secrets,
  };
}

/** Clients of one Context with the same origin and key share their rate-limit windows (`ctx.rateBudget`). */
export function exportClientOpener(http: HttpPlan, ctx: Context): ExportServices['openClient'] {
  return (wiring) =>
    createClient({
      ...clientOptionsOf(http, ctx),
      signal: wiring.signal,
      ...(ctx.rateBudget === undefined ? {} : { budget: ctx.rateBudget }),
      ...(http.budget === undefined ? {} : { budgetUrl: http.budget }),
      onEvent: wiring.onEvent,
      onWaitCut: wiring.onWaitCut,
    });
}

/**
 * CSV keys first seen after the header are named on stderr (once each, also across a resume); the
 * table fits the terminal. A `--format` other than the one the file's suffix names is said once,
 * when the file starts: not an error (the user asked), but a `.ndjson` holding a JSON array breaks
 * the tools that trust the name.
 */
function formatterOpener(output: OutputPlan, ctx: Context): ExportServices['openFormatter'] {
  return async (resumed, note) => {
    const { format, formatter, files } = output;
    const named = files && !output.parquet ? formatNamedBy(files.target) : undefined;
    if (resumed === undefined && named !== undefined && named !== format) {
      note(`collections: note: writing ${format} into ${basename(files!.target)}, whose suffix says ${named}`);
    }
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

type OutputOfPlan = Pick<ExportPlan, 'output' | 'resume' | 'pages'>;

/** What a checkpoint, a file's or a database's, must match to be resumed. */
function resumeRules(plan: OutputOfPlan) {
  const { resume, fingerprint } = plan.resume;
  return { resume, fingerprint, expectedLink: { origin: plan.pages.baseUrl.origin, path: plan.pages.start.pathname } };
}

function checkpointRules(plan: OutputOfPlan, files: ExportFiles) {
  return { ...resumeRules(plan), target: files.target, checkpoint: files.checkpoint, restart: plan.resume.restart };
}

/** Before any request: first the output lock (kept in `held`), then the checkpoint is validated and read. */
async function openDestination(
  plan: OutputOfPlan,
  kind: OutputKind,
  ctx: Context,
  wiring: OutputWiring,
  held: { lock?: OutputLock; database?: DatabaseDestination },
  fs: FileSystem | undefined,
): Promise<Destination> {
  const { files, database } = plan.output;
  if (database) {
    const [{ openDatabase }, { openStore }] = await Promise.all([import('../destinations/database.js'), import('../destinations/open-store.js')]);
    held.database = await openDatabase(database, {
      ...resumeRules(plan),
      note: wiring.note,
      stats: wiring.stats,
      signal: wiring.signal,
      now: () => ctx.clock.now(),
      openStore: (target) => openStore(target, ctx.env),
    });
    return held.database;
  }
  if (!files || kind.type === 'stdout') return openStdout(ctx.io.stdout);
  const { target, sidecar } = files;
  const { signal, note } = wiring;
  if (kind.type === 'device') {
    if (ctx.io.stdoutIsDescriptor1 === true && namesStdout(target)) return { ...openStdout(ctx.io.stdout), name: target };
    return openDevice({ target, info: kind.info, signal, clock: ctx.clock, ...(fs ? { fs } : {}) });
  }
  held.lock = await lockTarget(target, { now: () => ctx.clock.now(), note, onLost: wiring.onLost });
  const sidecarDestination = openSidecar({
    ...checkpointRules(plan, files),
    held: held.lock,
    sidecar,
    now: () => ctx.clock.now(),
    note,
    ...(fs ? { fs } : {}),
  });
  if (!plan.output.parquet) return sidecarDestination;
  const { parquetDestination } = await import('../destinations/parquet.js');
  return parquetDestination(await sidecarDestination, files);
}

/** One run's {@link ExportOutput}; nothing is opened before its `open()`. */
function outputOpener(plan: OutputOfPlan, ctx: Context, fs: FileSystem | undefined): (wiring: OutputWiring) => ExportOutput {
  return (wiring) => {
    const held: { lock?: OutputLock; database?: DatabaseDestination } = {};
    let kind: OutputKind | undefined;
    return {
      async open() {
        kind = await outputKind({ files: plan.output.files, resume: plan.resume.resume });
        return withCompression(await openDestination(plan, kind, ctx, wiring, held, fs), plan.output.compress);
      },
      get device() {
        return kind?.type === 'device';
      },
      async release() {
        await held.database?.close();
        await held.lock?.release();
      },
    };
  };
}

/** What opening a plan's output would find, from {@link checkOutput}. */
export interface OutputForecast {
  readonly kind: OutputKind['type'];
  readonly checkpoint?: CheckpointFound;
  readonly lock?: LockFound;
  /** A database destination's, from a read-only look that creates nothing (no file, table, run or lock). */
  readonly database?: DatabaseForecast;
}

/**
 * The checks `open()` makes before the first request, in its order and with its errors, writing
 * nothing (the dry run's). A folder that does not exist yet holds nothing: the run makes it first.
 * @throws what `open()` throws before it writes: {@link UsageError} (exit 2: a checkpoint left
 *   without `--resume`, one that does not match, a database table of another shape), exit 7 (a
 *   live lock, an unusable path; a database's login, its file, a lock held)
 */
export async function checkOutput(plan: OutputOfPlan, env: Context['env']): Promise<OutputForecast> {
  const kind = await outputKind({ files: plan.output.files, resume: plan.resume.resume });
  const { files, database } = plan.output;
  if (database) {
    const [{ checkDatabase }, { inspectStore }] = await Promise.all([import('../destinations/database.js'), import('../destinations/open-store.js')]);
    return { kind: kind.type, database: await checkDatabase(database, resumeRules(plan), (target) => inspectStore(target, env)) };
  }
  if (!files || kind.type !== 'file') return { kind: kind.type };
  const { target, sidecar } = files;
  if ((await statOrUndefined(dirname(target))) === undefined) return { kind: 'file', checkpoint: { kind: 'none' }, lock: { kind: 'free' } };
  await checkFolder(dirname(target), target);
  const lock = await checkLock(target);
  const found = await checkCheckpoint(checkpointRules(plan, files));
  const resumed = found.kind === 'resume' ? found.checkpoint : undefined;
  await checkFileSink({ target, sidecar, ...(resumed ? { resumeAtBytes: resumed.bytes, checkBoundary: boundaryCheck(resumed, sidecar) } : {}) });
  return { kind: 'file', checkpoint: found, lock };
}
