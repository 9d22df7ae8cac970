/**
 * The HTTP client of the Collection API, HTTP only (nothing of Hydra or pages): one GET's attempts
 * with their rate-limit waits and retries, and what a status means (README, "Exit codes"). Hot
 * path: a page (~1 MB) is read as text once and handed to the caller's `parse` once.
 */
import type { FetchLike } from '../context.js';
import { ApiUnavailableError, HttpError, RateLimitError, type HttpErrorDetails } from '../errors.js';
import type { Clock } from '../time/clock.js';
import { DEFAULT_MAX_BODY_BYTES } from './body.js';
import type { ClientEvent } from './events.js';
import { createExchanger, pathOf, type Exchanger, type HttpExchange } from './exchange.js';
import { clampTimerMs, clientBudgetOf, createWaitLedger, decideWait, describeTooLong } from '../rate/index.js';
import type { ClientBudget, RateBudget, RateLimitSnapshot, WaitCut, WaitLedger } from '../rate/index.js';
import { assertSameOrigin } from './origin.js';
import { createRequestHeaders } from './request-headers.js';
import { DEFAULT_RETRIES, RetryableFailure, waitBeforeRetry, type OriginContact, type RetryPolicy } from './retry.js';

export type { ClientEvent } from './events.js';
export type { RateLimitSnapshot } from '../rate/index.js';

/**
 * A 2xx body the caller could not use (invalid JSON, HTML, not the expected document), thrown by
 * `parse`: retried like a 5xx, so the caller never sees a half-read page.
 */
export class UnreadableBodyError extends RetryableFailure {
  /** @param reason short and free of secrets, e.g. `invalid JSON`: the `retry` event's reason */
  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(reason, options);
    this.name = 'UnreadableBodyError';
  }
}

export interface ClientOptions {
  /** Its origin is the only one requests and the key may go to. */
  baseUrl: URL;
  /** Sent as `X-Api-Key`; never logged, never in errors. */
  apiKey: string;
  fetch: FetchLike;
  clock: Clock;
  /** Uniform [0, 1) for the backoff's jitter (default Math.random). */
  random?: () => number;
  /** Default 5. */
  retries?: number;
  /** Per attempt, ms (default 60 000): a deadline for the headers and the whole body. */
  timeoutMs?: number;
  /** bytes, after decompression (default 256 MiB) */
  maxBodyBytes?: number;
  /** Longest single rate-limit wait accepted, ms (default Infinity); longer → RateLimitError. */
  maxWaitMs?: number;
  /** `X-Api-Key` and `Accept` cannot be replaced. */
  headers?: Record<string, string>;
  secrets?: { redact(text: string): string };
  onEvent?: (event: ClientEvent) => void;
  /** Told when a `wait` event's wait was not waited in full: its requests were aborted. */
  onWaitCut?: (cut: WaitCut) => void;
  /** Aborts waits and requests in flight (SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Clients with the same origin and key share their windows; none: this client alone. */
  budget?: RateBudget;
}

export interface ResponseInfo {
  /** After same-origin redirects. */
  url: URL;
  status: number;
  requestId?: string;
  rateLimit?: RateLimitSnapshot;
}

export interface ResponseHead {
  url: URL;
  status: number;
  headers: Headers;
  requestId?: string;
  /** local epoch ms */
  receivedAt: number;
  /** The text holds the bytes, one code unit each (asked with {@link GetOptions.bytes}). */
  byteText?: true;
}

/** Throw {@link UnreadableBodyError} to have the attempt retried; any other error ends the request. */
export type BodyParser<T> = (text: string, response: ResponseHead) => T;

export interface GetOptions<T> {
  /** Cannot replace `X-Api-Key` or `Accept`. */
  headers?: Record<string, string>;
  /** Aborts this request and its waits only, e.g. when a consumer of concurrent pages stops. */
  signal?: AbortSignal;
  /** Requests the caller will still make to this endpoint after this one, when known. */
  demand?: number;
  /** Default: the body is the text. */
  parse?: BodyParser<T>;
  /** Read the body as a byte text when it is valid UTF-8 without a BOM. */
  bytes?: boolean;
}

export interface ClientResponse<T> extends ResponseInfo {
  headers: Headers;
  /** Exactly as received (decoded as UTF-8, or a byte text). */
  text: string;
  /** local epoch ms */
  receivedAt: number;
  body: T;
}

/** A quota probe's answer (`ratelimit`): any status, never waited on. */
export interface ProbeResult extends ResponseInfo {
  /** Key redacted. */
  serverMessage?: string;
}

