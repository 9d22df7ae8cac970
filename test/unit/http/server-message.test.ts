import { describe, expect, it } from 'vitest';
import { parseServerMessage } from '../../../src/http/server-message.js';
import { API_ERROR_BODIES } from '../../fixtures/api-errors.js';

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

  it.each(API_ERROR_BODIES.map((e) => [e.name, e] as const))('as the real service and API Platform write it: %s', (_name, e) => {
    expect(parseServerMessage(e.contentType, e.body)).toBe(e.reason);
  });

  it('truncates a long message to 300 characters', () => {
    const msg = parseServerMessage('application/json', JSON.stringify({ message: 'x'.repeat(1000) }));
    expect(msg).toHaveLength(300);
    expect(msg!.endsWith('…')).toBe(true);
  });
});
