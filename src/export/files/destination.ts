/** Where an export's text goes: the contract, stdout, a FIFO or device, and gzip over any of them. */
import { constants as fsConstants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { OutputStream } from '../../context.js';
import type { Clock } from '../../time/clock.js';
import type { FormatterState } from '../../output/formatter.js';
import { BrokenPipeError, createStreamSink } from '../../output/stream-sink.js';
import { UsageError, type CollectionsError } from '../../errors.js';
import { fileError, nodeFileSystem, statOrUndefined, type FileInfo, type FileSystem } from '../../io/files.js';
import type { Checkpoint } from './checkpoint.js';
import type { FileDigest } from './file-sink.js';

/** Where the export stands after a page was written, for the checkpoint. */
export interface PageMark {
  /** Absolute URL of the next page to fetch; null when the last page was written. */
  next: string | null;
  /** In total (also those before a resume). */
  pages: number;
  items: number;
  totalItems: number | undefined;
  /** The mode the API paged in, which a resume continues. */
  mode?: 'cursor' | 'offset';
  /** The pending watermark of an incremental export, kept by `--resume`. */
  watermark?: string;
  /** `X-Request-ID` of the page (a database's run log keeps it). */
  requestId?: string;
  /** Called only by destinations that checkpoint. */
  formatterState: () => FormatterState;
}

/** A record the service deleted, as an incremental export follows it (`followDeletions`). */
export interface DeletedRecord {
  /** The record's key in the output (its `--key` field, else its `id`). */
  readonly id: string;
  /** The delete event's `createdAt`, as the server wrote it. */
  readonly deletedAt: string;
  /** The delete event's IRI, e.g. `/events/…`. */
  readonly event: string;
}

export interface Destination {
  /** Summary name: the `--out` path, or `stdout`. */
  readonly name: string;
  readonly resumed: Checkpoint | undefined;
  /** Respects backpressure. @throws {OutputError} (exit 7); `BrokenPipeError` when the reader of stdout left */
  write(text: string | Buffer): Promise<void>;
  /**
   * The last page of a group was written: files make everything written so far durable and
   * checkpoint that page, beside the fetching.
   * @throws {OutputError} (exit 7) a failed flush or checkpoint of an earlier page
   */
  pageWritten(mark: PageMark): Promise<void>;
  /** Waits until every page written is durable. @throws {OutputError} (exit 7) */
  settle(): Promise<void>;
  /**
   * Writes the last text and publishes the output (files: flush, rename onto `--out`, remove the
   * checkpoint; stdout: wait until the OS has the last chunk).
   * @throws {OutputError} (exit 7); `BrokenPipeError` when the reader of stdout left
   */
  finish(text: string | Buffer): Promise<void>;
  /**
   * Stops after a failure, keeping what `--resume` needs: waits for the durability chain, then
   * closes. Never throws. A fresh file export that wrote no page leaves no trace.
   */
  abort(wrotePage: boolean): Promise<void>;
  /**
   * Databases only: after a complete `finish()`, why the output is not the whole collection though
   * nothing is left to resume (items kept apart, exit 8); undefined when it is.
   */
  keptApart?(): CollectionsError | undefined;
  /** Databases only: the watermark a complete run stores in its final transaction, told just before `finish()`. */
  keepWatermark?(since: string): void;
  /**
   * The records deleted at the service since the watermark, told just before `finish()` (and
   * before `keepWatermark`): a table deletes their rows in its final transaction.
   */
  keepDeletions?(deleted: readonly DeletedRecord[]): void;
  /** Databases only, after `finish()`: the rows deleted (`--prune`, deletions followed); undefined when none were looked for. */
  readonly deleted?: number | undefined;
  /** The published file's length and SHA-256, after `finish()`; only on file destinations, which a manifest describes. */
  digest?(): FileDigest;
}

const UNCHECKPOINTED = { resumed: undefined, pageWritten: () => Promise.resolve(), settle: () => Promise.resolve() };

export function openStdout(stream: OutputStream): Destination {
  const sink = createStreamSink(stream);
  return {
    name: 'stdout',
    ...UNCHECKPOINTED,
    write: (text) => sink.write(text),
    async finish(text) {
      await sink.write(text);
      await sink.commit();
    },
    abort: () => sink.abort(),
  };
}

const { O_APPEND, O_WRONLY, O_NONBLOCK } = fsConstants;

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
 * An `--out` that is a FIFO or device: written straight through, never replaced by a regular file.
 * A FIFO whose reader left (EPIPE) ends the export quietly, as stdout does.
 * @throws {InterruptedError} when a signal comes while a FIFO waits for its reader
 * @throws {OutputError} (exit 7) when it cannot be opened
 */
export async function openDevice(options: DeviceOptions): Promise<Destination> {
  const fs = options.fs ?? nodeFileSystem;
  const { target, signal } = options;
  let handle: FileHandle;
  try {
    // A regular file behind `/dev/stdout` is the one a shell's `>` or `>>` opened: appended to, as the shell's own descriptor would be.
    const flags = options.info.isFile() ? O_WRONLY | O_APPEND : O_WRONLY;
    handle = options.info.isFIFO() ? await openFifo(options, fs) : await fs.open(target, flags);
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
    ...UNCHECKPOINTED,
    write,
    async finish(text) {
      if (text.length > 0) await write(text);
      await close();
    },
    abort: () => close(),
  };
}

export type OutputKind = { type: 'stdout' } | { type: 'file' } | { type: 'device'; info: FileInfo };

/** The process's own descriptors: what they point to (a pipe, a terminal, the file of a shell's `>`) is not ours to replace. */
const OWN_DESCRIPTOR = /^\/(?:dev\/(?:stdout|stderr|fd\/\d+)|proc\/self\/fd\/\d+)$/;

export function namesStdout(target: string): boolean {
  return /^\/(?:dev\/(?:stdout|fd\/1)|proc\/self\/fd\/1)$/.test(target);
}

/**
 * Whether an existing `--out` is written straight through (a FIFO, a device, a descriptor of the
 * process such as `/dev/stdout`) rather than replaced by a finished file: no sidecar, lock,
 * checkpoint or manifest beside it, so it works as any user (`/dev` is root's).
 * @param target absolute, as given (not resolved through its symlinks)
 * @param info `stat` of it, following symlinks
 */
export function isWrittenThrough(target: string, info: { isFile(): boolean; isDirectory(): boolean }): boolean {
  return info.isFile() ? OWN_DESCRIPTOR.test(target) : !info.isDirectory();
}

/**
 * What `--out` is (`stat`, following symlinks such as `/dev/stdout`): a regular file (but the
 * process's own descriptor) or none yet is `file`.
 * @throws {UsageError} (exit 2) for `--resume` to an `--out` that is not a regular file
 * @throws {OutputError} (exit 7) when it cannot be checked
 */
export async function outputKind(plan: { files?: { target: string } | undefined; resume: boolean }): Promise<OutputKind> {
  if (!plan.files) return { type: 'stdout' };
  const info = await statOrUndefined(plan.files.target);
  if (!info || !isWrittenThrough(plan.files.target, info)) return { type: 'file' };
  if (plan.resume)
    throw new UsageError(`--resume needs a regular file; ${plan.files.target} is a FIFO or device (written straight through, no checkpoint)`);
  return { type: 'device', info };
}

/** The compressions of `--compress` (and of an `--out` ending in `.gz`). */
export const COMPRESSIONS = ['gzip'] as const;

export type Compression = (typeof COMPRESSIONS)[number];

/**
 * One gzip member per group of pages: a gzip file decompresses to its members one after the other
 * (RFC 1952 §2.2), so every checkpoint falls on the end of a member, where `--resume` goes on. A
 * group's text is held until the group is marked written, then written to `inner` as one member and
 * only then marked on it. An export that wrote no member still gets an empty one (valid gzip).
 * @throws what `inner` throws (OutputError, exit 7; BrokenPipeError on stdout)
 */
export async function withCompression(inner: Destination, compress: Compression | undefined): Promise<Destination> {
  if (compress === undefined) return inner;
  const zlib = await import('node:zlib');
  const { promisify } = await import('node:util');
  const gzip: (text: Buffer) => Promise<Buffer> = promisify(zlib.gzip);
  let pending: Buffer[] = [];
  // Whether the file holds a member: one written by this run, or resumed bytes (whole members).
  let hasMember = (inner.resumed?.bytes ?? 0) > 0;
  const take = (): Buffer => {
    const text = Buffer.concat(pending);
    pending = [];
    return text;
  };
  const endMember = async (): Promise<void> => {
    const text = take();
    if (text.length === 0) return;
    const member = await gzip(text);
    hasMember = true;
    await inner.write(member);
  };
  const digest = inner.digest?.bind(inner);
  return {
    name: inner.name,
    resumed: inner.resumed,
    // The digest of the members as stored; without it the manifest of a compressed file would never be written.
    ...(digest ? { digest } : {}),
    write(text) {
      pending.push(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
      return Promise.resolve();
    },
    async pageWritten(mark: PageMark) {
      await endMember();
      await inner.pageWritten(mark);
    },
    settle: () => inner.settle(),
    async finish(text) {
      pending.push(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
      const last = take();
      await inner.finish(last.length > 0 || !hasMember ? await gzip(last) : '');
    },
    async abort(wrotePage) {
      pending = [];
      await inner.abort(wrotePage);
    },
  };
}
