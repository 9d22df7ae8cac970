import { describe, expect, it } from 'vitest';
import { createFormatter } from '../../../../src/output/writer.js';
import type { FormatterOptions } from '../../../../src/output/formatter.js';
import type { OutputFormat } from '../../../../src/format-names.js';
import { manyInvoices, paginate } from '../../../fixtures/invoices.js';
import { valueMembers } from '../../../../src/json/members.js';

function run(format: OutputFormat, pages: readonly (readonly unknown[])[], options: FormatterOptions = {}): string {
  const f = createFormatter(format, options);
  return f.begin() + pages.map((p) => String(f.page(valueMembers(p)))).join('') + f.end();
}

describe('ndjson', () => {
  it('writes one object a line, items as received; zero items give no output', () => {
    expect(run('ndjson', [])).toBe('');
    expect(run('ndjson', [[], []])).toBe('');
    const items = manyInvoices(30);
    const text = run('ndjson', paginate(items, [7, 0, 1, 13]));
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(30);
    expect(lines.map((l): unknown => JSON.parse(l))).toEqual(items);
    expect(lines[3]).toBe(JSON.stringify(items[3]));
  });

  it('projects items on --fields with null for missing values', () => {
    expect(run('ndjson', [[{ id: 1, x: 2 }, { x: 3 }]], { fields: ['x', 'id'] })).toBe('{"x":2,"id":1}\n{"x":3,"id":null}\n');
  });
});
