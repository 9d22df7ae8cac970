import { beforeAll, describe, expect, it } from 'vitest';
import { createFormatter } from '../../../../src/output/writer.js';
import type { FormatterOptions, FormatterState } from '../../../../src/output/formatter.js';
import { drawTable, fitWidths, loadTableSupport, TABLE_MIN_CELL } from '../../../../src/output/table-draw.js';
import { inertText as plainCell } from '../../../../src/io/terminal-text.js';
import stringWidth from 'string-width';
import { invoiceA, manyInvoices, paginate } from '../../../fixtures/invoices.js';
import { valueMembers } from '../../../../src/json/members.js';

beforeAll(() => loadTableSupport());

function table(pages: readonly (readonly unknown[])[], options: FormatterOptions = {}): string {
  const f = createFormatter('table', options);
  return f.begin() + pages.map((p) => String(f.page(valueMembers(p)))).join('') + f.end();
}

/** Display width of a line (the test data below is single-width). */
const width = (line: string): number => Array.from(line).length;

describe('table', () => {
  it('defaults to the top-level scalar keys of the first page, first-seen order', () => {
    const text = table([
      [
        { id: 1, nested: { a: 1 }, list: [1] },
        { id: 2, name: 'b', nested: null },
      ],
    ]);
    const head = text.split('\n')[1] as string;
    expect(head).toMatch(/id.*name.*nested/);
    expect(head).not.toContain('list');
  });

  it('uses --fields, then tableFields, as columns (dot paths)', () => {
    expect(table([[invoiceA]], { fields: ['issuer.rfc', 'total'], tableFields: ['id'] }).split('\n')[1]).toMatch(/issuer\.rfc.*total/);
    const text = table([[invoiceA]], { tableFields: ['id', 'receiver.name'] });
    expect(text.split('\n')[1]).toMatch(/id.*receiver\.name/);
    expect(text).toContain('COMERCIALIZADORA DEL VALLE SA DE CV');
  });

  it('emits no ANSI escapes: escape sequences in data are removed, line breaks and tabs become spaces', () => {
    const text = table([[{ id: 1, evil: 'a\u001b[31mred\nnext\tcol' }]], { columns: 200 });
    expect(text).not.toContain('\u001b');
    expect(text).toContain('ared next col');
    expect(plainCell('x\r\ny\u009bz')).toBe('x  y');
    expect(plainCell('x\r\ny\u0007z')).toBe('x  yz');
  });

  it.each([40, 60, 80, 120])('fits a terminal of %i columns, cutting cells with …', (columns) => {
    const items = manyInvoices(20);
    const text = table(paginate(items, [7]), { columns, tableFields: ['id', 'issuer.name', 'receiver.name', 'total', 'paymentTermsRaw'] });
    const lines = text.trimEnd().split('\n');
    for (const line of lines) expect(width(line)).toBeLessThanOrEqual(columns);
    if (columns < 100) expect(text).toContain('…');
  });

  it('keeps natural widths when everything fits', () => {
    const text = table([[{ a: 'short', b: 'text' }]], { columns: 120 });
    expect(text).not.toContain('…');
    expect(text).toContain('│ short │ text │');
  });

  it('measures wide characters by display width: they are not cut when they fit, lines fit when they do not', () => {
    const whole = table([[{ city: '東京都', n: 1 }]], { columns: 120 });
    expect(whole).toContain('│ 東京都 │');
    expect(whole).not.toContain('…');
    const cut = table([[{ city: '東京都港区芝公園四丁目', note: 'x'.repeat(30) }]], { columns: 30 });
    expect(cut).toContain('…');
    for (const line of cut.trimEnd().split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(30);
  });

  it('leaves out the default columns that cannot fit and says so', () => {
    const fields = Array.from({ length: 30 }, (_, i) => `c${i}`);
    const item = Object.fromEntries(fields.map((f) => [f, 'value']));
    const text = table([[item]], { columns: 60, tableFields: fields });
    // Each column holds 'value' (5, under TABLE_MIN_CELL, so never cut) plus 3 of padding and border: 7 fit in 60.
    expect(TABLE_MIN_CELL).toBeGreaterThan(5);
    expect(text).toContain(`… 23 more columns not shown; use --fields to choose`);
    expect(text).not.toContain('va…');
    for (const line of text.trimEnd().split('\n')) expect(width(line)).toBeLessThanOrEqual(60);
  });

  it('keeps every column named in --fields, wider than the terminal rather than leaving one out', () => {
    const fields = Array.from({ length: 30 }, (_, i) => `c${i}`);
    const item = Object.fromEntries(fields.map((f) => [f, 'value']));
    const lines = table([[item]], { columns: 60, fields })
      .trimEnd()
      .split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[3]).toBe(`│${' value │'.repeat(30)}`);
  });

  it('caps the rows and says how many were not shown', () => {
    const items = Array.from({ length: 25 }, (_, i) => ({ id: i }));
    const text = table(paginate(items, [10, 10]), { tableMaxRows: 10 });
    expect(text.trimEnd().split('\n').at(-1)).toBe('… 15 more rows not shown; use --format csv');
    // Numbers are aligned right.
    expect(text).toContain('│  9 │');
    expect(text).not.toContain('│ 10 │');
  });

  it('prints nothing for zero items without known columns, a header only with them', () => {
    expect(table([])).toBe('');
    expect(table([[]])).toBe('');
    const text = table([], { tableFields: ['id', 'total'] });
    expect(text).toMatch(/id.*total/);
    expect(text.trimEnd().split('\n')).toHaveLength(3);
  });

  it('streams: the first page is written with the heading, later rows as they come, the bottom border at the end', () => {
    const f = createFormatter('table', { fields: ['id', 'name'], columns: 40 });
    const first = String(f.page(valueMembers([{ id: 1, name: 'short' }])));
    expect(first.split('\n')).toEqual(['┌────┬───────┐', '│ id │ name  │', '├────┼───────┤', '│  1 │ short │', '']);
    // Sized from the first page: a longer cell later is cut to the width fixed then, numbers stay right.
    expect(String(f.page(valueMembers([{ id: 22, name: 'much longer' }])))).toBe('│ 22 │ much… │\n');
    expect(f.end()).toBe('└────┴───────┘\n');
  });

  it('draws the same lines streamed as in one table when the first page holds every row', () => {
    const items = manyInvoices(150);
    const options = { columns: 100, fields: ['id', 'issuer.name', 'total'] };
    const streamed = table([items], options);
    const rows = items.map((i) => [String(i.id), (i.issuer as { name: string }).name, String(i.total)]);
    expect(streamed).toBe(drawTable(['id', 'issuer.name', 'total'], rows, 100) + '\n');
  });

  it('refuses any checkpoint state: a table is never resumed', () => {
    const f = createFormatter('table', {});
    f.page(valueMembers([invoiceA]));
    expect(() => createFormatter('table', {}, JSON.parse(JSON.stringify(f.state())) as FormatterState)).toThrow(/checkpoint does not match/);
    expect(() =>
      createFormatter('table', {}, { format: 'table', columns: null, layout: { widths: [-1], numeric: [true] }, rows: 0, hidden: 0 }),
    ).toThrow(/checkpoint does not match/);
  });
});

describe('fitWidths', () => {
  it.each([
    [[5, 4], 120, [5, 4]],
    [[50, 50], 50, [22, 21]],
    [[100, 3, 100], 50, [19, 3, 18]],
    [[10, 10, 10, 10], 30, [10, 10]],
  ])('%j in %i columns → %j', (natural, total, expected) => {
    const out = fitWidths(natural, total);
    expect(out).toEqual(expected);
    // content + 2 padding per column + borders (n + 1)
    expect(out.reduce((a, b) => a + b + 3, 1)).toBeLessThanOrEqual(total);
  });
});
