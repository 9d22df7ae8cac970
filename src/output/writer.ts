/** Questions about a format, answered from the registry: nothing else branches on a format's name. */
import type { FormatDefinition, Formatter, FormatterOptions, FormatterState } from './formatter.js';
import { FORMATS } from './formats/index.js';
import { splitPath } from './fields.js';
import { addPaths, compileAccessor, createPathTree, treePaths } from './flatten.js';
import { DEFAULT_FORMAT, type OutputFormat } from '../format-names.js';

/** A checkpoint's or a manifest's `format`, which may be any string; undefined for no format. */
export function findFormat(name: string): FormatDefinition | undefined {
  return FORMATS.find((f) => f.name === name);
}

/** @throws {Error} (a bug, exit 1) for a name the registry lacks */
export function formatDefinition(format: OutputFormat): FormatDefinition {
  const found = findFormat(format);
  if (found === undefined) throw new Error(`no definition of the output format ${format}`);
  return found;
}

/**
 * Call {@link prepareFormatter} first. With `fields` and `warn`, a field no item of the first page has is named.
 * @param resume state from a checkpoint: the formatter continues byte-identically (never `begin()`)
 * @throws {UsageError} (exit 2) when `resume` is the state of another format or is malformed
 */
export function createFormatter(format: OutputFormat, options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  const formatter = formatDefinition(format).create(options, resume);
  const { fields, warn } = options;
  // A resumed export checked its first page before it stopped.
  return fields !== undefined && fields.length > 0 && warn !== undefined && resume === undefined
    ? withMissingFieldCheck(formatter, fields, warn)
    : formatter;
}

export async function prepareFormatter(format: OutputFormat): Promise<void> {
  await formatDefinition(format).prepare?.();
}

/** {@link formatNamedBy} the `--out` path, else (and for stdout) ndjson: `invoices.csv.gz` → csv, `invoices.gz` → ndjson. */
export function formatFromPath(path: string | undefined): OutputFormat {
  return (path === undefined ? undefined : formatNamedBy(path)) ?? DEFAULT_FORMAT;
}

/** The format a file name's suffix names (`.ndjson`, `.csv.gz`…); undefined for another suffix. */
export function formatNamedBy(path: string): OutputFormat | undefined {
  const lower = path.toLowerCase().replace(/\.gz$/, '');
  const found = FORMATS.find((f) => f.extensions.some((extension) => lower.endsWith(extension)));
  return found?.name as OutputFormat | undefined;
}

/** With the path it differs from only in case, if any. */
function missingMessage(field: string, present: readonly string[]): string {
  const lower = field.toLowerCase();
  const near = present.find((p) => p.toLowerCase() === lower);
  return near === undefined
    ? `--fields: no item of the first page has '${field}'; check the name (keys are case-sensitive, nested keys are dot paths such as issuer.rfc)`
    : `--fields: no item of the first page has '${field}'; did you mean '${near}'?`;
}

/**
 * A warning for each name no item has (a value, `null` included, at that path), in the order of
 * `fields`: a typo such as `Total` would otherwise give an empty column and exit 0.
 */
export function missingFieldWarnings(fields: readonly string[], items: readonly unknown[]): string[] {
  const missing = fields.filter((field) => {
    const get = compileAccessor(splitPath(field));
    return !items.some((item) => get(item) !== undefined);
  });
  if (missing.length === 0) return [];
  const tree = createPathTree();
  for (const item of items) addPaths(tree, item);
  const present = treePaths(tree).map((path) => path.join('.'));
  return missing.map((field) => missingMessage(field, present));
}

/** `formatter`, checking the first page that holds items. */
function withMissingFieldCheck(formatter: Formatter, fields: readonly string[], warn: (message: string) => void): Formatter {
  let checked = false;
  return {
    ...formatter,
    page(items) {
      if (!checked && items.length > 0) {
        checked = true;
        for (const message of missingFieldWarnings(fields, items.values())) warn(message);
      }
      return formatter.page(items);
    },
  };
}
