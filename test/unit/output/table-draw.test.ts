/**
 * The rows of a streamed table, drawn by cli-table3 in chunks, are the lines it draws for them in
 * one table.
 */
import { createRequire } from 'node:module';
import type CliTable3 from 'cli-table3';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { drawLines, layoutOf, loadTableSupport } from '../../../src/output/table-draw.js';

beforeAll(() => loadTableSupport());

const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable3;

/** The lines of one cli-table3 table of every row, in the same widths and alignment. */
function reference(layout: { widths: number[]; numeric: boolean[] }, head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const table = new Table({
    head: head.slice(0, layout.widths.length),
    colWidths: layout.widths.map((w) => w + 2),
    colAligns: layout.numeric.map((n) => (n ? 'right' : 'left')),
    wordWrap: false,
    truncate: '…',
    style: { head: [], border: [], compact: true },
  });
  for (const r of rows) table.push(r.slice(0, layout.widths.length));
  return table.toString().split('\n');
}

describe('drawLines', () => {
  it('draws the lines of one cli-table3 table, for any cells (wide, combining, soft hyphen, numbers)', () => {
    const simple = fc.constantFrom('a', 'Zz', ' ', '7', 'é', 'Ñ', 'ǅ', 'x'.repeat(30));
    const other = fc.constantFrom('東', '😀', 'e\u0301', '\u00ad', '…');
    const text = fc.oneof(
      { weight: 4, arbitrary: fc.array(simple, { maxLength: 6 }).map((p) => p.join('')) },
      { weight: 1, arbitrary: fc.array(fc.oneof(simple, other), { maxLength: 6 }).map((p) => p.join('')) },
    );
    // Numbers in the third column (aligned right), sometimes wider later than on the first rows.
    const row = fc.tuple(text, text, fc.integer({ min: -99999999, max: 99999999 }).map(String), text, text);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(row, { maxLength: 140 }), fc.integer({ min: 20, max: 120 }), (columns, rows, total) => {
        const head = ['id', 'name', 'total', 'note', 'more'].slice(0, columns);
        const cut = rows.map((r) => r.slice(0, columns));
        const layout = layoutOf(head, cut.slice(0, 10), total);
        expect(drawLines(layout, head, cut)).toEqual(reference(layout, head, cut));
      }),
      { numRuns: 100 },
    );
  });
});
