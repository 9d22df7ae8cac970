/**
 * The items of one collection page as every format asks for them (README, "Output"): their JSON
 * texts as the server wrote them (JSON, NDJSON) or their values (CSV, table, `--fields`). The
 * pagination floor builds them from a page (pagination/page-items.ts); the formats only read them.
 */
import { writeJson } from './json-value.js';

/** The items of a page, in order. */
export interface Members {
  /** How many items. */
  readonly length: number;
  /**
   * Each item's compact JSON text as a "byte text": its UTF-8 bytes one per UTF-16 code unit, so
   * `Buffer.from(t, 'latin1')` gives the bytes back (output/formats/ndjson.ts `joinBytes` copies them so).
   * Read from a page, a text is the member's source with the whitespace outside strings dropped:
   * escapes, number literals, key order and repeated keys as received.
   */
  texts(): readonly string[];
  /**
   * The items as JSON values, as `JSON.parse` gives them, except that a number JavaScript would
   * print otherwise is a json-value.ts `JsonNumber` holding its literal.
   */
  values(): readonly unknown[];
  /** The first `n` items (all when there are fewer), for `--max-items`. */
  take(n: number): Members;
}

/** The byte text of `text` (its UTF-8 bytes one per code unit, see {@link Members.texts}). */
export function byteTextOf(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** The text a byte text encodes (see {@link Members.texts}). */
export function textOfBytes(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/**
 * Items given as values (tests, and a page read by `JSON.parse`): their texts are json-value.ts
 * `writeJson`'s.
 */
export function valueMembers(values: readonly unknown[]): Members {
  let texts: string[] | undefined;
  return {
    length: values.length,
    texts: () => (texts ??= values.map((v) => byteTextOf(writeJson(v)))),
    values: () => values,
    take: (n) => (n >= values.length ? valueMembers(values) : valueMembers(values.slice(0, Math.max(0, n)))),
  };
}
