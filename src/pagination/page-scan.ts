/**
 * The page reader: one scan that judges a page as JSON and finds each member's text, its source
 * without the whitespace outside strings (escapes, `1.0`, 64-bit ids as the server wrote them).
 * Only the envelope, the page with its member arrays emptied, goes through `JSON.parse`.
 */
import { randomBytes } from 'node:crypto';
import { JsonNumber } from '../json/json-value.js';
import { byteTextOf, textOfBytes, type Members } from '../json/members.js';
import { parsePage, type HydraPage } from './hydra.js';
import { COLON, COMMA, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-scan.js';
import { beginValue, compactText, createScan, FORBIDDEN_CONTROL, scanValue, skipString, skipWhitespace, type Scan } from './json-scan.js';

/** A member array: [start, end) in the page text, its members' compact texts and where they are. */
interface MemberArray {
  start: number;
  end: number;
  texts: string[];
  /** [start, end) of each member. */
  bounds: number[];
  /** [start, end) of each number JavaScript would print otherwise. */
  oddSpans: number[];
}

const NO_MEMBERS: MemberArray = { start: 0, end: 0, texts: [], bounds: [], oddSpans: [] };

/** One collection page as read: its items and the envelope's Hydra terms (see `HydraPage`). */
export type CollectionPage = Omit<HydraPage, 'members'> & { members: Members };

/** The member array whose `[` is at `i`; undefined when it is not valid JSON. */
function scanMembers(s: Scan, i: number): MemberArray | undefined {
  const text = s.text;
  const array: MemberArray = { start: i, end: i, texts: [], bounds: [], oddSpans: [] };
  let j = skipWhitespace(text, i + 1);
  if (text.charCodeAt(j) === RBRACKET) {
    array.end = j + 1;
    return array;
  }
  for (;;) {
    beginValue(s);
    const end = scanValue(s, j, 2);
    if (end < 0) return undefined;
    if (s.odd) for (const at of s.oddSpans) array.oddSpans.push(at);
    array.texts.push(s.gaps.length > 0 ? compactText(text, j, end, s.gaps) : text.slice(j, end));
    array.bounds.push(j, end);
    j = skipWhitespace(text, end);
    const c = text.charCodeAt(j);
    if (c === RBRACKET) {
      array.end = j + 1;
      return array;
    }
    if (c !== COMMA) return undefined;
    j = skipWhitespace(text, j + 1);
  }
}

/** The member arrays of a page: the last of each spelling (as `JSON.parse` keeps it), and all of them. */
interface Found {
  arrays: Map<string, MemberArray>;
  spans: MemberArray[];
}

function keyAt(text: string, start: number, end: number, byteText: boolean): string {
  const raw = text.slice(start + 1, end - 1);
  if (!raw.includes('\\')) return raw;
  const source = text.slice(start, end);
  return JSON.parse(byteText ? textOfBytes(source) : source) as string;
}

/** Walks the top-level object, scanning the member arrays; undefined when it is not a valid JSON object. */
function findMembers(s: Scan, byteText: boolean): Found | undefined {
  const text = s.text;
  const found: Found = { arrays: new Map(), spans: [] };
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== LBRACE) return undefined;
  i = skipWhitespace(text, i + 1);
  if (text.charCodeAt(i) !== RBRACE) {
    for (;;) {
      if (text.charCodeAt(i) !== QUOTE) return undefined;
      const keyEnd = skipString(s, i);
      if (keyEnd < 0) return undefined;
      const key = keyAt(text, i, keyEnd, byteText);
      i = skipWhitespace(text, keyEnd);
      if (text.charCodeAt(i) !== COLON) return undefined;
      i = skipWhitespace(text, i + 1);
      const isMember = key === 'hydra:member' || key === 'member';
      if (isMember && text.charCodeAt(i) === LBRACKET) {
        const array = scanMembers(s, i);
        if (array === undefined) return undefined;
        found.arrays.set(key, array);
        found.spans.push(array);
        i = array.end;
      } else {
        if (isMember) found.arrays.delete(key); // not an array: parsePage says so
        i = scanValue(s, i, 1);
        if (i < 0) return undefined;
      }
      i = skipWhitespace(text, i);
      const c = text.charCodeAt(i);
      if (c === RBRACE) break;
      if (c !== COMMA) return undefined;
      i = skipWhitespace(text, i + 1);
    }
  }
  return skipWhitespace(text, i + 1) === text.length ? found : undefined;
}

function envelopeText(text: string, spans: readonly MemberArray[]): string {
  let out = '';
  let from = 0;
  for (const span of spans) {
    out += text.slice(from, span.start) + '[]';
    from = span.end;
  }
  return out + text.slice(from);
}

/**
 * Reads a Hydra page in one scan; undefined when it is not a valid JSON object.
 * @param byteText `text` is the body's bytes, one per code unit: the scan reads it as text, since
 *   JSON's structural characters are ASCII and no byte of a multi-byte UTF-8 sequence is (RFC 3629 §3)
 * @throws {PageFormatError} for an envelope that is not a collection
 */
export function scanPageText(text: string, byteText = false): CollectionPage | undefined {
  if (FORBIDDEN_CONTROL.test(text)) return undefined;
  const found = findMembers(createScan(text), byteText);
  if (found === undefined) return undefined;
  const envelopeSource = envelopeText(text, found.spans);
  const envelope = JSON.parse(byteText ? textOfBytes(envelopeSource) : envelopeSource) as Record<string, unknown>;
  const hydra = parsePage(envelope);
  const array = found.arrays.get(envelope['hydra:member'] !== undefined ? 'hydra:member' : 'member');
  const members = array ?? NO_MEMBERS;
  const page: CollectionPage = { members: membersOf({ text, byteText, array: members }, members.texts.length) };
  if (hydra.totalItems !== undefined) page.totalItems = hydra.totalItems;
  if (hydra.view !== undefined) page.view = hydra.view;
  return page;
}

// A member's value is read only when a format asks for values, by the native JSON.parse (our own
// reader cost 3 to 4 times as much): of the array at once, or of each member holding numbers
// JSON.parse would change, each such literal parsed as a string tagged with a nonce of the page
// (no string of the server can pass for one) and put back as a JsonNumber.

/** What the members of one page share: the page text and the array's values, once read. */
interface Source {
  text: string;
  byteText: boolean;
  array: MemberArray;
  values?: unknown[];
}

/** Replaces in place the tagged strings in `container` by their numbers, until `left` were found; how many are left. */
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

/** The value of the member in [start, end), whose odd numbers are the spans from `oddSpans[sp]` inside it. */
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

// Per member when some hold odd numbers: one tagged copy of a 1000-invoice array cost twice its JSON.parse (the join of its slices).
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
