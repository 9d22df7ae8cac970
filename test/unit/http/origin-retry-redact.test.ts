import { describe, expect, it } from 'vitest';
import { assertSameOrigin, isSameOrigin, normalizeUrl, resolveSameOrigin } from '../../../src/http/origin.js';
import { backoffDelayMs, describeNetworkError } from '../../../src/http/retry.js';
import { redactSecret } from '../../../src/http/redact.js';
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

  it('normalizeUrl drops the fragment and normalises case, port and dot segments', () => {
    expect(normalizeUrl('HTTP://Api.Example:80/a/../entities?page=1#frag')).toBe('http://api.example/entities?page=1');
  });
});

describe('backoffDelayMs (full jitter, base 1 s, cap 30 s)', () => {
  it.each([
    [0, 0.5, 500],
    [1, 0.5, 1000],
    [2, 0.999, 3996],
    [4, 0.5, 8000],
    [5, 0.5, 15_000],
    [10, 0.5, 15_000],
    [50, 0.9, 27_000],
    [3, 0, 0],
    [3, Number.NaN, 0],
  ])('retry %i with random %d → %i ms', (retry, r, expected) => {
    expect(backoffDelayMs(retry, () => r)).toBe(expected);
  });

  it('stays within [0, min(cap, base·2^n)) for any random', () => {
    for (let n = 0; n < 10; n++) {
      for (const r of [0, 0.1, 0.5, 0.99999]) {
        const d = backoffDelayMs(n, () => r);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(Math.min(30_000, 1000 * 2 ** n));
      }
    }
  });
});

describe('describeNetworkError', () => {
  it.each([
    ['a code on the error', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'ECONNREFUSED'],
    ['a code on the cause (undici fetch failed)', new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }), 'UND_ERR_SOCKET'],
    ['a plain object with a code (nock replyWithError)', { code: 'ECONNRESET' }, 'ECONNRESET'],
    ['the innermost message', new TypeError('terminated', { cause: new Error('socket hang up') }), 'socket hang up'],
    ['something else', 42, 'network error'],
  ])('%s', (_n, err, expected) => {
    expect(describeNetworkError(err)).toBe(expected);
  });
});

describe('redactSecret', () => {
  it.each([
    ['raw', 'bad key sk_live_123 given', 'sk_live_123', 'bad key [REDACTED] given'],
    ['percent-encoded', 'url ?k=a%2Fb%3D end', 'a/b=', 'url ?k=[REDACTED] end'],
    ['repeated', 'kk kk', 'kk', '[REDACTED] [REDACTED]'],
    ['absent', 'nothing here', 'zzz', 'nothing here'],
    ['empty secret', 'text', '', 'text'],
  ])('%s', (_n, text, secret, expected) => {
    expect(redactSecret(text, secret)).toBe(expected);
  });
});
