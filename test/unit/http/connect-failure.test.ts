import { describe, expect, it } from 'vitest';
import { ProxyFailure } from '../../../src/http/proxy.js';
import { describeConnectFailure, describeNetworkError } from '../../../src/http/connect-failure.js';
import { RetryableFailure, waitBeforeRetry } from '../../../src/http/retry.js';
import { ApiUnavailableError, renderHint, type Hint } from '../../../src/errors.js';
import { CLI_WORDS } from '../../../src/commands/error-text.js';
import { ServerClock } from '../../../src/rate/headers.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';

const url = new URL('https://api.example.test:8443/v1/invoices?itemsPerPage=1000&page=1');
/** The hint as the command line prints it. */
const cli = (hint: Hint | undefined): string | undefined => hint && renderHint(hint, CLI_WORDS);
const fetchFailed = (cause: object): TypeError => new TypeError('fetch failed', { cause });

describe('describeConnectFailure', () => {
  it.each([
    ['ECONNREFUSED', { code: 'ECONNREFUSED', syscall: 'connect' }, 'ECONNREFUSED: connection refused by https://api.example.test:8443'],
    ['EHOSTUNREACH', { code: 'EHOSTUNREACH', syscall: 'connect' }, 'EHOSTUNREACH: cannot reach https://api.example.test:8443'],
    ['ENETUNREACH', { code: 'ENETUNREACH', syscall: 'connect' }, 'ENETUNREACH: cannot reach https://api.example.test:8443'],
    ['ETIMEDOUT on connect', { code: 'ETIMEDOUT', syscall: 'connect' }, 'ETIMEDOUT: no answer from https://api.example.test:8443'],
    ['undici connect timeout', { code: 'UND_ERR_CONNECT_TIMEOUT' }, 'UND_ERR_CONNECT_TIMEOUT: no answer from https://api.example.test:8443'],
  ])('%s names the origin and suggests base-url and the sandbox', (_n, cause, reason) => {
    const d = describeConnectFailure(fetchFailed(cause), url);
    expect(d?.reason).toBe(reason);
    expect(cli(d?.hint)).toContain('check base-url');
    expect(cli(d?.hint)).toContain('collections sandbox');
  });

  it("undici's `bad port` (a port the Fetch standard blocks, e.g. 9) names the port and suggests base-url", () => {
    const d = describeConnectFailure(fetchFailed(new Error('bad port')), new URL('http://127.0.0.1:9/entities'));
    expect(d?.reason).toBe(
      'bad port: fetch never connects to port 9 of http://127.0.0.1:9 (a port the Fetch standard blocks, like a refused connection)',
    );
    expect(cli(d?.hint)).toContain('check base-url');
  });

  it('finds the code inside an AggregateError (happy eyeballs)', () => {
    const agg = Object.assign(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED', syscall: 'connect' })]), {});
    expect(describeConnectFailure(fetchFailed(agg), url)?.reason).toBe('ECONNREFUSED: connection refused by https://api.example.test:8443');
  });

  it.each([
    ['ENOTFOUND', 'ENOTFOUND: host api.example.test not found (DNS)'],
    ['EAI_AGAIN', 'EAI_AGAIN: host api.example.test could not be resolved (DNS did not answer)'],
  ])('%s names the host, not the path', (code, reason) => {
    const d = describeConnectFailure(fetchFailed({ code, syscall: 'getaddrinfo' }), url);
    expect(d?.reason).toBe(reason);
    expect(d?.reason).not.toContain('/v1');
    expect(cli(d?.hint)).toContain('check base-url');
  });

  it.each([
    ['ECONNRESET', { code: 'ECONNRESET', syscall: 'read' }],
    ['ETIMEDOUT of a read', { code: 'ETIMEDOUT', syscall: 'read' }],
    ['no code', new Error('socket hang up')],
  ])('leaves %s to the short description', (_n, cause) => {
    expect(describeConnectFailure(fetchFailed(cause), url)).toBeUndefined();
  });
});

describe('describeConnectFailure: what a failure at first contact says is wrong (issue 27)', () => {
  const WRONG_URL = 'the base URL is most likely wrong';
  it.each([
    ['ECONNREFUSED', fetchFailed({ code: 'ECONNREFUSED', syscall: 'connect' }), WRONG_URL],
    ['ENOTFOUND', fetchFailed({ code: 'ENOTFOUND', syscall: 'getaddrinfo' }), WRONG_URL],
    ['bad port', fetchFailed(new Error('bad port')), WRONG_URL],
    ['no TLS', fetchFailed({ code: 'ERR_SSL_WRONG_VERSION_NUMBER' }), WRONG_URL],
    ['EAI_AGAIN (DNS may answer later)', fetchFailed({ code: 'EAI_AGAIN', syscall: 'getaddrinfo' }), undefined],
    ['EHOSTUNREACH (the network may come back)', fetchFailed({ code: 'EHOSTUNREACH', syscall: 'connect' }), undefined],
    ['connect timeout', fetchFailed({ code: 'UND_ERR_CONNECT_TIMEOUT' }), undefined],
  ])('%s', (_n, err, likely) => {
    expect(describeConnectFailure(err, url)?.likely).toBe(likely);
  });

  it('an https URL answered in plain text says the server does not speak TLS, in words, and suggests http://', () => {
    const d = describeConnectFailure(fetchFailed({ code: 'ERR_SSL_WRONG_VERSION_NUMBER', library: 'SSL routines' }), url);
    expect(d?.reason).toBe(
      'https://api.example.test:8443 does not speak TLS (ERR_SSL_WRONG_VERSION_NUMBER: its answer to the handshake was plain text)',
    );
    expect(cli(d?.hint)).toMatch(/^if it is an http server, use http:\/\/api\.example\.test:8443 as base-url; check base-url/);
  });
});

describe('describeConnectFailure through a proxy (issue 27)', () => {
  const route = { url: new URL('http://user:s3cret@proxy.example:3128'), variable: 'HTTPS_PROXY' };
  const viaProxy = (cause: unknown): ProxyFailure => new ProxyFailure(route, fetchFailed(cause as object));

  it.each([
    [
      'refused',
      { code: 'ECONNREFUSED', syscall: 'connect' },
      'ECONNREFUSED: connection refused by the proxy http://proxy.example:3128 (HTTPS_PROXY)',
      true,
    ],
    [
      'unknown host',
      { code: 'ENOTFOUND', syscall: 'getaddrinfo' },
      'ENOTFOUND: the proxy http://proxy.example:3128 (HTTPS_PROXY) not found (DNS)',
      true,
    ],
    [
      'unreachable',
      { code: 'EHOSTUNREACH', syscall: 'connect' },
      'EHOSTUNREACH: cannot reach the proxy http://proxy.example:3128 (HTTPS_PROXY)',
      false,
    ],
    [
      'tunnel refused',
      new Error('Proxy response (502) !== 200 when HTTP Tunneling'),
      'the proxy http://proxy.example:3128 (HTTPS_PROXY) refused the tunnel to https://api.example.test:8443 (HTTP 502)',
      false,
    ],
    [
      'credentials wanted',
      new Error('Proxy response (407) !== 200 when HTTP Tunneling'),
      'the proxy http://proxy.example:3128 (HTTPS_PROXY) asks for credentials (HTTP 407)',
      true,
    ],
  ])('%s names the proxy (never its userinfo) and says it is the proxy', (_n, cause, reason, wrongSetting) => {
    const d = describeConnectFailure(viaProxy(cause), url);
    expect(d?.reason).toBe(reason);
    expect(d?.likely).toBe(wrongSetting ? 'the proxy setting is most likely wrong' : undefined);
    expect(`${d?.reason} ${cli(d?.hint)}`).not.toContain('s3cret');
    expect(d?.reason).not.toContain('user');
    expect(cli(d?.hint)).toContain('HTTPS_PROXY');
  });

  it("a reset through the proxy is left to the short description; a TLS failure is the origin's", () => {
    expect(describeConnectFailure(viaProxy({ code: 'ECONNRESET', syscall: 'read' }), url)).toBeUndefined();
    expect(describeConnectFailure(viaProxy({ code: 'ERR_SSL_WRONG_VERSION_NUMBER' }), url)?.reason).toMatch(
      /^https:\/\/api\.example\.test:8443 does not speak TLS/,
    );
  });
});

describe('waitBeforeRetry with a connect failure', () => {
  it('gives up with exit 6, the reason and the hint once the retries are spent', async () => {
    const clock = createVirtualClock(0);
    const failure = new RetryableFailure('ECONNREFUSED: connection refused by http://127.0.0.1:9', { hint: ['check base-url'] });
    const policy = { retries: 0, maxWaitMs: Infinity, random: () => 0, clock, serverClock: new ServerClock(), emit: () => undefined };
    const err = await waitBeforeRetry(failure, { retry: 0, path: '/entities' }, policy).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiUnavailableError);
    expect((err as ApiUnavailableError).exitCode).toBe(6);
    expect((err as ApiUnavailableError).message).toBe(
      'the API could not be read (GET /entities): ECONNREFUSED: connection refused by http://127.0.0.1:9',
    );
    expect((err as ApiUnavailableError).hint).toBe('check base-url');
  });
});

describe('describeNetworkError', () => {
  it.each([
    ['a code on the error', Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'ECONNREFUSED'],
    [
      'a code on the cause (undici fetch failed)',
      new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) }),
      'UND_ERR_SOCKET',
    ],
    ['a plain object with a code (nock replyWithError)', { code: 'ECONNRESET' }, 'ECONNRESET'],
    ['the innermost message', new TypeError('terminated', { cause: new Error('socket hang up') }), 'socket hang up'],
    ['something else', 42, 'network error'],
  ])('%s', (_n, err, expected) => {
    expect(describeNetworkError(err)).toBe(expected);
  });
});
