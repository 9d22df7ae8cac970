import { describe, expect, it } from 'vitest';
import { checkNextLink, isRecordBoundary } from '../../../../src/export/files/checkpoint.js';
import { UsageError } from '../../../../src/errors.js';

const NL = 0x0a;

describe('isRecordBoundary', () => {
  it.each([
    ['ndjson', 0, 0, undefined, true],
    ['ndjson', 10, 1, NL, true],
    ['ndjson', 10, 1, 0x7d, false],
    ['csv', 0, 0, undefined, true],
    ['csv', 40, 3, NL, true],
    ['csv', 40, 3, 0x0d, false],
    ['json', 0, 0, undefined, true],
    ['json', 1, 0, 0x5b, true],
    ['json', 2, 0, 0x0a, false],
    ['json', 30, 2, 0x7d, true],
    ['json', 30, 2, 0x2c, false],
    ['table', 30, 2, 0x2c, true],
  ] as const)('%s, %i bytes, %i items, last byte %s → %s', (format, bytes, items, last, expected) => {
    expect(isRecordBoundary(format, bytes, items, last)).toBe(expected);
  });
});

describe('checkNextLink', () => {
  const expected = { origin: 'https://api.example', path: '/api/taxpayers/A/invoices' };
  it('accepts null and a link on the origin and path, whatever its query', () => {
    expect(() => checkNextLink('/c', null, expected)).not.toThrow();
    expect(() => checkNextLink('/c', 'https://api.example/api/taxpayers/A/invoices?cursor=x&itemsPerPage=10', expected)).not.toThrow();
  });
  it.each([
    ['not a URL', 'http://[::1', /its next link is not a URL/],
    ['another origin', 'https://evil.example/api/taxpayers/A/invoices', /not on https:\/\/api\.example/],
    ['another scheme', 'http://api.example/api/taxpayers/A/invoices', /not on https:\/\/api\.example/],
    ['another port', 'https://api.example:8443/api/taxpayers/A/invoices', /not on https:\/\/api\.example/],
    ['another path', 'https://api.example/api/taxpayers/B/invoices', /not on the path \/api\/taxpayers\/A\/invoices/],
    ['credentials', 'https://u:p@api.example/api/taxpayers/A/invoices', /credentials/],
  ])('refuses %s with E_CHECKPOINT', (_name, next, message) => {
    let error: unknown;
    try {
      checkNextLink('/c', next, expected);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).code).toBe('E_CHECKPOINT');
    expect((error as Error).message).toMatch(message);
  });
});
