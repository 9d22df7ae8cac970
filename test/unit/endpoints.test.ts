import { describe, expect, it } from 'vitest';
import {
  ENDPOINTS,
  ID_SPECS,
  buildPath,
  encodeId,
  exportCommandSpecs,
  exportCommands,
  idOptionFlags,
  idsFromFlags,
  resolveEndpoint,
} from '../../src/endpoints.js';
import { UsageError } from '../../src/errors.js';

describe('resolveEndpoint', () => {
  it.each([
    ['entities', {}, '/entities'],
    ['events', {}, '/events'],
    ['invoices', { taxpayerId: 'T' }, '/taxpayers/{taxpayerId}/invoices'],
    ['line-items', { taxpayerId: 'T' }, '/taxpayers/{taxpayerId}/invoices/line-items'],
    ['line-items', { taxpayerId: 'T', invoiceId: 'I' }, '/taxpayers/{taxpayerId}/invoices/{invoiceId}/line-items'],
    ['line-items', { invoiceId: 'I' }, '/invoices/{invoiceId}/line-items'],
    ['payments', { taxpayerId: 'T' }, '/taxpayers/{taxpayerId}/invoices/payments'],
  ])('%s with %j → %s', (command, ids, path) => {
    expect(resolveEndpoint(command, ids).path).toBe(path);
  });

  it.each([
    ['invoices', {}, /--taxpayer/],
    ['entities', { invoiceId: 'I' }, /no ids/],
    ['line-items', {}, /--invoice/],
    ['payments', { invoiceId: 'I' }, /--taxpayer/],
    ['nope', {}, /unknown command/],
  ])('%s with %j is a usage error', (command, ids, message) => {
    expect(() => resolveEndpoint(command, ids)).toThrow(UsageError);
    expect(() => resolveEndpoint(command, ids)).toThrow(message);
  });

  it('lists each command once, in table order', () => {
    expect(exportCommands()).toEqual(['entities', 'events', 'invoices', 'line-items', 'payments']);
    expect(new Set(ENDPOINTS.map((e) => e.key)).size).toBe(ENDPOINTS.length);
  });
});

describe('buildPath', () => {
  const invoices = resolveEndpoint('invoices', { taxpayerId: 'x' });
  const both = resolveEndpoint('line-items', { taxpayerId: 'x', invoiceId: 'y' });

  it.each([
    ['PEIC211118IS0', '/taxpayers/PEIC211118IS0/invoices'],
    ['ÑUOJ700605B0U', '/taxpayers/%C3%91UOJ700605B0U/invoices'],
    ['D&M750624V8Z', '/taxpayers/D%26M750624V8Z/invoices'],
    ['...', '/taxpayers/.../invoices'],
  ])('percent-encodes %j', (id, path) => {
    expect(buildPath(invoices, { taxpayerId: id })).toBe(path);
    // The encoded id stays one path segment once parsed as a URL.
    expect(new URL(path, 'http://h').pathname).toBe(path);
  });

  it('fills two ids in order', () => {
    expect(buildPath(both, { taxpayerId: 'T1', invoiceId: 'u-1' })).toBe('/taxpayers/T1/invoices/u-1/line-items');
  });

  it.each(['', '.', '..', 'a\nb', 'a/b', 'a\\b', 'a?b#c', 'a#b', '50%', 'A B', ' X', 'a\tb'])('refuses the id %j', (id) => {
    expect(() => buildPath(invoices, { taxpayerId: id })).toThrow(UsageError);
    expect(() => buildPath(invoices, { taxpayerId: id })).toThrow(/--taxpayer/);
  });

  it('names the flag of a missing id', () => {
    expect(() => buildPath(both, { taxpayerId: 'T' })).toThrow(/--invoice is required/);
    expect(() => encodeId('invoiceId', '')).toThrow(/--invoice must not be empty/);
  });
});

describe('id specs', () => {
  it('each id knows its flag, its value name, its help and its commander attribute', () => {
    expect(ID_SPECS.map((s) => [s.name, idOptionFlags(s), s.attribute, s.help])).toEqual([
      ['taxpayerId', '--taxpayer <rfc>', 'taxpayer', 'taxpayer id (RFC)'],
      ['invoiceId', '--invoice <id>', 'invoice', 'invoice id (UUID)'],
    ]);
  });

  it('every placeholder of every path is an id of the table', () => {
    const names = new Set(ID_SPECS.map((s) => s.name));
    for (const e of ENDPOINTS) {
      const placeholders = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(placeholders).toEqual([...e.ids]);
      for (const p of placeholders) expect(names.has(p as never)).toBe(true);
    }
  });

  it('idsFromFlags maps commander attributes to ids, leaving absent ones out', () => {
    expect(idsFromFlags({ taxpayer: 'T', invoice: 'I' })).toEqual({ taxpayerId: 'T', invoiceId: 'I' });
    expect(idsFromFlags({ invoice: '' })).toEqual({ invoiceId: '' });
    expect(idsFromFlags({})).toEqual({});
  });

  it('messages name an id by its flag', () => {
    expect(() => encodeId('invoiceId', '')).toThrow('--invoice must not be empty');
    expect(() =>
      buildPath(
        ENDPOINTS.find((e) => e.key === 'invoices')!,
        {},
      ),
    ).toThrow('--taxpayer is required');
  });
});

describe('exportCommandSpecs', () => {
  it('groups the rows of each command with the ids they take', () => {
    const specs = exportCommandSpecs();
    expect(specs.map((s) => [s.name, s.endpoints.map((e) => e.key), s.ids.map((i) => i.flag)])).toEqual([
      ['entities', ['entities'], []],
      ['events', ['events'], []],
      ['invoices', ['invoices'], ['--taxpayer']],
      ['line-items', ['taxpayer-line-items', 'taxpayer-invoice-line-items', 'invoice-line-items'], ['--taxpayer', '--invoice']],
      ['payments', ['payments'], ['--taxpayer']],
    ]);
  });

  it("a command's description is its endpoint's, or a summary when several share it", () => {
    const byName = new Map(exportCommandSpecs().map((s) => [s.name, s.description]));
    expect(byName.get('invoices')).toBe("Export a taxpayer's invoices");
    expect(byName.get('line-items')).toBe('Export invoice line items (of a taxpayer, of one invoice, or both)');
  });
});
