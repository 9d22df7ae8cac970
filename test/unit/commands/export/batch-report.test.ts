/**
 * The pure parts of a run with many taxpayers: the `--out` template (commands/export/batch.ts) and
 * the most severe exit code of a run (commands/batch-report.ts).
 */
import { describe, expect, it } from 'vitest';
import { checkPlaceholders, expandOut, isOutTemplate, utcDate } from '../../../../src/commands/export/batch.js';
import { createBatchReporter, mostSevereCode, type TaxpayerOutcome } from '../../../../src/commands/export/batch-report.js';
import type { Context } from '../../../../src/context.js';
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

describe('the exit code of a run', () => {
  const outcome = (code: number): TaxpayerOutcome => ({ taxpayer: 'T', target: '/t', status: code === 0 ? 'ok' : 'failed', code });
  it.each([
    [[0, 0], 0],
    [[0, 4, 0], 4],
    [[4, 5], 5],
    [[4, 6, 5], 6],
    [[6, 7], 7],
    [[7, 3], 3],
    [[3, 2], 2],
    [[2, 1], 1],
    [[1, 130], 130],
    [[130, 143, 2], 143],
    [[4, 42], 42],
  ])('%j → %i', (codes, expected) => {
    expect(mostSevereCode(codes.map(outcome))).toBe(expected);
  });
});

describe('the summary of a run', () => {
  /** The reporter's stderr text for these outcomes, in text mode. */
  const summary = (outcomes: TaxpayerOutcome[]): string => {
    let text = '';
    const ctx = { io: { stderr: { write: (t: string) => (text += t) } }, clock: { now: () => 0 }, cwd: '/w' } as unknown as Context;
    const reporter = createBatchReporter(ctx, { total: outcomes.length, quiet: false, json: false });
    for (const o of outcomes) reporter.ended(o);
    reporter.finished(outcomes, mostSevereCode(outcomes), 'collections invoices');
    return text;
  };
  const ok = (taxpayer: string, items: number): TaxpayerOutcome => ({ taxpayer, target: `/w/${taxpayer}.ndjson`, status: 'ok', code: 0, items });

  it('says "N complete" without ", 0 not" when none failed, and writes counts with thousands separators', () => {
    const text = summary(['A', 'B', 'C', 'D', 'E', 'F'].map((t) => ok(t, 5000)));
    expect(text).toContain('collections: 6 taxpayers, 6 complete\n');
    expect(text).not.toContain(' not');
    expect(text).toContain('collections: [1/6] A: ok, 5,000 items → A.ndjson\n');
    expect(text).toMatch(/^A +5,000 +A\.ndjson +ok$/m);
  });

  it('counts the unfinished ones, and shows the items an interrupted one keeps', () => {
    const cut: TaxpayerOutcome = { taxpayer: 'B', target: '/w/B.ndjson', status: 'interrupted', code: 130, items: 8000 };
    const text = summary([ok('A', 12), cut]);
    expect(text).toContain('collections: 2 taxpayers, 1 complete, 1 not\n');
    expect(text).toMatch(/^B +8,000 +B\.ndjson +interrupted$/m);
  });
});
