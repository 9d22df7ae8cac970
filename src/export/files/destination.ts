/**
 * Where an export's text goes, as the run loop sees it: a {@link Destination} is stdout
 * ({@link openStdout}) or a sidecar file with its checkpoint (export/files/sidecar.ts).
 */
import type { OutputStream } from '../../context.js';
import type { FormatterState } from '../../output/formatter.js';
import { createStreamSink } from '../../output/stream-sink.js';
import type { Checkpoint } from './checkpoint.js';
import type { FileDigest } from './file-sink.js';

/** Where the export stands after a page was written, for the checkpoint. */
export interface PageMark {
  /** Absolute URL of the next page to fetch; null when the last page was written. */
  next: string | null;
  /** Pages written, in total (also those before a resume). */
  pages: number;
  /** Items written, in total. */
  items: number;
  /** `hydra:totalItems`, if the API sent it. */
  totalItems: number | undefined;
  /** The mode the API paged in (pagination/modes.ts), which a resume continues. */
  mode?: 'cursor' | 'offset';
  /** The pending watermark of an incremental export (see `Checkpoint.watermark`), kept by `--resume`. */
  watermark?: string;
  /** `X-Request-ID` of the page, when the server sent one (a database's run log keeps it). */
  requestId?: string;
  /** The formatter's state after the page; called only by destinations that checkpoint. */
  formatterState: () => FormatterState;
}

/** The output of one export run. */
export interface Destination {
  /** Summary name: the `--out` path, or `stdout`. */
  readonly name: string;
  /** The checkpoint this run continues from (`--resume`); undefined when it starts afresh. */
  readonly resumed: Checkpoint | undefined;
  /**
   * Appends text (or bytes: gzip members, export/files/gzip-destination.ts), respecting backpressure.
   * @throws {OutputError} (exit 7); `BrokenPipeError` (output/stream-sink.ts) when the reader of
   *   stdout left
   */
  write(text: string | Buffer): Promise<void>;
  /**
   * The last page of a group was written (export/run/checkpoint-group.ts): files make everything
   * written so far durable and checkpoint that page, beside the fetching.
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
   * Stops after a failure, keeping what `--resume` needs: waits for the durability chain (its
   * error, if any, was or will be thrown elsewhere), then closes. Never throws.
   * @param wrotePage whether this run wrote a page; a fresh file export that wrote none leaves no
   *   trace (docs/files.md, "Files, checkpoints and `--resume`")
   */
  abort(wrotePage: boolean): Promise<void>;
  /**
   * Database destinations only (export/destinations/database.ts): the watermark a complete run
   * stores in its final transaction, told just before `finish()` (export/state/watermark.ts).
   */
  keepWatermark?(since: string): void;
  /**
   * The published file's length (bytes) and SHA-256, after `finish()`; present only on file
   * destinations (export/files/sidecar.ts), whose output a manifest describes (export/manifest/manifest.ts).
   */
  digest?(): FileDigest;
}

/**
 * The stdout destination: no checkpoint, nothing to make durable, nothing to resume.
 * @param stream the process's stdout (from the Context)
 */
export function openStdout(stream: OutputStream): Destination {
  const sink = createStreamSink(stream);
  return {
    name: 'stdout',
    resumed: undefined,
    write: (text) => sink.write(text),
    pageWritten: () => Promise.resolve(),
    settle: () => Promise.resolve(),
    async finish(text) {
      await sink.write(text);
      await sink.commit();
    },
    abort: () => sink.abort(),
  };
}
