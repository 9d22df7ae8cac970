/**
 * The {@link Members} of a page read by page-scan.ts: each member's text as received (whitespace
 * outside strings dropped), its value read only when a format asks for values, by the native
 * `JSON.parse`: of the member array at once, or of each member when some hold a number
 * `JSON.parse` would change (a 64-bit id, `1.0`, `1.25E-2`). In such a member the number is
 * replaced in the parsed text by a tagged string that names it, and the tag then by a
 * json/json-value.ts `JsonNumber` holding the literal. The tag carries a random nonce per page, so
 * no string the server sends can pass for one. This is ours (not a library's) because it is the
 * hot path of CSV, the table and the library's `collection()`: reading every member with our own
 * value reader cost 3 to 4 times as much.
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
  /** Where each member is in the page text: start and end index pairs. */
  bounds: number[];
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

/**
 * Replaces the tagged strings inside `container` (a parsed member) by the numbers they name, in
 * place, until `left` were found.
 * @returns how many are still to find
 */
function untag(container: object, tag: string, literals: readonly string[], left: number): number {
  const record = container as Record<string, unknown>;
  for (const key in record) {
    const value = record[key];
    if (typeof value === 'string') {
      if (!value.startsWith(tag)) continue;
      const number = new JsonNumber(literals[Number(value.slice(tag.length))] as string);
      // defineProperty: a key `__proto__` (an own property after JSON.parse) must stay a property.
      Object.defineProperty(record, key, { value: number, writable: true, enumerable: true, configurable: true });
      if (--left === 0) return 0;
    } else if (typeof value === 'object' && value !== null) {
      left = untag(value, tag, literals, left);
      if (left === 0) return 0;
    }
  }
  return left;
}

/**
 * The value of the member in [start, end) of the page text whose odd numbers are the spans from
 * `spans[sp]` on that fall inside it: those literals are replaced by tagged strings, the text
 * parsed, and the tags replaced by {@link JsonNumber}s.
 */
function oddValue(source: Source, start: number, end: number, sp: number, tag: string): unknown {
  const { text, byteText, array } = source;
  const spans = array.oddSpans;
  const parts: string[] = [];
  const literals: string[] = [];
  let at = start;
  for (; sp < spans.length && (spans[sp] as number) < end; sp += 2) {
    parts.push(text.slice(at, spans[sp]), `"\\u0001${tag.slice(1)}${String(literals.length)}"`);
    literals.push(text.slice(spans[sp], spans[sp + 1]));
    at = spans[sp + 1] as number;
  }
  parts.push(text.slice(at, end));
  const joined = parts.join('');
  const value = JSON.parse(byteText ? textOfBytes(joined) : joined) as unknown;
  if (typeof value === 'string') return new JsonNumber(literals[0] as string);
  if (typeof value === 'object' && value !== null) untag(value, tag, literals, literals.length);
  return value;
}

/**
 * The members' values. With no odd number, one `JSON.parse` of the array; else one per member,
 * each member holding odd numbers with tags of its own (one tagged copy of a whole 1000-invoice
 * array cost twice its `JSON.parse`: the join of its thousands of slices).
 */
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
  const { bounds } = array;
  const values = new Array<unknown>(array.texts.length);
  let sp = 0;
  for (let k = 0; k < values.length; k++) {
    const start = bounds[2 * k] as number;
    const end = bounds[2 * k + 1] as number;
    if (sp < spans.length && (spans[sp] as number) < end) {
      values[k] = oddValue(source, start, end, sp, tag);
      while (sp < spans.length && (spans[sp] as number) < end) sp += 2;
    } else {
      const slice = text.slice(start, end);
      values[k] = JSON.parse(byteText ? textOfBytes(slice) : slice) as unknown;
    }
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
