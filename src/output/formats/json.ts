/**
 * JSON: one array, streamed: `[`, each item on its own line after `\n` (the first) or `,\n`, then
 * `\n]\n`; zero items give `[]\n`. Only whether an item was written matters to resume.
 */
import { stateMismatch, type FormatDefinition, type Formatter, type FormatterOptions, type FormatterState, type ItemCounter } from '../formatter.js';
import { itemJoiner } from './ndjson.js';

export interface JsonState extends FormatterState {
  format: 'json';
  items: number;
}

function createJsonFormatter(options: FormatterOptions = {}, resume?: FormatterState): Formatter {
  let written = 0;
  if (resume !== undefined) {
    if (resume.format !== 'json' || typeof resume.items !== 'number' || !Number.isSafeInteger(resume.items) || resume.items < 0)
      throw stateMismatch('a json');
    written = resume.items;
  }
  const join = itemJoiner(options, ',\n');
  return {
    begin: () => '[',
    page(items) {
      if (items.length === 0) return '';
      const prefix = written === 0 ? '\n' : ',\n';
      written += items.length;
      return join(items, prefix, '');
    },
    end: () => (written === 0 ? ']\n' : '\n]\n'),
    state: (): JsonState => ({ format: 'json', items: written }),
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * The length of the top-level array, in constant memory (`JSON.parse` would hold the export twice):
 * an element starts at a value byte at depth 1 after `[` or `,`. It counts, it does not validate.
 */
function createArrayCounter(): ItemCounter {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let elements = 0;
  let expectingValue = false;
  const startValue = (): void => {
    if (depth === 1 && expectingValue) {
      elements++;
      expectingValue = false;
    }
  };
  return {
    update(chunk) {
      for (const byte of chunk) {
        if (inString) {
          if (escaped) escaped = false;
          else if (byte === BACKSLASH) escaped = true;
          else if (byte === QUOTE) inString = false;
          continue;
        }
        if (SPACE.has(byte)) continue;
        if (byte === COMMA) {
          if (depth === 1) expectingValue = true;
          continue;
        }
        if (CLOSERS.has(byte)) {
          depth--;
          continue;
        }
        startValue();
        if (byte === QUOTE) inString = true;
        else if (OPENERS.has(byte)) {
          depth++;
          if (depth === 1) expectingValue = true;
        }
      }
    },
    count: () => elements,
  };
}

/** A boundary is `[` alone, or the byte after a `}`: a page ends right after its last item, an object. */
export const json: FormatDefinition<'json'> = {
  name: 'json',
  extensions: ['.json'],
  create: createJsonFormatter,
  prepare: null,
  resume: { resumable: true, isRecordBoundary: (bytes, items, lastByte) => (items === 0 ? bytes === 1 && lastByte === 0x5b : lastByte === 0x7d) },
  countItems: createArrayCounter,
  compress: { compressible: true },
};
