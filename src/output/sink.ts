/**
 * Where formatted text goes: stdout, or a sidecar file renamed onto `--out` when complete
 * (reliability.md, rule 7): append the page, fsync, then the caller advances the checkpoint;
 * publish by rename, then fsync the folder (as write-file-atomic does). Until `commit()`, the
 * target (yesterday's export) is untouched.
 */
import { constants as fsConstants } from 'node:fs';
import { access, open, rename, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { OutputStream } from '../context.js';
import { OutputError, UsageError } from '../errors.js';

/** A destination for text. */
export interface Sink {
  /** Appends text, respecting backpressure. @throws {OutputError} (exit 7), or {@link BrokenPipeError} on stdout EPIPE. */
  write(text: string): Promise<void>;
  /** Makes what was written durable (fsync for files; no-op for stdout). @throws {OutputError} */
  sync(): Promise<void>;
  /** Bytes written so far, including what was kept on resume. */
  readonly bytes: number;
  /** Finishes: for files, fsync, rename the sidecar onto the target, fsync the folder. @throws {OutputError} */
  commit(): Promise<void>;
  /** Stops: closes the file, leaving the sidecar for `--resume`. Never throws. */
  abort(): Promise<void>;
  /** Human name of the destination for the summary (`invoices.ndjson`, `stdout`). */
  readonly name: string;
}

/** The reader of stdout went away (`| head`): the export ends quietly. */
export class BrokenPipeError extends Error {
  constructor() {
    super('broken pipe');
    this.name = 'BrokenPipeError';
  }
}

/** Error codes meaning the reader left: EPIPE from the OS, ERR_STREAM_DESTROYED once Node closed the stream. */
const PIPE_GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ECONNRESET']);

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Maps a stream error: the reader leaving → {@link BrokenPipeError}, anything else → {@link OutputError}. */
function streamError(error: unknown, name: string): Error {
  if (PIPE_GONE.has(errorCode(error) ?? '')) return new BrokenPipeError();
  const message = error instanceof Error ? error.message : String(error);
  return new OutputError(`cannot write to ${name}: ${message}`, { cause: error });
}

/**
 * Creates a sink on a stream (stdout). `write()` resolves as soon as the stream accepts the text
 * and waits for `'drain'` when it reports a full buffer; `commit()` waits until the last chunk was
 * handed to the OS (its write callback ran), so nothing is cut off when the process exits. The
 * stream is never ended: stdout belongs to the process.
 * @param name summary name, default `stdout`
 * @throws (from write/commit) {@link BrokenPipeError} when the reader left (EPIPE,
 *   ERR_STREAM_DESTROYED), {@link OutputError} (exit 7) for any other stream error.
 */
export function createStreamSink(stream: OutputStream, name = 'stdout'): Sink {
  let bytes = 0;
  let failure: Error | undefined;
  let flushed: Promise<void> = Promise.resolve();
  // Wakes a pending drain wait: a failed write callback or a destroyed stream never emits 'drain'.
  let wake: (() => void) | undefined;
  const fail = (error: unknown): void => {
    failure ??= streamError(error, name);
    wake?.();
  };
  // A listener is always attached: an unhandled 'error' event (EPIPE) would crash the process.
  stream.on('error', fail);

  const waitDrain = (): Promise<void> =>
    new Promise<void>((resolve) => {
      const onClose = (): void => {
        failure ??= new BrokenPipeError();
        done();
      };
      const done = (): void => {
        wake = undefined;
        stream.off('drain', done);
        stream.off('close', onClose);
        resolve();
      };
      if (failure || (stream as { destroyed?: boolean }).destroyed === true) {
        failure ??= new BrokenPipeError();
        resolve();
        return;
      }
      wake = done;
      stream.on('drain', done);
      stream.on('close', onClose);
    });

  return {
    get bytes() {
      return bytes;
    },
    name,
    async write(text) {
      if (failure) throw failure;
      if (text.length === 0) return;
      let ok: boolean;
      try {
        let settle!: () => void;
        flushed = new Promise<void>((resolve) => {
          settle = resolve;
        });
        ok = stream.write(text, (error?: Error | null) => {
          if (error) fail(error);
          settle();
        });
      } catch (error) {
        fail(error);
        throw failure;
      }
      bytes += Buffer.byteLength(text);
      if (!ok) await waitDrain();
      if (failure) throw failure;
    },
    async sync() {
      if (failure) throw failure;
    },
    async commit() {
      await flushed;
      if (failure) throw failure;
    },
    async abort() {
      stream.off('error', fail);
      stream.on('error', () => undefined);
    },
  };
}

/**
 * Bytes a file sink lets wait in its write queue before `write()` waits for them (backpressure):
 * a few pages of 1000 items.
 */
export const FILE_SINK_HIGH_WATER_BYTES = 4 * 1024 * 1024;

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
}

