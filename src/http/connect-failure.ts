// A fetch rejection that never reached the server, in words: the code along its `cause` chain, and
// for a connection never made, which setting (base URL or proxy) is most likely wrong.
import { hint, type Hint, type StepTerm } from '../errors.js';
import { ProxyFailure } from './proxy.js';

function* causes(err: unknown, depth = 5): Generator<Error> {
  let e: unknown = err;
  for (let i = 0; i < depth && e instanceof Error; i++) {
    yield e;
    e = e.cause;
  }
}

/** The first object along the `cause` chain (and the first of an `AggregateError`'s) with a string code. */
function findCoded(err: unknown): { code: string; syscall?: unknown } | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && typeof e === 'object' && e !== null; depth++) {
    const { code, syscall, errors } = e as { code?: unknown; syscall?: unknown; errors?: unknown };
    if (typeof code === 'string' && code.length > 0) return { code, syscall };
    e = Array.isArray(errors) && errors.length > 0 ? errors[0] : (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The code found along the `cause` chain (`ECONNRESET`, `UND_ERR_SOCKET`…), else the innermost message; not yet redacted. */
export function describeNetworkError(err: unknown): string {
  const code = findCoded(err)?.code;
  if (code !== undefined) return code;
  let message = 'network error';
  for (const e of causes(err)) if (e.message) message = e.message;
  return message;
}

/** `ETIMEDOUT` counts only on connect. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN']);
/** OpenSSL's codes for a TLS handshake answered in plain text: an http server at an https URL. */
const PLAIN_TEXT_TLS_CODES = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);

export interface ConnectFailure {
  reason: string;
  hint: Hint;
  /** Set when the failure says the setting is wrong (refused, unknown host, blocked port, no TLS); undefined when it may pass and is retried. */
  likely: string | undefined;
}

const CHECK_BASE_URL: StepTerm = { step: 'checkBaseUrl' };
const WRONG_BASE_URL = 'the base URL is most likely wrong';
const WRONG_PROXY = 'the proxy setting is most likely wrong';

function connectWords(code: string, syscall: unknown): string | undefined {
  if (code === 'ECONNREFUSED') return 'connection refused by';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || (code === 'ETIMEDOUT' && syscall === 'connect')) return 'no answer from';
  return CONNECT_CODES.has(code) ? 'cannot reach' : undefined;
}

/** From undici's `Proxy response (N) !== 200 when HTTP Tunneling`. */
function tunnelStatus(err: unknown): number | undefined {
  for (const e of causes(err)) {
    const m = /^Proxy response \((\d{3})\)/.exec(e.message);
    if (m !== null) return Number(m[1]);
  }
  return undefined;
}

function describeProxyFailure(p: ProxyFailure, url: URL): ConnectFailure | undefined {
  const proxy = `the proxy ${p.proxy} (${p.variable})`;
  const advice = [`check ${p.variable}, or list ${url.hostname} in NO_PROXY to go direct`];
  const status = tunnelStatus(p);
  if (status === 407) {
    return {
      reason: `${proxy} asks for credentials (HTTP 407)`,
      hint: [`give them in ${p.variable} as http://user:password@host:port`],
      likely: WRONG_PROXY,
    };
  }
  if (status !== undefined) return { reason: `${proxy} refused the tunnel to ${url.origin} (HTTP ${status})`, hint: advice, likely: undefined };
  const found = findCoded(p.cause);
  if (found === undefined) return undefined;
  if (DNS_CODES.has(found.code)) {
    return { reason: `${found.code}: ${proxy} not found (DNS)`, hint: advice, likely: found.code === 'ENOTFOUND' ? WRONG_PROXY : undefined };
  }
  const words = connectWords(found.code, found.syscall);
  if (words === undefined) return undefined;
  return { reason: `${found.code}: ${words} ${proxy}`, hint: advice, likely: found.code === 'ECONNREFUSED' ? WRONG_PROXY : undefined };
}

/**
 * A fetch rejection that never reached the server: a connection refused, unreachable or timed out
 * names the origin (or the proxy), a name resolution failure the host, a port fetch blocks the
 * port, a TLS handshake answered in plain text says so. Only the URL's origin or host is quoted.
 * @returns undefined for any other failure (e.g. `ECONNRESET` after the connection was made)
 */
export function describeConnectFailure(err: unknown, url: URL): ConnectFailure | undefined {
  // The Fetch standard's blocked ports (https://fetch.spec.whatwg.org/#port-blocking): undici
  // rejects with `TypeError('fetch failed')` caused by `Error('bad port')`, with no code.
  if ([...causes(err)].some((e) => e.message === 'bad port')) {
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return {
      reason: `bad port: fetch never connects to port ${port} of ${url.origin} (a port the Fetch standard blocks, like a refused connection)`,
      hint: hint`${CHECK_BASE_URL}; the API listens on another port`,
      likely: WRONG_BASE_URL,
    };
  }
  const found = findCoded(err);
  if (found !== undefined && PLAIN_TEXT_TLS_CODES.has(found.code)) {
    return {
      reason: `${url.origin} does not speak TLS (${found.code}: its answer to the handshake was plain text)`,
      hint: hint`if it is an http server, ${{ step: 'useBaseUrl', url: `http://${url.host}` }}; ${CHECK_BASE_URL}`,
      likely: WRONG_BASE_URL,
    };
  }
  if (err instanceof ProxyFailure) return describeProxyFailure(err, url);
  if (found === undefined) return undefined;
  const { code, syscall } = found;
  if (DNS_CODES.has(code)) {
    const what = code === 'EAI_AGAIN' ? 'could not be resolved (DNS did not answer)' : 'not found (DNS)';
    return {
      reason: `${code}: host ${url.hostname} ${what}`,
      hint: hint`${CHECK_BASE_URL}; is the host name right?`,
      likely: code === 'ENOTFOUND' ? WRONG_BASE_URL : undefined,
    };
  }
  const words = connectWords(code, syscall);
  if (words === undefined) return undefined;
  return {
    reason: `${code}: ${words} ${url.origin}`,
    hint: hint`${CHECK_BASE_URL}; ${{ step: 'startSandbox' }}`,
    likely: code === 'ECONNREFUSED' ? WRONG_BASE_URL : undefined,
  };
}
