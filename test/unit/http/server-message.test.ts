import { describe, expect, it } from 'vitest';
import { parseServerMessage, readServerMessage } from '../../../src/http/server-message.js';
import { API_ERROR_BODIES } from '../../fixtures/api-errors.js';

const NGINX_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

describe('parseServerMessage', () => {
  it.each<[string, string | null, string, string | undefined]>([
    ['plain message (400/401/404/429)', 'application/json', '{"message":"Invalid API key"}', 'Invalid API key'],
    [
      'hydra error (403)',
      'application/ld+json; charset=utf-8',
      '{"@context":"/contexts/Error","@type":"hydra:Error","hydra:title":"An error occurred","hydra:description":"Access Denied."}',
      'Access Denied.',
    ],
    ['hydra error with a title only', 'application/ld+json', '{"@type":"hydra:Error","hydra:title":"Not Found"}', 'Not Found'],
    ['unprefixed description', 'application/ld+json', '{"title":"An error occurred","description":"Nope"}', 'Nope'],
    ['RFC 7807 detail', 'application/problem+json', '{"type":"about:blank","title":"Service Unavailable","detail":"Maintenance"}', 'Maintenance'],
    ['RFC 7807 title only', 'application/problem+json', '{"title":"Service Unavailable","status":503}', 'Service Unavailable'],
    [
      'ConstraintViolation violations joined',
      'application/ld+json',
      '{"@type":"ConstraintViolationList","hydra:description":"a: x\\nb: y","violations":[{"propertyPath":"itemsPerPage","message":"must be at most 1000"},{"propertyPath":"page","message":"must be positive"}]}',
      'itemsPerPage: must be at most 1000; page: must be positive',
    ],
    ['violations without a usable entry fall through', 'application/problem+json', '{"violations":[{"code":"x"},3],"detail":"d"}', 'd'],
    ['a violation without a path', 'application/problem+json', '{"violations":[{"title":"bad"}]}', 'bad'],
    ['an error object', 'application/json', '{"error":{"code":17,"message":"quota exceeded"}}', 'quota exceeded'],
    ['an error string', 'application/json', '{"error":"unauthorized"}', 'unauthorized'],
    ['a JSON string', 'application/json', '"gateway timeout"', 'gateway timeout'],
    ['a JSON array is no message', 'application/json', '[{"message":"x"}]', undefined],
    ['whitespace collapsed to one line', 'application/json', '{"message":"line one\\n   line two"}', 'line one line two'],
    ['JSON without content type', null, '{"message":"hi"}', 'hi'],
    ['JSON behind a byte order mark', 'application/json', '\uFEFF{"message":"hi"}', 'hi'],
    ['JSON served as text/html is still HTML', 'text/html', '{"message":"hi"}', undefined],
    ['plain text', 'text/plain', '  upstream timed out \n', 'upstream timed out'],
    [
      "a proxy's plain-text answer (Envoy)",
      'text/plain',
      'upstream connect error or disconnect/reset before headers. reset reason: connection failure',
      'upstream connect error or disconnect/reset before headers. reset reason: connection failure',
    ],
    ['HTML is no message', 'text/html', '<html><body>502 Bad Gateway</body></html>', undefined],
    ["nginx's 502 page", 'text/html', NGINX_502, undefined],
    ['an HTML page sent as text/plain', 'text/plain; charset=utf-8', '\n  <!DOCTYPE html><title>Just a moment...</title>', undefined],
    ['HTML without content type', null, '<!doctype html><p>x', undefined],
    ['empty body', 'application/json', '', undefined],
    ['blank body', 'text/plain', ' \r\n\t', undefined],
    ['invalid JSON', 'application/json', '{"message":', undefined],
    ['JSON without a known field', 'application/json', '{"code":17}', undefined],
    ['empty message falls through to description', 'application/json', '{"message":"","description":"d"}', 'd'],
    ['a message that is not a string', 'application/json', '{"message":42,"title":"t"}', 't'],
    ['unknown binary type', 'application/octet-stream', 'xyz', undefined],
  ])('%s', (_name, type, body, expected) => {
    expect(parseServerMessage(type, body)).toBe(expected);
  });

  it.each(API_ERROR_BODIES.map((e) => [e.name, e] as const))('as the real service and API Platform write it: %s', (_name, e) => {
    expect(parseServerMessage(e.contentType, e.body)).toBe(e.reason);
  });

  it('truncates a long message to 300 characters', () => {
    const msg = parseServerMessage('application/json', JSON.stringify({ message: 'x'.repeat(1000) }));
    expect(msg).toHaveLength(300);
    expect(msg!.endsWith('…')).toBe(true);
  });
});

describe('readServerMessage', () => {
  const read = (body: string | Uint8Array | null, type: string): Promise<string | undefined> =>
    readServerMessage(
      (t) => t.replaceAll('s3cr3t-key', '[REDACTED]'),
      new Response(body, { status: 500, headers: { 'content-type': type } }),
      'GET /x',
    );

  it('redacts the key a server echoes', async () => {
    expect(await read('{"detail":"bad key s3cr3t-key"}', 'application/problem+json')).toBe('bad key [REDACTED]');
  });

  it('decodes bytes that are not UTF-8 as U+FFFD, never throwing', async () => {
    const latin1 = Buffer.from('{"message":"caf\xe9 ferm\xe9"}', 'latin1');
    expect(await read(latin1, 'application/json')).toBe('caf\uFFFD ferm\uFFFD');
  });

  it('gives up on a body over 1 MiB (the status says enough)', async () => {
    const huge = JSON.stringify({ message: 'm', pad: 'x'.repeat(1024 * 1024) });
    expect(await read(huge, 'application/json')).toBeUndefined();
  });

  it('reads a body just under the bound', async () => {
    const big = JSON.stringify({ message: 'm', pad: 'x'.repeat(1024 * 1024 - 100) });
    expect(await read(big, 'application/json')).toBe('m');
  });

  it('an empty body, or none, gives undefined', async () => {
    expect(await read('', 'application/json')).toBeUndefined();
    expect(await read(null, 'text/plain')).toBeUndefined();
  });
});
