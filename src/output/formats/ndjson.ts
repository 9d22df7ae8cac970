/** NDJSON (https://github.com/ndjson/ndjson-spec); stateless, so a resumed export continues byte-identically. */
import { stateMismatch, type FormatDefinition, type Formatter, type FormatterOptions, type FormatterState, type ItemCounter } from '../formatter.js';
import { compileProjection } from '../fields.js';
import { writeJson } from '../../json/json-value.js';
import type { Members } from '../../json/members.js';

export interface NdjsonState extends FormatterState {
  format: 'ndjson';
}

/** A page's items as JSON texts joined by `sep`: their bytes as they came ({@link joinBytes}), or their `--fields` projections. */
export function itemJoiner(options: FormatterOptions, sep: string): (items: Members, prefix: string, suffix: string) => string | Buffer {
  const { fields } = options;
  if (fields === undefined || fields.length === 0) return (items, prefix, suffix) => joinBytes(items.texts(), prefix, sep, suffix);
  const project = compileProjection(fields);
  return (items, prefix, suffix) => prefix + Array.from(items.values(), (item) => writeJson(project(item))).join(sep) + suffix;
}

/** In one Buffer, each text copied once by a `latin1` write: several times cheaper than encoding a join (the hot path). */
function joinBytes(items: readonly string[], prefix: string, sep: string, suffix: string): Buffer {
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

function createNdjsonFormatter(options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  if (resume !== undefined && resume.format !== 'ndjson') throw stateMismatch('an ndjson');
  const join = itemJoiner(options, '\n');
  return {
    begin: () => '',
    page: (items) => (items.length === 0 ? '' : join(items, '', '\n')),
    end: () => '',
    state: (): NdjsonState => ({ format: 'ndjson' }),
  };
}

const LF = 0x0a;

/**
 * Lines, and a last one without its LF (a cut file) when it holds anything; UTF-8 never uses an ASCII
 * byte inside a character. With `quoted` (CSV), an LF inside quotes is no end (`""` toggles twice).
 * @param skip lines not counted (a header)
 */
export function createLineCounter(quoted = false, skip = 0): ItemCounter {
  let lines = 0;
  let inQuotes = false;
  let open = false;
  return {
    update(chunk) {
      for (const byte of chunk) {
        if (quoted && byte === 0x22) inQuotes = !inQuotes;
        if (byte === LF && !inQuotes) {
          lines++;
          open = false;
        } else open = true;
      }
    },
    count: () => Math.max(0, lines + (open ? 1 : 0) - skip),
  };
}

/** The default format; a boundary is the byte after an LF. */
export const ndjson: FormatDefinition<'ndjson'> = {
  name: 'ndjson',
  extensions: ['.ndjson', '.jsonl'],
  create: createNdjsonFormatter,
  prepare: null,
  resume: { resumable: true, isRecordBoundary: (_bytes, _items, lastByte) => lastByte === LF },
  countItems: () => createLineCounter(),
  compress: { compressible: true },
};
