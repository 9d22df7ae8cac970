import { describe, expect, it } from 'vitest';
import { maskHeaderValue, maskSecret, redact, REDACTED } from '../../../src/http/redact.js';

const CANARY = 'canary-KEY-0000-do-not-print';

describe('redact', () => {
  it.each([
    [`key ${CANARY} rejected`, `key ${REDACTED} rejected`],
    [`${CANARY}${CANARY}`, `${REDACTED}${REDACTED}`],
    ['nothing secret here', 'nothing secret here'],
    [`GET /x?k=${encodeURIComponent('a b/c+d=e')}`, `GET /x?k=${REDACTED}`],
  ])('%j → %j', (text, expected) => {
    expect(redact(text, [CANARY, 'a b/c+d=e'])).toBe(expected);
  });

  it('scrubs the form-encoded spelling too', () => {
    expect(redact('k=a+b%2Fc', ['a b/c'])).toBe(`k=${REDACTED}`);
  });

  it('ignores undefined and very short secrets', () => {
    expect(redact('a cat', [undefined, 'a', ''])).toBe('a cat');
  });

  it('with a least length of 1 scrubs a short secret, raw and percent-encoded', () => {
    expect(redact(`x ${encodeURIComponent('k y')} k y`, ['k y'], 1)).toBe(`x ${REDACTED} ${REDACTED}`);
  });
});

describe('maskSecret: at most a quarter of the secret, at most 4 characters, none under 8', () => {
  it.each([
    [CANARY, '****rint'],
    ['abcdefghijklmnop', '****mnop'],
    ['abcdefghijklmno', '****mno'],
    ['abcdefghijkl', '****jkl'],
    ['abcdefghijk', '****jk'],
    ['abcdefgh', '****gh'],
    ['abcdefg', '****'],
    ['abcd', '****'],
    ['short', '****'],
    ['', '****'],
  ])('%j → %j', (key, masked) => {
    expect(maskSecret(key)).toBe(masked);
  });
});

describe('maskHeaderValue: the credentials masked on their own length, the auth scheme kept', () => {
  it.each([
    ['Authorization', 'Bearer abcd', 'Bearer ****'],
    ['Authorization', 'Bearer abcdefgh', 'Bearer ****gh'],
    ['Authorization', 'Bearer abcdefgh12345678', 'Bearer ****5678'],
    ['proxy-authorization', 'Basic dXNlcjpwYXNzd29yZA==', 'Basic ****ZA=='],
    ['Authorization', 'tok-123456789', '****789'],
    // Other credential-like headers show no scheme, and mask on the length after the first word too.
    ['X-Auth-Token', 'Bearer abcd', '****'],
    ['X-Auth-Token', 'abcdefgh12345678', '****5678'],
    ['Cookie', 'session=abcdefgh; theme=dark', '****rk'],
  ])('%s: %j → %j', (name, value, shown) => {
    expect(maskHeaderValue(name, value)).toBe(shown);
  });
});

describe('redact, a least length of 1 (the key, a database password)', () => {
  it.each([
    ['raw', 'bad key sk_live_123 given', 'sk_live_123', 'bad key [REDACTED] given'],
    ['percent-encoded', 'url ?k=a%2Fb%3D end', 'a/b=', 'url ?k=[REDACTED] end'],
    ['repeated', 'kk kk', 'kk', '[REDACTED] [REDACTED]'],
    ['absent', 'nothing here', 'zzz', 'nothing here'],
    ['empty secret', 'text', '', 'text'],
  ])('%s', (_n, text, secret, expected) => {
    expect(redact(text, [secret], 1)).toBe(expected);
  });
});
