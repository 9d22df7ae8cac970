/**
 * The file side of an export (docs/files.md, "Files, checkpoints and `--resume`"): `F.part` is written
 * first, page by page; a group of pages is the unit of durability (export/run/checkpoint-group.ts): it
 * is written, flushed, and only then recorded in the checkpoint `F.checkpoint.json`, so a crash at
 * any moment leaves a state `--resume` completes exactly. The finished sidecar is renamed onto `F`
 * and the checkpoint removed. A gzip export reaches it already compressed, a member per group
 * (export/files/gzip-destination.ts).
 */
import { lstat, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from '../../errors.js';
import { formatCount } from '../../io/format.js';
import { checkFolder, type FileSystem } from '../../io/files.js';
import { createFileSink } from './file-sink.js';
import { CHECKPOINT_VERSION, loadCheckpoint, removeCheckpoint, saveCheckpoint, type Checkpoint } from './checkpoint.js';
import { boundaryCheck, checkNextLink, type ExpectedLink } from './checkpoint-check.js';
import type { Destination, PageMark } from './destination.js';
import { lockOutput, type LockOutputOptions, type OutputLock } from './output-lock.js';

/** The paths of a file export. */
export interface SidecarPaths {
  /** The sidecar the export writes first, absolute: `F.part`. */
  sidecar: string;
  /** The checkpoint beside it, absolute: `F.checkpoint.json`. */
  checkpoint: string;
}

/**
 * The files an export keeps next to `--out` until it completes. They are visible (not dot files) so
 * a user listing the folder sees that an export is unfinished and can `--resume` it.
 * @param target the `--out` path, e.g. `/data/invoices.ndjson`
 * @returns `{ sidecar: '/data/invoices.ndjson.part', checkpoint: '/data/invoices.ndjson.checkpoint.json' }`
 */
export function sidecarPaths(target: string): SidecarPaths {
  return { sidecar: `${target}.part`, checkpoint: `${target}.checkpoint.json` };
}

/** Options of {@link openSidecar}. */
export interface SidecarOptions extends SidecarPaths {
  /** The final file (`--out`), absolute. */
  target: string;
  /** `--resume`: continue from the checkpoint, if there is one. */
  resume: boolean;
  /** `--restart`: discard an existing checkpoint and start afresh (never together with `resume`). */
  restart?: boolean;
  /** What the checkpoint's next link must be on: the configured origin and the command's path. */
  expectedLink: ExpectedLink;
  /** The file system of the sidecar and checkpoint (default the real one; tests inject errors). */
  fs?: FileSystem;
  /** Options of the output lock (tests give another pid or liveness check). */
  lock?: Partial<Pick<LockOutputOptions, 'pid' | 'isAlive' | 'onLost'>>;
  /**
   * The output lock, taken by the caller ({@link lockTarget}) and released by it once everything
   * beside the output (manifest, state file) is written; without it, the sidecar takes the lock and
   * releases it in `finish()` / `abort()`.
   */
  held?: OutputLock;
  /** The options that shape the output; stored in the checkpoint and compared on resume. */
  fingerprint: Record<string, unknown>;
  /** Epoch ms now, for the checkpoint's `updatedAt`. */
  now: () => number;
  /** Prints a one-line note on stderr (the "resuming after" and "starting afresh" notes). */
  note: (line: string) => void;
}

/** The durability chain of a file export, from {@link createDurability}. */
export interface Durability {
  /**
   * Records the checkpoint of the last page of a group just written and starts the chain unless it runs.
   * @throws {OutputError} (exit 7) a failed flush or checkpoint of an earlier page
   */
  record(snapshot: Checkpoint): Promise<void>;
  /** Waits until the chain is idle. @throws {OutputError} (exit 7) its failure, if any */
  settle(): Promise<void>;
  /** Waits until the chain is idle; never throws (its failure surfaces through `record`/`settle`). */
  settleQuietly(): Promise<void>;
}

/**
 * The durability chain. It runs beside the fetching: each time it finishes, it flushes the sidecar
 * (`sync`: fdatasync) and then saves the checkpoint of the latest page written, so a checkpoint
 * never counts a byte that is not on disk, while fetching and writing never wait for a disk flush.
 * Under a fast network several pages share one flush, and only the latest of them is saved.
 * @param sync flushes everything written so far (the file sink's `sync()`)
 * @param save writes a checkpoint durably (export/files/checkpoint.ts `saveCheckpoint`)
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
    settleQuietly: () => durable.catch(() => undefined),
  };
}

/** Whether anything (a symlink included) is at `path`. */
async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** What an export finds of its checkpoint before it opens the sidecar (see {@link checkCheckpoint}). */
export type CheckpointFound = { kind: 'none' } | { kind: 'resume'; checkpoint: Checkpoint } | { kind: 'discard' };

/**
 * Reads and checks the checkpoint of `--resume` (schema, fingerprint, next link; the byte offset is
 * checked by the file sink); without `--resume`, an existing checkpoint is never silently discarded:
 * it is an error, unless `--restart` asks to remove it. Reads only: the dry run calls it too.
 * @returns the checkpoint to continue, `discard` for one `--restart` removes, or `none`
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) for a checkpoint that cannot be trusted, naming what
 *   did not match; without `--resume` or `--restart` when one exists, with the hint `use --resume
 *   to continue it, or --restart to start over`
 */
export async function checkCheckpoint(
  options: Pick<SidecarOptions, 'target' | 'checkpoint' | 'resume' | 'restart' | 'fingerprint' | 'expectedLink'>,
): Promise<CheckpointFound> {
  if (options.resume) {
    const checkpoint = await loadCheckpoint(options.checkpoint, options.fingerprint);
    if (!checkpoint) return { kind: 'none' };
    checkNextLink(options.checkpoint, checkpoint.next, options.expectedLink);
    return { kind: 'resume', checkpoint };
  }
  if (!(await exists(options.checkpoint))) return { kind: 'none' };
  if (!options.restart) {
    throw new UsageError(`an interrupted export of ${options.target} has a checkpoint (${options.checkpoint})`, {
      code: 'E_CHECKPOINT',
      hint: 'use --resume to continue it, or --restart to start over',
    });
  }
  return { kind: 'discard' };
}

/** {@link checkCheckpoint}, then what it found done: a checkpoint `--restart` discards is removed. */
async function readCheckpoint(options: SidecarOptions): Promise<Checkpoint | undefined> {
  const found = await checkCheckpoint(options);
  if (found.kind === 'discard') await removeCheckpoint(options.checkpoint);
  if (found.kind === 'none' && options.resume) options.note(`collections: no checkpoint for ${options.target}; starting afresh`);
  return found.kind === 'resume' ? found.checkpoint : undefined;
}

/**
 * Takes the output lock of `target` (export/files/output-lock.ts) once its folder is known to exist and
 * be writable, before anything else looks at the files beside it: a second export or `--resume`
 * while the first runs is told `another export is writing F` whatever sidecars exist.
 * @throws {OutputError} (exit 7) when the folder is unusable; what `lockOutput` throws
 */
export async function lockTarget(target: string, options: LockOutputOptions): Promise<OutputLock> {
  await checkFolder(dirname(target), target);
  return lockOutput(target, options);
}

/**
 * Takes the output lock (unless the caller holds it), then reads the checkpoint and opens the
 * sidecar under it; every write to the sidecar checks first that the lock still holds.
 * @throws what {@link readCheckpoint}, {@link lockOutput} and `createFileSink` throw; a lock taken
 *   here is released again on failure
 */
async function lockAndOpen(options: SidecarOptions) {
  const lock = options.held ?? (await lockTarget(options.target, { now: options.now, note: options.note, ...options.lock }));
  try {
    const resumed = await readCheckpoint(options);
    const sink = await createFileSink({
      target: options.target,
      sidecar: options.sidecar,
      resumeAtBytes: resumed?.bytes,
      guard: () => lock.check(),
      ...(resumed ? { checkBoundary: boundaryCheck(resumed, options.sidecar) } : {}),
      ...(options.fs ? { fs: options.fs } : {}),
    });
    return { lock, resumed, sink };
  } catch (error) {
    if (!options.held) await lock.release();
    throw error;
  }
}

/**
 * Opens the output of a file export, before any request: takes the output lock (export/files/output-lock.ts;
 * held until `finish()` or `abort()`) unless the caller holds it (`held`), reads and checks the checkpoint (`--resume`) or refuses one
 * left over (`--restart` removes it), then validates the paths and opens the sidecar
 * (export/files/file-sink.ts).
 * A refused `--resume` (foreign or corrupt checkpoint, missing or short partial file) leaves the
 * interrupted export's sidecar and checkpoint exactly as they were; only a sidecar this run started
 * afresh is removed again when it fails before its first page (not once the lock was lost: the
 * files may be another export's by then). Once the lock is lost, every write, flush, checkpoint and
 * the final rename throws its {@link OutputLock.lost} error (exit 7) instead.
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) when the checkpoint cannot be resumed, or exists
 *   without `--resume` / `--restart`
 * @throws {CollectionsError} (exit 7, `E_LOCKED`) when another export holds the lock; nothing is touched
 * @throws {OutputError} (exit 7) when a path is unusable
 */
export async function openSidecar(options: SidecarOptions): Promise<Destination> {
  const { lock, resumed, sink } = await lockAndOpen(options);
  if (resumed) options.note(`collections: resuming after ${formatCount(resumed.items)} items (${formatCount(resumed.pages)} pages)`);
  // A lost lock (another export may own these files now) stops every write: no checkpoint either.
  const durability = createDurability(
    () => sink.sync(),
    (checkpoint) => {
      lock.check();
      return saveCheckpoint(options.checkpoint, checkpoint, options.fs);
    },
  );
  const release = () => (options.held ? Promise.resolve() : lock.release());
  const snapshot = (mark: PageMark): Checkpoint => ({
    version: CHECKPOINT_VERSION,
    fingerprint: options.fingerprint,
    next: mark.next,
    pages: mark.pages,
    items: mark.items,
    bytes: sink.bytes,
    formatter: mark.formatterState(),
    ...(mark.totalItems !== undefined ? { totalItems: mark.totalItems } : {}),
    ...(mark.mode !== undefined ? { mode: mark.mode } : {}),
    ...(mark.watermark !== undefined ? { watermark: mark.watermark } : {}),
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
      try {
        await sink.commit();
        await removeCheckpoint(options.checkpoint);
      } finally {
        await release();
      }
    },
    async abort(wrotePage) {
      await durability.settleQuietly();
      await sink.abort();
      if (resumed === undefined && !wrotePage && lock.lost === undefined) {
        // Nothing was written: leave no trace (docs/files.md, "Files, checkpoints and `--resume`": a
        // failure before the first page leaves nothing behind).
        await rm(options.sidecar, { force: true }).catch(() => undefined);
        await removeCheckpoint(options.checkpoint).catch(() => undefined);
      }
      await release();
    },
  };
}
