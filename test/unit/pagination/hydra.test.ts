import { describe, expect, it } from 'vitest';
import { UnreadableBodyError } from '../../../src/http/client.js';
import { parsePage, parsePageText, type HydraPage } from '../../../src/pagination/hydra.js';

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
  ])('rejects %s with UnreadableBodyError', (_name, body) => {
    expect(() => parsePage(body)).toThrow(UnreadableBodyError);
  });
});

describe('parsePageText', () => {
  it('parses a JSON body into a page', () => {
    expect(parsePageText(JSON.stringify({ 'hydra:member': items, 'hydra:totalItems': 2 }))).toEqual({
      members: items,
      totalItems: 2,
    });
  });

  it.each<[string, string, string]>([
    ['invalid JSON', '{"hydra:member": [1, 2', 'invalid JSON'],
    ['not a collection', '{"hello":"world"}', 'not a Hydra collection: no member, totalItems or view'],
  ])('refuses %s with a UnreadableBodyError', (_name, text, message) => {
    let err: unknown;
    try {
      parsePageText(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UnreadableBodyError);
    expect((err as Error).message).toBe(message);
  });

  it('keeps the SyntaxError as the cause of invalid JSON', () => {
    let err: unknown;
    try {
      parsePageText('{');
    } catch (e) {
      err = e;
    }
    expect((err as Error).cause).toBeInstanceOf(SyntaxError);
  });
});
