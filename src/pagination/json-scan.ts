/**
 * JSON (RFC 8259) without `JSON.parse`: the page reader's validating scan (strings skipped by `indexOf`) and a depth guard.
 * Ours: the hot path, reading every page once.
 */

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
export const LBRACKET = 0x5b;
export const RBRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 58;
const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const LOWER_E = 101;
const UPPER_E = 69;
const LOWER_U = 117;

/** Deepest nesting of arrays and objects accepted in a page (the page object itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/** The index after the string whose opening quote is at `i` (`text.length` when it does not end). */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) return text.length;
    let k = q - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/**
 * Whether `text` opens more than `maxDepth` arrays or objects inside one another, brackets in
 * strings not counted. One cheap pass before `JSON.parse`, so no walker of the value runs out of
 * stack; the text need not be valid JSON.
 */
export function exceedsJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  const end = text.length;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i) - 1;
    } else if (c === LBRACKET || c === LBRACE) {
      if (++depth > maxDepth) return true;
    } else if (c === RBRACKET || c === RBRACE) {
      depth--;
    }
  }
  return false;
}

/** DBL_DIG: up to 15 significant digits, JavaScript prints the digits given. */
const MAX_EXACT_DIGITS = 15;

const INVALID = -1;

// By char code: JSON's escape letters (RFC 8259 §7), and hex digits.
const ESCAPE = new Uint8Array(128);
for (const c of '"\\/bfnrtu') ESCAPE[c.charCodeAt(0)] = 1;
const HEX = new Uint8Array(128);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

/** Control characters JSON allows nowhere (RFC 8259 §2, §7), one test a page; raw tab, LF and CR are judged in strings. */
// eslint-disable-next-line no-control-regex -- looking for exactly these characters
export const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/** Scan state over one page text. Index pairs are [start, end) spans, ascending. */
export interface Scan {
  readonly text: string;
  // The next backslash, tab, LF and CR at or after the last place searched (text.length: none): cached indexOf.
  nextBackslash: number;
  nextTab: number;
  nextLf: number;
  nextCr: number;
  /** Whitespace runs outside strings in the value scanned. */
  gaps: number[];
  /** Where each number JavaScript would print otherwise is appended. */
  oddSpans: number[];
  /** Open containers of the value scanned, innermost last: true for an object (kept, so no scan allocates one). */
  open: boolean[];
}

export function createScan(text: string): Scan {
  return { text, nextBackslash: -1, nextTab: -1, nextLf: -1, nextCr: -1, gaps: [], oddSpans: [], open: [] };
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function isWhitespace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

export function skipWhitespace(text: string, i: number): number {
  while (isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

function nextOf(text: string, char: string, cached: number, j: number): number {
  if (cached >= j) return cached;
  const at = text.indexOf(char, j);
  return at === -1 ? text.length : at;
}

function breakWithin(s: Scan, from: number, to: number): boolean {
  s.nextLf = nextOf(s.text, '\n', s.nextLf, from);
  s.nextTab = nextOf(s.text, '\t', s.nextTab, from);
  s.nextCr = nextOf(s.text, '\r', s.nextCr, from);
  return s.nextLf < to || s.nextTab < to || s.nextCr < to;
}

/** The index after the string whose quote is at `i`, or INVALID. */
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

function skipDigits(text: string, j: number): number {
  while (isDigit(text.charCodeAt(j))) j++;
  return j;
}

/**
 * The index after the number at `i`, or INVALID. Odd (ECMA-262 Number::toString prints it
 * otherwise): an exponent, a trailing fraction zero, `-0`, over 15 significant digits, below 1e-6.
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
  if (odd || significant > MAX_EXACT_DIGITS) s.oddSpans.push(i, j);
  return j;
}

function skipLiteral(text: string, i: number, word: string): number {
  return text.startsWith(word, i) ? i + word.length : INVALID;
}

function skipScalar(s: Scan, i: number): number {
  const c = s.text.charCodeAt(i);
  if (c === QUOTE) return skipString(s, i);
  if (c === 116) return skipLiteral(s.text, i, 'true');
  if (c === 102) return skipLiteral(s.text, i, 'false');
  if (c === 110) return skipLiteral(s.text, i, 'null');
  return c === MINUS || isDigit(c) ? skipNumber(s, i) : INVALID;
}

/** Skips whitespace, noting it in `s.gaps`. */
function space(s: Scan, i: number): number {
  const j = skipWhitespace(s.text, i);
  if (j !== i) s.gaps.push(i, j);
  return j;
}

/** From before a key to its value: the value's index, or INVALID. */
function skipKey(s: Scan, i: number): number {
  i = space(s, i);
  if (s.text.charCodeAt(i) !== QUOTE) return INVALID;
  i = skipString(s, i);
  if (i < 0) return i;
  i = space(s, i);
  return s.text.charCodeAt(i) === COLON ? space(s, i + 1) : INVALID;
}

/**
 * The index after the valid JSON value at `i`, or INVALID (also past {@link MAX_JSON_DEPTH});
 * notes `gaps` and `oddSpans` (empty `gaps` before).
 * @param depth nesting of the value's container (the page object is 1)
 */
export function scanValue(s: Scan, i: number, depth: number): number {
  const { text, open } = s;
  let top = 0;
  for (;;) {
    let c = text.charCodeAt(i);
    if (c === LBRACE || c === LBRACKET) {
      if (depth + top + 1 > MAX_JSON_DEPTH) return INVALID;
      const isObject = c === LBRACE;
      const inner = space(s, i + 1);
      if (text.charCodeAt(inner) === (isObject ? RBRACE : RBRACKET)) {
        i = inner + 1;
      } else {
        open[top++] = isObject;
        i = isObject ? skipKey(s, inner) : inner;
        if (i < 0) return i;
        continue;
      }
    } else {
      i = skipScalar(s, i);
      if (i < 0) return i;
    }
    for (;;) {
      if (top === 0) return i;
      const inObject = open[top - 1] as boolean;
      i = space(s, i);
      c = text.charCodeAt(i);
      if (c === COMMA) {
        i = inObject ? skipKey(s, i + 1) : space(s, i + 1);
        if (i < 0) return i;
        break;
      }
      if (c !== (inObject ? RBRACE : RBRACKET)) return INVALID;
      top--;
      i++;
    }
  }
}

/** The value in [start, end) without its whitespace `gaps`: a pretty-printed member on one line. */
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
