import { beforeAll, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { createFormatter, formatFromPath } from '../../../src/output/writer.js';
import type { FormatterOptions, FormatterState } from '../../../src/output/formatter.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../../../src/format-names.js';
import { invoiceA, manyInvoices, paginate } from '../../fixtures/invoices.js';
import { loadTableSupport } from '../../../src/output/table-draw.js';
import { valueMembers } from '../../../src/json/members.js';

// The table draws its rows as pages come (string-width measures them), as the export loads it first.
beforeAll(() => loadTableSupport());

/** Pages whose later ones bring new keys (exercises CSV warnings across the resume). */
function pagesWithLateKeys(): unknown[][] {
  const pages = paginate(manyInvoices(60), [10, 0, 15, 5, 12, 8]);
  pages[3] = (pages[3] as Record<string, unknown>[]).map((it) => ({ ...it, late: { key: 'x' } }));
  return pages;
}

const cases: [OutputFormat, FormatterOptions][] = [
  ['ndjson', {}],
  ['ndjson', { fields: ['id', 'issuer.name'] }],
  ['json', {}],
  ['json', { fields: ['total', 'receiver.rfc'] }],
  ['csv', {}],
  ['csv', { csvSafe: true }],
  ['csv', { fields: ['id', 'issuer.name', 'total', 'late.key'] }],
];

describe.each(cases)('%s %j: a resumed export is byte-identical', (format, options) => {
  const pages = pagesWithLateKeys();

  const uninterrupted = (): string => {
    const f = createFormatter(format, { ...options, warn: () => undefined });
    return f.begin() + pages.map((p) => String(f.page(valueMembers(p)))).join('') + f.end();
  };

  it.each(Array.from({ length: pages.length + 1 }, (_, k) => k))('stopped after page %i', (k) => {
    const first = createFormatter(format, { ...options, warn: () => undefined });
    let text = first.begin();
    for (const page of pages.slice(0, k)) text += String(first.page(valueMembers(page)));
    // The state goes through a checkpoint file: only its JSON survives.
    const saved = JSON.parse(JSON.stringify(first.state())) as Record<string, unknown>;
    const resumed = createFormatter(format, { ...options, warn: () => undefined }, saved);
    for (const page of pages.slice(k)) text += String(resumed.page(valueMembers(page)));
    text += resumed.end();
    expect(text).toBe(uninterrupted());
  });
});

describe('csv warnings across a resume', () => {
  it('does not repeat a warning given before the checkpoint', () => {
    const pages = [[{ a: 1 }], [{ a: 2, b: 1 }], [{ a: 3, b: 2, c: 1 }]];
    const warn1 = vi.fn<(message: string) => void>();
    const first = createFormatter('csv', { warn: warn1 });
    first.page(valueMembers(pages[0] as unknown[]));
    first.page(valueMembers(pages[1] as unknown[]));
    const warn2 = vi.fn<(message: string) => void>();
    const resumed = createFormatter('csv', { warn: warn2 }, JSON.parse(JSON.stringify(first.state())) as FormatterState);
    resumed.page(valueMembers(pages[2] as unknown[]));
    expect(warn1.mock.calls.map((c) => c[0])).toEqual(["csv: new field 'b' not in the header; use --fields to include it"]);
    expect(warn2.mock.calls.map((c) => c[0])).toEqual(["csv: new field 'c' not in the header; use --fields to include it"]);
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
    f.page(valueMembers([invoiceA]));
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
    ['invoices.ndjson.gz', 'ndjson'],
    ['x.csv.gz', 'csv'],
    ['X.JSON.GZ', 'json'],
    ['invoices.gz', 'ndjson'],
  ])('formatFromPath(%j) → %s', (path, expected) => {
    expect(formatFromPath(path)).toBe(expected);
  });
});
