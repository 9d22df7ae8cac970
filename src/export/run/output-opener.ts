/**
 * The output of an export, a service handed to the run beside its plan
 * (export/run/plan.ts `ExportServices.openOutput`): stdout, a device or FIFO (written straight
 * through), the sidecar beside `--out` with its lock and checkpoint (export/files/), compressed
 * as planned, or a database table or Parquet file (export/destinations/, loaded only then). The
 * run writes to the destination it opens and never reads the file plan itself.
 */
import { dirname } from 'node:path';
import type { Context } from '../../context.js';
import { checkFolder, statOrUndefined, type FileSystem } from '../../io/files.js';
import { openStdout, type Destination } from '../files/destination.js';
import { checkCheckpoint, lockTarget, openSidecar, type CheckpointFound } from '../files/sidecar.js';
import { checkFileSink } from '../files/file-sink-check.js';
import { boundaryCheck } from '../files/checkpoint-check.js';
import { checkLock, type LockFound, type OutputLock } from '../files/output-lock.js';
import { openDevice, outputKind, type OutputKind } from '../files/device.js';
import { withCompression } from '../files/gzip-destination.js';
import type { DatabaseDestination } from '../destinations/database.js';
import type { ExportFiles, ExportOutput, ExportPlan, OutputWiring } from './plan.js';

/** What opening the output reads of the plan: where and how it writes, the checkpoint's rules, and the pages a checkpoint must link to. */
type OutputOfPlan = Pick<ExportPlan, 'output' | 'resume' | 'pages'>;

/** The checkpoint's rules of a plan writing `files`: continue or restart, the options it must match, where its next link must point. */
function checkpointRules(plan: OutputOfPlan, files: ExportFiles) {
  return {
    target: files.target,
    checkpoint: files.checkpoint,
    resume: plan.resume.resume,
    restart: plan.resume.restart,
    expectedLink: { origin: plan.pages.baseUrl.origin, path: plan.pages.start.pathname },
    fingerprint: plan.resume.fingerprint,
  };
}

/**
 * Opens stdout, a device or FIFO, or the sidecar, before any request: first the output lock (kept
 * in `held`; a lost lock stops the run at once through `wiring.onLost`), then the checkpoint is
 * validated and read.
 */
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
      resume: plan.resume.resume,
      fingerprint: plan.resume.fingerprint,
      expectedLink: { origin: plan.pages.baseUrl.origin, path: plan.pages.start.pathname },
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
  if (kind.type === 'device') return openDevice({ target, info: kind.info, signal, clock: ctx.clock, ...(fs ? { fs } : {}) });
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

/**
 * Opens the outputs of a plan's runs, each with the file system `fs` (default the real one).
 * @returns a function making one run's {@link ExportOutput}; nothing is opened before its `open()`
 */
export function outputOpener(plan: OutputOfPlan, ctx: Context, fs: FileSystem | undefined): (wiring: OutputWiring) => ExportOutput {
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
  /** stdout, a FIFO or device (written straight through), or a file. */
  readonly kind: OutputKind['type'];
  /** Of a file: its checkpoint (continued, discarded by `--restart`, or none). */
  readonly checkpoint?: CheckpointFound;
  /** Of a file: its lock (free, or one that would be taken over). */
  readonly lock?: LockFound;
}

/**
 * The checks `open()` of {@link outputOpener} makes before the first request, in its order and
 * with its errors, writing nothing (the dry run's; docs/progress.md, "Dry run"): what `--out` is,
 * its folder, the lock (none taken), the checkpoint (none removed) and the sidecar (none created
 * or truncated). A folder that does not exist yet holds nothing: the run makes it first
 * (commands/folders.ts).
 * @throws what `open()` throws before it writes: {@link UsageError} (exit 2: a checkpoint left
 *   without `--resume`, one that does not match), exit 7 (a live lock, an unusable path)
 */
export async function checkOutput(plan: OutputOfPlan, fs?: FileSystem): Promise<OutputForecast> {
  const kind = await outputKind({ files: plan.output.files, resume: plan.resume.resume });
  const { files } = plan.output;
  if (!files || kind.type !== 'file') return { kind: kind.type };
  const { target, sidecar } = files;
  if ((await statOrUndefined(dirname(target))) === undefined) return { kind: 'file', checkpoint: { kind: 'none' }, lock: { kind: 'free' } };
  await checkFolder(dirname(target), target);
  const lock = await checkLock(target);
  const found = await checkCheckpoint(checkpointRules(plan, files));
  const resumed = found.kind === 'resume' ? found.checkpoint : undefined;
  await checkFileSink({
    target,
    sidecar,
    ...(resumed ? { resumeAtBytes: resumed.bytes, checkBoundary: boundaryCheck(resumed, sidecar) } : {}),
    ...(fs ? { fs } : {}),
  });
  return { kind: 'file', checkpoint: found, lock };
}
