/**
 * The one formatter of failures (commands/error-text.ts) and the CLI hints it adds
 * (commands/hints.ts): the ground floor's errors name no flag, yet every line keeps its hint.
 */
import { describe, expect, it } from 'vitest';
import { errorText, formatError, hintOf, withRequestHint } from '../../../src/commands/error-text.js';
import { HttpError, pageSizeMaximum, UsageError } from '../../../src/errors.js';
import { createSecrets } from '../../../src/secrets.js';

const http = (status: number, hint?: string): HttpError => new HttpError({ method: 'GET', path: '/p', status }, hint === undefined ? {} : { hint });

describe('the hints of HTTP statuses', () => {
  it.each([
    // Without what the user gave (withRequestHint), a 400/422 names no flag.
    [400, 'collections: the API rejected the parameters (GET /p: HTTP 400)'],
    [422, 'collections: the API rejected the parameters (GET /p: HTTP 422)'],
    [401, 'collections: the API key was rejected (GET /p: HTTP 401); set a valid key with `collections config set api-key` or COLLECTIONS_API_KEY'],
    [403, 'collections: the API key was rejected (GET /p: HTTP 403); set a valid key with `collections config set api-key` or COLLECTIONS_API_KEY'],
    [404, 'collections: not found (GET /p: HTTP 404); check the path /p (the ids in it, and the path of base-url)'],
    [418, 'collections: unexpected response (GET /p: HTTP 418)'],
  ])('HTTP %i → %s', (status, line) => {
    expect(formatError(http(status))).toBe(line);
  });

  it.each<[string, number, string, string | undefined, string | undefined]>([
    [
      'a 400 naming itemsPerPage (the service\'s {"message"})',
      400,
      '/entities?itemsPerPage=1000&page=1',
      'itemsPerPage must be between 1 and 100',
      'the API refuses this page size (itemsPerPage=1000): give --items-per-page 100 or less',
    ],
    [
      'a 422 violation of itemsPerPage',
      422,
      '/entities?itemsPerPage=500',
      'itemsPerPage: This value should be less than or equal to 100.',
      'the API refuses this page size (itemsPerPage=500): give --items-per-page 100 or less',
    ],
    [
      'a 422 whose maximum is 50, asked 60',
      422,
      '/entities?itemsPerPage=60',
      'itemsPerPage: This value should be less than or equal to 50.',
      'the API refuses this page size (itemsPerPage=60): give --items-per-page 50 or less',
    ],
    [
      'a maximum by an exclusive bound',
      422,
      '/entities?itemsPerPage=60',
      'itemsPerPage: This value should be less than 51.',
      'the API refuses this page size (itemsPerPage=60): give --items-per-page 50 or less',
    ],
    [
      'no maximum given, 60 asked: no example larger than what was asked',
      400,
      '/entities?itemsPerPage=60',
      'itemsPerPage is too large',
      'the API refuses this page size (itemsPerPage=60): give a smaller --items-per-page',
    ],
    [
      'no maximum given, 1000 asked',
      400,
      '/entities?itemsPerPage=1000',
      'invalid page size',
      'the API refuses this page size (itemsPerPage=1000): give a smaller --items-per-page, e.g. 100',
    ],
    ['a 400 about another parameter', 400, '/entities?itemsPerPage=1000&page=1', 'Page should not be less than 1', undefined],
    ['a 400 without a message', 400, '/entities?itemsPerPage=1000', undefined, undefined],
    [
      'a 404 of a path with a query',
      404,
      '/v2/entities/abc/invoices?itemsPerPage=1000',
      'Not Found',
      'check the path /v2/entities/abc/invoices (the ids in it, and the path of base-url)',
    ],
  ])('%s', (_name, status, path, serverMessage, hint) => {
    const err = new HttpError({ method: 'GET', path, status, ...(serverMessage === undefined ? {} : { serverMessage }) });
    expect(hintOf(err)).toBe(hint);
  });

  it('a hint given where the error is made wins; an empty one means none', () => {
    expect(hintOf(http(404, 'check --taxpayer X'))).toBe('check --taxpayer X');
    expect(formatError(http(401, ''))).toBe('collections: the API key was rejected (GET /p: HTTP 401)');
    expect(hintOf(new UsageError('bad'))).toBeUndefined();
  });
});

describe('errorText', () => {
  it('without the hint (a taxpayer of a run of many), the secrets scrubbed, one line', () => {
    const secrets = createSecrets();
    secrets.add('k-secret-77');
    expect(errorText(http(401), secrets, { hint: false })).toBe('the API key was rejected (GET /p: HTTP 401)');
    expect(errorText(new Error('saw k-secret-77\nthen died'), secrets, { hint: false })).toBe(
      'internal error, please report: saw [REDACTED] then died',
    );
    expect(formatError('thrown', secrets)).toBe('collections: internal error, please report: thrown');
  });
});

describe('pageSizeMaximum', () => {
  it.each<[string, number | undefined]>([
    ['itemsPerPage: This value should be less than or equal to 50.', 50],
    ['itemsPerPage: This value should be less than 51.', 50],
    ['itemsPerPage must be between 1 and 100', 100],
    ['The maximum is 200 items per page', 200],
    ['page size must not exceed 25', 25],
    ['itemsPerPage should not be greater than 30', 30],
    ['itemsPerPage <= 40', 40],
    ['itemsPerPage is invalid', undefined],
  ])('%s → %s', (message, maximum) => {
    expect(pageSizeMaximum(message)).toBe(maximum);
  });
});

describe('withRequestHint of a 400/422', () => {
  const given = { ids: {}, baseUrl: new URL('http://h'), params: [] as Array<[string, string]>, query: '' };
  const rejected = new HttpError({ method: 'GET', path: '/entities?status=x&itemsPerPage=1000', status: 422, serverMessage: 'status: bad' });
  it.each<[string, Partial<typeof given>, string | undefined]>([
    ['--param given', { params: [['status', 'x']] }, 'check --param values'],
    ["get's path with its own query, no --param", { query: 'status=x' }, 'check the query of the path (?status=x)'],
    ['nothing given: no hint naming a flag', {}, undefined],
  ])('%s', (_name, extra, hint) => {
    const err = withRequestHint(rejected, { ...given, ...extra }) as HttpError;
    expect(err.hint).toBe(hint);
    expect(err.exitCode).toBe(2);
  });

  it('a page-size refusal keeps its own hint', () => {
    const size = new HttpError({
      method: 'GET',
      path: '/e?itemsPerPage=60',
      status: 422,
      serverMessage: 'itemsPerPage: This value should be less than or equal to 50.',
    });
    const err = withRequestHint(size, { ...given, params: [['a', 'b']] });
    expect(hintOf(err as HttpError)).toBe('the API refuses this page size (itemsPerPage=60): give --items-per-page 50 or less');
  });
});
