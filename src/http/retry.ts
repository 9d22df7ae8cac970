// Why an attempt failed, and whether and when it is retried: backoff with full jitter ("Exponential
// Backoff And Jitter", AWS Architecture Blog, 2015), and the first-contact rule: a failure that says
// the URL is wrong, before the origin has answered in this run, ends the run instead of a retry.
import { ApiUnavailableError, CollectionsError, hint, option, type Hint, type StepTerm } from '../errors.js';
import { abortReason, type Clock } from '../time/clock.js';
import type { ClientEventSink } from './events.js';
import { ProxyFailure } from './proxy.js';
import { decideWait, describeTooLong, type ReceivedResponse, type ServerClock } from '../rate/index.js';

export const DEFAULT_RETRIES = 5;
/** ms */
const BACKOFF_BASE_MS = 1000;
const BACKOFF_CAP_MS = 30_000;

/**
 * A uniform delay in `[0, min(cap, base · 2^retry))` ms: full jitter spreads clients that failed
 * together, so they do not come back together.
 * @param retry 0 for the first retry
 */
export function backoffDelayMs(retry: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(Math.max(0, retry), 30));
  const r = random();
  const u = r >= 0 && r < 1 ? r : 0;
  return Math.floor(u * ceiling);
}

/** A network error, a timeout, a 5xx or an unusable 2xx body. `reason` is short and free of secrets (`HTTP 503`, `ECONNRESET`). */
export class RetryableFailure extends Error {
  readonly reason: string;
  readonly requestId: string | undefined;
  /** A 5xx whose `Retry-After` (RFC 9110 §10.2.3) sets the least delay before the retry. */
  readonly response: ReceivedResponse | undefined;
  /** What to check when the retries run out (e.g. the base URL after a refused connection). */
  readonly hint: Hint | undefined;

  constructor(reason: string, options: { cause?: unknown; requestId?: string; response?: ReceivedResponse; hint?: Hint } = {}) {
    super(reason, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RetryableFailure';
    this.reason = reason;
    this.requestId = options.requestId;
    this.response = options.response;
    this.hint = options.hint;
  }
}

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

/** `250 ms` below a second (never `0.0 s`). */
function formatTimeout(ms: number): string {
  if (ms < 1000) return `${Math.round(ms * 10) / 10} ms`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Whether the origin has answered in this run (a response, or a connection that broke after it was made); shared by the process's clients. */
export interface OriginContact {
  answered: boolean;
}

export interface AttemptContext {
  redact: (text: string) => string;
  timeoutMs: number;
  contact: OriginContact;
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

/** The caller's abort as it is; a connection never made ends the run at once when it says the setting is wrong and the origin has not answered yet. */
export function attemptFailure(
  options: AttemptContext,
  err: unknown,
  caller: AbortSignal | undefined,
  timeout: AbortSignal,
  what: string,
  url?: URL,
): unknown {
  if (caller?.aborted) return abortReason(caller);
  // A bound of the body read or the transport (HostileResponseError), or a bad proxy setting: not retried.
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

export interface RetryPolicy {
  retries: number;
  /** `--max-wait`, ms */
  maxWaitMs: number;
  random: () => number;
  clock: Clock;
  serverClock: ServerClock;
  emit: ClientEventSink;
}

export interface FailedAttempt {
  /** Retries made so far for this request (0 after the first attempt). */
  retry: number;
  path: string;
  requestId?: string;
  signal?: AbortSignal;
}

/**
 * Between two attempts of one GET: rethrows what is not a {@link RetryableFailure}, else emits a
 * `retry` event and sleeps the backoff.
 * @throws {ApiUnavailableError} (exit 6) when the retries are spent or a `Retry-After` is over `--max-wait`
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
      { cause: err, hint: hint`raise ${option('maxWaitMs')}, or run again later` },
    );
  }
  policy.emit({ type: 'retry', attempt: retry + 1, delayMs: decision.ms, reason: err.reason });
  await policy.clock.sleep(decision.ms, attempt.signal);
}
