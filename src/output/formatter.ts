/** The contract of an output format; the formats and the registry import this, never each other. */
import type { Members } from '../json/members.js';
import { UsageError } from '../errors.js';

/** JSON-serialisable state a formatter needs to continue after `--resume`. */
export type FormatterState = Record<string, unknown>;

export interface FormatterOptions {
  /** `--fields`: dot paths; columns for csv/table, projection for json/ndjson. */
  fields?: readonly string[];
  /** Default table columns of the endpoint, when `--fields` is absent. */
  tableFields?: readonly string[];
  /** `--csv-safe`: neutralise formula-leading string cells (OWASP CSV injection). */
  csvSafe?: boolean;
  /** Terminal width for `table`, columns. */
  columns?: number;
  /** Warnings, one line each, for stderr. */
  warn?: (message: string) => void;
  /** `table` only: rows shown at most (default 1000); the rest are counted in a final line. */
  tableMaxRows?: number;
}

export interface Formatter {
  /** Not called on resume. */
  begin(): string;
  /**
   * JSON and NDJSON without `--fields` give bytes, the items' texts copied into one Buffer, never
   * decoded nor encoded again (the hot path); the others give text.
   * @param items the page's items (the first ones of it under `--max-items`)
   */
  page(items: Members): string | Buffer;
  end(): string;
  /** State to checkpoint after a page, handed back to `createFormatter` on resume. */
  state(): FormatterState;
}

/** A checkpoint's formatter state that is not `format`'s (exit 2, `E_CHECKPOINT`). */
export function stateMismatch(format: string): UsageError {
  return new UsageError(`checkpoint does not match the output format (expected ${format} state)`, { code: 'E_CHECKPOINT' });
}

/** Counts the items of one file, fed its bytes in order (constant memory, for `verify`). */
export interface ItemCounter {
  /** A chunk may end anywhere, even inside a UTF-8 character. */
  update(chunk: Uint8Array): void;
  count(): number;
}

/** Where a checkpoint may cut the file, or the usage error (exit 2) for `--resume` with this format. */
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

/** Whether the output can be gzip-compressed, or the usage error (exit 2). */
export type CompressRule = { readonly compressible: true } | { readonly compressible: false; readonly refusal: string };

/**
 * Everything about one output format. Every rule is a required field, so a format that forgets
 * one does not compile; a rule that does not apply says so (`null`, or a refusal).
 */
export interface FormatDefinition<Name extends string = string> {
  readonly name: Name;
  /** `--out` suffixes, lower case, that imply this format (a trailing `.gz` is dropped first). */
  readonly extensions: readonly string[];
  /** @throws {UsageError} (exit 2, `E_CHECKPOINT`) when `resume` is not this format's state */
  readonly create: (options: FormatterOptions, resume: FormatterState | undefined) => Formatter;
  /** Loads what the formatter needs before its first page (e.g. a lazily imported library). */
  readonly prepare: (() => Promise<void>) | null;
  readonly resume: ResumeRule;
  /** `verify` and manifests: a counter of a finished file's items; null when it cannot be counted. */
  readonly countItems: (() => ItemCounter) | null;
  readonly compress: CompressRule;
}
