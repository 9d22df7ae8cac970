/**
 * Items as received, without serialising them again (the JSON/NDJSON hot path, issue «As fast as
 * Node allows»). Each fetched page carries the text it was parsed from (pagination's
 * `PageStep.text`), which the export hands to `Formatter.page` with the page's members; this module
 * finds the text of every member in it. JSON.stringify of a parsed item costs more than
 * JSON.parse did; one scan of the page text that jumps from quote to quote with `indexOf` costs a
 * fraction of that.
 *
 * Exactness: a member's text is used only when it is exactly what `JSON.stringify(JSON.parse(text))`
 * gives, that is, when it is canonical compact JSON: no whitespace outside strings; string escapes
 * only `\" \\ \b \f \n \r \t` (JSON.stringify writes every other character raw, except control
 * characters and lone surrogates, which cannot appear raw in a valid JSON text decoded from UTF-8);
 * numbers as JavaScript prints them (no exponent, no trailing fraction zero, no `-0`, at most 15
 * significant digits, so the shortest round-trip form is the digits given, ECMA-262 Number::toString);
 * and no key that starts with a digit (V8 moves integer-like keys first). Any other member is
 * serialised with JSON.stringify as before. The one difference left: an object with a duplicate
 * key (RFC 8259 §4 says names SHOULD be unique) keeps both, as received, where JSON.parse would keep
 * the last value at the first position.
 */
const QUOTE = 34;
const BACKSLASH = 92;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const COMMA = 44;
const COLON = 58;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const LOWER_E = 101;
const UPPER_E = 69;
const LOWER_T = 116;
const LOWER_F = 102;
const LOWER_N = 110;
const LOWER_B = 98;
const LOWER_R = 114;
const PLUS = 43;

/** Longest run of significant digits whose JavaScript rendering is the digits themselves (DBL_DIG). */
const MAX_EXACT_DIGITS = 15;

