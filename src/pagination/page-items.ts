/**
 * The {@link Members} of a page read by page-scan.ts: each member's text as received (whitespace
 * outside strings dropped), its value read only when a format asks for values, in one `JSON.parse`
 * of the member array, the members holding a number `JSON.parse` would change read again by
 * json/json-value.ts `readJsonValue` (so their literals are kept).
 */
import { readJsonValue } from '../json/json-value.js';
import { byteTextOf, textOfBytes, type Members } from '../json/members.js';

/** A member array found by the page scan. */
export interface MemberArray {
  /** Index of its `[` in the page text. */
  start: number;
  /** Index after its `]`. */
  end: number;
  /** Each member's compact text, as the page text holds it (a byte text when the page is one). */
  texts: string[];
  /** Indexes of the members holding a number JavaScript would print otherwise, ascending. */
  odd: number[];
}

/** What the members of one page share: the page text and the array's values, once read. */
interface Source {
  text: string;
  byteText: boolean;
  array: MemberArray;
  values?: unknown[];
}

function valuesOf(source: Source): unknown[] {
  if (source.values !== undefined) return source.values;
  const { text, byteText, array } = source;
  if (array.texts.length === 0) return (source.values = []);
  const slice = text.slice(array.start, array.end);
  const values = JSON.parse(byteText ? textOfBytes(slice) : slice) as unknown[];
  for (const k of array.odd) {
    const member = array.texts[k] as string;
    values[k] = readJsonValue(byteText ? textOfBytes(member) : member);
  }
  source.values = values;
  return values;
}

function membersOf(source: Source, count: number): Members {
  let texts: readonly string[] | undefined;
  const all = source.array.texts;
  return {
    length: count,
    texts() {
      if (texts !== undefined) return texts;
      const own = count === all.length ? all : all.slice(0, count);
      texts = source.byteText ? own : own.map(byteTextOf);
      return texts;
    },
    values() {
      const values = valuesOf(source);
      return count === values.length ? values : values.slice(0, count);
    },
    take: (n) => (n >= count ? membersOf(source, count) : membersOf(source, Math.max(0, n))),
  };
}

/**
 * The members of a scanned page.
 * @param text the page text the array was found in
 * @param byteText whether `text` is a byte text (http/body.ts `readBoundedByteText`)
 */
export function pageMembers(text: string, byteText: boolean, array: MemberArray): Members {
  return membersOf({ text, byteText, array }, array.texts.length);
}
