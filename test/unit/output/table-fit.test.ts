/**
 * Tables fitted to the width: at 40 and 120 columns every line fits, text columns
 * shrink before numbers, numbers are aligned right and never cut; `COLUMNS` is honoured when the
 * output is piped.
 */
import stringWidth from 'string-width';
import { beforeAll, describe, expect, it } from 'vitest';
import { drawTable, fitWidths, layoutOf, loadTableSupport } from '../../../src/output/table-draw.js';
import { outputColumns } from '../../../src/io/terminal-text.js';
import { createWorld, runInProcess, tempDir, useTempDir } from '../../helpers/world.js';

beforeAll(() => loadTableSupport());

const head = ['name', 'description', 'amount', 'count'];
const rows = [
  ['Acme Incorporated Holdings', 'a very long description that cannot fit anywhere narrow', '1234567.89', '42'],
  ['B', 'short', '-5', '1,000,000'],
];

describe('fitWidths and drawTable', () => {
  it.each([
    [50, 4],
    [120, 4],
  ])('at %i columns: every line fits, numbers whole and right-aligned', (columns, shownColumns) => {
    const text = drawTable(head, rows, columns);
    expect(layoutOf(head, rows, columns).widths.length).toBe(shownColumns);
    for (const line of text.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(columns);
    expect(text).toContain(' 1234567.89 │');
    expect(text).toContain('│ 1,000,000 │');
    expect(text).toMatch(/│\s+42 │/);
  });

  it('text columns shrink first, not below 8 characters: at 50 columns the numbers keep their width', () => {
    expect(fitWidths([26, 56, 10, 9], 50, [false, false, true, true])).toEqual([9, 9, 10, 9]);
    expect(fitWidths([26, 56, 10, 9], 120, [false, false, true, true])).toEqual([26, 56, 10, 9]);
  });

  it('at 40 columns the last column is dropped rather than every text cut to a stub (it was [4, 4, 10, 9])', () => {
    const widths = fitWidths([26, 56, 10, 9], 40, [false, false, true, true]);
    expect(widths).toEqual([10, 10, 10]);
    expect(layoutOf(head, rows, 40).widths.length).toBe(3);
  });

  it('without numbers: water filling over the text columns that fit at 8 characters or more', () => {
    expect(fitWidths([26, 56, 10, 9], 40)).toEqual([10, 10, 10]);
  });

  it('drops columns from the right while whole numbers and 8 characters of text do not fit', () => {
    expect(fitWidths([10, 20, 20], 35, [false, true, true])).toEqual([8, 20]);
    expect(fitWidths([10, 20, 20], 34, [false, true, true])).toEqual([10]);
  });

  it('keeps every column named in --fields: text shrinks to 8 at most, then the table is wider than the terminal', () => {
    expect(fitWidths([26, 56, 10, 9], 40, [false, false, true, true], true)).toEqual([8, 8, 10, 9]);
    expect(fitWidths([10, 20, 20], 34, [false, true, true], true)).toEqual([8, 20, 20]);
    // When they fit, the same widths as without keepAll.
    expect(fitWidths([26, 56, 10, 9], 50, [false, false, true, true], true)).toEqual([9, 9, 10, 9]);
    expect(fitWidths([40], 30, [false], true)).toEqual([26]);
  });

  it('at COLUMNS=40, four columns named in --fields all show, total whole (issue 24: total was left out)', async () => {
    const world = createWorld();
    const dir = tempDir();
    const fields = ['id', 'issuer.rfc', 'status', 'total'];
    const r = await runInProcess(
      world,
      dir,
      ['invoices', '--taxpayer', world.taxpayer, '--format', 'table', '--max-items', '5', '--fields', fields.join(',')],
      {
        env: { COLUMNS: '40' },
      },
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(
      lines[1]!
        .split('│')
        .slice(1, -1)
        .map((c) => c.trim()),
    ).toEqual(['id', 'issuer.…', 'status', 'total']);
    expect(lines.at(-1)).toMatch(/^└/);
    const totals = (world.sandbox.items(`/taxpayers/${world.taxpayer}/invoices`) as Array<{ total: number }>).slice(0, 5).map((i) => String(i.total));
    expect(lines.slice(3, 8).map((l) => l.split('│').at(-2)!.trim())).toEqual(totals);
  });

  it('a column narrower than 8 keeps its width and costs only that', () => {
    expect(fitWidths([4, 3, 30, 30], 40)).toEqual([4, 3, 10, 10]);
  });

  it.each([20, 60])(
    'the invoices table at COLUMNS=%i: columns are dropped, none is cut below 8 characters (issue: 3 each at 60)',
    async (columns) => {
      const world = createWorld({ limit: 100 });
      const dir = tempDir();
      const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--format', 'table', '--max-items', '5'], {
        env: { COLUMNS: String(columns) },
      });
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(columns);
      expect(lines.at(-1)).toMatch(/^… \d+ more /);
      // Every cut cell keeps at least 7 characters before its "…".
      const cells = lines.filter((l) => l.startsWith('│')).flatMap((l) => l.split('│').slice(1, -1));
      for (const cell of cells.filter((c) => c.includes('…'))) expect(cell.trim().length).toBeGreaterThanOrEqual(8);
    },
  );
});

describe('outputColumns', () => {
  it.each([
    [{ columns: undefined }, { COLUMNS: '40' }, 40],
    [{ columns: 100 }, { COLUMNS: '40' }, 40],
    [{ columns: 100 }, {}, 100],
    [{ columns: 100 }, { COLUMNS: '0' }, 100],
    [{ columns: undefined }, { COLUMNS: 'wide' }, undefined],
  ])('%j %j → %s', (io, env, expected) => {
    expect(outputColumns(io, env)).toBe(expected);
  });
});

describe('an export to a pipe with COLUMNS', () => {
  const dir = useTempDir();

  it.each([40, 120])('COLUMNS=%i: the table fits', async (columns) => {
    const world = createWorld({ limit: 100 });
    const r = await runInProcess(world, dir, ['entities', '--format', 'table', '--max-items', '5'], { env: { COLUMNS: String(columns) } });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(columns);
    if (columns === 120) expect(Math.max(...lines.map((l) => stringWidth(l)))).toBeGreaterThan(40);
  });
});
