/**
 * The request headers a user adds (`-H 'Name: value'`, a profile's `header`): RFC 9110 names and
 * values, never the tool's own or the transport's headers, a later one replacing an earlier one
 * of the same name; and how the secrets service shows and scrubs a credential-like value.
 */
import { describe, expect, it } from 'vitest';
import { createRequestHeaders, mergeHeaders, parseHeader } from '../../../src/http/request-headers.js';
import { createSecrets } from '../../../src/secrets.js';

describe('parseHeader', () => {
  it.each([
    ['Accept-Version: 2020-06-28', ['Accept-Version', '2020-06-28']],
    ['X-Trace:abc', ['X-Trace', 'abc']],
    ['X-Trace: \t a b \t', ['X-Trace', 'a b']],
    ['Authorization: Bearer a:b', ['Authorization', 'Bearer a:b']],
    ['User-Agent: nightly/1', ['User-Agent', 'nightly/1']],
    ["X-!#$%&'*+.^_`|~: v", ["X-!#$%&'*+.^_`|~", 'v']],
    ['X-Latin: café', ['X-Latin', 'café']],
  ])('%j → %j', (text, pair) => {
    expect(parseHeader(text)).toEqual(pair);
  });

  it.each([
    ['X-Api-Key: k', /X-Api-Key cannot be set this way/],
    ['ACCEPT: application/json', /ACCEPT cannot be set this way/],
    ['X-Pagination-Style: cursor', /--cursor sets it/],
    ['x-pagination-enable-partial: 0', /--total sets it/],
    ['Host: h', /transport sets it/],
    ['Transfer-Encoding: chunked', /transport sets it/],
    ['Connection: close', /transport sets it/],
    ['Proxy-Authorization: Basic x', /transport sets it/],
    ['no colon', /takes 'Name: value'/],
    [': v', /is not a valid header name/],
    ['X Y: v', /is not a valid header name/],
    ['X-A:  ', /has no value/],
    ['X-A: a\nb', /line break/],
    ['X-A: a\u0000b', /control character/],
    ['X-A: ✓', /past U\+00FF/],
  ])('%j is refused: %s', (text, message) => {
    expect(() => parseHeader(text)).toThrow(message);
  });

  it('never quotes the value in its message', () => {
    expect(() => parseHeader('Authorization: Bearer s3cr3t-\u0007')).toThrow(/^--header Authorization has a value with/);
    let message = '';
    try {
      parseHeader('Authorization: Bearer s3cr3t-\u0007');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).not.toContain('s3cr3t');
  });
});

describe('mergeHeaders and the client', () => {
  it('a later header replaces an earlier one of the same name, in any case, at its place', () => {
    const merged = mergeHeaders(
      [
        ['Accept-Version', '2019'],
        ['X-Team', 'data'],
      ],
      [['accept-version', '2020']],
    );
    expect(merged).toEqual({ 'accept-version': '2020', 'X-Team': 'data' });
  });

  it('the client sends extras, never in place of X-Api-Key or Accept', () => {
    const headersFor = createRequestHeaders('k-1234', { 'X-Api-Key': 'other', accept: 'text/csv', 'Accept-Version': '2020' });
    expect(headersFor({ 'X-Pagination-Style': 'cursor' })).toEqual({
      'Accept-Version': '2020',
      Accept: 'application/ld+json',
      'X-Api-Key': 'k-1234',
      'X-Pagination-Style': 'cursor',
    });
  });
});

describe('the secrets service and headers', () => {
  it.each([
    ['Authorization', true],
    ['proxy-authorization', true],
    ['Cookie', true],
    ['X-Auth-Token', true],
    ['X-Api-Secret', true],
    ['Idempotency-Key', true],
    ['X-Session-Id', true],
    ['Accept-Version', false],
    ['User-Agent', false],
    ['X-Request-ID', false],
  ])('%s: masked %s', (name, masked) => {
    const secrets = createSecrets();
    const value = 'Bearer abcdefgh12345678';
    secrets.addHeader(name, value);
    // The auth scheme of an Authorization value is shown; any other credential-like value is masked whole.
    const shown = /authorization$/i.test(name) ? 'Bearer ****5678' : '****5678';
    expect(secrets.showHeader(name, value)).toBe(masked ? shown : value);
    // Its value (and its credentials without the scheme) are scrubbed from any text once added.
    expect(secrets.redact(`got ${value} / abcdefgh12345678 / ${encodeURIComponent('abcdefgh12345678')}`)).toBe(
      masked ? 'got [REDACTED] / [REDACTED] / [REDACTED]' : `got ${value} / abcdefgh12345678 / abcdefgh12345678`,
    );
  });
});
