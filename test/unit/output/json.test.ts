import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parse } from 'csv-parse/sync';
import { createFormatter, formatFromPath, OUTPUT_FORMATS } from '../../../src/output/writer.js';
import type { FormatterOptions, OutputFormat } from '../../../src/output/writer.js';
import { encodeRecord } from '../../../src/output/csv.js';
import { UsageError } from '../../../src/errors.js';
import { invoiceA, invoiceB, manyInvoices, paginate } from './samples.js';

function run(format: OutputFormat, pages: readonly (readonly unknown[])[], options: FormatterOptions = {}): string {
  const f = createFormatter(format, options);
  return f.begin() + pages.map((p) => f.page(p)).join('') + f.end();
}

describe('json', () => {
  it.each([
    ['no pages', [], '[]\n'],
    ['one empty page', [[]], '[]\n'],
    ['one item', [[{ a: 1 }]], '[\n{"a":1}\n]\n'],
    ['two items in one page', [[{ a: 1 }, { a: 2 }]], '[\n{"a":1},\n{"a":2}\n]\n'],
    ['two items in two pages with empty pages around', [[], [{ a: 1 }], [], [{ a: 2 }], []], '[\n{"a":1},\n{"a":2}\n]\n'],
  ])('%s', (_name, pages, expected) => {
    expect(run('json', pages)).toBe(expected);
  });

  it('is valid JSON equal to the items for any items and page boundaries', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 30 }), fc.array(fc.nat(10), { maxLength: 8 }), (items, sizes) => {
        const text = run('json', paginate(items, sizes));
        // JSON.parse(JSON.stringify(x)) normalises -0 to 0, as the parsed API items would be.
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(items)));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps items as received: key order, unicode and numbers', () => {
    const text = run('json', [[invoiceB], [invoiceA]]);
    expect(text).toBe(`[\n${JSON.stringify(invoiceB)},\n${JSON.stringify(invoiceA)}\n]\n`);
    expect(text).toContain('"ALEJANDRA GONZÁLEZ MÁRQUEZ"');
  });

  it('projects items on --fields', () => {
    const text = run('json', [[invoiceA, invoiceB]], { fields: ['id', 'issuer.rfc'] });
    expect(JSON.parse(text)).toEqual([
      { id: invoiceA.id, issuer: { rfc: 'DMO140312KT5' } },
      { id: invoiceB.id, issuer: { rfc: 'DMO140312KT5' } },
    ]);
  });
});

describe('ndjson', () => {
  it('writes one object a line, items as received; zero items give no output', () => {
    expect(run('ndjson', [])).toBe('');
    expect(run('ndjson', [[], []])).toBe('');
    const items = manyInvoices(30);
    const text = run('ndjson', paginate(items, [7, 0, 1, 13]));
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(30);
    expect(lines.map((l) => JSON.parse(l))).toEqual(items);
    expect(lines[3]).toBe(JSON.stringify(items[3]));
  });

  it('projects items on --fields with null for missing values', () => {
    expect(run('ndjson', [[{ id: 1, x: 2 }, { x: 3 }]], { fields: ['x', 'id'] })).toBe('{"x":2,"id":1}\n{"x":3,"id":null}\n');
  });
});

describe('createFormatter', () => {
  it('refuses the state of another format or a malformed one', () => {
    const json = createFormatter('json').state();
    expect(() => createFormatter('csv', {}, json)).toThrow(UsageError);
    expect(() => createFormatter('ndjson', {}, json)).toThrow(UsageError);
    expect(() => createFormatter('table', {}, json)).toThrow(UsageError);
    expect(() => createFormatter('json', {}, { format: 'json', items: -1 })).toThrow(UsageError);
    expect(() => createFormatter('csv', {}, { format: 'csv', columns: 'a', warned: [] })).toThrow(UsageError);
  });

  it.each(OUTPUT_FORMATS)('%s: state() is plain JSON naming its format', (format) => {
    const f = createFormatter(format);
    f.begin();
    f.page([invoiceA]);
    const state = f.state();
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    expect(state.format).toBe(format);
  });

  it.each([
    [undefined, 'ndjson'],
    ['-', 'ndjson'],
    ['out.json', 'json'],
    ['OUT.JSON', 'json'],
    ['out.ndjson', 'ndjson'],
    ['out.jsonl', 'ndjson'],
    ['out.csv', 'csv'],
    ['out.txt', 'ndjson'],
  ])('formatFromPath(%j) → %s', (path, expected) => {
    expect(formatFromPath(path)).toBe(expected);
  });
});

describe('csv records round-trip (RFC 4180, CRLF, line breaks quoted)', () => {
  it('for any cells, csv-parse reads back exactly the cells of one record', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom('"', ',', '\r', '\n', '\r\n', ' x ', '')), { minLength: 1, maxLength: 6 }), (cells) => {
        const text = encodeRecord(cells) + '\r\n';
        expect(text.endsWith('\r\n')).toBe(true);
        const rows = parse(text, { record_delimiter: '\r\n', relax_column_count: false }) as string[][];
        expect(rows).toEqual([cells]);
      }),
      { numRuns: 300 },
    );
  });
});