export interface Client {
  /**
   * GETs `url` (`Accept: application/ld+json`, `X-Api-Key`, plus headers), waiting out rate limits
   * and retrying network errors, timeouts, 5xx and unreadable bodies as configured.
   * @throws {HttpError} 400/401/403/404/other 4xx; {@link ApiUnavailableError} after retries;
   *   {@link RateLimitError} for a wait over maxWait or 5 429s in a row; {@link UnsafeLinkError}
   *   for a URL or redirect to another origin; {@link HostileResponseError} for a body over
   *   `maxBodyBytes` (or what `parse` throws of it); the signal's reason when aborted
   */
  get<T = string>(url: URL, options?: GetOptions<T>): Promise<ClientResponse<T>>;
  /** One request, no rate-limit wait, no retry on 429; for `ratelimit`. */
  probe(url: URL, headers?: Record<string, string>): Promise<ProbeResult>;
  /** Every attempt and redirect hop so far. */
  readonly requests: number;
}

/** ms (README, `--timeout`) */
const DEFAULT_TIMEOUT_MS = 60_000;
/** Consecutive 429s of one request after which the client gives up. */
export const MAX_RATE_LIMITED_ATTEMPTS = 5;

interface Session {
  baseUrl: URL;
  clock: Clock;
  maxWaitMs: number;
  waits: WaitLedger<ClientEvent>;
  budget: ClientBudget;
  exchanger: Exchanger;
  headersFor: (extra?: Record<string, string>) => Record<string, string>;
  signal: AbortSignal | undefined;
  policy: RetryPolicy;
}

/** @throws {UsageError} when the API key holds characters not allowed in an HTTP header */
export function createClient(options: ClientOptions): Client {
  const { baseUrl, apiKey, fetch, clock } = options;
  const headersFor = createRequestHeaders(apiKey, options.headers);
  const random = options.random ?? Math.random;
  const [retries, timeoutMs] = [Math.max(0, Math.floor(options.retries ?? DEFAULT_RETRIES)), options.timeoutMs ?? DEFAULT_TIMEOUT_MS];
  const maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
  const waits = createWaitLedger<ClientEvent>(clock, options.onEvent ?? ((): void => undefined), options.onWaitCut ?? ((): void => undefined));
  const emit = waits.emit;
  const budget = clientBudgetOf(options.budget, { origin: baseUrl.origin, apiKey, clock, maxWaitMs, onWait: (w) => emit({ type: 'wait', ...w }) });
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const contact = options.budget?.share<OriginContact>(`contact ${baseUrl.origin}`, () => ({ answered: false })) ?? { answered: false };
  const exchanger = createExchanger({ baseUrl, apiKey, secrets: options.secrets, fetch, clock, timeoutMs, maxBodyBytes, budget, contact, emit });
  const policy: RetryPolicy = { retries, maxWaitMs, random, clock, serverClock: budget.serverClock, emit };
  const session: Session = { baseUrl, clock, maxWaitMs, waits, budget, exchanger, headersFor, signal: options.signal, policy };
  return {
    get: (url, call) => getWithRetries(session, url, call),
    probe: (url, extra) => probeOnce(session, url, extra),
    get requests() {
      return exchanger.requests;
    },
  };
}

const combine = (s: AbortSignal[]): AbortSignal | undefined => (s.length <= 1 ? s[0] : AbortSignal.any(s));

async function getWithRetries<T>(s: Session, url: URL, call: GetOptions<T> = {}): Promise<ClientResponse<T>> {
  assertSameOrigin(url, s.baseUrl, 'a request');
  const headers = s.headersFor(call.headers);
  const signal = combine([s.signal, call.signal].filter((x) => x !== undefined));
  const parse: BodyParser<T> = call.parse ?? ((text) => text as unknown as T);
  const demand = call.demand !== undefined ? { demand: call.demand } : {};
  let [retry, limited, afterWait] = [0, 0, false];
  for (;;) {
    let x: HttpExchange | undefined;
    try {
      x = await s.exchanger.send(url, headers, { signal, pace: true, afterWait, body: call.bytes === true ? 'bytes' : 'text', ...demand });
      afterWait = false;
      if (x.status >= 200 && x.status < 300) return respond(x, parse);
      if (x.status !== 429) throw failureOf(x);
      limited++;
      await waitOutRateLimit(s, x, limited, signal);
      afterWait = true;
    } catch (err) {
      // Aborted: a wait announced and not over was not taken in full.
      if (signal?.aborted === true) s.waits.cut();
      const attempt = { retry, path: pathOf(x?.url ?? url), signal, ...(x?.requestId !== undefined ? { requestId: x.requestId } : {}) };
      await waitBeforeRetry(err, attempt, s.policy);
      retry++;
    }
  }
}

