import type { OutputStream } from '../../context.js';
import type { FormatterState } from '../../output/formatter.js';
import { createStreamSink } from '../../output/stream-sink.js';
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

/** Where an export's text goes, as the run loop sees it. */
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
  /** Databases only: the watermark a complete run stores in its final transaction, told just before `finish()`. */
  keepWatermark?(since: string): void;
  /** The published file's length and SHA-256, after `finish()`; only on file destinations, which a manifest describes. */
  digest?(): FileDigest;
}

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
