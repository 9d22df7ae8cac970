/**
 * The file {@link Sink} of an export: a sidecar (`F.part`) renamed onto `--out` when complete
 * (docs/files.md, "Files, checkpoints and `--resume`"). Pages are appended through a queue of positional
 * writes; `sync()` flushes them (fdatasync) so the caller may then advance the checkpoint; `commit()`
 * publishes by rename, then fsyncs the folder (as write-file-atomic does). Until `commit()`, the
 * target (yesterday's export) is untouched.
 */
import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Sink } from '../../output/stream-sink.js';
import { OutputError, UsageError, type CollectionsError } from '../../errors.js';
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
export interface FileSinkOptions {
  /** Absolute path of the final file (`--out`). */
  target: string;
  /** Absolute path of the sidecar the export writes first. */
  sidecar: string;
  /** On resume: truncate the existing sidecar to this many bytes and append; otherwise a new sidecar. */
  resumeAtBytes?: number;
  /** Summary name of the destination; default: the target path as given. */
  name?: string;
  /**
   * On resume: checks, reading the sidecar before it is truncated, that `resumeAtBytes` is a record
   * boundary (of a gzip sidecar: the end of a member) and throws ({@link UsageError}, exit 2) when
   * not (export/files/checkpoint-check.ts `boundaryCheck`).
   */
  checkBoundary?: (sidecar: FileHandle) => Promise<void>;
  /** The file system (default the real one; tests inject write errors). */
  fs?: FileSystem;
  /**
   * Called before each write reaches the file and before the rename; throws when nothing more may
   * be written (the output lock was lost: export/files/output-lock.ts). That error fails the sink as a
   * write error would.
   */
  guard?: () => void;
}

/**
 * Validates the paths before any file is touched, so an unusable `--out` fails (exit 7, README
 * "Exit codes") before a request is sent: the target's folder exists and is writable, the target
 * and the sidecar are not folders, and the sidecar's folder is writable.
 * @returns what `stat` says about the sidecar, undefined when there is none
 * @throws {OutputError} (exit 7) naming the path
 */
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

/**
 * Opens the sidecar of a resumed export (never through a symlink, only a regular file of this
 * user: io/files.ts `openOwnedFile`), checks `resumeAtBytes` is a record boundary (`checkBoundary`),
 * and truncates it to `resumeAtBytes` (what the checkpoint counts; anything after it was written but
 * never checkpointed).
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) when the length is not a byte count, the sidecar is
 *   missing or shorter than `resumeAtBytes`, or the offset is not a record boundary: "checkpoint
 *   does not match the partial file"
 * @throws {OutputError} (exit 7) when it cannot be opened or truncated, or is a symlink
 */
async function reopenSidecar(
  sidecar: string,
  info: FileInfo | undefined,
  options: FileSinkOptions & { resumeAtBytes: number; hash: Hash },
): Promise<FileHandle> {
  const { resumeAtBytes } = options;
  if (!Number.isSafeInteger(resumeAtBytes) || resumeAtBytes < 0) {
    throw new UsageError(`checkpoint does not match the partial file ${basename(sidecar)} (bad length ${resumeAtBytes})`, { code: 'E_CHECKPOINT' });
  }
  if (info === undefined) {
    throw new UsageError(`checkpoint does not match the partial file: ${sidecar} is missing`, {
      code: 'E_CHECKPOINT',
      hint: 'start over with --restart',
    });
  }
  if (info.size < resumeAtBytes) {
    throw new UsageError(`checkpoint does not match the partial file: ${sidecar} has ${info.size} bytes, the checkpoint expects ${resumeAtBytes}`, {
      code: 'E_CHECKPOINT',
      hint: 'start over with --restart',
    });
  }
  const handle = await openOwnedFile(options.fs ?? nodeFileSystem, sidecar, { create: false });
  try {
    if (options.checkBoundary) await options.checkBoundary(handle);
    await handle.truncate(resumeAtBytes);
    await hashPrefix(handle, resumeAtBytes, options.hash);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error instanceof UsageError ? error : fileError('truncate', sidecar, error);
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
