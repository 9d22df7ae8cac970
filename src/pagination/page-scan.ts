/**
 * The page reader: one scan that judges a page as JSON and finds each member's text, its source
 * without the whitespace outside strings (escapes, `1.0`, 64-bit ids as the server wrote them).
 * Only the envelope, the page with its member arrays emptied, goes through `JSON.parse`.
 */
import { randomBytes } from 'node:crypto';
import { JsonNumber } from '../json/json-value.js';
import { setOwn } from '../json/object.js';
import { byteTextOf, textOfBytes, type Members } from '../json/members.js';
import { parsePage, type HydraPage } from './hydra.js';
import { COLON, COMMA, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-scan.js';
import { compactText, createScan, FORBIDDEN_CONTROL, scanValue, skipString, skipWhitespace, type Scan } from './json-scan.js';

/** A member array: [start, end) in the page text, its members' compact texts and where they are. */
interface MemberArray {
  start: number;
  end: number;
  texts: string[];
  /** [start, end) of each member, and the index in `oddSpans` of its first odd number. */
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
  s.oddSpans = array.oddSpans;
  for (;;) {
    if (s.gaps.length > 0) s.gaps.length = 0;
    const firstOdd = array.oddSpans.length;
    const end = scanValue(s, j, 2);
    if (end < 0) return undefined;
    array.bounds.push(j, end, firstOdd);
    array.texts.push(s.gaps.length > 0 ? compactText(text, j, end, s.gaps) : text.slice(j, end));
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
        s.oddSpans = [];
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
 * @throws {UnreadableBodyError} for an envelope that is not a collection
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
  return { ...hydra, members: membersOf({ text, byteText, array: members }, members.texts.length) };
}

// A member's value is read when a format asks for values, or when collection() hands it over (one
// at a time, so a page's values are not all alive at once), by the native JSON.parse (faster than a
// reader of ours: test/bench/results.md, «Member values by JSON.parse») of a copy where each number
// JSON.parse would change is a string tagged with a nonce of the page (no string of the server can
// pass for one), put back as a JsonNumber.

/** What the members of one page share: the page text and the members' values, once read. */
interface Source {
  text: string;
  byteText: boolean;
  array: MemberArray;
  tag?: string;
  values?: unknown[];
}

/** Replaces in place the tagged strings in `container` by their numbers, until `left` were found; how many are left. */
function untag(container: object, tag: string, literal: (at: number) => string, left: number): number {
  const record = container as Record<string, unknown>;
  for (const key in record) {
    const value = record[key];
    if (typeof value === 'string') {
      if (value.charCodeAt(0) !== 1 || !value.startsWith(tag)) continue;
      const number = new JsonNumber(literal(Number(value.slice(tag.length))));
      setOwn(record, key, number);
      if (--left === 0) return 0;
    } else if (typeof value === 'object' && value !== null) {
      left = untag(value, tag, literal, left);
      if (left === 0) return 0;
    }
  }
  return left;
}

/** Where a member's tagged copy is put together, as UTF-8, to be decoded once: no joined string nor Buffer a member. */
let scratch = Buffer.allocUnsafe(64 * 1024);
/** bytes: a larger copy is made in a Buffer of its own, not kept */
const MAX_SCRATCH = 1024 * 1024;
/** `"\u0001`, 12 base64 characters, `:`, an index, `"` */
const MAX_TAG_BYTES = 32;

function valueAt(source: Source, k: number): unknown {
  const { text, byteText, array } = source;
  const spans = array.oddSpans;
  const start = array.bounds[3 * k] as number;
  const end = array.bounds[3 * k + 1] as number;
  const first = array.bounds[3 * k + 2] as number;
  const last = k + 1 < array.texts.length ? (array.bounds[3 * k + 5] as number) : spans.length;
  const tag = (source.tag ??= `\u0001${randomBytes(9).toString('base64')}:`);
  const size = (end - start) * (byteText ? 1 : 3) + ((last - first) / 2) * MAX_TAG_BYTES;
  if (size > scratch.length && size <= MAX_SCRATCH) scratch = Buffer.allocUnsafe(size);
  const buf = size > scratch.length ? Buffer.allocUnsafe(size) : scratch;
  const encoding = byteText ? 'latin1' : 'utf8';
  const tagText = last > first ? `"\\u0001${tag.slice(1)}` : '';
  let n = 0;
  let at = start;
  for (let sp = first; sp < last; sp += 2) {
    n += buf.write(text.slice(at, spans[sp]), n, encoding);
    n += buf.write(tagText, n, 'latin1');
    n += buf.write(String(sp), n, 'latin1');
    buf[n++] = QUOTE;
    at = spans[sp + 1] as number;
  }
  n += buf.write(text.slice(at, end), n, encoding);
  let value = JSON.parse(buf.toString('utf8', 0, n)) as unknown;
  const literal = (sp: number): string => text.slice(spans[sp], spans[sp + 1]);
  if (typeof value === 'string' && last > first) value = new JsonNumber(literal(first));
  else if (typeof value === 'object' && value !== null && last > first) untag(value, tag, literal, (last - first) / 2);
  return value;
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
      if (source.values === undefined) {
        source.values = new Array<unknown>(source.array.texts.length);
        for (let k = 0; k < source.values.length; k++) source.values[k] = valueAt(source, k);
      }
      return count === source.values.length ? source.values : source.values.slice(0, count);
    },
    value: (k) => source.values?.[k] ?? valueAt(source, k),
    take: (n) => (n >= count ? membersOf(source, count) : membersOf(source, Math.max(0, n))),
  };
}
