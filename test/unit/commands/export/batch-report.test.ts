/** The report of a run with many taxpayers: its most severe exit code and its summary line. */
import { describe, expect, it } from 'vitest';
import { createBatchReporter, mostSevere, type TaxpayerOutcome } from '../../../../src/commands/export/batch-report.js';
import type { Context } from '../../../../src/context.js';

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
    expect(mostSevere(codes.map(outcome).map((o) => o.code))).toBe(expected);
  });
});

describe('the summary of a run', () => {
  /** The reporter's stderr text for these outcomes, in text mode. */
  const summary = (outcomes: TaxpayerOutcome[]): string => {
    let text = '';
    const ctx = { io: { stderr: { write: (t: string) => (text += t) } }, clock: { now: () => 0 }, cwd: '/w' } as unknown as Context;
    const reporter = createBatchReporter(ctx, { total: outcomes.length, quiet: false, json: false });
    for (const o of outcomes) reporter.ended(o);
    reporter.finished(outcomes, mostSevere(outcomes.map((o) => o.code)), 'collections invoices');
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
