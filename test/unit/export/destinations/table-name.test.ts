/** Default and given table names of a database destination. */
import { describe, expect, it } from 'vitest';
import { defaultTableName, parseTableName, quoteTable } from '../../../../src/export/destinations/table-name.js';
import { UsageError } from '../../../../src/errors.js';

describe('table names', () => {
  it.each([
    ['invoices', 'invoices'],
    ['taxpayer-line-items', 'line_items'],
    ['invoice-line-items', 'line_items'],
    ['taxpayer-invoice-line-items', 'line_items'],
    ['payments', 'payments'],
    ['entities', 'entities'],
    ['/entities/E1/invoices?status=VIGENTE', 'invoices'],
    ['/invoices/payments', 'payments'],
    ['/invoices/A1/line-items', 'line_items'],
    ['/Taxpayers/X/Invoices/', 'invoices'],
    ['/things/%C3%A9t%C3%A9', '_t_'],
    ['/things/2024', 'items'],
    ['/', 'items'],
  ])('the default of %s is %s', (keyOrPath, name) => {
    expect(defaultTableName(keyOrPath)).toBe(name);
  });

  it('parses and quotes --table, schema-qualified or not', () => {
    expect(quoteTable(parseTableName('invoices'))).toBe('"invoices"');
    expect(quoteTable(parseTableName('analytics.Invoices_2024'))).toBe('"analytics"."Invoices_2024"');
  });

  it.each(['', 'a.b.c', '1abc', 'in voices', 'x"; DROP TABLE y; --', 'a-b', 'a'.repeat(64), 'ñ'])('refuses %j', (text) => {
    expect(() => parseTableName(text)).toThrow(UsageError);
  });

  it.each(['pg_catalog.pg_class', 'PG_CATALOG.invoices', 'pg_toast.t', 'information_schema.tables'])(
    'refuses %s in a system schema, in words that fit',
    (text) => {
      expect(() => parseTableName(text)).toThrow(/is a system schema of the database, not one collections writes into$/);
    },
  );

  it.each(['pg_class', 'public.pg_things', 'analytics.invoices'])('takes %s (a pg_ name in a schema of the user)', (text) => {
    expect(() => parseTableName(text)).not.toThrow();
  });
});
