/**
 * The byte path of a collection page (README, "Output": JSON and NDJSON write items as received):
 * one scan of the page text that finds the envelope (`hydra:view`, `totalItems`) and the text of
 * every member, validating the members as it goes, so the members are never `JSON.parse`d nor
 * serialised again. Only the envelope, the page with its member array emptied (a few hundred
 * bytes), goes through `JSON.parse` and {@link parsePage}, which keeps the unprefixed-Hydra and
 * not-a-collection rules in one place.
 *
 * Exactness: a member's text is used as received only when it is exactly what
 * `JSON.stringify(JSON.parse(text))` gives, that is, when it is valid canonical compact JSON (RFC
 * 8259): no whitespace outside strings; no control character in strings; string escapes only
 * `\" \\ \b \f \n \r \t` (JSON.stringify writes every other character raw, lone surrogates
 * excepted, which cannot appear raw in text decoded from UTF-8); numbers as JavaScript prints them
 * (no exponent, no leading or trailing fraction zero, no `-0`, at most 15 significant digits, so
 * the shortest round-trip form is the digits given, ECMA-262 Number::toString); no key that starts
 * with a digit (V8 moves integer-like keys first). Any other member is `JSON.parse`d alone and
 * serialised with JSON.stringify, so the output bytes are those of the value path. The one
 * difference left, as before: an object with a duplicate key (RFC 8259 §4 says names SHOULD be
 * unique) keeps both, as received, where JSON.parse would keep the last value at the first position.
 *
 * Whatever the scan is not sure of (not an object at the top, an escaped top-level key, both
 * `member` and `hydra:member`, JSON nested deeper than {@link MAX_JSON_DEPTH}, a member that does
 * not parse alone, text after the page) makes it give up: the caller then parses the page on the
 * value path, which gives today's verdict and error (`invalid JSON`, the depth guard, …).
 */
