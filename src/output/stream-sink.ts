/** Where formatted text goes; stdout's sink (a file's belongs to the export). */
import type { OutputStream } from '../context.js';
import { isPipeGone, OutputError } from '../errors.js';
import { errorMessage } from '../io/files.js';

export interface Sink {
  /**
   * Appends text (UTF-8) or bytes, respecting backpressure.
   * @throws {OutputError} (exit 7), or {@link BrokenPipeError} on stdout EPIPE.
   */
  write(text: string | Buffer): Promise<void>;
  /** fsync for files. @throws {OutputError} */
  sync(): Promise<void>;
  /** Bytes written so far, including what was kept on resume. */
  readonly bytes: number;
  /** For files: fsync, rename the sidecar onto the target, fsync the folder. @throws {OutputError} */
  commit(): Promise<void>;
  /** Closes the file, leaving the sidecar for `--resume`. Never throws. */
  abort(): Promise<void>;
  /** For the summary: `invoices.ndjson`, `stdout`. */
  readonly name: string;
}

/** The reader of stdout went away (`| head`): the export ends quietly. */
export class BrokenPipeError extends Error {
  constructor() {
    super('broken pipe');
    this.name = 'BrokenPipeError';
  }
}

function streamError(error: unknown, name: string): Error {
  if (isPipeGone(error)) return new BrokenPipeError();
  return new OutputError(`cannot write to ${name}: ${errorMessage(error)}`, { cause: error });
}

/**
 * `commit()` waits until the OS has the last chunk, so nothing is cut off at exit; stdout is never ended.
 * @throws (from write/commit) {@link BrokenPipeError} when the reader left, {@link OutputError} (exit 7)
 */
export function createStreamSink(stream: OutputStream, name = 'stdout'): Sink {
  let bytes = 0;
  let failure: Error | undefined;
  let flushed: Promise<void> = Promise.resolve();
  // Wakes a pending drain wait: a failed write callback or a destroyed stream never emits 'drain'.
  let wake: (() => void) | undefined;
  const fail = (error: unknown): Error => {
    failure ??= streamError(error, name);
    wake?.();
    return failure;
  };
  // The stream's callbacks set `failure` at any time, so every check reads it afresh here.
  const throwIfFailed = (): void => {
    if (failure) throw failure;
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
      throwIfFailed();
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
        throw fail(error);
      }
      bytes += Buffer.byteLength(text);
      if (!ok) await waitDrain();
      throwIfFailed();
    },
    sync: () => (failure ? Promise.reject(failure) : Promise.resolve()),
    async commit() {
      await flushed;
      throwIfFailed();
    },
    abort() {
      // Adding and removing a listener cannot throw, so this never rejects, as Sink promises.
      stream.off('error', fail);
      stream.on('error', () => undefined);
      return Promise.resolve();
    },
  };
}
