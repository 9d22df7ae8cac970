import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../../src/pagination/json-depth.js';

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
});
