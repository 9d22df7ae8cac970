/**
 * The library's path (`requestOf`): which row of the endpoint table a library path is, with its ids decoded and
 * its query sent as params; a path of no row is `get`'s. Its segments are checked as `get`'s.
 */
import { describe, expect, it } from 'vitest';
import { requestOf } from '../../../src/library/options.js';
import { ENDPOINTS, ID_SPECS } from '../../../src/endpoints.js';
import { UsageError } from '../../../src/errors.js';

/** The ids a request carries, by their names in the endpoint table. */
const idsOf = (options: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(ID_SPECS.filter((spec) => options[spec.attribute] !== undefined).map((spec) => [spec.name, options[spec.attribute]]));

describe('requestOf', () => {
  it.each([
    ['/entities', 'entities', {}, []],
    ['/taxpayers/PEIC211118IS0/invoices', 'invoices', { taxpayerId: 'PEIC211118IS0' }, []],
    ['/taxpayers/D%26M750624V8Z/invoices', 'invoices', { taxpayerId: 'D&M750624V8Z' }, []],
    [
      '/taxpayers/D&M750624V8Z/invoices?status=VIGENTE&a=1',
      'invoices',
      { taxpayerId: 'D&M750624V8Z' },
      [
        ['status', 'VIGENTE'],
        ['a', '1'],
      ],
    ],
    ['/taxpayers/A/invoices/line-items', 'taxpayer-line-items', { taxpayerId: 'A' }, []],
    ['/taxpayers/A/invoices/payments', 'payments', { taxpayerId: 'A' }, []],
    ['/taxpayers/A/invoices/B/line-items', 'taxpayer-invoice-line-items', { taxpayerId: 'A', invoiceId: 'B' }, []],
    ['/invoices/B/line-items', 'invoice-line-items', { invoiceId: 'B' }, []],
  ])('%s → %s', (path, key, ids, query) => {
    const request = requestOf(path, { params: [['z', '9']] });
    expect(request.command).toBe(ENDPOINTS.find((e) => e.key === key)!.command);
    expect(idsOf(request.options as Readonly<Record<string, unknown>>)).toEqual(ids);
    expect(request.options.params).toEqual([...query, ['z', '9']]);
    expect(request.options.path).toBeUndefined();
  });

  it.each(['/reports/2024', '/entities/E1/invoices?status=paid', '/invoices/payments'])("%s is get's path, its query kept as typed", (path) => {
    const request = requestOf(path, {});
    expect(request).toEqual({ command: 'get', options: { path } });
  });

  it('refuses a paging parameter in the query, as get refuses it', () => {
    expect(() => requestOf('/taxpayers/A/invoices?itemsPerPage=5', {})).toThrow('sets itemsPerPage, which itemsPerPage sets');
  });

  it.each([['entities'], ['/entities#x'], ['/taxpayers/%E0%A4%A/invoices'], ['/entities/'], ['/taxpayers//invoices'], ['/a/../entities'], ['/a b']])(
    'refuses %s, as get refuses it',
    (path) => {
      expect(() => requestOf(path, {})).toThrow(UsageError);
    },
  );
});
