/**
 * The file side of an export (README, "Files, checkpoints and `--resume`"): `F.part` is written
 * first, page by page; a page is the unit of durability: it is written, flushed, and only then
 * recorded in the checkpoint `F.checkpoint.json`, so a crash at any moment leaves a state `--resume`
 * completes exactly. The finished sidecar is renamed onto `F` and the checkpoint removed.
 */
import { rm } from 'node:fs/promises';
import { formatCount } from '../io/format.js';
import { createFileSink } from './file-sink.js';
import { CHECKPOINT_VERSION, loadCheckpoint, removeCheckpoint, saveCheckpoint, type Checkpoint } from './checkpoint.js';
import type { Destination, PageMark } from './destination.js';

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
   * Records the checkpoint of the page just written and starts the chain unless it runs.
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
 * @param save writes a checkpoint durably (export/checkpoint.ts `saveCheckpoint`)
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
      // A failed flush or checkpoint surfaces here, on the next page, or at the end.
      await durable;
      durable = run();
    },
    settle: () => durable,
    settleQuietly: () => durable.catch(() => undefined),
  };
}

/**
 * Reads the checkpoint of `--resume`, or clears a stale one. Starting afresh, a checkpoint left by
 * an earlier run describes bytes this run is about to overwrite; were it kept, a crash before the
 * first page and a `--resume` would splice two exports. Its temp file is harmless (only a rename
 * makes it a checkpoint) and is left alone.
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) for a corrupt checkpoint or one of other options
 */
async function readCheckpoint(options: SidecarOptions): Promise<Checkpoint | undefined> {
  let checkpoint: Checkpoint | undefined;
  if (options.resume) {
    checkpoint = await loadCheckpoint(options.checkpoint, options.fingerprint);
    if (!checkpoint) options.note(`collections: no checkpoint for ${options.target}; starting afresh`);
  }
  if (!checkpoint) await rm(options.checkpoint, { force: true }).catch(() => undefined);
  return checkpoint;
}

/**
 * Opens the output of a file export, before any request: reads (`--resume`) or clears the
 * checkpoint, then validates the paths and opens the sidecar (export/file-sink.ts).
 * A refused `--resume` (foreign or corrupt checkpoint, missing or short partial file) leaves the
 * interrupted export's sidecar and checkpoint exactly as they were; only a sidecar this run started
 * afresh is removed again when it fails before its first page.
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) when the checkpoint cannot be resumed
 * @throws {OutputError} (exit 7) when a path is unusable
 */
export async function openSidecar(options: SidecarOptions): Promise<Destination> {
  const resumed = await readCheckpoint(options);
  // OUTPUT LOCK: the next issue takes the lock on `options.target` here, after the checkpoint was
  // read and before the sidecar is opened or truncated, and releases it in finish() and abort().
  const sink = await createFileSink({ target: options.target, sidecar: options.sidecar, resumeAtBytes: resumed?.bytes });
  if (resumed) options.note(`collections: resuming after ${formatCount(resumed.items)} items (${formatCount(resumed.pages)} pages)`);
  const durability = createDurability(
    () => sink.sync(),
    (checkpoint) => saveCheckpoint(options.checkpoint, checkpoint),
  );
  const snapshot = (mark: PageMark): Checkpoint => ({
    version: CHECKPOINT_VERSION,
    fingerprint: options.fingerprint,
    next: mark.next,
    pages: mark.pages,
    items: mark.items,
    bytes: sink.bytes,
    formatter: mark.formatterState(),
    ...(mark.totalItems !== undefined ? { totalItems: mark.totalItems } : {}),
    updatedAt: new Date(options.now()).toISOString(),
  });

  return {
    name: sink.name,
    resumed,
    write: (text) => sink.write(text),
    pageWritten: (mark) => durability.record(snapshot(mark)),
    settle: () => durability.settle(),
    async finish(text) {
      await sink.write(text);
      await sink.commit();
      await removeCheckpoint(options.checkpoint);
    },
    async abort(wrotePage) {
      await durability.settleQuietly();
      await sink.abort();
      if (resumed === undefined && !wrotePage) {
        // Nothing was written: leave no trace (README, "Files, checkpoints and `--resume`": a
        // failure before the first page leaves nothing behind).
        await rm(options.sidecar, { force: true }).catch(() => undefined);
        await removeCheckpoint(options.checkpoint).catch(() => undefined);
      }
    },
  };
}
