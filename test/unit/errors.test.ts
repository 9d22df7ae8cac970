import { describe, expect, it } from 'vitest';
import { hintOf } from '../../src/commands/error-text.js';
import {
  AbortError,
  ApiUnavailableError,
  CollectionsError,
  EXIT_CODE_OF,
  ExitCode,
  HostileResponseError,
  HttpError,
  InterruptedError,
  OutputError,
  RateLimitError,
  toExitCode,
  UnsafeLinkError,
  UsageError,
} from '../../src/errors.js';

describe('errors: one code and one exit code each', () => {
  it.each([
    [new UsageError('x'), 'E_USAGE', 2],
    [new UsageError('x', { code: 'E_CONFIG' }), 'E_CONFIG', 2],
    [new UsageError('x', { code: 'E_CHECKPOINT' }), 'E_CHECKPOINT', 2],
    [new HttpError({ method: 'GET', path: '/p', status: 400 }), 'E_API_REJECTED', 2],
    [new HttpError({ method: 'GET', path: '/p', status: 401 }), 'E_AUTH', 3],
    [new HttpError({ method: 'GET', path: '/p', status: 403 }), 'E_AUTH', 3],
    [new HttpError({ method: 'GET', path: '/p', status: 404 }), 'E_NOT_FOUND', 4],
    [new HttpError({ method: 'GET', path: '/p', status: 418 }), 'E_HTTP_UNEXPECTED', 6],
    [new RateLimitError('x'), 'E_RATE_LIMIT_WAIT', 5],
    [new RateLimitError('x', undefined, { code: 'E_RATE_LIMIT_REPEATED' }), 'E_RATE_LIMIT_REPEATED', 5],
    [new ApiUnavailableError('x'), 'E_API_UNAVAILABLE', 6],
    [new UnsafeLinkError('x'), 'E_UNSAFE_LINK', 6],
    [new HostileResponseError('x'), 'E_HOSTILE_RESPONSE', 6],
    [new OutputError('x'), 'E_OUTPUT_WRITE', 7],
    [new CollectionsError('x', 'E_LOCKED'), 'E_LOCKED', 7],
    [new InterruptedError('SIGINT'), 'E_INTERRUPTED_SIGINT', 130],
    [new InterruptedError('SIGTERM'), 'E_INTERRUPTED_SIGTERM', 143],
    [new AbortError(), 'E_ABORTED', 130],
  ] as const)('%s → %s, exit %i', (err, code, exit) => {
    expect(err).toBeInstanceOf(CollectionsError);
    expect(err.code).toBe(code);
    expect(err.exitCode).toBe(exit);
    expect(toExitCode(err)).toBe(exit);
    expect(EXIT_CODE_OF[code]).toBe(exit);
  });

  it('maps anything else to the internal error', () => {
    expect(toExitCode(new Error('bug'))).toBe(ExitCode.Internal);
    expect(toExitCode('thrown string')).toBe(1);
  });

  it('describes an HTTP error with the server message and request id, and its hint', () => {
    const err = new HttpError({ method: 'GET', path: '/taxpayers/X/invoices', status: 404, serverMessage: 'no such taxpayer', requestId: 'r-1' });
    expect(err.message).toBe('not found (GET /taxpayers/X/invoices: HTTP 404): no such taxpayer [X-Request-ID: r-1]');
    expect(hintOf(err)).toBe('check the path /taxpayers/X/invoices (the ids in it, and the path of base-url)');
    expect(new HttpError({ method: 'GET', path: '/p', status: 418 }).message).toBe('unexpected response (GET /p: HTTP 418)');
  });
});
