import { describe, expect, it } from 'vitest';
import { formatCount, formatDuration, formatLocalTime, formatTimeLeft } from '../../../src/io/format.js';

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [12_345, '12,345'],
    [1_234_567.6, '1,234,568'],
    [-1234, '-1,234'],
    [123_456_789_012_345, '123,456,789,012,345'],
  ])('%d → %s', (n, text) => {
    expect(formatCount(n)).toBe(text);
  });
});

describe('formatDuration', () => {
  it.each([
    [-1, '0ms'],
    [Number.NaN, '0ms'],
    [Number.POSITIVE_INFINITY, '0ms'],
    [0, '0ms'],
    [850, '850ms'],
    [1_000, '1.0s'],
    [1_049, '1.0s'],
    [12_300, '12.3s'],
    [12_000, '12.0s'],
    [59_999, '59.9s'],
    [60_000, '1m'],
    [61_000, '1m 1s'],
    [120_000, '2m'],
    [245_600, '4m 5s'],
    [3_599_999, '59m 59s'],
    [3_600_000, '1h'],
    [7_380_000, '2h 3m'],
    [26 * 3_600_000 + 3 * 60_000, '26h 3m'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('formatTimeLeft', () => {
  it.each([
    [-5_000, '0s'],
    [0, '0s'],
    [1, '1s'],
    [59_000, '59s'],
    [59_001, '1m'],
    [61_000, '1m 1s'],
    [245_600, '4m 6s'],
    [7_380_000, '2h 3m'],
    [26 * 3_600_000, '1d 2h'],
    [400 * 86_400_000, '400d'],
  ])('%d ms → %s (whole seconds, rounded up)', (ms, text) => {
    expect(formatTimeLeft(ms)).toBe(text);
  });

  it.each([
    [0, '0s'],
    [-5_000, '0s'],
    [1, '1s'],
    [42_000, '42s'],
    [59_001, '1m'],
    [185_000, '3m 5s'],
    [2 * 3_600_000 + 3 * 60_000, '2h 3m'],
    [26 * 3_600_000, '1d 2h'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatTimeLeft(ms)).toBe(text);
  });
});

describe('formatLocalTime', () => {
  it('gives HH:MM:SS on the same local day, the date in front on another', () => {
    const at = new Date(2024, 3, 17, 9, 5, 7).getTime();
    expect(formatLocalTime(at)).toBe('09:05:07');
    expect(formatLocalTime(at, new Date(2024, 3, 17, 23, 0, 0).getTime())).toBe('09:05:07');
    expect(formatLocalTime(at, new Date(2024, 3, 16, 23, 0, 0).getTime())).toBe('2024-04-17 09:05:07');
  });
});