/** Scan state over one valid JSON text. */
interface Scan {
  readonly text: string;
  /** Position of the first backslash at or after the last string start searched, or text.length. */
  nextBackslash: number;
  /** False once the value being scanned is not canonical compact JSON. */
  canonical: boolean;
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function isWhitespace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function skipWhitespace(text: string, i: number): number {
  while (isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Skips the string whose opening quote is at `i`.
 * @returns the index after its closing quote
 */
function skipString(s: Scan, i: number): number {
  const text = s.text;
  let j = i + 1;
  for (;;) {
    const quote = text.indexOf('"', j);
    if (s.nextBackslash < j) {
      const b = text.indexOf('\\', j);
      s.nextBackslash = b === -1 ? text.length : b;
    }
    if (quote < 0) return text.length;
    if (s.nextBackslash > quote) return quote + 1;
    // An escape before the quote: the quote may be escaped, and the escape may not be canonical.
    const e = text.charCodeAt(s.nextBackslash + 1);
    if (e !== QUOTE && e !== BACKSLASH && e !== LOWER_B && e !== LOWER_F && e !== LOWER_N && e !== LOWER_R && e !== LOWER_T) {
      s.canonical = false;
    }
    j = s.nextBackslash + 2;
  }
}

/**
 * Skips the number starting at `i`, clearing `canonical` unless JavaScript would print it the same.
 * @returns the index after it
 */
function skipNumber(s: Scan, i: number): number {
  const text = s.text;
  let j = i;
  const negative = text.charCodeAt(j) === MINUS;
  if (negative) j++;
  const intStart = j;
  while (isDigit(text.charCodeAt(j))) j++;
  const intLength = j - intStart;
  let significant = intLength;
  const zeroInt = intLength === 1 && text.charCodeAt(intStart) === ZERO;
  if (text.charCodeAt(j) === DOT) {
    j++;
    const fracStart = j;
    while (isDigit(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j - 1) === ZERO) s.canonical = false;
    if (zeroInt) {
      let k = fracStart;
      while (k < j && text.charCodeAt(k) === ZERO) k++;
      // 0.000001 prints as such; 0.0000001 prints as 1e-7.
      if (k - fracStart > 5) s.canonical = false;
      significant = j - k;
    } else {
      significant += j - fracStart;
    }
  } else if (negative && zeroInt) {
    s.canonical = false; // -0 prints as 0
  }
  const c = text.charCodeAt(j);
  if (c === LOWER_E || c === UPPER_E) {
    s.canonical = false;
    j++;
    const sign = text.charCodeAt(j);
    if (sign === PLUS || sign === MINUS) j++;
    while (isDigit(text.charCodeAt(j))) j++;
  }
  if (significant > MAX_EXACT_DIGITS) s.canonical = false;
  return j;
}

/**
 * Skips the value starting at `i` (no whitespace before it), clearing `canonical` when anything in
 * it is not canonical compact JSON. The text is valid JSON (it was parsed), so only the tokens that
 * matter are looked at.
 * @returns the index after the value
 */
function skipValue(s: Scan, i: number): number {
  const text = s.text;
  const end = text.length;
  let depth = 0;
  while (i < end) {
    const c = text.charCodeAt(i);
    switch (c) {
      case QUOTE: {
        const after = skipString(s, i);
        // A key starting with a digit may be integer-like: V8 would enumerate it first.
        if (depth > 0 && text.charCodeAt(after) === COLON && isDigit(text.charCodeAt(i + 1))) s.canonical = false;
        i = after;
        break;
      }
      case LBRACE:
      case LBRACKET:
        depth++;
        i++;
        break;
      case RBRACE:
      case RBRACKET:
        depth--;
        i++;
        break;
      case COMMA:
      case COLON:
        i++;
        break;
      case LOWER_T:
      case LOWER_N:
        i += 4;
        break;
      case LOWER_F:
        i += 5;
        break;
      default:
        if (isWhitespace(c)) {
          s.canonical = false;
          i++;
        } else {
          i = skipNumber(s, i);
        }
    }
    if (depth === 0) return i;
  }
  return i;
}

/**
 * Scans the array starting at `i` (its `[`).
 * @returns each element's text when canonical, else undefined in its place; and the index after it
 */
function scanArray(s: Scan, i: number): { items: (string | undefined)[]; end: number } {
  const text = s.text;
  const items: (string | undefined)[] = [];
  i++;
  for (;;) {
    i = skipWhitespace(text, i);
    const c = text.charCodeAt(i);
    if (c === RBRACKET || i >= text.length) return { items, end: i + 1 };
    if (c === COMMA) {
      i++;
      continue;
    }
    const start = i;
    i = skipMember(s, i);
    items.push(s.canonical ? text.slice(start, i) : undefined);
  }
}

/** Skips one element of an array, leaving in `s.canonical` whether it alone is canonical compact JSON. */
function skipMember(s: Scan, i: number): number {
  s.canonical = true;
  return skipValue(s, i);
}

/**
 * Finds the text of each member of a Hydra page: the array under `hydra:member`, else `member`,
 * the choice `parsePage` makes (the last occurrence of a key wins, as in JSON.parse).
 * @param text a JSON text that `JSON.parse` accepted
 * @param count the number of members the parse found
 * @returns one entry per member: its text when canonical (see the module comment), else undefined;
 *   or undefined as a whole when the members cannot be located with certainty (not an object at the
 *   top, an escaped top-level key, a different count)
 */
export function rawMemberTexts(text: string, count: number): (string | undefined)[] | undefined {
  const s: Scan = { text, nextBackslash: -1, canonical: true };
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== LBRACE) return undefined;
  i++;
  let prefixed: (string | undefined)[] | undefined;
  let plain: (string | undefined)[] | undefined;
  for (;;) {
    i = skipWhitespace(text, i);
    if (i >= text.length) return undefined;
    const c = text.charCodeAt(i);
    if (c === RBRACE) break;
    if (c === COMMA) {
      i++;
      continue;
    }
    if (c !== QUOTE) return undefined;
    const keyEnd = skipString(s, i);
    const key = text.slice(i + 1, keyEnd - 1);
    if (key.includes('\\')) return undefined;
    i = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    i = skipWhitespace(text, i + 1);
    if ((key === 'hydra:member' || key === 'member') && text.charCodeAt(i) === LBRACKET) {
      const scanned = scanArray(s, i);
      if (key === 'hydra:member') prefixed = scanned.items;
      else plain = scanned.items;
      i = scanned.end;
    } else {
      if (key === 'hydra:member') prefixed = undefined;
      else if (key === 'member') plain = undefined;
      i = skipValue(s, i);
    }
  }
  const found = prefixed ?? plain;
  return found !== undefined && found.length === count ? found : undefined;
}

/**
 * The received text of each item of a page, when the page's text is known.
 * @param items the whole `members` array parsed from `pageText` (not a slice of it: a shorter
 *   array gets undefined, as the counts differ)
 * @param pageText the body `items` was parsed from, or undefined when unknown
 * @returns as {@link rawMemberTexts}, or undefined when the text is unknown
 */
export function receivedItemTexts(items: readonly unknown[], pageText: string | undefined): (string | undefined)[] | undefined {
  return pageText === undefined ? undefined : rawMemberTexts(pageText, items.length);
}
