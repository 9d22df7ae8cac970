/**
 * The page reader (README, "Output": items as the server wrote them): one scan of a page in any
 * valid JSON encoding (RFC 8259: API Platform's `\/` and `\u0026` escapes, pretty printing, numbers
 * such as `9007199254740993`, `1.0` or `1.25E-2`) that judges it as it goes and finds the envelope
 * and each member's text. A member's text is its source with the whitespace outside strings dropped:
 * escapes, number literals, key order and repeated keys stay as received. Only the envelope, the
 * page with its member arrays emptied (a few hundred bytes), goes through `JSON.parse` and
 * {@link parsePage}, which keeps the unprefixed-Hydra and not-a-collection rules in one place. The
 * members' values are read only when a format asks for them (page-items.ts).
 *
 * Whatever the scan refuses (invalid JSON, a raw control character, JSON nested deeper than
 * json-depth.ts `MAX_JSON_DEPTH`, text after the page) or that is not an object at the top gives
 * undefined: the caller then gets the verdict and error of `JSON.parse` (hydra.ts `parsePageText`).
 */
import type { Members } from '../json/members.js';
import { textOfBytes } from '../json/members.js';
import { parsePage, type HydraView } from './hydra.js';
import { COMMA, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-chars.js';
import { beginValue, compactText, createScan, FORBIDDEN_CONTROL, scanValue, skipString, skipWhitespace, type Scan } from './json-scan.js';
import { pageMembers, type MemberArray } from './page-items.js';

const COLON = 58;

/** The member array of a page without one. */
const NO_MEMBERS: MemberArray = { start: 0, end: 0, texts: [], bounds: [], oddSpans: [] };

/** One collection page as read: its items and the envelope's Hydra terms. */
export interface CollectionPage {
  /** `hydra:member` / `member`. */
  members: Members;
  /** `hydra:totalItems` / `totalItems` when present (see hydra.ts `HydraPage`). */
  totalItems?: number;
  /** `hydra:view` / `view`; undefined when the page has none. */
  view?: HydraView;
}

/**
 * Scans the member array whose `[` is at `i`.
 * @returns the members' texts and where the array ends, or undefined when it is not valid JSON
 */
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

/** The member arrays of a page (the last of each spelling, as `JSON.parse` keeps it), and where every one of them is. */
interface Found {
  arrays: Map<string, MemberArray>;
  spans: MemberArray[];
}

/** The key whose string is at [start, end): JSON.parse'd only when it holds an escape. */
function keyAt(text: string, start: number, end: number, byteText: boolean): string {
  const raw = text.slice(start + 1, end - 1);
  if (!raw.includes('\\')) return raw;
  const source = text.slice(start, end);
  return JSON.parse(byteText ? textOfBytes(source) : source) as string;
}

/**
 * Walks the top-level object, scanning the member arrays and judging every other value.
 * @returns undefined when the page is not a valid JSON object
 */
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

/** The page text with every member array emptied. */
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
 * Reads a Hydra page in one scan (see the module comment).
 * @param text the body, decoded; or its bytes as a byte text (http/body.ts `readBoundedByteText`)
 *   when `byteText` (JSON's structural characters are ASCII and every byte of a multi-byte UTF-8
 *   sequence is 0x80 or more, so the scan reads a byte text as it reads text: RFC 3629 §3); the
 *   caller has refused HTML already
 * @returns undefined when the text is not a valid JSON object: parse it with `parsePageText` for the verdict
 * @throws {PageFormatError} what {@link parsePage} throws of the envelope (not a collection)
 */
export function scanPageText(text: string, byteText = false): CollectionPage | undefined {
  if (FORBIDDEN_CONTROL.test(text)) return undefined;
  const found = findMembers(createScan(text), byteText);
  if (found === undefined) return undefined;
  const envelopeSource = envelopeText(text, found.spans);
  const envelope = JSON.parse(byteText ? textOfBytes(envelopeSource) : envelopeSource) as Record<string, unknown>;
  const hydra = parsePage(envelope);
  const array = found.arrays.get(envelope['hydra:member'] !== undefined ? 'hydra:member' : 'member');
  const page: CollectionPage = { members: pageMembers(text, byteText, array ?? NO_MEMBERS) };
  if (hydra.totalItems !== undefined) page.totalItems = hydra.totalItems;
  if (hydra.view !== undefined) page.view = hydra.view;
  return page;
}
