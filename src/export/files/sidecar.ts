/** `F.part` and `F.checkpoint.json`: a crash at any moment leaves a state `--resume` completes exactly. */
import { rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { formatCount } from '../../io/format.js';
import { checkFolder, type FileSystem } from '../../io/files.js';
import { createFileSink, exists } from './file-sink.js';
import { hint, option } from '../../errors.js';
import {
  boundaryCheck,
  checkNextLink,
  CHECKPOINT_VERSION,
  checkpointError,
  loadCheckpoint,
  saveCheckpoint,
  type Checkpoint,
  type ExpectedLink,
} from './checkpoint.js';
import type { Destination, PageMark } from './destination.js';
import { lockOutput, type LockOutputOptions, type OutputLock } from './output-lock.js';

/** Visible (not dot files), so a user listing the folder sees an unfinished export. */
export function sidecarPaths(target: string): { sidecar: string; checkpoint: string } {
  return { sidecar: `${target}.part`, checkpoint: `${target}.checkpoint.json` };
}

/** Paths absolute. */
export interface SidecarOptions extends ReturnType<typeof sidecarPaths> {
  target: string;
  resume: boolean;
  /** Never together with `resume`. */
  restart?: boolean;
  expectedLink: ExpectedLink;
  fs?: FileSystem;
  /** The output lock ({@link lockTarget}), taken and released by the caller (after the manifest and state file). */
  held: OutputLock;
  fingerprint: Record<string, unknown>;
  now: () => number;
  note: (line: string) => void;
}

export interface Durability {
  /** Records the checkpoint of a group's last page. @throws {OutputError} (exit 7) a failed flush or checkpoint of an earlier page */
  record(snapshot: Checkpoint): Promise<void>;
  settle(): Promise<void>;
}

/**
 * Beside the fetching: flushes the sidecar, then saves the latest checkpoint, so a checkpoint never
 * counts a byte not on disk while fetching never waits for a flush.
 */
export function createDurability(sync: () => Promise<void>, save: (snapshot: Checkpoint) => Promise<void>): Durability {
  let latest: Checkpoint | undefined;
  let durable: Promise<void> = Promise.resolve();
  let running = false;
  const run = async (): Promise<void> => {
    running = true;
    try {
      while (latest !== undefined) {
        const snapshot = latest;
        latest = undefined;
        await sync();
        await save(snapshot);
      }
    } finally {
      running = false;
    }
  };
  return {
    async record(snapshot) {
      latest = snapshot;
      if (running) return;
      // A failed flush or checkpoint surfaces here, on the next page, or at the end; marked as
      // handled meanwhile, so it is never an unhandled rejection while the next page is fetched.
      await durable;
      durable = run();
      durable.catch(() => undefined);
    },
    settle: () => durable,
  };
}

export type CheckpointFound = { kind: 'none' } | { kind: 'resume'; checkpoint: Checkpoint } | { kind: 'discard' } | { kind: 'published' };

/**
 * Whether the export was published after its last checkpoint: a finished export renames `F.part`
 * onto `F`, then removes the checkpoint, and a kill between the two leaves the checkpoint with no
 * `F.part`. The rename sets `F`'s ctime, later than the checkpoint's last write; yesterday's `F`
 * beside a lost `F.part` has an older one.
 */
async function publishedAfter(checkpoint: string, target: string): Promise<boolean> {
  const [saved, part, published] = await Promise.all(
    [checkpoint, sidecarPaths(target).sidecar, target].map((path) => stat(path).catch(() => undefined)),
  );
  return saved !== undefined && part === undefined && published?.isFile() === true && published.ctimeMs >= saved.mtimeMs;
}

/**
 * Without `--resume`, an existing checkpoint is an error unless `--restart`. Reads only (the dry run's too).
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) for a checkpoint that cannot be trusted, or one left without `--resume` / `--restart`
 */
export async function checkCheckpoint(
  options: Pick<SidecarOptions, 'target' | 'checkpoint' | 'resume' | 'restart' | 'fingerprint' | 'expectedLink'>,
): Promise<CheckpointFound> {
  if (options.resume) {
    const checkpoint = await loadCheckpoint(options.checkpoint, options.fingerprint);
    if (!checkpoint) return { kind: 'none' };
    if (await publishedAfter(options.checkpoint, options.target)) return { kind: 'published' };
    checkNextLink(options.checkpoint, checkpoint.next, options.expectedLink);
    return { kind: 'resume', checkpoint };
  }
  if (!(await exists(options.checkpoint))) return { kind: 'none' };
  if (options.restart) return { kind: 'discard' };
  const advice = hint`use ${option('resume', true)} to continue it, or ${option('restart', true)} to start over`;
  throw checkpointError(`an interrupted export of ${options.target} has a checkpoint (${options.checkpoint})`, advice);
}

async function readCheckpoint(options: SidecarOptions): Promise<Checkpoint | undefined> {
  const found = await checkCheckpoint(options);
  if (found.kind === 'discard' || found.kind === 'published') await rm(options.checkpoint, { force: true });
  if (found.kind === 'published')
    options.note(`collections: ${options.target} was published before its checkpoint was removed (a stop at the very end); exporting it afresh`);
  if (found.kind === 'none' && options.resume) options.note(`collections: no checkpoint for ${options.target}; starting afresh`);
  return found.kind === 'resume' ? found.checkpoint : undefined;
}

/**
 * Before anything looks at the files beside `target`: a second export is told `another export is
 * writing F` whatever sidecars exist.
 * @throws {OutputError} (exit 7) when the folder is unusable; what `lockOutput` throws
 */
export async function lockTarget(target: string, options: LockOutputOptions): Promise<OutputLock> {
  await checkFolder(dirname(target), target);
  return lockOutput(target, options);
}

/**
 * A refused `--resume` leaves the interrupted export's files as they were; only a sidecar this run
 * started afresh is removed when it fails before its first page (never once the lock was lost).
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) when the checkpoint cannot be resumed, or exists without `--resume` / `--restart`
 * @throws {OutputError} (exit 7)
 */
export async function openSidecar(options: SidecarOptions): Promise<Destination> {
  const lock = options.held;
  const resumed = await readCheckpoint(options);
  const sink = await createFileSink({
    target: options.target,
    sidecar: options.sidecar,
    resumeAtBytes: resumed?.bytes,
    guard: () => lock.check(),
    ...(resumed ? { checkBoundary: boundaryCheck(resumed, options.sidecar) } : {}),
    ...(options.fs ? { fs: options.fs } : {}),
  });
  if (resumed) options.note(`collections: resuming after ${formatCount(resumed.items)} items (${formatCount(resumed.pages)} pages)`);
  // A lost lock (another export may own these files now) stops every write: no checkpoint either.
  const durability = createDurability(
    () => sink.sync(),
    (checkpoint) => {
      lock.check();
      return saveCheckpoint(options.checkpoint, checkpoint, options.fs);
    },
  );
  const snapshot = (mark: PageMark): Checkpoint => ({
    version: CHECKPOINT_VERSION,
    fingerprint: options.fingerprint,
    next: mark.next,
    pages: mark.pages,
    items: mark.items,
    bytes: sink.bytes,
    formatter: mark.formatterState(),
    totalItems: mark.totalItems,
    mode: mark.mode,
    watermark: mark.watermark,
    updatedAt: new Date(options.now()).toISOString(),
  });

  return {
    name: sink.name,
    resumed,
    write: (text) => sink.write(text),
    digest: () => sink.digest(),
    async pageWritten(mark) {
      lock.check();
      await durability.record(snapshot(mark));
    },
    settle: () => durability.settle(),
    async finish(text) {
      await sink.write(text);
      await sink.commit();
      await rm(options.checkpoint, { force: true });
    },
    async abort(wrotePage) {
      await durability.settle().catch(() => undefined);
      await sink.abort();
      if (resumed === undefined && !wrotePage && lock.lost === undefined) {
        await rm(options.sidecar, { force: true }).catch(() => undefined);
        await rm(options.checkpoint, { force: true }).catch(() => undefined);
      }
    },
  };
}
