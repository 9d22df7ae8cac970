/**
 * Counting the items of a finished export file, chunk by chunk in constant memory, for `verify`
 * (docs/files.md, "Manifests and `verify`"). Each counter is a small state machine over bytes: every byte
 * it looks at (`"`, `\`, `,`, brackets, LF) is ASCII, and UTF-8 never uses an ASCII byte inside a
 * multi-byte character, so no decoding is needed and a chunk may end anywhere. They count; they do
 * not validate: the SHA-256 in the manifest already proves every byte.
 */
import type { OutputFormat } from '../output/writer.js';

/** Counts the items of one file, fed its bytes in order. */
export interface ItemCounter {
  /** Feeds the next bytes. */
  update(chunk: Uint8Array): void;
  /** The items counted, once every byte was fed. */
  count(): number;
}

const LF = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * NDJSON: one item a line. Counts LF-terminated lines, and a last line without its LF (a cut file)
 * when it holds anything.
 */
function createNdjsonCounter(): ItemCounter {
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
 * JSON: the length of the top-level array (RFC 8259). Tracks strings (with escapes) and nesting
 * depth; an element starts at a value byte at depth 1 after `[` or a `,`. Constant memory, so a file
 * of any size verifies: the alternative, `JSON.parse`, holds the whole export in memory twice.
 */
function createJsonArrayCounter(): ItemCounter {
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

/**
 * CSV (RFC 4180): records, a quoted field may hold line breaks; `""` inside quotes toggles twice,
 * which leaves the state as it was. A record ends at an LF outside quotes (CRLF included); a last
 * record without a line break counts when it holds anything. The first record is the header, so
 * items = records − 1; an empty file (zero items without `--fields`) has none.
 */
function createCsvRecordCounter(): ItemCounter {
  let records = 0;
  let inQuotes = false;
  let open = false;
  return {
    update(chunk) {
      for (const byte of chunk) {
        if (byte === QUOTE) inQuotes = !inQuotes;
        if (byte === LF && !inQuotes) {
          records++;
          open = false;
        } else open = true;
      }
    },
    count: () => Math.max(0, records + (open ? 1 : 0) - 1),
  };
}

/**
 * The counter of a format: lines for `ndjson`, the array's length for `json`, records less the
 * header for `csv`.
 * @returns undefined for `table` (a picture of the items, capped at 1000 rows: not countable)
 */
export function createItemCounter(format: OutputFormat): ItemCounter | undefined {
  switch (format) {
    case 'ndjson':
      return createNdjsonCounter();
    case 'json':
      return createJsonArrayCounter();
    case 'csv':
      return createCsvRecordCounter();
    case 'table':
      return undefined;
  }
}
