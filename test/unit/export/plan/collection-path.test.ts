/**
 * The path of `collections get`: what it may hold (checked before anything is sent), the endpoint
 * built from it (the template it fits gives cursor support, `--since` field and columns), and the
 * source of an export for `get` and for a named command.
 */
import { describe, expect, it } from 'vitest';
import { parseCollectionPath, pathEndpoint, resolveSource } from '../../../../src/export/plan/collection-path.js';
import { UsageError } from '../../../../src/errors.js';

describe('parseCollectionPath', () => {
  it.each([
    ['/entities/0190/invoices', '/entities/0190/invoices', '', '/entities/{entityId}/invoices'],
    ['entities/0190/invoices/line-items', '/entities/0190/invoices/line-items', '', '/entities/{entityId}/invoices/line-items'],
    ['/invoices/payments?type=I&x=%20y', '/invoices/payments', 'type=I&x=%20y', '/invoices/payments'],
    ['/taxpayers/A%26B/invoices', '/taxpayers/A%26B/invoices', '', '/taxpayers/{taxpayerId}/invoices'],
    ['/entities', '/entities', '', '/entities'],
    ['/taxpayers/ÑUOJ700605B0U/invoices', '/taxpayers/%C3%91UOJ700605B0U/invoices', '', '/taxpayers/{taxpayerId}/invoices'],
    ['/somewhere/else?', '/somewhere/else', '', undefined],
    ['/entities/0190/invoices?id[lt]=0180', '/entities/0190/invoices', 'id[lt]=0180', '/entities/{entityId}/invoices'],
  ])('%j → path %j, query %j, template %j', (input, path, query, template) => {
    const parsed = parseCollectionPath(input);
    expect([parsed.path, parsed.query, parsed.known?.path]).toEqual([path, query, template]);
  });

  it.each([
    ['', /needs a collection path/],
    ['http://127.0.0.1:9/entities', /is a URL/],
    ['HTTPS://x/entities', /is a URL/],
    ['javascript:alert(1)', /is a URL/],
    ['//other.example/entities', /is a URL/],
    ['/a/../b', /'\.\.' segment/],
    ['/a/%2E%2e/b', /'\.\.' segment/],
    ['/a/.%2e', /'\.\.' segment/],
    ['/a/./b', /'\.' segment/],
    ['/a/%2e', /'\.' segment/],
    ['/a#b', /fragment/],
    ['/a?x=1#b', /fragment/],
    ['/a?page=1', /sets page, which --page sets/],
    ['/a?x=1&PAGE=1', /sets PAGE, which --page sets/],
    ['/a?itemsPerPage=5', /sets itemsPerPage, which --items-per-page sets/],
    ['/a?items%50erPage=5', /sets itemsPerPage/],
    ['/a/{entityId}', /placeholder/],
    ['/a//b', /empty segment/],
    ['/a/', /empty segment/],
    ['/a\\b', /'\\'/],
    ['/a b', /white space or control/],
    ['/a\tb', /white space or control/],
    ['/a\u0000b', /white space or control/],
    ['/a/%zz', /invalid percent-encoding/],
  ])('%j is refused: %s', (input, message) => {
    expect(() => parseCollectionPath(input)).toThrow(UsageError);
    expect(() => parseCollectionPath(input)).toThrow(message);
  });
});

describe('pathEndpoint', () => {
  it('takes the cursor support, --since field and columns of the template the path fits; the key is the path', () => {
    const e = pathEndpoint(parseCollectionPath('/entities/0190/events'));
    expect(e).toMatchObject({
      key: '/entities/0190/events',
      command: 'get',
      path: '/entities/{entityId}/events',
      ids: [],
      cursor: true,
      watermark: 'createdAt',
    });
    expect(e.tableFields).toContain('type');
    expect(pathEndpoint(parseCollectionPath('/entities'))).toMatchObject({ path: '/entities', cursor: false, watermark: 'updatedAt' });
  });

  it('an unknown path: no cursor claim, no --since field unless named, columns from the items', () => {
    const e = pathEndpoint(parseCollectionPath('/reports/monthly'));
    expect(e).toMatchObject({ key: '/reports/monthly', path: '/reports/monthly', cursor: false, watermark: undefined, tableFields: [] });
    expect(pathEndpoint(parseCollectionPath('/reports/monthly'), 'issuedAt').watermark).toBe('issuedAt');
    expect(pathEndpoint(parseCollectionPath('/invoices/payments'), 'updatedAt').watermark).toBe('updatedAt');
  });
});

describe('resolveSource', () => {
  it('a named command: its endpoint and the path of its ids', () => {
    const s = resolveSource('invoices', { taxpayer: 'A&B' });
    expect([s.endpoint.key, s.path, s.query]).toEqual(['invoices', '/taxpayers/A%26B/invoices', '']);
  });

  it('get: the endpoint of its path, with its query', () => {
    const s = resolveSource('get', { path: 'invoices/payments?type=P' });
    expect([s.endpoint.key, s.path, s.query]).toEqual(['/invoices/payments', '/invoices/payments', 'type=P']);
  });

  it.each(['a[b]', '1a', 'a..b', '', 'a b'])('--since-field %j is refused', (field) => {
    expect(() => resolveSource('get', { path: '/x', sinceField: field })).toThrow(/is not a field name/);
  });
});
