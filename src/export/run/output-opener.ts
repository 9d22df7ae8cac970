/**
 * The output of an export, a service handed to the run beside its plan
 * (export/run/plan.ts `ExportServices.openOutput`): stdout, a device or FIFO (written straight
 * through), the sidecar beside `--out` with its lock and checkpoint (export/files/), compressed
 * as planned, or a database table or Parquet file (export/destinations/, loaded only then). The
 * run writes to the destination it opens and never reads the file plan itself.
 */
import type { Context } from '../../context.js';
import type { FileSystem } from '../../io/files.js';
import { openStdout, type Destination } from '../files/destination.js';
import { lockTarget, openSidecar } from '../files/sidecar.js';
import type { OutputLock } from '../files/output-lock.js';
import { openDevice, outputKind, type OutputKind } from '../files/device.js';
import { withCompression } from '../files/gzip-destination.js';
import type { DatabaseDestination } from '../destinations/database.js';
import type { ExportOutput, ExportPlan, OutputWiring } from './plan.js';

/** What opening the output reads of the plan: where and how it writes, the checkpoint's rules, and the pages a checkpoint must link to. */
type OutputOfPlan = Pick<ExportPlan, 'output' | 'resume' | 'pages'>;

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
  const { target, sidecar, checkpoint } = files;
  const { signal, note } = wiring;
  if (kind.type === 'device') return openDevice({ target, info: kind.info, signal, clock: ctx.clock, ...(fs ? { fs } : {}) });
  held.lock = await lockTarget(target, { now: () => ctx.clock.now(), note, onLost: wiring.onLost });
  const sidecarDestination = openSidecar({
    held: held.lock,
    target,
    sidecar,
    checkpoint,
    resume: plan.resume.resume,
    restart: plan.resume.restart,
    expectedLink: { origin: plan.pages.baseUrl.origin, path: plan.pages.start.pathname },
    fingerprint: plan.resume.fingerprint,
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
