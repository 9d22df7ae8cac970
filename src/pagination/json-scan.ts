/**
 * The JSON scanning under page-scan.ts: reading a value of any valid JSON text (RFC 8259) and
 * judging it as it goes, strings skipped by `indexOf` from quote to quote (their escapes and raw
 * line breaks found by cached `indexOf`s, so a string's characters are not looked at one by one),
 * the nesting counted against {@link MAX_JSON_DEPTH}. It notes what the page reader needs of a
 * member: whether it holds whitespace outside strings (then its text is compacted) and whether it
 * holds a number whose literal JavaScript would print otherwise, and where (page-items.ts then
 * keeps that literal as a `JsonNumber` instead of the number `JSON.parse` would make of it).
 * Our own code because it is the hot path: every page of every export is read by it once.
 */
import { COMMA, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-chars.js';
import { MAX_JSON_DEPTH } from './json-depth.js';

const COLON = 58;
const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const LOWER_E = 101;
const UPPER_E = 69;
const LOWER_U = 117;

/** Longest run of significant digits whose JavaScript rendering is the digits themselves (DBL_DIG). */
const MAX_EXACT_DIGITS = 15;

/** Not valid JSON, or nested deeper than {@link MAX_JSON_DEPTH}. */
const INVALID = -1;

/** Whether an escape letter after `\` is one of JSON's (RFC 8259 §7), indexed by char code. */
const ESCAPE = new Uint8Array(128);
for (const c of '"\\/bfnrtu') ESCAPE[c.charCodeAt(0)] = 1;
/** Whether a char code is a hex digit. */
const HEX = new Uint8Array(128);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

/**
 * Control characters that JSON allows nowhere (RFC 8259 §2 and §7: whitespace outside strings is
 * only space, tab, LF and CR; inside strings no control character is raw). One test per page.
 */
// eslint-disable-next-line no-control-regex -- looking for exactly these characters
export const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/** Scan state over one page text (create it with {@link createScan}). */
export interface Scan {
  readonly text: string;
  /** Position of the first backslash at or after the last place searched, or text.length. */
  nextBackslash: number;
  /** Positions of the next tab, LF and CR at or after the last place searched (or text.length): raw in a string they are invalid. */
  nextTab: number;
  nextLf: number;
  nextCr: number;
  /** The whitespace runs outside strings met in the value scanned: start and end index pairs (empty in a compact value). */
  gaps: number[];
  /** Set when the value scanned had a number JavaScript would print otherwise. */
  odd: boolean;
  /** Where those numbers are in the text: start and end index pairs, ascending. */
  oddSpans: number[];
}

/** Forgets what the last value noted ({@link Scan.gaps}, {@link Scan.odd}) before the next one is scanned. */
export function beginValue(s: Scan): void {
  s.gaps.length = 0;
  s.odd = false;
  s.oddSpans.length = 0;
}

/** A fresh scan of `text`. */
export function createScan(text: string): Scan {
  return { text, nextBackslash: -1, nextTab: -1, nextLf: -1, nextCr: -1, gaps: [], odd: false, oddSpans: [] };
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function isWhitespace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** The index of the first character at or after `i` that is not JSON whitespace (RFC 8259 §2). */
export function skipWhitespace(text: string, i: number): number {
  while (isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/** The next occurrence of `char` at or after `j`, given the cached one (text.length for none). */
function nextOf(text: string, char: string, cached: number, j: number): number {
  if (cached >= j) return cached;
  const at = text.indexOf(char, j);
  return at === -1 ? text.length : at;
}

/** Whether a raw tab, LF or CR lies in [from, to). */
function breakWithin(s: Scan, from: number, to: number): boolean {
  s.nextLf = nextOf(s.text, '\n', s.nextLf, from);
  s.nextTab = nextOf(s.text, '\t', s.nextTab, from);
  s.nextCr = nextOf(s.text, '\r', s.nextCr, from);
  return s.nextLf < to || s.nextTab < to || s.nextCr < to;
}

/**
 * Skips the string whose opening quote is at `i`, judging its escapes and raw line breaks (other
 * raw control characters are refused page-wide by {@link FORBIDDEN_CONTROL}).
 * @returns the index after its closing quote, or {@link INVALID}
 */
export function skipString(s: Scan, i: number): number {
  const text = s.text;
  let j = i + 1;
  for (;;) {
    const quote = text.indexOf('"', j);
    if (quote < 0) return INVALID;
    s.nextBackslash = nextOf(text, '\\', s.nextBackslash, j);
    const b = s.nextBackslash;
    if (b > quote) return breakWithin(s, i + 1, quote) ? INVALID : quote + 1;
    const e = text.charCodeAt(b + 1);
    if (e >= 128 || ESCAPE[e] === 0) return INVALID;
    if (e === LOWER_U) {
      for (let k = b + 2; k < b + 6; k++) {
        const h = text.charCodeAt(k);
        if (!(h < 128 && HEX[h] === 1)) return INVALID;
      }
      j = b + 6;
    } else {
      j = b + 2;
    }
  }
}

/** The index after the digits from `j`. */
function skipDigits(text: string, j: number): number {
  while (isDigit(text.charCodeAt(j))) j++;
  return j;
}

/**
 * Reads the number at `i` (RFC 8259 §6), and notes in `s.odd` when JavaScript would print it
 * otherwise: an exponent, a trailing fraction zero, `-0`, more than 15 significant digits, or a
 * fraction below 1e-6 (ECMA-262 Number::toString: up to 15 significant digits, the shortest
 * round-trip form is the digits given).
 * @returns the index after it, or {@link INVALID}
 */
function skipNumber(s: Scan, i: number): number {
  const text = s.text;
  let j = i;
  const negative = text.charCodeAt(j) === MINUS;
  if (negative) j++;
  const intStart = j;
  j = skipDigits(text, j);
  const intLength = j - intStart;
  if (intLength === 0) return INVALID;
  const zeroInt = text.charCodeAt(intStart) === ZERO;
  if (zeroInt && intLength > 1) return INVALID; // a leading zero is not JSON
  let significant = intLength;
  let odd = false;
  if (text.charCodeAt(j) === DOT) {
    const fracStart = j + 1;
    j = skipDigits(text, fracStart);
    if (j === fracStart) return INVALID;
    if (text.charCodeAt(j - 1) === ZERO) odd = true;
    if (zeroInt) {
      let k = fracStart;
      while (text.charCodeAt(k) === ZERO) k++;
      // 0.000001 prints as such; 0.0000001 prints as 1e-7.
      if (k - fracStart > 5) odd = true;
      significant = j - k;
    } else {
      significant += j - fracStart;
    }
  } else if (negative && zeroInt) {
    odd = true; // -0 prints as 0
  }
  const c = text.charCodeAt(j);
  if (c === LOWER_E || c === UPPER_E) {
    odd = true;
    j++;
    const sign = text.charCodeAt(j);
    if (sign === PLUS || sign === MINUS) j++;
    const expStart = j;
    j = skipDigits(text, j);
    if (j === expStart) return INVALID;
  }
  if (odd || significant > MAX_EXACT_DIGITS) {
    s.odd = true;
    s.oddSpans.push(i, j);
  }
  return j;
}

/** The index after the literal `word` at `i`, or {@link INVALID}. */
function skipLiteral(text: string, i: number, word: string): number {
  return text.startsWith(word, i) ? i + word.length : INVALID;
}

/** Reads one scalar value at `i`: the index after it, or {@link INVALID}. */
function skipScalar(s: Scan, i: number): number {
  const c = s.text.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c === 116) return skipLiteral(s.text, i, 'true');
  if (c === 102) return skipLiteral(s.text, i, 'false');
  if (c === 110) return skipLiteral(s.text, i, 'null');
  return c === MINUS || isDigit(c) ? skipNumber(s, i) : INVALID;
}

/** Whitespace from `i` (noted in `s.gaps`): the index after it. */
function space(s: Scan, i: number): number {
  const j = skipWhitespace(s.text, i);
  if (j !== i) s.gaps.push(i, j);
  return j;
}

/** Reads an object key at `i` (after whitespace), its colon and the whitespace after: the index of the value, or {@link INVALID}. */
function skipKey(s: Scan, i: number): number {
  i = space(s, i);
  if (s.text.charCodeAt(i) !== QUOTE) return INVALID;
  i = skipString(s, i);
  if (i < 0) return i;
  i = space(s, i);
  return s.text.charCodeAt(i) === COLON ? space(s, i + 1) : INVALID;
}

/**
 * Reads the value at `i` (no whitespace before it), judging it as valid JSON, and notes
 * `s.gaps` and `s.odd` (call {@link beginValue} before).
 * @param depth nesting of the value's container (the page object is 1)
 * @returns the index after the value, or {@link INVALID}
 */
export function scanValue(s: Scan, i: number, depth: number): number {
  const text = s.text;
  // Open containers, innermost last: true for an object.
  const open: boolean[] = [];
  for (;;) {
    // A value is expected at i.
    let c = text.charCodeAt(i);
    if (c === LBRACE || c === LBRACKET) {
      if (depth + open.length + 1 > MAX_JSON_DEPTH) return INVALID;
      const isObject = c === LBRACE;
      const inner = space(s, i + 1);
      if (text.charCodeAt(inner) === (isObject ? RBRACE : RBRACKET)) {
        i = inner + 1;
      } else {
        open.push(isObject);
        i = isObject ? skipKey(s, inner) : inner;
        if (i < 0) return i;
        continue;
      }
    } else {
      i = skipScalar(s, i);
      if (i < 0) return i;
    }
    // After a value: a separator, or the end of containers.
    for (;;) {
      if (open.length === 0) return i;
      const inObject = open[open.length - 1] as boolean;
      i = space(s, i);
      c = text.charCodeAt(i);
      if (c === COMMA) {
        i = inObject ? skipKey(s, i + 1) : space(s, i + 1);
        if (i < 0) return i;
        break;
      }
      if (c !== (inObject ? RBRACE : RBRACKET)) return INVALID;
      open.pop();
      i++;
    }
  }
}

/**
 * The text of the value in [start, end) without the whitespace runs `gaps` ({@link Scan.gaps} of
 * its scan): a pretty-printed member becomes one line; strings, escapes and numbers stay as written.
 */
export function compactText(text: string, start: number, end: number, gaps: readonly number[]): string {
  // One join: a flat string, where `+=` would leave a rope of slices for the collector to walk.
  const parts = new Array<string>(gaps.length / 2 + 1);
  let from = start;
  for (let k = 0; k < gaps.length; k += 2) {
    parts[k / 2] = text.slice(from, gaps[k]);
    from = gaps[k + 1] as number;
  }
  parts[gaps.length / 2] = text.slice(from, end);
  return parts.join('');
}
