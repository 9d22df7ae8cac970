/** A sidecar (`F.part`) renamed onto `--out` when complete; until then the target (yesterday's export) is untouched. */
import { createHash, type Hash } from 'node:crypto';
import { lstat, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Sink } from '../../output/stream-sink.js';
import { CollectionsError, OutputError, UsageError } from '../../errors.js';
import { checkpointError } from './checkpoint.js';
import {
  checkFolder,
  fileError,
  nodeFileSystem,
  openOwnedFile,
  statOrUndefined,
  syncFolder,
  type FileInfo,
  type FileSystem,
} from '../../io/files.js';

/** Bytes a file sink lets wait in its write queue before `write()` waits for them (backpressure): a few pages of 1000 items. */
export const FILE_SINK_HIGH_WATER_BYTES = 4 * 1024 * 1024;

export interface FileDigest {
  /** Including what was kept on resume. */
  bytes: number;
  /** Lowercase hex. */
  sha256: string;
}

export interface FileSink extends Sink {
  /** Of every byte written so far, in file order; call it after `commit()`. */
  digest(): FileDigest;
}

/** Paths absolute. */
export interface FileSinkOptions {
  target: string;
  sidecar: string;
  /** On resume: truncate the existing sidecar to this many bytes and append; otherwise a new sidecar. */
  resumeAtBytes?: number;
  /** On resume: throws {@link UsageError} (exit 2) when `resumeAtBytes` is not a record boundary of the sidecar (`boundaryCheck`). */
  checkBoundary?: (sidecar: FileHandle) => Promise<void>;
  fs?: FileSystem;
  /** Throws when nothing more may be written (the output lock was lost); checked before each write and the rename. */
  guard?: () => void;
}

/** So an unusable `--out` fails (exit 7) before a request is sent. @throws {OutputError} (exit 7) naming the path */
async function checkPaths(target: string, sidecar: string): Promise<FileInfo | undefined> {
  const folder = dirname(target);
  await checkFolder(folder, target);
  const targetInfo = await statOrUndefined(target);
  if (targetInfo?.isDirectory()) throw new OutputError(`cannot write ${target}: it is a folder`);
  if (dirname(sidecar) !== folder) await checkFolder(dirname(sidecar), sidecar);
  const sidecarInfo = await statOrUndefined(sidecar);
  if (sidecarInfo?.isDirectory()) throw new OutputError(`cannot write ${sidecar}: it is a folder`);
  return sidecarInfo;
}

/** Undefined when nothing is at `sidecar` to check (not `create`, not resuming). @throws {OutputError} (exit 7); {@link UsageError} (exit 2, `E_CHECKPOINT`) */
async function openChecked(options: FileSinkOptions, create: boolean): Promise<FileHandle | undefined> {
  const { target, sidecar, resumeAtBytes } = options;
  const info = await checkPaths(target, sidecar);
  const fs = options.fs ?? nodeFileSystem;
  if (resumeAtBytes === undefined) {
    // A dangling symlink stats as missing, but `openOwnedFile` would still refuse it.
    if (!create && info === undefined && !(await exists(sidecar))) return undefined;
    return openOwnedFile(fs, sidecar, { create });
  }
  if (!Number.isSafeInteger(resumeAtBytes) || resumeAtBytes < 0)
    throw checkpointError(`checkpoint does not match the partial file ${basename(sidecar)} (bad length ${resumeAtBytes})`);
  const restart = 'start over with --restart';
  if (info === undefined) throw checkpointError(`checkpoint does not match the partial file: ${sidecar} is missing`, restart);
  if (info.size < resumeAtBytes)
    throw checkpointError(
      `checkpoint does not match the partial file: ${sidecar} has ${info.size} bytes, the checkpoint expects ${resumeAtBytes}`,
      restart,
    );
  const handle = await openOwnedFile(fs, sidecar, { create: false });
  try {
    if (options.checkBoundary) await options.checkBoundary(handle);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error instanceof UsageError ? error : fileError('read', sidecar, error);
  }
  return handle;
}

/** Whether anything, a symlink included, is at `path`. */
export async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/**
 * The checks {@link createFileSink} makes as it opens, touching no file (the dry run's).
 * @throws {OutputError} (exit 7), {@link UsageError} (exit 2, `E_CHECKPOINT`)
 */
export async function checkFileSink(options: FileSinkOptions): Promise<void> {
  await (await openChecked(options, false))?.close().catch(() => undefined);
}

