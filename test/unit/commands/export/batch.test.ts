/** The `--out` template of a run with many taxpayers (`expandOut`, `checkPlaceholders`, `utcDate`). */
import { describe, expect, it } from 'vitest';
import { checkPlaceholders, expandOut, isOutTemplate, utcDate } from '../../../../src/commands/export/batch.js';
import { UsageError } from '../../../../src/errors.js';

describe('the --out template', () => {
  const values = { taxpayer: 'D&M750624V8Z', endpoint: 'invoices', date: '2024-04-16' };

  it('fills {taxpayer}, {endpoint} and {date}, each as often as it appears', () => {
    expect(expandOut('x/{taxpayer}/{endpoint}-{date}.{taxpayer}.csv', values)).toBe('x/D&M750624V8Z/invoices-2024-04-16.D&M750624V8Z.csv');
    expect(isOutTemplate('a-{date}.ndjson')).toBe(true);
    expect(isOutTemplate('plain.ndjson')).toBe(false);
    expect(isOutTemplate(undefined)).toBe(false);
  });

  it('an unknown {name} makes a template too, so it is refused instead of written as a literal file name', () => {
    expect(isOutTemplate('y-{taxpayr}.ndjson')).toBe(true);
    expect(() => checkPlaceholders('x/{taxpayr}-{taxpayer}.ndjson')).toThrow(/unknown placeholder \{taxpayr\}; the known ones are/);
    expect(() => checkPlaceholders('x/{taxpayer}-{date}.ndjson')).not.toThrow();
  });

  it('refuses an unknown placeholder and {taxpayer} without a taxpayer (exit 2)', () => {
    expect(() => expandOut('{taxpayers}.csv', values)).toThrow(UsageError);
    expect(() => expandOut('{Date}.csv', values)).toThrow(/unknown placeholder \{Date\}/);
    expect(() => expandOut('{taxpayer}.csv', { ...values, taxpayer: undefined })).toThrow(/takes no --taxpayer/);
  });

  it('{date} is the UTC date, also just before midnight elsewhere', () => {
    expect(utcDate(Date.UTC(2024, 11, 31, 23, 59, 59))).toBe('2024-12-31');
    expect(utcDate(Date.UTC(2025, 0, 1, 0, 0, 0))).toBe('2025-01-01');
  });
});
