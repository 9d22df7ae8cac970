/**
 * The JSON scanning under page-scan.ts (RFC 8259): skipping values by `indexOf` from quote to quote,
 * strictly (valid canonical compact JSON only, see page-scan.ts) or loosely (strings and brackets
 * only, for text `JSON.parse` judges afterwards), counting the nesting against {@link MAX_JSON_DEPTH}.
 */
import { BACKSLASH, COMMA, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-chars.js';
import { MAX_JSON_DEPTH } from './json-depth.js';

const COLON = 58;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const LOWER_T = 116;
const LOWER_F = 102;
const LOWER_N = 110;
const LOWER_B = 98;
const LOWER_R = 114;

/** Longest run of significant digits whose JavaScript rendering is the digits themselves (DBL_DIG). */
const MAX_EXACT_DIGITS = 15;

/** Not a canonical value (or not a valid one): the member goes through JSON.parse alone. */
const NOT_CANONICAL = -1;
/** Nested deeper than {@link MAX_JSON_DEPTH}, or unreadable: the whole page goes the value path. */
export const GIVE_UP = -2;

/** Control characters (global): a JSON string cannot hold them raw (RFC 8259 §7). */
// eslint-disable-next-line no-control-regex -- looking for exactly these characters
export const CONTROL = /[\u0000-\u001f]/g;

/** Scan state over one page text (create it with `nextBackslash: -1`). */
export interface Scan {
  readonly text: string;
  /** Position of the first backslash at or after the last string start searched, or text.length. */
  nextBackslash: number;
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

/** The next backslash at or after `j` (cached: one `indexOf` per backslash in the page). */
function backslashFrom(s: Scan, j: number): number {
  if (s.nextBackslash < j) {
    const b = s.text.indexOf('\\', j);
    s.nextBackslash = b === -1 ? s.text.length : b;
  }
  return s.nextBackslash;
}

/**
 * Skips the string whose opening quote is at `i`, by `indexOf` from quote to quote.
 * @param strict when true, an escape other than the canonical ones gives {@link NOT_CANONICAL}
 * @returns the index after its closing quote; {@link GIVE_UP} when it has none
 */
export function skipString(s: Scan, i: number, strict: boolean): number {
  const text = s.text;
  let j = i + 1;
  for (;;) {
    const quote = text.indexOf('"', j);
    if (quote < 0) return GIVE_UP;
    const b = backslashFrom(s, j);
    if (b > quote) return quote + 1;
    const e = text.charCodeAt(b + 1);
    if (strict && e !== QUOTE && e !== BACKSLASH && e !== LOWER_B && e !== LOWER_F && e !== LOWER_N && e !== LOWER_R && e !== LOWER_T) {
      return NOT_CANONICAL;
    }
    j = b + 2;
  }
}

/** The index after the digits from `j`. */
function skipDigits(text: string, j: number): number {
  while (isDigit(text.charCodeAt(j))) j++;
  return j;
}

/**
 * Reads the number starting at `i`, strictly.
 * @returns the index after it, or {@link NOT_CANONICAL} when it is not valid JSON or JavaScript
 *   would print it otherwise
 */
function skipNumber(text: string, i: number): number {
  let j = i;
  const negative = text.charCodeAt(j) === MINUS;
  if (negative) j++;
  const intStart = j;
  j = skipDigits(text, j);
  const intLength = j - intStart;
  if (intLength === 0) return NOT_CANONICAL;
  const zeroInt = text.charCodeAt(intStart) === ZERO;
  if (zeroInt && intLength > 1) return NOT_CANONICAL; // a leading zero is not JSON
  let significant = intLength;
  if (text.charCodeAt(j) === DOT) {
    const fracStart = j + 1;
    j = skipDigits(text, fracStart);
    if (j === fracStart || text.charCodeAt(j - 1) === ZERO) return NOT_CANONICAL;
    if (zeroInt) {
      let k = fracStart;
      while (text.charCodeAt(k) === ZERO) k++;
      // 0.000001 prints as such; 0.0000001 prints as 1e-7.
      if (k - fracStart > 5) return NOT_CANONICAL;
      significant = j - k;
    } else {
      significant += j - fracStart;
    }
  } else if (negative && zeroInt) {
    return NOT_CANONICAL; // -0 prints as 0
  }
  // An exponent (e/E) is never canonical: the caller finds no separator after the digits.
  return significant > MAX_EXACT_DIGITS ? NOT_CANONICAL : j;
}

/** The index after the literal `word` at `i`, or {@link NOT_CANONICAL}. */
function skipLiteral(text: string, i: number, word: string): number {
  return text.startsWith(word, i) ? i + word.length : NOT_CANONICAL;
}

/**
 * Reads one scalar value at `i` strictly (string, number, literal).
 * @returns the index after it, {@link NOT_CANONICAL} or {@link GIVE_UP}
 */
function skipScalar(s: Scan, i: number): number {
  const c = s.text.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i, true);
  if (c === LOWER_T) return skipLiteral(s.text, i, 'true');
  if (c === LOWER_F) return skipLiteral(s.text, i, 'false');
  if (c === LOWER_N) return skipLiteral(s.text, i, 'null');
  return c === MINUS || isDigit(c) ? skipNumber(s.text, i) : NOT_CANONICAL;
}

/**
 * Reads an object key at `i` and its colon, strictly.
 * @returns the index after the colon, {@link NOT_CANONICAL} or {@link GIVE_UP}
 */
function skipKey(s: Scan, i: number): number {
  const text = s.text;
  // A key starting with a digit may be integer-like: V8 would enumerate it first.
  if (text.charCodeAt(i) !== QUOTE || isDigit(text.charCodeAt(i + 1))) return NOT_CANONICAL;
  const end = skipString(s, i, true);
  if (end < 0) return end;
  return text.charCodeAt(end) === COLON ? end + 1 : NOT_CANONICAL;
}

/**
 * Reads the value at `i` strictly as canonical compact JSON (see the module comment).
 * @param depth nesting of the value's container (the page object is 1)
 * @returns the index after the value, {@link NOT_CANONICAL} or {@link GIVE_UP}
 */
export function skipCanonical(s: Scan, i: number, depth: number): number {
  const text = s.text;
  // Open containers, innermost last: true for an object.
  const open: boolean[] = [];
  for (;;) {
    // A value is expected at i.
    let c = text.charCodeAt(i);
    if (c === LBRACE || c === LBRACKET) {
      if (depth + open.length + 1 > MAX_JSON_DEPTH) return GIVE_UP;
      const isObject = c === LBRACE;
      const close = isObject ? RBRACE : RBRACKET;
      if (text.charCodeAt(i + 1) === close) {
        i += 2;
      } else {
        open.push(isObject);
        i = isObject ? skipKey(s, i + 1) : i + 1;
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
      c = text.charCodeAt(i);
      if (c === COMMA) {
        i = inObject ? skipKey(s, i + 1) : i + 1;
        if (i < 0) return i;
        break;
      }
      if (c !== (inObject ? RBRACE : RBRACKET)) return NOT_CANONICAL;
      open.pop();
      i++;
    }
  }
}

/**
 * Skips the value at `i` without judging it (the text is judged by JSON.parse afterwards): strings
 * and brackets only, counting the nesting.
 * @param depth nesting of the value's container (the page object is 1)
 * @returns the index after the value, or {@link GIVE_UP} (nested too deep, or no end)
 */
export function skipLoose(s: Scan, i: number, depth: number): number {
  const text = s.text;
  let level = 0;
  for (;;) {
    if (i >= text.length) return GIVE_UP;
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = skipString(s, i, false);
      if (i < 0) return GIVE_UP;
      if (level === 0) return i;
    } else if (c === LBRACE || c === LBRACKET) {
      if (depth + ++level > MAX_JSON_DEPTH) return GIVE_UP;
      i++;
    } else if (c === RBRACE || c === RBRACKET) {
      // At level 0 this closes the container around a scalar: the scalar ended before it.
      if (level === 0) return i;
      i++;
      if (--level === 0) return i;
    } else if (level === 0 && (c === COMMA || isWhitespace(c))) {
      return i;
    } else {
      i++;
    }
  }
}
