/**
 * The library's path (`targetOfPath`): which row of the endpoint table a library path is, with its ids decoded and
 * its query split off; a path of no row stays a path. Its segments are checked as `get`'s.
 */
import { describe, expect, it } from 'vitest';
import { targetOfPath } from '../../../src/library/options.js';
import { UsageError } from '../../../src/errors.js';

describe('targetOfPath', () => {
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
    ['/reports/2024', undefined, {}, []],
  ])('%s → %s', (path, key, ids, query) => {
    const target = targetOfPath(path);
    expect(target.endpoint?.key).toBe(key);
    expect(target.ids).toEqual(ids);
    expect(target.query).toEqual(query);
    expect(target.path).toBe(path.split('?')[0]);
  });

  it('sends the path percent-encoded, as get does', () => {
    expect(targetOfPath('/reports/Ñ?a=1').path).toBe('/reports/%C3%91');
  });

  it.each([['entities'], ['/entities#x'], ['/taxpayers/%E0%A4%A/invoices'], ['/entities/'], ['/taxpayers//invoices'], ['/a/../entities'], ['/a b']])(
    'refuses %s, as get refuses it',
    (path) => {
      expect(() => targetOfPath(path)).toThrow(UsageError);
    },
  );
});
