/**
 * Tables fitted to the width (issue 14): at 40 and 120 columns every line fits, text columns
 * shrink before numbers, numbers are aligned right and never cut; `COLUMNS` is honoured when the
 * output is piped.
 */
import stringWidth from 'string-width';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { drawTable, fitWidths, loadTableSupport } from '../../../src/output/table.js';
import { outputColumns } from '../../../src/io/columns.js';
import { createWorld, runInProcess, tempDir, type TempDir } from '../../helpers/world.js';

beforeAll(() => loadTableSupport());

const head = ['name', 'description', 'amount', 'count'];
const rows = [
  ['Acme Incorporated Holdings', 'a very long description that cannot fit anywhere narrow', '1234567.89', '42'],
  ['B', 'short', '-5', '1,000,000'],
];

describe('fitWidths and drawTable', () => {
  it.each([40, 120])('at %i columns: every line fits, numbers whole and right-aligned', (columns) => {
    const { text, shown } = drawTable(head, rows, columns);
    expect(shown).toBe(4);
    for (const line of text.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(columns);
    expect(text).toContain(' 1234567.89 │');
    expect(text).toContain('│ 1,000,000 │');
    expect(text).toMatch(/│\s+42 │/);
  });

  it('text columns shrink first: at 40 columns the numbers keep their width', () => {
    expect(fitWidths([26, 56, 10, 9], 40, [false, false, true, true])).toEqual([4, 4, 10, 9]);
    expect(fitWidths([26, 56, 10, 9], 120, [false, false, true, true])).toEqual([26, 56, 10, 9]);
  });

  it('without numbers: as before (water filling over all columns)', () => {
    expect(fitWidths([26, 56, 10, 9], 40)).toEqual([7, 7, 7, 6]);
  });

  it('drops columns from the right while whole numbers and minimal text do not fit', () => {
    expect(fitWidths([10, 20, 20], 30, [false, true, true])).toEqual([3, 20]);
    expect(fitWidths([10, 20, 20], 29, [false, true, true])).toEqual([10]);
  });
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
  let dir: TempDir;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());

  it.each([40, 120])('COLUMNS=%i: the table fits', async (columns) => {
    const world = createWorld({ limit: 100 });
    const r = await runInProcess(world, dir, ['entities', '--format', 'table', '--max-items', '5'], { env: { COLUMNS: String(columns) } });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(columns);
    if (columns === 120) expect(Math.max(...lines.map((l) => stringWidth(l)))).toBeGreaterThan(40);
  });
});
