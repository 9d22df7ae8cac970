/**
 * NDJSON (https://github.com/ndjson/ndjson-spec): one JSON object a line, `\n` after each, items
 * as received (the item's text from the page, or JSON.stringify of the parsed item: the same bytes,
 * key order kept) or projected on `--fields`.
 * Zero items give empty output. Stateless, so a resumed export continues byte-identically.
 */
import type { Formatter, FormatterOptions, FormatterState, ItemForm } from './formatter.js';
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
 * JSON.stringify, or projected on `--fields` first. Byte texts (`'bytes'`) give a byte text.
 * @param project optional `--fields` projection (items are then values: the export reads values for it)
 * @param asJson whether `items` are JSON texts ({@link Formatter.page})
 */
export function joinJson(items: readonly unknown[], sep: string, project?: (item: unknown) => unknown, asJson: ItemForm = false): string {
  if (asJson !== false && project === undefined) return (items as readonly string[]).join(sep);
  const texts = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) {
    const value = asJson === false ? items[i] : (JSON.parse(asJson === 'bytes' ? textOfBytes(items[i] as string) : (items[i] as string)) as unknown);
    const item = project === undefined ? value : project(value);
    // JSON.stringify(undefined) is undefined; a JSON page never holds it, but keep the line valid.
    const text = stringifyJson(item) ?? 'null';
    texts[i] = asJson === 'bytes' ? Buffer.from(text, 'utf8').toString('latin1') : text;
  }
  return texts.join(sep);
}

/** Reads a byte text (http/body.ts `readBoundedByteText`) as the text it encodes. */
export function textOfBytes(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/**
 * The output of a page whose text `text` was joined from items in the form `asJson`: the bytes of
 * a byte text (a Latin-1 copy: no UTF-8 encoding, the hot path), or the text itself.
 */
export function pageOutput(text: string, asJson: ItemForm | undefined): string | Buffer {
  return asJson === 'bytes' ? Buffer.from(text, 'latin1') : text;
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
    page: (items, asJson) => (items.length === 0 ? '' : pageOutput(joinJson(items, '\n', project, asJson) + '\n', asJson)),
    end: () => '',
    state: (): NdjsonState => ({ format: 'ndjson' }),
  };
}