async function hashPrefix(handle: FileHandle, length: number, hash: Hash): Promise<void> {
  const chunk = Buffer.alloc(Math.min(length, 1024 * 1024));
  for (let at = 0; at < length;) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, length - at), at);
    if (bytesRead === 0) break;
    hash.update(chunk.subarray(0, bytesRead));
    at += bytesRead;
  }
}

interface WriteQueue {
  /** Waits when more than the high-water mark is queued. @throws {OutputError} an earlier write's error */
  push(buffer: Buffer, at: number): Promise<void>;
  /** @throws {OutputError} the first write error */
  drain(): Promise<void>;
  settle(): Promise<void>;
  readonly failure: CollectionsError | undefined;
}

/**
 * Queued, so the export formats the next page while this one reaches the file: an append can stall
 * while the file's last page is under writeback for the previous fdatasync (stable pages).
 */
function createWriteQueue(handle: FileHandle, sidecar: string, hash: Hash, guard: () => void): WriteQueue {
  let queue: Promise<void> = Promise.resolve();
  let queuedBytes = 0;
  let failure: CollectionsError | undefined;
  const writeAt = async (buffer: Buffer, at: number): Promise<void> => {
    let offset = 0;
    try {
      guard();
      while (offset < buffer.length) {
        const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset, at + offset);
        offset += bytesWritten;
      }
    } catch (error) {
      // The guard's error is the lost lock's own; a write's names the sidecar.
      failure ??= error instanceof CollectionsError ? error : fileError('write', sidecar, error);
    } finally {
      queuedBytes -= buffer.length;
    }
  };
  const drain = async (): Promise<void> => {
    await queue;
    if (failure) throw failure;
  };
  return {
    get failure() {
      return failure;
    },
    async push(buffer, at) {
      queuedBytes += buffer.length;
      // Pushed in file order (appends), so the hash is the file's: the bytes as they go to it.
      hash.update(buffer);
      queue = queue.then(() => (failure ? undefined : writeAt(buffer, at)));
      if (queuedBytes > FILE_SINK_HIGH_WATER_BYTES) await drain();
    },
    drain,
    settle: () => queue,
  };
}

/**
 * `sync()` drains the queue, then fdatasync, so a checkpoint taken after it never counts a byte not
 * on disk; `commit()` renames onto the target and fsyncs the folder.
 * @throws {OutputError} (exit 7, naming the path) when a path is unusable or a write, sync or rename
 *   fails (a queued write's failure is thrown by the next call); {@link UsageError} (exit 2) on resume
 *   when the sidecar does not match the checkpoint
 */
export async function createFileSink(options: FileSinkOptions): Promise<FileSink> {
  const { target, sidecar, resumeAtBytes } = options;
  const fs = options.fs ?? nodeFileSystem;
  const hash = createHash('sha256');
  const handle = (await openChecked(options, true))!;
  // On resume: truncated to `resumeAtBytes` (anything after it was never checkpointed), and what is kept hashed.
  if (resumeAtBytes !== undefined) {
    try {
      await handle.truncate(resumeAtBytes);
      await hashPrefix(handle, resumeAtBytes, hash);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw fileError('truncate', sidecar, error);
    }
  }
  let position = resumeAtBytes ?? 0;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  const guard = options.guard ?? (() => undefined);
  const queue = createWriteQueue(handle, sidecar, hash, guard);
  let sha256: string | undefined;
  const sync = async (): Promise<void> => {
    await queue.drain();
    try {
      await handle.datasync();
    } catch (error) {
      throw fileError('sync', sidecar, error);
    }
  };

  return {
    get bytes() {
      return position;
    },
    name: target,
    async write(text) {
      if (queue.failure) throw queue.failure;
      guard();
      if (closed) throw new OutputError(`cannot write ${sidecar}: the file was already closed`);
      if (text.length === 0) return;
      const buffer = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
      const at = position;
      position += buffer.length;
      await queue.push(buffer, at);
    },
    sync,
    async commit() {
      await sync();
      await close().catch((error: unknown) => {
        throw fileError('sync', sidecar, error);
      });
      guard();
      try {
        await fs.rename(sidecar, target);
      } catch (error) {
        throw fileError('rename the finished export onto', target, error);
      }
      await syncFolder(dirname(target));
    },
    async abort() {
      await queue.settle();
      await close().catch(() => undefined);
    },
    digest() {
      sha256 ??= hash.digest('hex');
      return { bytes: position, sha256 };
    },
  };
}
