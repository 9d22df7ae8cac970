import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { EXPORT_FLAGS, MAX_TIMER_SECONDS, parseBytesOption, parseIntegerOption, parseParam, parseSecondsOption } from '../../../src/config/flags.js';

describe('parseIntegerOption', () => {
  it.each([
    ['1', 1],
    ['1000', 1000],
    [' 42 ', 42],
    ['+7', 7],
  ])('%j → %d', (value, expected) => {
    expect(parseIntegerOption('--items-per-page', value, 1, 1000)).toBe(expected);
  });

  it.each(['0', '1.5', 'abc', '5000', '', '1e3', '-1', '0x10'])('refuses %j with the option name', (value) => {
    expect(() => parseIntegerOption('--items-per-page', value, 1, 1000)).toThrow(UsageError);
    expect(() => parseIntegerOption('--items-per-page', value, 1, 1000)).toThrow(/--items-per-page must be a whole number from 1 to 1000/);
  });
});

describe('parseSecondsOption', () => {
  it.each([
    ['0', 0],
    ['90', 90_000],
    ['2.5', 2500],
  ])('%j → %d ms', (value, ms) => {
    expect(parseSecondsOption('--max-wait', value)).toBe(ms);
  });

  it.each(['-1', 'abc', '', 'Infinity', '1s'])('refuses %j', (value) => {
    expect(() => parseSecondsOption('--max-wait', value)).toThrow(/--max-wait must be a number of seconds/);
  });

  it('applies a minimum', () => {
    expect(() => parseSecondsOption('--timeout', '0', 0.001)).toThrow(UsageError);
  });

  it('the timer ceiling is the largest whole number of seconds within 2^31 - 1 ms, and both timer flags use it', () => {
    expect(MAX_TIMER_SECONDS).toBe(2147483);
    expect(MAX_TIMER_SECONDS * 1000).toBeLessThanOrEqual(2 ** 31 - 1);
    expect((MAX_TIMER_SECONDS + 1) * 1000).toBeGreaterThan(2 ** 31 - 1);
    const seconds = EXPORT_FLAGS.filter((f) => f.value.kind === 'seconds').map((f) => [f.attribute, 'max' in f.value ? f.value.max : undefined]);
    expect(seconds).toEqual([
      ['lookback', 86_400],
      ['maxWait', MAX_TIMER_SECONDS],
      ['timeout', MAX_TIMER_SECONDS],
    ]);
  });

  it("names the timer only where the ceiling is the timer's", () => {
    expect(() => parseSecondsOption('--lookback', '86401', 0, 86_400)).toThrow(/^--lookback must be at most 86400 seconds \(got '86401'\)$/);
  });

  it('applies a maximum (what a timer holds: 2^31 - 1 ms)', () => {
    expect(parseSecondsOption('--timeout', '2147483', 0.001, 2147483)).toBe(2_147_483_000);
    expect(2_147_483_000).toBeLessThanOrEqual(2 ** 31 - 1);
    expect(() => parseSecondsOption('--timeout', '2147483.001', 0.001, 2147483)).toThrow(
      "--timeout must be at most 2147483 seconds, the longest a timer can hold (got '2147483.001')",
    );
    expect(() => parseSecondsOption('--max-wait', '1' + '0'.repeat(30), 0, 2147483)).toThrow(UsageError);
  });
});

describe('parseBytesOption', () => {
  const MiB = 1024 * 1024;
  it.each([
    ['1048576', MiB],
    ['64MiB', 64 * MiB],
    ['64 mib', 64 * MiB],
    ['512KiB', 512 * 1024],
    ['8M', 8 * MiB],
    ['2048b', 2048],
  ])('%s → %i bytes', (value, bytes) => {
    expect(parseBytesOption('--max-body-size', value, 1024, 512 * MiB)).toBe(bytes);
  });

  it.each(['', '1.5MiB', '-1', '1000', '1GiB', '8 MB', '8PiB', '__proto__', 'hasOwnProperty'])('refuses %j', (value) => {
    expect(() => parseBytesOption('--max-body-size', value, 1024, 512 * MiB)).toThrow(UsageError);
    expect(() => parseBytesOption('--max-body-size', value, 1024, 512 * MiB)).toThrow(/--max-body-size must be a size from 1024 bytes to 512MiB/);
  });
});

describe('parseParam', () => {
  it.each([
    ['status=VIGENTE', ['status', 'VIGENTE']],
    ['issuedAt[after]=2024-01-01', ['issuedAt[after]', '2024-01-01']],
    ['q=a=b', ['q', 'a=b']],
    ['empty=', ['empty', '']],
  ])('%j', (value, pair) => {
    expect(parseParam(value)).toEqual(pair);
  });

  it.each(['novalue', '=x', 'page=2', 'itemsPerPage=5', 'ITEMSPERPAGE=5'])('refuses %j', (value) => {
    expect(() => parseParam(value)).toThrow(UsageError);
  });
});
