/**
 * NDJSON (https://github.com/ndjson/ndjson-spec): one JSON object a line, `\n` after each, items
 * as received (JSON.stringify of the parsed item, key order kept) or projected on `--fields`.
 * Zero items give empty output. Stateless, so a resumed export continues byte-identically.
 */
import type { Formatter, FormatterOptions, FormatterState } from './formatter.js';
import { compileProjection } from './fields.js';
import { receivedItemTexts } from './raw-json.js';
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
 * Serialises a page as JSON texts joined by `sep` (one join per page: the hot path). Unprojected
 * items of a page whose text is given are written as received when that is exactly what
 * JSON.stringify would give (see raw-json.ts); the others are serialised.
 * @param project optional `--fields` projection
 * @param pageText the body `items` was parsed from, when `items` is its whole `members` array
 */
export function joinJson(items: readonly unknown[], sep: string, project?: (item: unknown) => unknown, pageText?: string): string {
  const received = project === undefined ? receivedItemTexts(items, pageText) : undefined;
  const texts = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) {
    const raw = received?.[i];
    if (raw !== undefined) {
      texts[i] = raw;
      continue;
    }
    const item = project === undefined ? items[i] : project(items[i]);
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
    page: (items, pageText) => (items.length === 0 ? '' : joinJson(items, '\n', project, pageText) + '\n'),
    end: () => '',
    state: (): NdjsonState => ({ format: 'ndjson' }),
  };
}
