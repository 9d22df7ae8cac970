/**
 * Output formats. A {@link Formatter} turns pages of items into text; a sink (output/sink.ts) puts the
 * text on stdout or in a sidecar file. Splitting the two lets the export checkpoint after each page
 * with the byte length and the formatter's state. Each format lives in its own module (ndjson.ts,
 * json.ts, csv.ts, table.ts); this one is the interface and the registry.
 */
import { createCsvFormatter } from './csv.js';
import { createJsonFormatter } from './json.js';
import { createNdjsonFormatter } from './ndjson.js';
import { createTableFormatter } from './table.js';

/** The output formats (README, "Output"). */
export type OutputFormat = 'json' | 'ndjson' | 'csv' | 'table';

/** Every {@link OutputFormat}, for help, validation and completion. */
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['json', 'ndjson', 'csv', 'table'];

/** JSON-serialisable state a formatter needs to continue after `--resume`. */
export type FormatterState = Record<string, unknown>;

/** Options of {@link createFormatter}. */
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
   * Text of one page (may be empty, e.g. `table` buffers).
   * @param items the page's items, in order
   * @param pageText the body the items were parsed from, given only when `items` is exactly the
   *   whole `members` array parsed from it (never a `--max-items` slice); JSON and NDJSON then write
   *   items as received where that is byte-identical (output/raw-json.ts), others ignore it
   */
  page(items: readonly unknown[], pageText?: string): string;
  /** Text after the last page (e.g. `]` for JSON, the whole table for `table`). */
  end(): string;
  /** State to checkpoint after a page; pass it back to {@link createFormatter} on resume. */
  state(): FormatterState;
}

/**
 * Creates the formatter of `format`. Every format streams page by page except `table`, which
 * buffers (at most `tableMaxRows` rows) and writes at `end()`. `state()` is plain JSON that names
 * its format, e.g. `{ format: 'json', items: 2000 }`.
 * @param resume state from a checkpoint: the formatter continues as if it had written those pages
 *   (only `page()` and `end()` are called then, never `begin()`), byte-identically.
 * @throws {UsageError} (exit 2) when `resume` is the state of another format or is malformed
 *   ("checkpoint does not match").
 */
export function createFormatter(format: OutputFormat, options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  switch (format) {
    case 'ndjson':
      return createNdjsonFormatter(options, resume);
    case 'json':
      return createJsonFormatter(options, resume);
    case 'csv':
      return createCsvFormatter(options, resume);
    case 'table':
      return createTableFormatter(options, resume);
  }
}

/**
 * The format implied by an `--out` path: `.json` → json, `.ndjson`/`.jsonl` → ndjson, `.csv` → csv,
 * otherwise (and for stdout) ndjson (README, `--format`).
 */
export function formatFromPath(path: string | undefined): OutputFormat {
  if (path === undefined || path === '-') return 'ndjson';
  const lower = path.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.csv')) return 'csv';
  return 'ndjson';
}