/**
 * The files an export keeps next to `--out` until it completes. They are visible (not dot files) so
 * a user listing the folder sees that an export is unfinished and can `--resume` it.
 * @param target the `--out` path, e.g. `/data/invoices.ndjson`
 * @returns `{ sidecar: '/data/invoices.ndjson.part', checkpoint: '/data/invoices.ndjson.checkpoint.json' }`
 */
export function sidecarPaths(target: string): { sidecar: string; checkpoint: string } {
  return { sidecar: `${target}.part`, checkpoint: `${target}.checkpoint.json` };
}

/** One-line reasons for the usual file-system error codes. */
const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EISDIR: 'is a folder',
  ENOTDIR: 'a part of the path is not a folder',
  ENOENT: 'no such file or folder',
  EIO: 'input/output error',
  EFBIG: 'file too large',
  ENAMETOOLONG: 'name too long',
};

/** An {@link OutputError} naming the path and the reason, from a file-system error. */
function fileError(action: string, path: string, error: unknown): OutputError {
  const code = errorCode(error);
  const reason = (code && REASONS[code]) ?? (error instanceof Error ? error.message : String(error));
  return new OutputError(`cannot ${action} ${path}: ${reason}${code && REASONS[code] ? ` (${code})` : ''}`, { cause: error });
}

/** Stats a path; undefined when it does not exist. @throws {OutputError} on other errors */
async function statOrUndefined(path: string): Promise<Awaited<ReturnType<typeof stat>> | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw fileError('check', path, error);
  }
}

/** Checks that `folder` exists, is a folder and is writable. @throws {OutputError} */
async function checkFolder(folder: string, forPath: string): Promise<void> {
  const info = await statOrUndefined(folder);
  if (info === undefined) throw new OutputError(`cannot write ${forPath}: folder ${folder} does not exist`);
  if (!info.isDirectory()) throw new OutputError(`cannot write ${forPath}: ${folder} is not a folder`);
  try {
    await access(folder, fsConstants.W_OK | fsConstants.X_OK);
  } catch (error) {
    throw new OutputError(`cannot write ${forPath}: folder ${folder} is not writable`, { cause: error });
  }
}

/**
 * fsyncs a folder so a rename in it survives a crash. Some platforms refuse to open or fsync a
 * folder (Windows: EISDIR/EPERM; some file systems: EINVAL, ENOTSUP); durability there rests on the
 * file system, so those errors are ignored.
 */
