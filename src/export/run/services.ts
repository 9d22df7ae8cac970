/** The real services of an export's run, made from its plan; each opened by the run once it has what they report to. */
import { basename, dirname } from 'node:path';
import type { Context } from '../../context.js';
import { createClient, type Client } from '../../http/client.js';
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
import type { ClientWiring, ExportFiles, ExportOutput, ExportPlan, ExportServices, HttpPlan, OutputPlan, OutputWiring } from './plan.js';

/** The extra headers of an export's requests: `User-Agent: collections/<version>`, then the user's (which may replace it). */
export function requestHeaders(http: Pick<HttpPlan, 'headers'>, ctx: Pick<Context, 'version'>): Record<string, string> {
  return mergeHeaders([['User-Agent', `collections/${ctx.version}`]], Object.entries(http.headers ?? {}));
}

/**
 * Clients of one Context with the same origin and key share their rate-limit windows (`ctx.rateBudget`);
 * one made without `wiring` has no rate budget (the dry run's request has none).
 */
export function exportClient(http: HttpPlan, ctx: Context, wiring?: ClientWiring): Client {
  return createClient({
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
    ...(wiring && {
      ...wiring,
      ...(ctx.rateBudget === undefined ? {} : { budget: ctx.rateBudget }),
      ...(http.budget === undefined ? {} : { budgetUrl: http.budget }),
    }),
  });
}

/**
 * CSV keys new after the header are named on stderr (once, across resumes); the table fits the terminal.
 * A `--format` unlike the file's suffix is noted once: asked for, but a `.ndjson` holding an array breaks tools trusting names.
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
    openClient: (wiring) => exportClient(plan.http, ctx, wiring),
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
  return { ...resumeRules(plan), ...files, restart: plan.resume.restart };
}

/**
 * One run's {@link ExportOutput}; nothing is opened before its `open()`, which takes the output lock
 * (released last) before the checkpoint is validated and read, and before any request.
 */
function outputOpener(plan: OutputOfPlan, ctx: Context, fs: FileSystem | undefined): (wiring: OutputWiring) => ExportOutput {
  const { files, database, parquet, compress } = plan.output;
  const now = () => ctx.clock.now();
  return (wiring) => {
    const { signal, note } = wiring;
    let lock: OutputLock | undefined;
    let store: DatabaseDestination | undefined;
    let kind: OutputKind | undefined;
    const open = async (): Promise<Destination> => {
      kind = await outputKind({ files, resume: plan.resume.resume });
      if (database) {
        const [{ openDatabase }, { openStore }] = await Promise.all([import('../destinations/database.js'), import('../destinations/open-store.js')]);
        store = await openDatabase(database, {
          ...resumeRules(plan),
          note,
          stats: wiring.stats,
          signal,
          now,
          openStore: (target) => openStore(target, ctx.env),
        });
        return store;
      }
      if (!files || kind.type === 'stdout') return openStdout(ctx.io.stdout);
      const { target } = files;
      if (kind.type === 'device') {
        if (ctx.io.stdoutIsDescriptor1 === true && namesStdout(target)) return { ...openStdout(ctx.io.stdout), name: target };
        return openDevice({ target, info: kind.info, signal, clock: ctx.clock, ...(fs ? { fs } : {}) });
      }
      lock = await lockTarget(target, { now, note, onLost: wiring.onLost });
      const sidecar = openSidecar({ ...checkpointRules(plan, files), held: lock, now, note, ...(fs ? { fs } : {}) });
      if (!parquet) return sidecar;
      const { parquetDestination } = await import('../destinations/parquet.js');
      return parquetDestination(await sidecar, files);
    };
    return {
      open: async () => withCompression(await open(), compress),
      get device() {
        return kind?.type === 'device';
      },
      async release() {
        await store?.close();
        await lock?.release();
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
