/** An `--out` that is a FIFO or device: written straight through, never replaced by a regular file. */
import { constants as fsConstants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { Clock } from '../../time/clock.js';
import { BrokenPipeError } from '../../output/stream-sink.js';
import { UsageError } from '../../errors.js';
import { fileError, nodeFileSystem, statOrUndefined, type FileInfo, type FileSystem } from '../../io/files.js';
import type { Destination } from './destination.js';

const { O_WRONLY, O_NONBLOCK } = fsConstants;

const FIFO_POLL_MS = 50;

export interface DeviceOptions {
  target: string;
  /** What `stat` (following symlinks) says about it: not a regular file, not a folder. */
  info: FileInfo;
  /** Aborted by the first SIGINT / SIGTERM; stops the wait for a reader. */
  signal: AbortSignal;
  clock: Clock;
  fs?: FileSystem;
}

/** Rejects with the signal's reason once it is aborted (never resolves). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    else signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

/**
 * Never blocks where a signal cannot reach: `O_NONBLOCK` opens fail with ENXIO while no reader has it
 * open (fifo(7)), so they are retried; then it is opened again blocking, for ordinary writes.
 * @throws the signal's reason ({@link InterruptedError}) when interrupted; {@link OutputError} (exit 7)
 */
async function openFifo(options: DeviceOptions, fs: FileSystem): Promise<FileHandle> {
  for (;;) {
    let probe: FileHandle | undefined;
    try {
      probe = await fs.open(options.target, O_WRONLY | O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw fileError('open', options.target, error);
      await options.clock.sleep(FIFO_POLL_MS, options.signal);
      continue;
    }
    try {
      return await fs.open(options.target, O_WRONLY);
    } catch (error) {
      throw fileError('open', options.target, error);
    } finally {
      await probe.close().catch(() => undefined);
    }
  }
}

/**
 * A FIFO whose reader left (EPIPE) ends the export quietly, as stdout does.
 * @throws {InterruptedError} when a signal comes while a FIFO waits for its reader
 * @throws {OutputError} (exit 7) when it cannot be opened
 */
export async function openDevice(options: DeviceOptions): Promise<Destination> {
  const fs = options.fs ?? nodeFileSystem;
  const { target, signal } = options;
  let handle: FileHandle;
  try {
    handle = options.info.isFIFO() ? await openFifo(options, fs) : await fs.open(target, O_WRONLY);
  } catch (error) {
    if (error === signal.reason) throw error;
    throw error instanceof Error && error.name === 'OutputError' ? error : fileError('open', target, error);
  }
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => undefined);
  };
  const write = async (text: string | Buffer): Promise<void> => {
    const buffer = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    let offset = 0;
    try {
      while (offset < buffer.length) {
        const { bytesWritten } = await Promise.race([handle.write(buffer, offset, buffer.length - offset, null), aborted(signal)]);
        offset += bytesWritten;
      }
    } catch (error) {
      if (error === signal.reason) throw error;
      if ((error as NodeJS.ErrnoException).code === 'EPIPE') throw new BrokenPipeError();
      throw fileError('write', target, error);
    }
  };
  return {
    name: target,
    resumed: undefined,
    write,
    pageWritten: () => Promise.resolve(),
    settle: () => Promise.resolve(),
    async finish(text) {
      if (text.length > 0) await write(text);
      await close();
    },
    abort: () => close(),
  };
}

export type OutputKind = { type: 'stdout' } | { type: 'file' } | { type: 'device'; info: FileInfo };

/**
 * What `--out` is (`stat`, following symlinks such as `/dev/stdout`): a regular file or none yet is `file`.
 * @throws {UsageError} (exit 2) for `--resume` to an `--out` that is not a regular file
 * @throws {OutputError} (exit 7) when it cannot be checked
 */
export async function outputKind(plan: { files?: { target: string } | undefined; resume: boolean }): Promise<OutputKind> {
  if (!plan.files) return { type: 'stdout' };
  const info = await statOrUndefined(plan.files.target);
  if (!info || info.isFile() || info.isDirectory()) return { type: 'file' };
  if (plan.resume)
    throw new UsageError(`--resume needs a regular file; ${plan.files.target} is a FIFO or device (written straight through, no checkpoint)`);
  return { type: 'device', info };
}
