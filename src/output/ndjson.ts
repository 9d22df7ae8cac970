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
  if (asJson === true && project === undefined) return (items as readonly string[]).join(sep);
  if (asJson === 'bytes' && project === undefined) return textOfBytes((items as readonly string[]).join(sep));
  const texts = new Array<string>(items.length);
  for (let i = 0; i < items.length; i++) {
    const value = asJson === false ? items[i] : (JSON.parse(asJson === 'bytes' ? textOfBytes(items[i] as string) : (items[i] as string)) as unknown);
    const item = project === undefined ? value : project(value);
    // JSON.stringify(undefined) is undefined; a JSON page never holds it, but keep the line valid.
    texts[i] = stringifyJson(item) ?? 'null';
  }
  return texts.join(sep);
}

/** Reads a byte text (http/body.ts `readBoundedByteText`) as the text it encodes. */
export function textOfBytes(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/**
 * The bytes of `prefix`, the byte texts `items` separated by `sep`, and `suffix` (all ASCII or byte
 * texts), in one Buffer: each part is copied once (`latin1` write), which is several times cheaper
 * than joining the texts and encoding the join (the items are slices of the page: a join copies
 * them, and an encode copies them again). Our own code because it is the hot path of the byte path.
 */
export function joinBytes(items: readonly string[], prefix: string, sep: string, suffix: string): Buffer {
  let size = prefix.length + suffix.length + Math.max(0, items.length - 1) * sep.length;
  for (const item of items) size += item.length;
  const out = Buffer.allocUnsafe(size);
  let at = out.write(prefix, 0, 'latin1');
  for (let i = 0; i < items.length; i++) {
    if (i > 0) at += out.write(sep, at, 'latin1');
    at += out.write(items[i] as string, at, 'latin1');
  }
  out.write(suffix, at, 'latin1');
  return out;
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
    ...(project === undefined ? { pageBytes: (items: readonly string[]) => joinBytes(items, '', '\n', items.length === 0 ? '' : '\n') } : {}),
    end: () => '',
    state: (): NdjsonState => ({ format: 'ndjson' }),
  };
}
