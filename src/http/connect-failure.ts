/**
 * Why an attempt failed, in words (README, "Exit codes"): a timeout, a connection never made (the
 * origin's or the proxy's: refused, unknown host, blocked port, no TLS), or another network error;
 * and the first-contact rule: a failure that says the URL is wrong, before the origin has answered
 * in this run, ends the run at once instead of being retried.
 */
import { ApiUnavailableError, CollectionsError } from '../errors.js';
import { abortReason } from '../time/clock.js';
import { ProxyFailure } from './proxy.js';
import { describeNetworkError, RetryableFailure } from './retry.js';

/** A timeout for a message: `250 ms` below a second (never `0.0 s`), else `1.5 s`. */
function formatTimeout(ms: number): string {
  if (ms < 1000) return `${Math.round(ms * 10) / 10} ms`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Whether the origin has answered in this run (any response, any status, or a connection that broke
 * after it was made), shared by the clients of one process (`RateBudget.share`): before it has, a
 * failure that says the URL is wrong ends the run at once instead of being retried (README, "Exit codes").
 */
export interface OriginContact {
  answered: boolean;
}

/** What {@link attemptFailure} needs of the exchange. */
export interface AttemptContext {
  /** Removes the key and the run's other secrets from a message. */
  redact: (text: string) => string;
  /** Per-attempt timeout, ms. */
  timeoutMs: number;
  contact: OriginContact;
}

/** Connect failures: the origin does not answer (or nothing listens there). `ETIMEDOUT` counts only on connect. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
/** Name resolution failures (getaddrinfo): the host name is unknown, or DNS did not answer. */
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN']);

/** The first error along the `cause` chain (and the first of an `AggregateError`) with a string code. */
function findCoded(err: unknown): { code: string; syscall?: unknown } | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && typeof e === 'object' && e !== null; depth++) {
    const { code, syscall, errors } = e as { code?: unknown; syscall?: unknown; errors?: unknown };
    if (typeof code === 'string' && code.length > 0) return { code, syscall };
    e = Array.isArray(errors) && errors.length > 0 ? errors[0] : (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether fetch refused the URL's port before connecting: the Fetch standard's "bad port" list
 * (https://fetch.spec.whatwg.org/#port-blocking: 1, 7, 9, 21, 25, 6000…), which undici reports as
 * `TypeError('fetch failed')` caused by `Error('bad port')`, with no code.
 */
function isBadPort(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e.message === 'bad port') return true;
    e = e.cause;
  }
  return false;
}

/** A first-contact failure described for a person: what happened, and what to check. */
export interface ConnectFailure {
  /** E.g. `ECONNREFUSED: connection refused by http://127.0.0.1:9`, `ENOTFOUND: host api.exampel.com not found (DNS)`. */
  reason: string;
  /** What to check: the `base-url` setting (and `collections sandbox` for local tries), or the proxy variable. */
  hint: string;
  /**
   * What is most likely wrong when the origin never answered in this run: a failure that says the
   * setting is wrong (refused, unknown host, blocked port, no TLS, proxy credentials); undefined
   * for one that may pass (unreachable network, DNS or connect timeout), which is retried.
   */
  likely: string | undefined;
}

const BASE_URL_HINT = 'check base-url (`collections config get base-url`, --base-url or COLLECTIONS_BASE_URL)';
const WRONG_BASE_URL = 'the base URL is most likely wrong';
const WRONG_PROXY = 'the proxy setting is most likely wrong';

/** OpenSSL's codes for a TLS handshake answered in plain text: an http server at an https URL. */
const PLAIN_TEXT_TLS_CODES = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG']);

/** What a connect or name-resolution code means, or undefined for another code. */
function connectWords(code: string, syscall: unknown): string | undefined {
  if (code === 'ECONNREFUSED') return 'connection refused by';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || (code === 'ETIMEDOUT' && syscall === 'connect')) return 'no answer from';
  return CONNECT_CODES.has(code) ? 'cannot reach' : undefined;
}

/** The status a proxy answered `CONNECT` with, from undici's `Proxy response (N) !== 200 when HTTP Tunneling`. */
function tunnelStatus(err: unknown): number | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    const m = /^Proxy response \((\d{3})\)/.exec(e.message);
    if (m !== null) return Number(m[1]);
    e = e.cause;
  }
  return undefined;
}

