import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../../src/http/retry.js';

describe('backoffDelayMs (full jitter, base 1 s, cap 30 s)', () => {
  it.each([
    [0, 0.5, 500],
    [1, 0.5, 1000],
    [2, 0.999, 3996],
    [4, 0.5, 8000],
    [5, 0.5, 15_000],
    [10, 0.5, 15_000],
    [50, 0.9, 27_000],
    [3, 0, 0],
    [3, Number.NaN, 0],
  ])('retry %i with random %d → %i ms', (retry, r, expected) => {
    expect(backoffDelayMs(retry, () => r)).toBe(expected);
  });

  it('stays within [0, min(cap, base·2^n)) for any random', () => {
    for (let n = 0; n < 10; n++) {
      for (const r of [0, 0.1, 0.5, 0.99999]) {
        const d = backoffDelayMs(n, () => r);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(Math.min(30_000, 1000 * 2 ** n));
      }
    }
  });
});
