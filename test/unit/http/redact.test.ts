import { describe, expect, it } from 'vitest';
import { maskSecret, redact, redactSecret, REDACTED } from '../../../src/http/redact.js';

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

  it('redactSecret scrubs raw and percent-encoded forms', () => {
    expect(redactSecret(`x ${encodeURIComponent('k y')} k y`, 'k y')).toBe(`x ${REDACTED} ${REDACTED}`);
  });
});

describe('maskSecret', () => {
  it.each([
    [CANARY, '****rint'],
    ['abcdefgh', '****efgh'],
    ['short', '****'],
    ['', '****'],
  ])('%j → %j', (key, masked) => {
    expect(maskSecret(key)).toBe(masked);
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
