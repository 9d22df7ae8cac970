/**
 * A cheap guard against JSON nested deep enough to exhaust the stack of whatever walks the parsed
 * value (the parser, the formatters, `--fields`): one pass over the text counting the `[` and `{`
 * open outside strings, before `JSON.parse` runs (README, "Security and safety").
 */

/** Deepest nesting of arrays and objects accepted in a page (the page object itself is level 1). */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * Whether `text` opens more than `maxDepth` arrays or objects inside one another. Strings
 * (RFC 8259 §7, with their backslash escapes) are skipped, so brackets in values do not count. The
 * text need not be valid JSON: the parser judges that afterwards.
 * @param maxDepth deepest nesting allowed (default {@link MAX_JSON_DEPTH})
 */
export function exceedsJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}
