/**
 * The formatter contract: a {@link Formatter} turns pages of items into text; a sink (stdout, or the
 * export's sidecar file) puts the text somewhere. Splitting the two lets the export checkpoint after
 * each page with the byte length and the formatter's state. Each format implements it in its own
 * file under formats/ (with the rest of its definition); writer.ts picks one. Types only, so the
 * formats and the registry both import this module and never each other.
 */
import type { Members } from '../json/members.js';

/** JSON-serialisable state a formatter needs to continue after `--resume`. */
export type FormatterState = Record<string, unknown>;

/** Options of a formatter (writer.ts `createFormatter`). */
export interface FormatterOptions {
  /** `--fields`: dot paths; columns for csv/table, projection for json/ndjson. */
  fields?: readonly string[];
  /** Default table columns of the endpoint, when `--fields` is absent. */
  tableFields?: readonly string[];
  /** `--csv-safe`: neutralise formula-leading string cells (OWASP CSV injection). */
  csvSafe?: boolean;
  /** Terminal width for `table`, columns. */
  columns?: number;
  /** Warnings (e.g. CSV keys first seen after the first page), one line each, for stderr. */
  warn?: (message: string) => void;
  /** `table` only: rows shown at most (default 1000); the rest are counted in a final line. */
  tableMaxRows?: number;
}

/** Turns pages into text. All text is UTF-8. */
export interface Formatter {
  /** Text before the first page (e.g. nothing for NDJSON). Not called on resume. */
  begin(): string;
  /**
   * Text of one page (may be empty, e.g. `table` before its first rows are known). JSON and NDJSON
   * without `--fields` give bytes: the items' texts copied into one Buffer, never decoded nor
   * encoded again (the hot path, ndjson.ts `joinBytes`); the others give text.
   * @param items the page's items, in order (or the first ones of it, under `--max-items`): the
   *   format asks them for their texts or their values (json/members.ts)
   */
  page(items: Members): string | Buffer;
  /** Text after the last page (e.g. `]` for JSON, the whole table for `table`). */
  end(): string;
  /** State to checkpoint after a page; pass it back to writer.ts `createFormatter` on resume. */
  state(): FormatterState;
}
