import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { createFormatter } from '../../../../src/output/writer.js';
import type { FormatterOptions } from '../../../../src/output/formatter.js';
import { neutraliseFormula } from '../../../../src/output/formats/csv.js';
import { invoiceA, invoiceB, manyInvoices, paginate } from '../../../fixtures/invoices.js';
import { valueMembers } from '../../../../src/json/members.js';

/** Formats pages with a fresh CSV formatter (begin, pages, end). */
function csv(pages: readonly (readonly unknown[])[], options: FormatterOptions = {}): string {
  const f = createFormatter('csv', options);
  return f.begin() + pages.map((p) => String(f.page(valueMembers(p)))).join('') + f.end();
}

/** Parses CSV text to rows of strings (RFC 4180, CRLF). */
function rows(text: string): string[][] {
  return parse(text, { relax_column_count: false });
}

describe('csv', () => {
  it('writes a header of dot paths and one CRLF record per item, RFC 4180 quoting', () => {
    const text = csv([[{ id: 1, name: 'a,b', note: 'say "hi"', multi: 'x\ny', n: { d: 1.5 } }]]);
    expect(text).toBe('id,name,note,multi,n.d\r\n1,"a,b","say ""hi""","x\ny",1.5\r\n');
  });

  it('round-trips flattened cells through csv-parse (nested, arrays, null, booleans, unicode)', () => {
    const out = rows(csv([[invoiceA, invoiceB]]));
    const [header, a, b] = out as [string[], string[], string[]];
    const cell = (row: string[], name: string): string | undefined => row[header.indexOf(name)];
    expect(header).toContain('issuer.rfc');
    expect(header).toContain('receiver.blacklistStatus');
    expect(cell(a, 'reference')).toBe('SUC-NORTE');
    expect(cell(b, 'reference')).toBe('');
    expect(cell(a, 'paymentTermsRaw')).toBe('Crédito a 30 días');
    expect(cell(b, 'receiver.name')).toBe('ALEJANDRA GONZÁLEZ MÁRQUEZ');
    expect(cell(a, 'pdf')).toBe('false');
    expect(cell(b, 'pdf')).toBe('true');
    expect(cell(a, 'tags')).toBe('[]');
    expect(JSON.parse(cell(b, 'relations') as string)).toEqual(invoiceB.relations);
    expect(cell(a, 'total')).toBe('23200');
    expect(cell(a, 'version')).toBe('4');
    expect(out.every((r) => r.length === header.length)).toBe(true);
  });

  it('discovers columns from every item of the first page, not only the first item', () => {
    const text = csv([[{ a: 1 }, { b: 2, a: 3 }, { c: { d: 4 } }]]);
    expect(rows(text)).toEqual([
      ['a', 'b', 'c.d'],
      ['1', '', ''],
      ['3', '2', ''],
      ['', '', '4'],
    ]);
  });

  it('does not add keys first seen in later pages, and names each once through warn', () => {
    const warn = vi.fn<(message: string) => void>();
    const text = csv(
      [
        [{ a: 1, b: { x: 1 } }],
        [{ a: 2, late: 'x', b: { x: 2, y: 'new' } }],
        [
          { a: 3, late: 'again', b: { y: 'again' } },
          { a: 4, other: [1] },
        ],
      ],
      { warn },
    );
    expect(rows(text)).toEqual([
      ['a', 'b.x'],
      ['1', '1'],
      ['2', '2'],
      ['3', ''],
      ['4', ''],
    ]);
    expect(warn.mock.calls.map((c) => c[0])).toEqual([
      "csv: new field 'late' not in the header; use --fields to include it",
      "csv: new field 'b.y' not in the header; use --fields to include it",
      "csv: new field 'other' not in the header; use --fields to include it",
    ]);
  });

  it('uses --fields as the columns, in that order, with dot paths in the header', () => {
    const warn = vi.fn<(message: string) => void>();
    const text = csv([[invoiceA], [invoiceB, { id: 'x', extra: 1 }]], { fields: ['receiver.name', 'id', 'total', 'missing.path', 'tags'], warn });
    expect(rows(text)).toEqual([
      ['receiver.name', 'id', 'total', 'missing.path', 'tags'],
      ['COMERCIALIZADORA DEL VALLE SA DE CV', invoiceA.id, '23200', '', '[]'],
      ['ALEJANDRA GONZÁLEZ MÁRQUEZ', invoiceB.id, '1160', '', JSON.stringify(invoiceB.tags)],
      ['', 'x', '', '', ''],
    ]);
    // Only the name no item of the first page has; `extra`, first seen later, is no column to warn about.
    expect(warn.mock.calls.map((c) => c[0])).toEqual([expect.stringMatching(/^--fields: no item of the first page has 'missing\.path'/)]);
  });

  it('zero items: no output at all, or only the header when --fields gives the columns', () => {
    expect(csv([])).toBe('');
    expect(csv([[], []])).toBe('');
    expect(csv([[]], { fields: ['id', 'issuer.rfc'] })).toBe('id,issuer.rfc\r\n');
    expect(csv([], { fields: ['id'] })).toBe('id\r\n');
  });

  it('takes columns from the first page that has items when earlier pages are empty', () => {
    expect(csv([[], [{ a: 1 }], [{ a: 2 }]])).toBe('a\r\n1\r\n2\r\n');
  });

  it('keeps the value of a path that is an IRI in one item and an object in another', () => {
    const out = rows(csv([[{ invoice: '/invoices/1' }, { invoice: { id: '2' } }]]));
    expect(out[0]).toEqual(['invoice', 'invoice.id']);
    expect(out[1]).toEqual(['/invoices/1', '']);
    expect(out[2]).toEqual(['{"id":"2"}', '2']);
  });

  describe('csvSafe (OWASP CSV injection)', () => {
    const dangerous = ['=1+2', '+33 1 23', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd', '＝1+1'];
    const item = {
      a: '=1+2',
      b: '+33 1 23',
      c: '-2+3',
      d: '@SUM(A1)',
      e: '\tcmd',
      f: '\rcmd',
      g: '＝1+1',
      neg: -5,
      negFloat: -0.25,
      pos: 7,
      plain: 'safe = text',
      empty: '',
      arr: ['=x'],
      nested: { f: '=HYPERLINK("http://x")' },
      bool: false,
      nil: null,
    };

    it('prefixes formula-leading strings with a quote; numbers (incl. negatives), arrays and others stay as they are', () => {
      const [header, row] = rows(csv([[item]], { csvSafe: true })) as [string[], string[]];
      const cells = Object.fromEntries(header.map((h, i) => [h, row[i]]));
      expect(cells).toEqual({
        a: "'=1+2",
        b: "'+33 1 23",
        c: "'-2+3",
        d: "'@SUM(A1)",
        e: "'\tcmd",
        f: "'\rcmd",
        g: "'＝1+1",
        neg: '-5',
        negFloat: '-0.25',
        pos: '7',
        plain: 'safe = text',
        empty: '',
        arr: '["=x"]',
        'nested.f': `'=HYPERLINK("http://x")`,
        bool: 'false',
        nil: '',
      });
    });

    it('is off by default: cells are written raw', () => {
      const [, row] = rows(csv([[item]])) as [string[], string[]];
      expect(row.slice(0, dangerous.length)).toEqual(dangerous);
    });

    it.each([
      ['=A1', "'=A1"],
      ['-x', "'-x"],
      [-3, -3],
      ['a=b', 'a=b'],
      ['', ''],
      [null, null],
    ])('neutraliseFormula(%j) → %j', (value, expected) => {
      expect(neutraliseFormula(value)).toEqual(expected);
    });
  });

  it('parses back to the same cells for many items across pages', () => {
    const items = manyInvoices(250);
    const text = csv(paginate(items, [100, 1, 49, 0, 77]));
    const out = rows(text);
    const header = out[0] as string[];
    expect(out).toHaveLength(251);
    const ref = header.indexOf('reference');
    const total = header.indexOf('total');
    const name = header.indexOf('issuer.name');
    items.forEach((it, i) => {
      const row = out[i + 1] as string[];
      expect(row[ref]).toBe(it.reference ?? '');
      expect(row[total]).toBe(String(it.total));
      expect(row[name]).toBe((it.issuer as { name: string }).name);
    });
    expect(text.endsWith('\r\n')).toBe(true);
    // A lone LF inside a cell is quoted, so a parser that splits records on LF alone still agrees.
    expect(rows(text.replaceAll('\r\n', '\n'))).toHaveLength(251);
  });
});

describe('csv records round-trip (RFC 4180, CRLF, line breaks quoted)', () => {
  it('for any cells, csv-parse reads back exactly the cells of one record', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('"', ',', '\r', '\n', '\r\n', ' x ', '')), { minLength: 1, maxLength: 6 }),
        (cells) => {
          const fields = cells.map((_cell, i) => `c${i}`);
          const text = csv([[Object.fromEntries(fields.map((f, i) => [f, cells[i]]))]], { fields });
          expect(text.endsWith('\r\n')).toBe(true);
          const rows = parse(text, { record_delimiter: '\r\n', relax_column_count: false });
          expect(rows).toEqual([fields, cells]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('csv records written without csv-stringify', () => {
  it('are byte for byte what csv-stringify writes for the same cells, quoted or not', async () => {
    const { stringify } = await import('csv-stringify/sync');
    const cell = fc.oneof(fc.string(), fc.constantFrom('"', ',', '\r', '\n', 'a b', '', "'=1", '-5'));
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 5 }), (records) => {
        const items = records.map(([a, b, c]) => ({ a, b, c }));
        const expected = stringify([['a', 'b', 'c'], ...records], { record_delimiter: 'windows', quote_record_delimiter: true, eof: true });
        expect(csv([items], { fields: ['a', 'b', 'c'] })).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
