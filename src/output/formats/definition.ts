/**
 * What a format must say about itself ({@link FormatDefinition}): every rule is a required field, so
 * a new format that forgets one (how `--resume` finds a record boundary, how `verify` counts items,
 * whether gzip applies) is a type error rather than a silent default. A rule that does not apply is
 * said explicitly: `null`, or a limit with the usage error that refuses it.
 */
import type { Formatter, FormatterOptions, FormatterState } from '../formatter.js';

/** Counts the items of one file, fed its bytes in order (in constant memory, for `verify`). */
export interface ItemCounter {
  /** Feeds the next bytes; a chunk may end anywhere, even inside a UTF-8 character. */
  update(chunk: Uint8Array): void;
  /** The items counted, once every byte was fed. */
  count(): number;
}

/**
 * Whether `--resume` can continue this format, and if so where a checkpoint may cut the file.
 * Not resumable: `refusal` is the usage error (exit 2) for `--resume` with this format.
 */
export type ResumeRule =
  | {
      readonly resumable: true;
      /**
       * Whether `bytes` (> 0) bytes of the partial (decompressed) file end on a record boundary.
       * @param items items written before the offset
       * @param lastByte the byte just before the offset; undefined when the file is shorter
       */
      readonly isRecordBoundary: (bytes: number, items: number, lastByte: number | undefined) => boolean;
    }
  | { readonly resumable: false; readonly refusal: string };

/** Whether the output can be gzip-compressed; if not, `refusal` is the usage error (exit 2). */
export type CompressRule = { readonly compressible: true } | { readonly compressible: false; readonly refusal: string };

/** Everything about one output format (one file in formats/, one line in formats/index.ts). */
export interface FormatDefinition<Name extends string = string> {
  /** The `--format` value. */
  readonly name: Name;
  /** `--out` suffixes, lower case, that imply this format (a trailing `.gz` is dropped first); may be empty. */
  readonly extensions: readonly string[];
  /**
   * Creates the formatter (writer.ts `createFormatter` dispatches here).
   * @param resume state from a checkpoint, or undefined for a fresh export
   * @throws {UsageError} (exit 2, `E_CHECKPOINT`) when `resume` is not this format's state
   */
  readonly create: (options: FormatterOptions, resume: FormatterState | undefined) => Formatter;
  /** Loads what the formatter needs before its first page (e.g. a lazily imported library), or null. */
  readonly prepare: (() => Promise<void>) | null;
  /** `--resume`: the record boundary of a checkpoint, or the refusal. */
  readonly resume: ResumeRule;
  /** `verify` and manifests: a new counter of a finished file's items, or null when the output cannot be counted. */
  readonly countItems: (() => ItemCounter) | null;
  /** `--compress gzip` / `--out F.gz`: allowed, or the refusal. */
  readonly compress: CompressRule;
}
