/**
 * Where formatted text goes: stdout, or a sidecar file renamed onto `--out` when complete
 * (reliability.md, rule 7). STUB: interface fixed; implementation by the output work.
 */
import type { OutputStream } from '../cli/context.js';

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

/** Creates a sink on a stream (stdout). EPIPE becomes {@link BrokenPipeError}. */
export function createStreamSink(stream: OutputStream): Sink {
  void stream;
  throw new Error('not implemented');
}

/** Options of {@link createFileSink}. */
export interface FileSinkOptions {
  /** Absolute path of the final file (`--out`). */
  target: string;
  /** Absolute path of the sidecar the export writes first. */
  sidecar: string;
  /** On resume: truncate the existing sidecar to this many bytes and append; otherwise a new sidecar. */
  resumeAtBytes?: number;
}

/**
 * Opens the sidecar. Validates up front (folder exists and is writable, target is not a folder).
 * @throws {OutputError} (exit 7) when the sidecar cannot be created or truncated.
 */
export async function createFileSink(options: FileSinkOptions): Promise<Sink> {
  void options;
  throw new Error('not implemented');
}