import { parsePage, type HydraPage } from './hydra.js';
import { COMMA, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-chars.js';
import { CONTROL, GIVE_UP, skipCanonical, skipLoose, skipString, skipWhitespace, type Scan } from './json-scan.js';

const COLON = 58;

/**
 * Positions of the control characters in `text`, ascending (none in a compact page: then the
 * check per member costs nothing).
 */
function controlPositions(text: string): number[] {
  const found: number[] = [];
  CONTROL.lastIndex = 0;
  for (let m = CONTROL.exec(text); m !== null; m = CONTROL.exec(text)) found.push(m.index);
  return found;
}

/** Reads a byte text (http/body.ts `readBoundedByteText`) as the text it encodes. */
const textOfBytes = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');
/** The byte text of `text` (its UTF-8 bytes one per code unit). */
const bytesOfText = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
const same = (text: string): string => text;

/** How a scan reads the page text: as text, or as a byte text. */
interface Codec {
  /** The text a slice of the page text encodes (for JSON.parse). */
  decode: (slice: string) => string;
  /** A JSON text as the page text would hold it (for a member serialised again). */
  encode: (text: string) => string;
}

/**
 * Scans the member array whose `[` is at `i`.
 * @returns the members' JSON texts and the index after the array, or undefined to give up
 */
function scanMembers(s: Scan, i: number, codec: Codec): { members: string[]; end: number } | undefined {
  const text = s.text;
  const controls = controlPositions(text);
  let nextControl = 0;
  const members: string[] = [];
  i = skipWhitespace(text, i + 1);
  if (text.charCodeAt(i) === RBRACKET) return { members, end: i + 1 };
  for (;;) {
    const start = i;
    let end = skipCanonical(s, i, 2);
    if (end === GIVE_UP) return undefined;
    while (nextControl < controls.length && (controls[nextControl] as number) < start) nextControl++;
    // A scalar member read strictly ends before an exponent, say: it must be followed by `,` or `]`.
    const after = end >= 0 ? text.charCodeAt(skipWhitespace(text, end)) : 0;
    if ((after === COMMA || after === RBRACKET) && (nextControl === controls.length || (controls[nextControl] as number) >= end)) {
      members.push(text.slice(start, end));
    } else {
      s.nextBackslash = -1; // the cache only looks forward; this goes back to the member's start
      end = skipLoose(s, start, 2);
      if (end === GIVE_UP) return undefined;
      let value: unknown;
      try {
        value = JSON.parse(codec.decode(text.slice(start, end)));
      } catch {
        return undefined;
      }
      members.push(codec.encode(JSON.stringify(value)));
    }
    i = skipWhitespace(text, end);
    const c = text.charCodeAt(i);
    if (c === RBRACKET) return { members, end: i + 1 };
    if (c !== COMMA) return undefined;
    i = skipWhitespace(text, i + 1);
  }
}

/** Where the member array of a page is, and its members' texts. */
interface MemberArray {
  /** Index of its `[`. */
  start: number;
  /** Index after its `]`. */
  end: number;
  members: string[];
}

/**
 * Walks the top-level object, scanning the member array and skipping every other value.
 * @returns undefined to give up (see the module comment)
 */
function findMembers(s: Scan, codec: Codec): MemberArray | undefined {
  const text = s.text;
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== LBRACE) return undefined;
  let found: MemberArray | undefined;
  i = skipWhitespace(text, i + 1);
  if (text.charCodeAt(i) === RBRACE) return undefined;
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = skipString(s, i, false);
    if (keyEnd < 0) return undefined;
    const key = text.slice(i + 1, keyEnd - 1);
    if (key.includes('\\')) return undefined;
    i = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    i = skipWhitespace(text, i + 1);
    if (key === 'hydra:member' || key === 'member') {
      if (found !== undefined || text.charCodeAt(i) !== LBRACKET) return undefined;
      const scanned = scanMembers(s, i, codec);
      if (scanned === undefined) return undefined;
      found = { start: i, end: scanned.end, members: scanned.members };
      i = scanned.end;
    } else {
      i = skipLoose(s, i, 1);
      if (i < 0) return undefined;
    }
    i = skipWhitespace(text, i);
    const c = text.charCodeAt(i);
    if (c === RBRACE) break;
    if (c !== COMMA) return undefined;
    i = skipWhitespace(text, i + 1);
  }
  return skipWhitespace(text, i + 1) === text.length ? found : undefined;
}

/**
 * Reads a Hydra page on the byte path: one scan for the members' texts and the envelope (see the
 * module comment). The page's `members` are then strings, each the member's compact JSON text,
 * exactly as JSON.stringify would write the parsed member, and `membersAsJson` is true; or, given a
 * byte text, each the UTF-8 bytes of that text as a byte text, and `membersAsJson` is `'bytes'`
 * (the scan reads a byte text as it reads text: JSON's structural characters are ASCII, and a
 * valid UTF-8 text holds no surrogate; the envelope and any member serialised again are decoded
 * and encoded around JSON.parse and JSON.stringify).
 * @param text the body, decoded; or its bytes as a byte text (http/body.ts `readBoundedByteText`)
 *   when `byteText`; the caller has refused HTML already
 * @returns undefined when the scan gives up: parse the page on the value path instead
 * @throws {PageFormatError} what {@link parsePage} throws of the envelope (not a collection)
 */
export function scanPageText(text: string, byteText = false): HydraPage | undefined {
  const codec: Codec = byteText ? { decode: textOfBytes, encode: bytesOfText } : { decode: same, encode: same };
  const s: Scan = { text, nextBackslash: -1 };
  const found = findMembers(s, codec);
  if (found === undefined) return undefined;
  let envelope: unknown;
  try {
    envelope = JSON.parse(codec.decode(text.slice(0, found.start) + '[]' + text.slice(found.end)));
  } catch {
    return undefined;
  }
  const page = parsePage(envelope);
  page.members = found.members;
  page.membersAsJson = byteText ? 'bytes' : true;
  return page;
}
