/**
 * The file {@link Sink} of an export: a sidecar (`F.part`) renamed onto `--out` when complete
 * (docs/files.md, "Files, checkpoints and `--resume`"). Pages are appended through a queue of positional
 * writes; `sync()` flushes them (fdatasync) so the caller may then advance the checkpoint; `commit()`
 * publishes by rename, then fsyncs the folder (as write-file-atomic does). Until `commit()`, the
 * target (yesterday's export) is untouched.
 */
import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Sink } from '../../output/stream-sink.js';
import { OutputError, type CollectionsError } from '../../errors.js';
import { fileError, nodeFileSystem, openOwnedFile, syncFolder, type FileInfo } from '../../io/files.js';
import { checkPaths, openResumable, type SinkPaths } from './file-sink-check.js';

/**
 * Bytes a file sink lets wait in its write queue before `write()` waits for them (backpressure):
 * a few pages of 1000 items.
 */
export const FILE_SINK_HIGH_WATER_BYTES = 4 * 1024 * 1024;

/** What a file sink wrote, for the manifest (export/manifest/manifest.ts). */
export interface FileDigest {
  /** Length of the file, bytes (what was kept on resume included). */
  bytes: number;
  /** SHA-256 of those bytes (FIPS 180-4), lowercase hex. */
  sha256: string;
}

/** A {@link Sink} on a file that also hashes what reaches the file. */
export interface FileSink extends Sink {
  /**
   * The length and SHA-256 of every byte written so far, in file order (on resume the kept prefix
   * is hashed first); call it after `commit()`, once nothing is queued.
   */
  digest(): FileDigest;
}

/** Options of {@link createFileSink}. */
export interface FileSinkOptions extends SinkPaths {
  /** Summary name of the destination; default: the target path as given. */
  name?: string;
  /**
   * Called before each write reaches the file and before the rename; throws when nothing more may
   * be written (the output lock was lost: export/files/output-lock.ts). That error fails the sink as a
   * write error would.
   */
  guard?: () => void;
}

/**
 * {@link openResumable}, then truncates the sidecar to `resumeAtBytes` (what the checkpoint counts;
 * anything after it was written but never checkpointed) and hashes what is kept.
 * @throws as {@link openResumable}; {@link OutputError} (exit 7) when it cannot be truncated
 */
async function reopenSidecar(
  sidecar: string,
  info: FileInfo | undefined,
  options: FileSinkOptions & { resumeAtBytes: number; hash: Hash },
): Promise<FileHandle> {
  const handle = await openResumable(sidecar, info, options);
  try {
    await handle.truncate(options.resumeAtBytes);
    await hashPrefix(handle, options.resumeAtBytes, options.hash);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw fileError('truncate', sidecar, error);
  }
  return handle;
}

/** Feeds the first `length` bytes of the file to `hash`, 1 MiB at a time. */
async function hashPrefix(handle: FileHandle, length: number, hash: Hash): Promise<void> {
  const chunk = Buffer.alloc(Math.min(length, 1024 * 1024));
  for (let at = 0; at < length;) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, length - at), at);
    if (bytesRead === 0) break;
    hash.update(chunk.subarray(0, bytesRead));
    at += bytesRead;
  }
}

/** The positional write queue of a sidecar (see {@link createWriteQueue}). */
interface WriteQueue {
  /** Queues `buffer` at byte `at`; waits when more than the high-water mark is queued. @throws {OutputError} an earlier write's error */
  push(buffer: Buffer, at: number): Promise<void>;
  /** Waits for every queued write. @throws {OutputError} the first write error */
  drain(): Promise<void>;
  /** Waits for every queued write; never throws. */
  settle(): Promise<void>;
  /** The first write error (or the guard's), once one happened. */
  readonly failure: CollectionsError | undefined;
}

/**
 * Writes are queued: `push()` hands the bytes to a chain of positional writes and returns while
 * fewer than {@link FILE_SINK_HIGH_WATER_BYTES} wait, so the export formats the next page while this
 * one reaches the file. An append can stall while the file's last page is under writeback for the
 * previous page's fdatasync (stable pages); without the queue that stall is the export's. After the
 * first failure, queued writes are skipped.
 */
function createWriteQueue(handle: FileHandle, sidecar: string, hash: Hash, guard: () => void): WriteQueue {
  let queue: Promise<void> = Promise.resolve();
  let queuedBytes = 0;
  let failure: CollectionsError | undefined;
  const writeAt = async (buffer: Buffer, at: number): Promise<void> => {
    let offset = 0;
    try {
      guard();
    } catch (error) {
      failure ??= error as CollectionsError;
      queuedBytes -= buffer.length;
      return;
    }
    try {
      while (offset < buffer.length) {
        const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset, at + offset);
        offset += bytesWritten;
      }
    } catch (error) {
      failure ??= fileError('write', sidecar, error);
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
 * Opens the sidecar. Validates up front, before any file is touched: the target's folder exists and
 * is writable, the target and the sidecar are not folders, and the sidecar's folder is writable.
 * New export: the sidecar is created, or emptied when it is a regular file of this user with one
 * link (never through a symlink: io/files.ts `openOwnedFile`). Resume: the sidecar must hold at least
 * `resumeAtBytes`; it is truncated to exactly that and written on from there.
 * Writes go through one FileHandle at explicit positions, queued (up to
 * {@link FILE_SINK_HIGH_WATER_BYTES} waiting before `write()` waits too); `bytes` counts what was
 * accepted; `sync()` waits for the queue, then fdatasync, so a checkpoint taken after it never
 * counts a byte that is not on disk; `commit()` is the same, then close, rename onto the target,
 * fsync the folder; `abort()` lets queued writes finish, closes and keeps the sidecar.
 * Every byte is hashed (SHA-256) as it is queued, the kept prefix first on resume (read back from
 * the truncated sidecar), so `digest()` gives the final file's hash without reading it again.
 * @throws {OutputError} (exit 7, message naming the path) when a path is unusable or any write,
 *   sync or rename fails (ENOSPC, EACCES, EISDIR…); a failed queued write is thrown by the next
 *   `write()`, `sync()` or `commit()`.
 * @throws {UsageError} (exit 2) on resume when the sidecar is missing or shorter than
 *   `resumeAtBytes`: "checkpoint does not match the partial file".
 */
export async function createFileSink(options: FileSinkOptions): Promise<FileSink> {
  const { target, sidecar, resumeAtBytes } = options;
  const fs = options.fs ?? nodeFileSystem;
  const sidecarInfo = await checkPaths(target, sidecar);
  const hash = createHash('sha256');
  const handle =
    resumeAtBytes === undefined
      ? await openOwnedFile(fs, sidecar, { create: true })
      : await reopenSidecar(sidecar, sidecarInfo, { ...options, resumeAtBytes, hash });
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

  return {
    get bytes() {
      return position;
    },
    name: options.name ?? target,
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
    async sync() {
      await queue.drain();
      try {
        await handle.datasync();
      } catch (error) {
        throw fileError('sync', sidecar, error);
      }
    },
    async commit() {
      await queue.drain();
      try {
        await handle.datasync();
        await close();
      } catch (error) {
        throw fileError('sync', sidecar, error);
      }
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
