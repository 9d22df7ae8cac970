/**
 * The retry policy for GETs (docs/rate-limits.md, "Rate limits, retries and safety": retries): exponential
 * backoff with full jitter ("Exponential Backoff And Jitter", AWS Architecture Blog, 2015), base
 * 1 s, cap 30 s; what counts as retryable ({@link RetryableFailure}); the description of what
 * failed for events and the final error; and {@link waitBeforeRetry}, the step between attempts.
 */
import { ApiUnavailableError } from '../errors.js';
import type { Clock } from '../time/clock.js';
import type { ClientEventSink } from './events.js';
import { decideWait, describeTooLong, type ReceivedResponse, type ServerClock } from '../rate/index.js';
import { ProxyFailure } from './proxy.js';

/** Default number of retries after a failed attempt (README, `--retries`). */
export const DEFAULT_RETRIES = 5;
/** Backoff base, ms. */
const BACKOFF_BASE_MS = 1000;
/** Backoff cap, ms. */
const BACKOFF_CAP_MS = 30_000;

/** Options of {@link backoffDelayMs}. */
export interface BackoffOptions {
  /** Base delay, ms (default {@link BACKOFF_BASE_MS}). */
  baseMs?: number;
  /** Largest delay, ms (default {@link BACKOFF_CAP_MS}). */
  capMs?: number;
}

/**
 * Full-jitter backoff: a uniform delay in `[0, min(cap, base · 2^retry))` ms. Full jitter spreads
 * clients that failed together, so they do not come back together.
 * @param retry 0 for the first retry
 * @param random uniform in [0, 1) (injected; seeded in tests)
 */
export function backoffDelayMs(retry: number, random: () => number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? BACKOFF_BASE_MS;
  const cap = options.capMs ?? BACKOFF_CAP_MS;
  const ceiling = Math.min(cap, base * 2 ** Math.min(Math.max(0, retry), 30));
  const r = random();
  const u = r >= 0 && r < 1 ? r : 0;
  return Math.floor(u * ceiling);
}

/**
 * A failed attempt worth retrying: a network error, a timeout, a 5xx, a truncated or unparseable
 * body, or a 200 that is not a collection. `reason` is short and free of secrets (e.g. `HTTP 503`,
 * `ECONNRESET`, `invalid JSON`).
 */
export class RetryableFailure extends Error {
  /** Short description for `retry` events and the final error. */
  readonly reason: string;
  /** `X-Request-ID` of the failed response, when there was one. */
  readonly requestId: string | undefined;
  /**
   * The 5xx response, when its `Retry-After` (RFC 9110 §10.2.3: how long the service expects to be
   * unavailable) should set the least delay before the retry.
   */
  readonly response: ReceivedResponse | undefined;
  /** What to check when the retries run out (e.g. the base URL after a refused connection). */
  readonly hint: string | undefined;

  constructor(reason: string, options: { cause?: unknown; requestId?: string; response?: ReceivedResponse; hint?: string } = {}) {
    super(reason, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RetryableFailure';
    this.reason = reason;
    this.requestId = options.requestId;
    this.response = options.response;
    this.hint = options.hint;
  }
}

/**
 * A 2xx body the caller could not use (invalid JSON, HTML, not the expected document). Thrown by
 * the `parse` callback given to `Client.get`; the client retries it like any other
 * {@link RetryableFailure}, and the caller never sees a half-read page.
 */
export class UnreadableBodyError extends RetryableFailure {
  /**
   * @param reason short and free of secrets, e.g. `invalid JSON`; becomes the `retry` event's reason
   * @param options.cause the parser's error
   */
  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(reason, options);
    this.name = 'UnreadableBodyError';
  }
}

/** Error codes (from Node's net and undici) worth naming as they are. */
function findCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Describes a fetch rejection or a failed body read in a few words: the error code found along the
 * `cause` chain (`ECONNRESET`, `ECONNREFUSED`, `UND_ERR_SOCKET`…), else the innermost message.
 * The caller redacts the key from it.
 */
