import { describe, expect, it } from 'vitest';
import { PageFormatError, parsePage, parseServerMessage, type HydraPage } from '../../../src/pagination/hydra.js';

const items = [{ id: 'a' }, { id: 'b' }];

describe('parsePage', () => {
  it.each<[string, unknown, HydraPage]>([
    [
      'prefixed keys, offset mode',
      {
        '@context': '/contexts/Invoice',
        'hydra:member': items,
        'hydra:totalItems': 42,
        'hydra:view': {
          '@id': '/entities?page=2',
          '@type': 'hydra:PartialCollectionView',
          'hydra:first': '/entities?page=1',
          'hydra:last': '/entities?page=3',
          'hydra:previous': '/entities?page=1',
          'hydra:next': '/entities?page=3',
        },
      },
      {
        members: items,
        totalItems: 42,
        view: { id: '/entities?page=2', first: '/entities?page=1', last: '/entities?page=3', previous: '/entities?page=1', next: '/entities?page=3' },
      },
    ],
    [
      'unprefixed keys (API Platform 3)',
      { member: items, totalItems: 2, view: { '@id': '/events?page=1', first: '/events?page=1', next: 'http://h/events?page=2' } },
      { members: items, totalItems: 2, view: { id: '/events?page=1', first: '/events?page=1', next: 'http://h/events?page=2' } },
    ],
    [
      'cursor mode: no totalItems, previous',
      { 'hydra:member': items, 'hydra:view': { '@id': '/x', 'hydra:previous': '/x?id[gt]=1', 'hydra:next': '/x?id[lt]=2' } },
      { members: items, view: { id: '/x', previous: '/x?id[gt]=1', next: '/x?id[lt]=2' } },
    ],
    ['single page: no view', { 'hydra:member': [], 'hydra:totalItems': 0 }, { members: [], totalItems: 0 }],
    ['empty collection without member but with totalItems', { 'hydra:totalItems': 0 }, { members: [], totalItems: 0 }],
    ['empty collection without member but with view', { view: { '@id': '/e' } }, { members: [], view: { id: '/e' } }],
    ['prefixed wins over unprefixed', { 'hydra:member': items, member: [] }, { members: items }],
    ['non-string links are ignored', { member: [], view: { next: 5, first: '' } }, { members: [], view: {} }],
    ['a non-numeric totalItems is dropped', { member: items, totalItems: '2' }, { members: items }],
    ['a negative totalItems is dropped', { member: items, totalItems: -1 }, { members: items }],
  ])('%s', (_name, body, expected) => {
    expect(parsePage(body)).toEqual(expected);
  });

  it('returns the very members array (no per-item work)', () => {
    const members = [1, 2, 3];
    expect(parsePage({ member: members }).members).toBe(members);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['an array', [1, 2]],
    ['a string (HTML parsed as a JSON string)', '<html>'],
    ['a number', 3],
    ['an object without member, totalItems or view', { '@type': 'hydra:Error', 'hydra:description': 'x' }],
    ['member not an array', { 'hydra:member': { a: 1 } }],
    ['member null', { member: null, totalItems: 0 }],
  ])('rejects %s with PageFormatError', (_name, body) => {
    expect(() => parsePage(body)).toThrow(PageFormatError);
  });
});

describe('parseServerMessage', () => {
  it.each<[string, string | null, string, string | undefined]>([
    ['plain message (400/401/404/429)', 'application/json', '{"message":"Invalid API key"}', 'Invalid API key'],
    [
      'hydra error (403)',
      'application/ld+json; charset=utf-8',
      '{"@context":"/contexts/Error","@type":"hydra:Error","hydra:title":"An error occurred","hydra:description":"Access Denied."}',
      'Access Denied.',
    ],
    ['unprefixed description', 'application/ld+json', '{"title":"An error occurred","description":"Nope"}', 'Nope'],
    ['RFC 7807 detail', 'application/problem+json', '{"type":"about:blank","title":"Service Unavailable","detail":"Maintenance"}', 'Maintenance'],
    ['RFC 7807 title only', 'application/problem+json', '{"title":"Service Unavailable","status":503}', 'Service Unavailable'],
    [
      'ConstraintViolation violations joined',
      'application/ld+json',
      '{"@type":"ConstraintViolationList","hydra:description":"a: x\\nb: y","violations":[{"propertyPath":"itemsPerPage","message":"must be at most 1000"},{"propertyPath":"page","message":"must be positive"}]}',
      'itemsPerPage: must be at most 1000; page: must be positive',
    ],
    ['whitespace collapsed to one line', 'application/json', '{"message":"line one\\n   line two"}', 'line one line two'],
    ['JSON without content type', null, '{"message":"hi"}', 'hi'],
    ['plain text', 'text/plain', '  upstream timed out \n', 'upstream timed out'],
    ['HTML is no message', 'text/html', '<html><body>502 Bad Gateway</body></html>', undefined],
    ['HTML without content type', null, '<!doctype html><p>x', undefined],
    ['empty body', 'application/json', '', undefined],
    ['invalid JSON', 'application/json', '{"message":', undefined],
    ['JSON without a known field', 'application/json', '{"code":17}', undefined],
    ['empty message falls through to description', 'application/json', '{"message":"","description":"d"}', 'd'],
    ['unknown binary type', 'application/octet-stream', 'xyz', undefined],
  ])('%s', (_name, type, body, expected) => {
    expect(parseServerMessage(type, body)).toBe(expected);
  });

  it('truncates a long message to 300 characters', () => {
    const msg = parseServerMessage('application/json', JSON.stringify({ message: 'x'.repeat(1000) }));
    expect(msg).toHaveLength(300);
    expect(msg!.endsWith('…')).toBe(true);
  });
});
