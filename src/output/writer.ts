/**
 * The registry of output formats: {@link createFormatter} picks the {@link Formatter} of a format
 * (the contract is in formatter.ts), and {@link formatFromPath} infers a format from `--out`.
 */
import { createCsvFormatter } from './csv.js';
import type { Formatter, FormatterOptions, FormatterState, OutputFormat } from './formatter.js';
import { createJsonFormatter } from './json.js';
import { createNdjsonFormatter } from './ndjson.js';
import { createTableFormatter } from './table.js';

export { OUTPUT_FORMATS } from './formatter.js';
export type { Formatter, FormatterOptions, FormatterState, OutputFormat } from './formatter.js';

/**
 * Creates the formatter of `format`. Every format streams page by page (`table` from its first page
 * that has items, whose rows fix its column widths). `state()` is plain JSON that names
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
 * otherwise (and for stdout) ndjson (README, `--format`). A compressed name is read without its
 * `.gz`: `invoices.csv.gz` → csv, `invoices.gz` → ndjson.
 */
export function formatFromPath(path: string | undefined): OutputFormat {
  if (path === undefined || path === '-') return 'ndjson';
  const lower = path.toLowerCase().replace(/\.gz$/, '');
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.csv')) return 'csv';
  return 'ndjson';
}
