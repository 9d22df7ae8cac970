import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../../src/pagination/json-scan.js';

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('exceedsJsonDepth', () => {
  it('accepts up to the limit and refuses one level more', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(exceedsJsonDepth(nested(64))).toBe(false);
    expect(exceedsJsonDepth(nested(65))).toBe(true);
    expect(exceedsJsonDepth(`{"a":${nested(63)}}`)).toBe(false);
    expect(exceedsJsonDepth(`{"a":${nested(64)}}`)).toBe(true);
  });

  it('counts depth, not the number of brackets', () => {
    expect(exceedsJsonDepth(`[${'[],'.repeat(10_000)}[]]`, 2)).toBe(false);
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(exceedsJsonDepth(`["${'['.repeat(100)}"]`, 1)).toBe(false);
    expect(exceedsJsonDepth(`["\\"${'{'.repeat(100)}"]`, 1)).toBe(false);
    expect(exceedsJsonDepth(`["\\\\", [[]]]`, 2)).toBe(true);
  });

  it('agrees with a character-by-character count on any text', () => {
    // The reference: every character looked at, a backslash in a string skipping the next one.
    const reference = (text: string, max: number): boolean => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '[' || c === '{') {
          if (++depth > max) return true;
        } else if (c === ']' || c === '}') depth--;
      }
      return false;
    };
    const pieces = fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ',');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), (parts, max) => {
        const text = parts.join('');
        expect(exceedsJsonDepth(text, max)).toBe(reference(text, max));
      }),
      { numRuns: 3000 },
    );
  });
});
