/**
 * NDJSON (https://github.com/ndjson/ndjson-spec): one JSON object a line, `\n` after each, items
 * as received (the item's text from the page: whitespace outside strings dropped, escapes and
 * number literals as the server wrote them) or projected on `--fields`.
 * Zero items give empty output. Stateless, so a resumed export continues byte-identically.
 */
import type { Formatter, FormatterOptions, FormatterState } from '../formatter.js';
import { compileProjection } from '../fields.js';
import { writeJson } from '../../json/json-value.js';
import { UsageError } from '../../errors.js';
import type { FormatDefinition, ItemCounter } from './definition.js';

/** The NDJSON formatter's checkpointed state: nothing but its name. */
export interface NdjsonState extends FormatterState {
  format: 'ndjson';
}

/**
 * The `--fields` projections of items as JSON texts joined by `sep` (json/json-value.ts
 * `writeJson`: numbers keep their literals).
 * @param values the items' values
 */
export function joinProjected(values: readonly unknown[], sep: string, project: (item: unknown) => unknown): string {
  const texts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) texts[i] = writeJson(project(values[i]));
  return texts.join(sep);
}

/**
 * The bytes of `prefix`, the byte texts `items` separated by `sep`, and `suffix` (all ASCII or byte
 * texts, json/members.ts `Members.texts`), in one Buffer: each part is copied once (`latin1`
 * write), which is several times cheaper than joining the texts and encoding the join (the items
 * are slices of the page: a join copies them, and an encode copies them again). Our own code
 * because it is the hot path of JSON and NDJSON.
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
function createNdjsonFormatter(options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  if (resume !== undefined && resume.format !== 'ndjson') {
    throw new UsageError('checkpoint does not match the output format (expected an ndjson state)', { code: 'E_CHECKPOINT' });
  }
  const project = options.fields !== undefined && options.fields.length > 0 ? compileProjection(options.fields) : undefined;
  return {
    begin: () => '',
    page(items) {
      if (items.length === 0) return '';
      return project === undefined ? joinBytes(items.texts(), '', '\n', '\n') : joinProjected(items.values(), '\n', project) + '\n';
    },
    end: () => '',
    state: (): NdjsonState => ({ format: 'ndjson' }),
  };
}

/** Line feed, the end of every NDJSON line. */
const LF = 0x0a;

/**
 * Counts NDJSON items: LF-terminated lines, and a last line without its LF (a cut file) when it
 * holds anything. Bytes only: UTF-8 never uses an ASCII byte inside a multi-byte character.
 */
function createLineCounter(): ItemCounter {
  let lines = 0;
  let open = false;
  return {
    update(chunk) {
      for (const byte of chunk) {
        if (byte === LF) {
          lines++;
          open = false;
        } else open = true;
      }
    },
    count: () => lines + (open ? 1 : 0),
  };
}

/**
 * NDJSON, the default format: `.ndjson` and `.jsonl` files. A record boundary is the byte after a
 * `\n` (every line ends with one); items are counted as lines.
 */
export const ndjson: FormatDefinition<'ndjson'> = {
  name: 'ndjson',
  extensions: ['.ndjson', '.jsonl'],
  create: createNdjsonFormatter,
  prepare: null,
  resume: { resumable: true, isRecordBoundary: (_bytes, _items, lastByte) => lastByte === LF },
  countItems: createLineCounter,
  compress: { compressible: true },
};
