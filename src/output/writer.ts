/**
 * Questions about a format, answered from the registry (formats/index.ts): {@link createFormatter}
 * picks the {@link Formatter} of a format (the contract is in formatter.ts), {@link formatFromPath}
 * infers a format from `--out`, and {@link formatDefinition} gives the rest of its definition (its
 * `--resume` boundary, `verify` counter, gzip and resume limits) to export/ and commands/.
 */
import type { Formatter, FormatterOptions, FormatterState } from './formatter.js';
import type { FormatDefinition } from './formats/definition.js';
import { FORMATS } from './formats/index.js';
import { withMissingFieldCheck } from './missing-fields.js';
import { DEFAULT_FORMAT, type OutputFormat } from '../format-names.js';

export { OUTPUT_FORMATS } from '../format-names.js';
export type { OutputFormat } from '../format-names.js';
export type { ItemCounter } from './formats/definition.js';
export type { Formatter, FormatterOptions, FormatterState } from './formatter.js';

/**
 * The definition of a format by its name (a checkpoint's or a manifest's `format` is any string).
 * @returns undefined for a name no format has
 */
export function findFormat(name: string): FormatDefinition | undefined {
  return FORMATS.find((f) => f.name === name);
}

/**
 * The definition of a format.
 * @throws {Error} (a bug, exit 1) for a name the registry lacks: format-names.ts and formats/index.ts are
 *   checked against each other by the type checker
 */
export function formatDefinition(format: OutputFormat): FormatDefinition {
  const found = findFormat(format);
  if (found === undefined) throw new Error(`no definition of the output format ${format}`);
  return found;
}

/**
 * Creates the formatter of `format`. Every format streams page by page (`table` from its first page
 * that has items, whose rows fix its column widths). `state()` is plain JSON that names
 * its format, e.g. `{ format: 'json', items: 2000 }`. Call {@link prepareFormatter} first. With
 * `fields` and `warn`, each field no item of the first page has is named through `warn`.
 * @param resume state from a checkpoint: the formatter continues as if it had written those pages
 *   (only `page()` and `end()` are called then, never `begin()`), byte-identically.
 * @throws {UsageError} (exit 2) when `resume` is the state of another format or is malformed
 *   ("checkpoint does not match").
 */
export function createFormatter(format: OutputFormat, options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  const formatter = formatDefinition(format).create(options, resume);
  const { fields, warn } = options;
  // A resumed export checked its first page before it stopped.
  return fields !== undefined && fields.length > 0 && warn !== undefined && resume === undefined
    ? withMissingFieldCheck(formatter, fields, warn)
    : formatter;
}

/** Loads what the formatter of `format` needs before its first page (`table`: string-width); at once for the others. */
export async function prepareFormatter(format: OutputFormat): Promise<void> {
  await formatDefinition(format).prepare?.();
}

/**
 * The format implied by an `--out` path: the first format that claims its extension (`.json` →
 * json, `.ndjson`/`.jsonl` → ndjson, `.csv` → csv), otherwise (and for stdout) ndjson (README,
 * `--format`). A compressed name is read without its `.gz`: `invoices.csv.gz` → csv, `invoices.gz` → ndjson.
 */
export function formatFromPath(path: string | undefined): OutputFormat {
  if (path === undefined || path === '-') return DEFAULT_FORMAT;
  const lower = path.toLowerCase().replace(/\.gz$/, '');
  const found = FORMATS.find((f) => f.extensions.some((extension) => lower.endsWith(extension)));
  return (found?.name as OutputFormat | undefined) ?? DEFAULT_FORMAT;
}
