import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createFormatter } from '../../../../src/output/writer.js';
import type { FormatterOptions } from '../../../../src/output/formatter.js';
import type { OutputFormat } from '../../../../src/format-names.js';
import { invoiceA, invoiceB, paginate } from '../../../fixtures/invoices.js';
import { valueMembers } from '../../../../src/json/members.js';

function run(format: OutputFormat, pages: readonly (readonly unknown[])[], options: FormatterOptions = {}): string {
  const f = createFormatter(format, options);
  return f.begin() + pages.map((p) => String(f.page(valueMembers(p)))).join('') + f.end();
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
