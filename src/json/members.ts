/** The items of one collection page, as every format asks for them: JSON texts or values. */
import { writeJson } from './json-value.js';

export interface Members {
  readonly length: number;
  /**
   * Each item's compact JSON text as a "byte text" (UTF-8 bytes, one per code unit: `Buffer.from(t, 'latin1')`
   * gives them back); from a page, the member's source without the whitespace outside strings.
   */
  texts(): readonly string[];
  /** The items as `JSON.parse` gives them, except that a number JavaScript would change is a `JsonNumber`. */
  values(): readonly unknown[];
  /** Item `index`, read alone and not kept (the same value as in {@link values} once that was called): who takes items one by one holds only those it keeps. */
  value(index: number): unknown;
  /** The first `n` items (all when there are fewer), for `--max-items`. */
  take(n: number): Members;
}

export function byteTextOf(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

export function textOfBytes(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Items given as values (tests, and a page read by `JSON.parse`): their texts are `writeJson`'s. */
export function valueMembers(values: readonly unknown[]): Members {
  let texts: string[] | undefined;
  return {
    length: values.length,
    texts: () => (texts ??= values.map((v) => byteTextOf(writeJson(v)))),
    values: () => values,
    value: (index) => values[index],
    take: (n) => (n >= values.length ? valueMembers(values) : valueMembers(values.slice(0, Math.max(0, n)))),
  };
}
