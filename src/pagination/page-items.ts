/**
 * The {@link Members} of a page read by page-scan.ts: each member's text as received (whitespace
 * outside strings dropped), its value read only when a format asks for values, in one `JSON.parse`
 * of the member array. A number `JSON.parse` would change (a 64-bit id, `1.0`, `1.25E-2`) is
 * replaced in the parsed text by a tagged string that names it, and the tag is then replaced by a
 * json/json-value.ts `JsonNumber` holding the literal, in the members that hold such numbers only.
 * The tag carries a random nonce per page, so no string the server sends can pass for one. This is
 * ours (not a library's) because it is the hot path of CSV and the table: one native `JSON.parse` a
 * page, where reading every member with our own value reader cost 3 to 4 times as much.
 */
import { randomBytes } from 'node:crypto';
import { JsonNumber } from '../json/json-value.js';
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
  /** Where those numbers are in the page text: start and end index pairs, ascending. */
  oddSpans: number[];
}

/** What the members of one page share: the page text and the array's values, once read. */
interface Source {
  text: string;
  byteText: boolean;
  array: MemberArray;
  values?: unknown[];
}

/** Replaces the tagged strings in `value` (a parsed member) by the numbers they name, in place. */
function untag(value: unknown, tag: string, literals: readonly string[]): unknown {
  if (typeof value === 'string') return value.startsWith(tag) ? new JsonNumber(literals[Number(value.slice(tag.length))] as string) : value;
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const was = record[key];
    const now = untag(was, tag, literals);
    // defineProperty: a key `__proto__` (an own property after JSON.parse) must stay a property.
    if (now !== was) Object.defineProperty(record, key, { value: now, writable: true, enumerable: true, configurable: true });
  }
  return value;
}

function valuesOf(source: Source): unknown[] {
  if (source.values !== undefined) return source.values;
  const { text, byteText, array } = source;
  if (array.texts.length === 0) return (source.values = []);
  const spans = array.oddSpans;
  if (spans.length === 0) {
    const slice = text.slice(array.start, array.end);
    return (source.values = JSON.parse(byteText ? textOfBytes(slice) : slice) as unknown[]);
  }
  const tag = `\u0001${randomBytes(9).toString('base64')}:`;
  const parts: string[] = [];
  const literals: string[] = [];
  let at = array.start;
  for (let k = 0; k < spans.length; k += 2) {
    const start = spans[k] as number;
    const end = spans[k + 1] as number;
    parts.push(text.slice(at, start), `"\\u0001${tag.slice(1)}${String(k / 2)}"`);
    literals.push(text.slice(start, end));
    at = end;
  }
  parts.push(text.slice(at, array.end));
  const joined = parts.join('');
  const values = JSON.parse(byteText ? textOfBytes(joined) : joined) as unknown[];
  for (const k of array.odd) values[k] = untag(values[k], tag, literals);
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
