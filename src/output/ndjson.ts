/**
 * NDJSON (https://github.com/ndjson/ndjson-spec): one JSON object a line, `\n` after each, items
 * as received (the item's text from the page, or JSON.stringify of the parsed item: the same bytes,
 * key order kept) or projected on `--fields`.
 * Zero items give empty output. Stateless, so a resumed export continues byte-identically.
 */
import type { Formatter, FormatterOptions, FormatterState } from './formatter.js';
import { compileProjection } from './fields.js';
import { UsageError } from '../errors.js';

/** The NDJSON formatter's checkpointed state: nothing but its name. */
export interface NdjsonState extends FormatterState {
  format: 'ndjson';
}

/**
 * `JSON.stringify` as ECMA-262 defines it (SerializeJSONProperty): undefined for `undefined`, a
 * function or a symbol, which lib.es5.d.ts's `string` result does not say.
 */
const stringifyJson = JSON.stringify as (value: unknown) => string | undefined;

/**
 * Serialises a page as JSON texts joined by `sep` (one join per page: the hot path). Items given as
 * their JSON texts (`asJson`, the byte path) are joined as they are; values are serialised with
 * JSON.stringify, or projected on `--fields` first.
 * @param project optional `--fields` projection (items are then values: the export reads values for it)
 * @param asJson whether `items` are JSON texts ({@link Formatter.page})
 */
export function joinJson(items: readonly unknown[], sep: string, project?: (item: unknown) => unknown, asJson = false): string {
  if (asJson && project === undefined) return (items as readonly string[]).join(sep);
  const texts = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) {
    const value = asJson ? (JSON.parse(items[i] as string) as unknown) : items[i];
    const item = project === undefined ? value : project(value);
    // JSON.stringify(undefined) is undefined; a JSON page never holds it, but keep the line valid.
    texts[i] = stringifyJson(item) ?? 'null';
  }
  return texts.join(sep);
}

/**
 * Creates the NDJSON formatter.
 * @throws {UsageError} when `resume` is not an NDJSON state
 */
export function createNdjsonFormatter(options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  if (resume !== undefined && resume.format !== 'ndjson') {
    throw new UsageError('checkpoint does not match the output format (expected an ndjson state)', { code: 'E_CHECKPOINT' });
  }
  const project = options.fields !== undefined && options.fields.length > 0 ? compileProjection(options.fields) : undefined;
  return {
    begin: () => '',
    page: (items, asJson) => (items.length === 0 ? '' : joinJson(items, '\n', project, asJson) + '\n'),
    end: () => '',
    state: (): NdjsonState => ({ format: 'ndjson' }),
  };
}