async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch (error) {
    const code = errorCode(error);
    if (!['EINVAL', 'EISDIR', 'EPERM', 'ENOTSUP', 'EBADF', 'EACCES'].includes(code ?? '')) throw fileError('sync folder', folder, error);
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Opens the sidecar. Validates up front, before any file is touched (reliability.md, rule 8): the
 * target's folder exists and is writable, the target and the sidecar are not folders, and the
 * sidecar's folder is writable. New export: the sidecar is created or truncated. Resume: the sidecar
 * must hold at least `resumeAtBytes`; it is truncated to exactly that and written on from there.
 * Writes go through one FileHandle at explicit positions, queued (up to
 * {@link FILE_SINK_HIGH_WATER_BYTES} waiting before `write()` waits too); `bytes` counts what was
 * accepted; `sync()` waits for the queue, then fdatasync, so a checkpoint taken after it never
 * counts a byte that is not on disk; `commit()` is the same, then close, rename onto the target,
 * fsync the folder; `abort()` lets queued writes finish, closes and keeps the sidecar.
 * @throws {OutputError} (exit 7, message naming the path) when a path is unusable or any write,
 *   sync or rename fails (ENOSPC, EACCES, EISDIR…); a failed queued write is thrown by the next
 *   `write()`, `sync()` or `commit()`.
 * @throws {UsageError} (exit 2) on resume when the sidecar is missing or shorter than
 *   `resumeAtBytes`: "checkpoint does not match the partial file".
 */
export async function createFileSink(options: FileSinkOptions): Promise<Sink> {
  const { target, sidecar, resumeAtBytes } = options;
  const name = options.name ?? target;
  const folder = dirname(target);
  await checkFolder(folder, target);
  const targetInfo = await statOrUndefined(target);
  if (targetInfo?.isDirectory()) throw new OutputError(`cannot write ${target}: it is a folder`);
  if (dirname(sidecar) !== folder) await checkFolder(dirname(sidecar), sidecar);
  const sidecarInfo = await statOrUndefined(sidecar);
  if (sidecarInfo?.isDirectory()) throw new OutputError(`cannot write ${sidecar}: it is a folder`);

  let handle: FileHandle;
  let position = 0;
  if (resumeAtBytes !== undefined) {
    if (!Number.isSafeInteger(resumeAtBytes) || resumeAtBytes < 0) {
      throw new UsageError(`checkpoint does not match the partial file ${basename(sidecar)} (bad length ${resumeAtBytes})`, { code: 'E_CHECKPOINT' });
    }
    if (sidecarInfo === undefined) {
      throw new UsageError(`checkpoint does not match the partial file: ${sidecar} is missing`, {
        code: 'E_CHECKPOINT',
        hint: 'start again without --resume',
      });
    }
    if (sidecarInfo.size < resumeAtBytes) {
      throw new UsageError(
        `checkpoint does not match the partial file: ${sidecar} has ${sidecarInfo.size} bytes, the checkpoint expects ${resumeAtBytes}`,
        { code: 'E_CHECKPOINT', hint: 'start again without --resume' },
      );
    }
    try {
      handle = await open(sidecar, 'r+');
    } catch (error) {
      throw fileError('open', sidecar, error);
    }
    try {
      await handle.truncate(resumeAtBytes);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw fileError('truncate', sidecar, error);
    }
    position = resumeAtBytes;
  } else {
    try {
      handle = await open(sidecar, 'w');
    } catch (error) {
      throw fileError('create', sidecar, error);
    }
  }

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close();
  };

  // Writes are queued: `write()` hands the bytes to a chain of positional writes and returns while
  // fewer than FILE_SINK_HIGH_WATER_BYTES wait, so the export formats the next page while this one
  // reaches the file. An append can stall while the file's last page is under writeback for the
  // previous page's fdatasync (stable pages); without the queue that stall is the export's.
  let queue: Promise<void> = Promise.resolve();
  let queuedBytes = 0;
  let failure: OutputError | undefined;
  const writeAt = async (buffer: Buffer, at: number): Promise<void> => {
    let offset = 0;
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
  /** Waits for every queued write. @throws {OutputError} the first write error */
  const drain = async (): Promise<void> => {
    await queue;
    if (failure) throw failure;
  };

  return {
    get bytes() {
      return position;
    },
    name,
    async write(text) {
      if (failure) throw failure;
      if (closed) throw new OutputError(`cannot write ${sidecar}: the file was already closed`);
      if (text.length === 0) return;
      const buffer = Buffer.from(text, 'utf8');
      const at = position;
      position += buffer.length;
      queuedBytes += buffer.length;
      queue = queue.then(() => (failure ? undefined : writeAt(buffer, at)));
      if (queuedBytes > FILE_SINK_HIGH_WATER_BYTES) await drain();
    },
    async sync() {
      await drain();
      try {
        await handle.datasync();
      } catch (error) {
        throw fileError('sync', sidecar, error);
      }
    },
    async commit() {
      await drain();
      try {
        await handle.datasync();
        await close();
      } catch (error) {
        throw fileError('sync', sidecar, error);
      }
      try {
        await rename(sidecar, target);
      } catch (error) {
        throw fileError('rename the finished export onto', target, error);
      }
      await syncFolder(folder);
    },
    async abort() {
      await queue;
      await close().catch(() => undefined);
    },
  };
}
