/**
 * A cheap guard against JSON nested deep enough to exhaust the stack of whatever walks the parsed
 * value (the parser, the formatters, `--fields`): one pass over the text counting the `[` and `{`
 * open outside strings, before `JSON.parse` runs (docs/security.md, "Security and safety").
 */
import { BACKSLASH, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET } from './json-chars.js';

/** Deepest nesting of arrays and objects accepted in a page (the page object itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/**
 * The index after the string whose opening quote is at `i`: the next quote not escaped (preceded
 * by an even number of backslashes), found with `indexOf`, so the characters of a string are not
 * looked at one by one; `text.length` when the string does not end.
 */
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
 * Whether `text` opens more than `maxDepth` arrays or objects inside one another. Strings
 * (RFC 8259 §7, with their backslash escapes) are skipped, so brackets in values do not count. The
 * text need not be valid JSON: the parser judges that afterwards.
 * @param maxDepth deepest nesting allowed (default {@link MAX_JSON_DEPTH})
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