/** A failure at the proxy (connect, DNS, or a refused tunnel), named as the proxy's; undefined for any other. */
function describeProxyFailure(p: ProxyFailure, url: URL): ConnectFailure | undefined {
  const proxy = `the proxy ${p.proxy} (${p.variable})`;
  const hint = `check ${p.variable}, or list ${url.hostname} in NO_PROXY to go direct`;
  const status = tunnelStatus(p);
  if (status === 407) {
    return {
      reason: `${proxy} asks for credentials (HTTP 407)`,
      hint: `give them in ${p.variable} as http://user:password@host:port`,
      likely: WRONG_PROXY,
    };
  }
  if (status !== undefined) return { reason: `${proxy} refused the tunnel to ${url.origin} (HTTP ${status})`, hint, likely: undefined };
  const found = findCoded(p.cause);
  if (found === undefined) return undefined;
  if (DNS_CODES.has(found.code)) {
    return { reason: `${found.code}: ${proxy} not found (DNS)`, hint, likely: found.code === 'ENOTFOUND' ? WRONG_PROXY : undefined };
  }
  const words = connectWords(found.code, found.syscall);
  if (words === undefined) return undefined;
  return { reason: `${found.code}: ${words} ${proxy}`, hint, likely: found.code === 'ECONNREFUSED' ? WRONG_PROXY : undefined };
}

/**
 * Describes a fetch rejection that never reached the server: a refused, unreachable or timed-out
 * connection (`ECONNREFUSED`, `EHOSTUNREACH`, `ENETUNREACH`, `ETIMEDOUT` of `connect`, undici's
 * `UND_ERR_CONNECT_TIMEOUT`) names the URL's origin, or the proxy's when it failed at the proxy
 * (a {@link ProxyFailure}); a name resolution failure (`ENOTFOUND`, `EAI_AGAIN` of getaddrinfo)
 * names the host; a port fetch blocks (undici's `bad port`) names the port; a TLS handshake
 * answered in plain text says the server does not speak TLS.
 * @param url the URL requested (only its origin or host is quoted, never its path or query)
 * @returns undefined for any other failure (e.g. `ECONNRESET` after the connection was made)
 */
export function describeConnectFailure(err: unknown, url: URL): ConnectFailure | undefined {
  if (isBadPort(err)) {
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return {
      reason: `bad port: fetch never connects to port ${port} of ${url.origin} (a port the Fetch standard blocks, like a refused connection)`,
      hint: `${BASE_URL_HINT}; the API listens on another port`,
      likely: WRONG_BASE_URL,
    };
  }
  const found = findCoded(err);
  if (found !== undefined && PLAIN_TEXT_TLS_CODES.has(found.code)) {
    return {
      reason: `${url.origin} does not speak TLS (${found.code}: its answer to the handshake was plain text)`,
      hint: `if it is an http server, use http://${url.host} as base-url; ${BASE_URL_HINT}`,
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
      hint: `${BASE_URL_HINT}; is the host name right?`,
      likely: code === 'ENOTFOUND' ? WRONG_BASE_URL : undefined,
    };
  }
  const words = connectWords(code, syscall);
  if (words === undefined) return undefined;
  return {
    reason: `${code}: ${words} ${url.origin}`,
    hint: `${BASE_URL_HINT}; to try the tool locally, run \`collections sandbox\` and use the base URL it prints`,
    likely: code === 'ECONNREFUSED' ? WRONG_BASE_URL : undefined,
  };
}

/**
 * Why an attempt failed: the caller's abort as it is; a connection never made names `url`'s origin
 * or the proxy ({@link describeConnectFailure}), and ends the run at once when it says the setting is wrong and the
 * origin has not answered in this run (a wrong URL, not an outage).
 */
export function attemptFailure(
  options: AttemptContext,
  err: unknown,
  caller: AbortSignal | undefined,
  timeout: AbortSignal,
  what: string,
  url?: URL,
): unknown {
  if (caller?.aborted) return abortReason(caller);
  // A bound of body.ts or the transport (HostileResponseError), or a bad proxy setting: not retried.
  if (err instanceof CollectionsError) return err;
  if (timeout.aborted) return new RetryableFailure(`timeout after ${formatTimeout(options.timeoutMs)}${what}`, { cause: err });
  const connect = url === undefined ? undefined : describeConnectFailure(err, url);
  if (connect !== undefined && connect.likely !== undefined && !options.contact.answered) {
    const message = `${connect.reason}, before the API answered anything in this run: ${connect.likely}`;
    return new ApiUnavailableError(options.redact(message), { cause: err, hint: connect.hint });
  }
  if (connect !== undefined) return new RetryableFailure(options.redact(connect.reason), { cause: err, hint: connect.hint });
  const proxy = err instanceof ProxyFailure ? ` (through the proxy ${err.proxy})` : '';
  // A connection reset or broken after it was made: something listens there, so the URL is not the mistake.
  if (proxy === '') options.contact.answered = true;
  return new RetryableFailure(options.redact(describeNetworkError(err)) + what + proxy, { cause: err });
}
