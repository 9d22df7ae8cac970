import { describe, expect, it } from 'vitest';
import { ENDPOINTS, buildPath, encodeId, exportCommands, resolveEndpoint } from '../../src/endpoints.js';
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
