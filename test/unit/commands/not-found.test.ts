/**
 * The 404 hint: a function of what was given, so that a command with ids and `get` with
 * a path both name what may be wrong, and never an id that was not given.
 */
import { describe, expect, it } from 'vitest';
import { notFoundHint, withRequestHint } from '../../../src/commands/error-text.js';
import { HttpError } from '../../../src/errors.js';

const BASE = new URL('https://api.example.com/v1');

describe('notFoundHint', () => {
  it.each<[string, Record<string, string>, string, string]>([
    [
      'the taxpayer given, and the path',
      { taxpayerId: 'XAXX010101000' },
      '/v1/taxpayers/XAXX010101000/invoices',
      'check --taxpayer XAXX010101000, or whether the API serves https://api.example.com/v1/taxpayers/XAXX010101000/invoices at all',
    ],
    [
      'both ids given',
      { taxpayerId: 'XAXX010101000', invoiceId: 'abc' },
      '/v1/taxpayers/XAXX010101000/invoices/abc/line-items',
      'check --taxpayer XAXX010101000 and --invoice abc, or whether the API serves https://api.example.com/v1/taxpayers/XAXX010101000/invoices/abc/line-items at all',
    ],
    [
      'no id (entities, events, or a path given to get): the path itself',
      {},
      '/v1/entities/0b6f/invoices',
      'check the path /v1/entities/0b6f/invoices and the path of base-url https://api.example.com/v1 (`collections config get base-url`, --base-url or COLLECTIONS_BASE_URL)',
    ],
  ])('%s', (_name, ids, path, hint) => {
    expect(notFoundHint(ids, path, BASE)).toBe(hint);
  });

  it('withRequestHint reads the path of the 404 without its query; other errors pass as they are', () => {
    const given = { ids: {}, baseUrl: BASE, params: [], query: '' };
    const err = new HttpError({ method: 'GET', path: '/v1/entities?itemsPerPage=1000&page=1', status: 404 });
    expect((withRequestHint(err, given) as HttpError).hint).toMatch(/^check the path \/v1\/entities and /);
    const other = new HttpError({ method: 'GET', path: '/v1/entities', status: 400 });
    expect(withRequestHint(other, given)).toBe(other);
    const server = new HttpError({ method: 'GET', path: '/v1/entities', status: 500 });
    expect(withRequestHint(server, { ...given, params: [['a', 'b']] })).toBe(server);
  });
});