function respond<T>(x: HttpExchange, parse: BodyParser<T>): ClientResponse<T> {
  const text = x.text ?? '';
  const head: ResponseHead = { url: x.url, status: x.status, headers: x.headers, receivedAt: x.receivedAt };
  if (x.requestId !== undefined) head.requestId = x.requestId;
  if (x.byteText) head.byteText = true;
  const body = parse(text, head);
  const res: ClientResponse<T> = { url: x.url, status: x.status, headers: x.headers, text, receivedAt: x.receivedAt, body };
  if (x.requestId !== undefined) res.requestId = x.requestId;
  if (x.rateLimit !== undefined) res.rateLimit = x.rateLimit;
  return res;
}

/** A status that is neither 2xx nor 429: a 5xx is retried (honouring its `Retry-After`), the rest fail. */
function failureOf(x: HttpExchange): RetryableFailure | HttpError {
  const { status, serverMessage, requestId } = x;
  if (status >= 500 && status < 600) {
    return new RetryableFailure(`HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`, {
      ...(requestId === undefined ? {} : { requestId }),
      response: { headers: x.rateLimitHeaders, receivedAt: x.receivedAt },
    });
  }
  const details: HttpErrorDetails = { method: 'GET', path: pathOf(x.url), status };
  if (serverMessage !== undefined) details.serverMessage = serverMessage;
  if (requestId !== undefined) details.requestId = requestId;
  return new HttpError(details);
}

/**
 * A 429: holds the endpoint until the reset by the server's clock and sleeps; waits are not retries.
 * @param limited 429s in a row of this request, this one included
 * @throws {RateLimitError} (exit 5) after {@link MAX_RATE_LIMITED_ATTEMPTS} 429s in a row, or when
 *   the wait exceeds `--max-wait` (without waiting)
 */
async function waitOutRateLimit(s: Session, x: HttpExchange, limited: number, signal: AbortSignal | undefined): Promise<void> {
  const rl = x.rateLimitHeaders;
  const decision = decideWait({
    kind: '429',
    response: { headers: rl, receivedAt: x.receivedAt },
    attempt: limited,
    now: s.clock.now(),
    serverClock: s.budget.serverClock,
    maxWaitMs: s.maxWaitMs,
  });
  const path = pathOf(x.url);
  if (limited >= MAX_RATE_LIMITED_ATTEMPTS) {
    throw new RateLimitError(
      `rate limited ${limited} times in a row (GET ${path}: HTTP 429)${x.serverMessage ? `: ${x.serverMessage}` : ''}`,
      decision.until,
      { hint: 'another client may be using the same API key; try again later', code: 'E_RATE_LIMIT_REPEATED' },
    );
  }
  if (decision.tooLong) {
    throw new RateLimitError(
      `rate limited (GET ${path}: HTTP 429); the limit resets in ${describeTooLong(decision.neededMs, s.maxWaitMs)}`,
      decision.until,
      { hint: 'raise --max-wait, or run again after the reset' },
    );
  }
  s.budget.holdUntil(x.url, decision.until);
  const reason = decision.reason === 'retry-after' ? 'retry-after' : 'rate-limit';
  const wait: ClientEvent = { type: 'wait', reason, ms: decision.ms, until: decision.until };
  if (rl.limit !== undefined) wait.limit = rl.limit;
  wait.remaining = rl.remaining ?? 0;
  s.waits.emit(wait);
  await s.clock.sleep(clampTimerMs(decision.ms), signal);
}

async function probeOnce(s: Session, url: URL, extra: Record<string, string> | undefined): Promise<ProbeResult> {
  assertSameOrigin(url, s.baseUrl, 'a request');
  const headers = s.headersFor(extra);
  let x: HttpExchange;
  try {
    x = await s.exchanger.send(url, headers, { signal: s.signal, pace: false, afterWait: false, body: 'discard' });
  } catch (err) {
    if (err instanceof RetryableFailure) {
      throw new ApiUnavailableError(`the API could not be read (GET ${pathOf(url)}): ${err.reason}`, {
        cause: err,
        ...(err.hint === undefined ? {} : { hint: err.hint }),
      });
    }
    throw err;
  }
  const result: ProbeResult = { url: x.url, status: x.status };
  if (x.requestId !== undefined) result.requestId = x.requestId;
  if (x.rateLimit !== undefined) result.rateLimit = x.rateLimit;
  if (x.serverMessage !== undefined) result.serverMessage = x.serverMessage;
  return result;
}