export function describeNetworkError(err: unknown): string {
  const code = findCode(err);
  if (code !== undefined) return code;
  let e: unknown = err;
  let message = 'network error';
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e.message) message = e.message;
    e = e.cause;
  }
  return message;
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
    return { reason: `${proxy} asks for credentials (HTTP 407)`, hint: `give them in ${p.variable} as http://user:password@host:port`, likely: WRONG_PROXY };
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
    return { reason: `${code}: host ${url.hostname} ${what}`, hint: `${BASE_URL_HINT}; is the host name right?`, likely: code === 'ENOTFOUND' ? WRONG_BASE_URL : undefined };
  }
  const words = connectWords(code, syscall);
  if (words === undefined) return undefined;
  return {
    reason: `${code}: ${words} ${url.origin}`,
    hint: `${BASE_URL_HINT}; to try the tool locally, run \`collections sandbox\` and use the base URL it prints`,
    likely: code === 'ECONNREFUSED' ? WRONG_BASE_URL : undefined,
  };
}

/** What {@link waitBeforeRetry} needs from the client. */
export interface RetryPolicy {
  /** Retries allowed per request (`--retries`). */
  retries: number;
  /** Longest wait accepted, ms (`--max-wait`). */
  maxWaitMs: number;
  /** Uniform [0, 1) for the jitter. */
  random: () => number;
  clock: Clock;
  serverClock: ServerClock;
  emit: ClientEventSink;
}

/** The attempt that failed. */
export interface FailedAttempt {
  /** Retries made so far for this request (0 after the first attempt). */
  retry: number;
  /** Path and query of the URL that failed, for the message. */
  path: string;
  /** `X-Request-ID` of its response, when it got one. */
  requestId?: string;
  /** Aborts the backoff sleep. */
  signal?: AbortSignal;
}

/**
 * Between two attempts of one GET: rethrows what is not a {@link RetryableFailure}; gives up when
 * the retries are spent or the server asks for a wait over `--max-wait`; else emits a `retry`
 * event and sleeps the backoff ({@link decideWait}, kind `retry`).
 * @throws {ApiUnavailableError} (exit 6) `the API could not be read (GET <path>): <reason>…`
 *   naming the retries made and the last request id, or the `Retry-After` over `--max-wait`
 * @throws the error itself when it is not retryable; the signal's reason when aborted
 */
export async function waitBeforeRetry(err: unknown, attempt: FailedAttempt, policy: RetryPolicy): Promise<void> {
  if (!(err instanceof RetryableFailure)) throw err;
  const { retries, maxWaitMs } = policy;
  const { retry, path } = attempt;
  if (retry >= retries) {
    const id = err.requestId ?? attempt.requestId;
    const after = retries > 0 ? ` (after ${retries} ${retries === 1 ? 'retry' : 'retries'})` : '';
    throw new ApiUnavailableError(`the API could not be read (GET ${path}): ${err.reason}${after}${id ? ` [X-Request-ID: ${id}]` : ''}`, {
      cause: err,
      ...(err.hint === undefined ? {} : { hint: err.hint }),
    });
  }
  // A 5xx's Retry-After is a minimum: retrying sooner only meets the same outage (got and
  // urllib3 honour it on 503 as well).
  const decision = decideWait({
    kind: 'retry',
    now: policy.clock.now(),
    serverClock: policy.serverClock,
    maxWaitMs,
    ...(err.response === undefined ? {} : { response: err.response }),
    backoffMs: () => backoffDelayMs(retry, policy.random),
  });
  if (decision.tooLong) {
    throw new ApiUnavailableError(
      `the API could not be read (GET ${path}): ${err.reason}; it asks to retry in ${describeTooLong(decision.neededMs, maxWaitMs)}`,
      {
        cause: err,
        hint: 'raise --max-wait, or run again later',
      },
    );
  }
  policy.emit({ type: 'retry', attempt: retry + 1, delayMs: decision.ms, reason: err.reason });
  await policy.clock.sleep(decision.ms, attempt.signal);
}
