import { describe, expect, it } from 'vitest';
import { assertSameOrigin, isSameOrigin, normalizeUrl, resolveSameOrigin } from '../../../src/http/origin.js';
import { UnsafeLinkError } from '../../../src/errors.js';

const base = new URL('http://127.0.0.1:8080/api/');
const current = new URL('http://127.0.0.1:8080/taxpayers/X/invoices?page=1');

describe('resolveSameOrigin', () => {
  it.each([
    ['root-relative', '/taxpayers/X/invoices?page=2', 'http://127.0.0.1:8080/taxpayers/X/invoices?page=2'],
    ['query-only', '?page=2', 'http://127.0.0.1:8080/taxpayers/X/invoices?page=2'],
    ['absolute', 'http://127.0.0.1:8080/taxpayers/X/invoices?page=2', 'http://127.0.0.1:8080/taxpayers/X/invoices?page=2'],
    ['cursor with brackets', '/taxpayers/X/invoices?id[lt]=abc', 'http://127.0.0.1:8080/taxpayers/X/invoices?id[lt]=abc'],
    ['upper-case host', 'HTTP://127.0.0.1:8080/x', 'http://127.0.0.1:8080/x'],
  ])('accepts %s', (_n, link, expected) => {
    expect(resolveSameOrigin(link, current, base, 'link').href).toBe(expected);
  });

  it.each([
    ['another host', 'http://evil.example/x'],
    ['another port', 'http://127.0.0.1:8081/x'],
    ['default port instead of 8080', 'http://127.0.0.1/x'],
    ['another scheme', 'https://127.0.0.1:8080/x'],
    ['scheme-relative', '//evil.example/x'],
    ['userinfo trick', 'http://127.0.0.1:8080@evil.example/x'],
    ['userinfo on the same host', 'http://user:pw@127.0.0.1:8080/x'],
    ['javascript scheme', 'javascript:alert(1)'],
    ['file scheme', 'file:///etc/passwd'],
    ['unparseable', 'http://[::1'],
  ])('refuses %s', (_n, link) => {
    expect(() => resolveSameOrigin(link, current, base, 'link')).toThrow(UnsafeLinkError);
  });

  it('never puts userinfo or the query in the message', () => {
    try {
      resolveSameOrigin('http://user:secret@evil.example/x?key=abc', current, base, 'a hydra:next link');
    } catch (e) {
      expect((e as Error).message).not.toMatch(/secret|key=abc/);
    }
  });

  it('explicit default ports are the same origin', () => {
    expect(isSameOrigin(new URL('https://a.example:443/x'), new URL('https://a.example/y'))).toBe(true);
    expect(() => assertSameOrigin(new URL('http://a.example:80/'), new URL('http://a.example/'), 'x')).not.toThrow();
  });

  it('normalizeUrl sorts the query by name, keeping the order of repeated names', () => {
    expect(normalizeUrl('http://h/x?b=2&a=1')).toBe(normalizeUrl('http://h/x?a=1&b=2'));
    expect(normalizeUrl('http://h/x?a=2&a=1')).not.toBe(normalizeUrl('http://h/x?a=1&a=2'));
    expect(normalizeUrl('http://h/x?cursor=a&itemsPerPage=10')).toBe('http://h/x?cursor=a&itemsPerPage=10');
    expect(normalizeUrl('http://h/x')).toBe('http://h/x');
  });

  it.each([
    ['a pair repeated in a row', 'http://h/x?p=1&x=1&x=1&x=1', 'http://h/x?p=1&x=1', true],
    ['a pair repeated apart', 'http://h/x?x=1&p=1&x=1', 'http://h/x?p=1&x=1', true],
    ['encoded and decoded brackets', 'http://h/x?id%5Blt%5D=5&id[lt]=5', 'http://h/x?id[lt]=5', true],
    ['a different value in between (the last value may be the one read)', 'http://h/x?x=1&x=2&x=1', 'http://h/x?x=1&x=2', false],
    ['values in another order', 'http://h/x?x=2&x=1', 'http://h/x?x=1&x=2', false],
    ['an added pair', 'http://h/x?p=1&x=1', 'http://h/x?p=1', false],
  ])('normalizeUrl folds identical pairs only: %s', (_name, a, b, same) => {
    expect(normalizeUrl(a) === normalizeUrl(b)).toBe(same);
  });

  it('normalizeUrl drops the fragment and normalises case, port and dot segments', () => {
    expect(normalizeUrl('HTTP://Api.Example:80/a/../entities?page=1#frag')).toBe('http://api.example/entities?page=1');
  });
});
