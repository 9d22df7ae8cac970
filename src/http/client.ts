// HTTP only (nothing of Hydra or pages): a GET's attempts, the rate-limit waits and retries between
// them, and what a status means. Hot path: a page (~1 MB) is read as text once and parsed once.
import type { FetchLike } from '../context.js';
import { HttpError, RateLimitError, hint, option } from '../errors.js';
import { defined } from '../json/object.js';
import type { Clock } from '../time/clock.js';
import { DEFAULT_MAX_BODY_BYTES } from './body.js';
import type { ClientEvent } from './events.js';
import { pathOf, send, type ExchangeSession, type HttpExchange } from './exchange.js';
import { clampTimerMs, clientBudgetOf, createWaitLedger, decideWait, describeTooLong } from '../rate/index.js';
import type { RateBudget, RateLimitSnapshot, WaitCut, WaitLedger } from '../rate/index.js';
import { assertSameOrigin } from './origin.js';
import { scrubberOf } from './redact.js';
import { createRequestHeaders } from './request-headers.js';
import { DEFAULT_RETRIES, RetryableFailure, unreadable, waitBeforeRetry, type OriginContact, type RetryPolicy } from './retry.js';

export type { ClientEvent } from './events.js';
export type { RateLimitSnapshot } from '../rate/index.js';

/** A 2xx body `parse` could not use (invalid JSON, HTML, not a collection): retried like a 5xx, so the caller never sees a half-read page. */
export class UnreadableBodyError extends RetryableFailure {
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
  /** Checked by the doors; `X-Api-Key` and `Accept` cannot be replaced. */
  headers?: Record<string, string>;
  secrets?: { redact(text: string): string };
  onEvent?: (event: ClientEvent) => void;
  /** Told when a `wait` event's wait was not waited in full: its requests were aborted. */
  onWaitCut?: (cut: WaitCut) => void;
  /** Aborts waits and requests in flight (SIGINT/SIGTERM). */
  signal?: AbortSignal;
  /** Clients with the same origin and key share their windows; none: this client alone. */
  budget?: RateBudget;
  /** `--budget`: a PostgreSQL URL whose shared rate budget this client's pool uses (with {@link ClientOptions.budget}). */
  budgetUrl?: string;
}

export interface ResponseInfo {
  /** After same-origin redirects. */
  url: URL;
  status: number;
  requestId?: string;
  rateLimit?: RateLimitSnapshot;
}

export type ResponseHead = Pick<ClientResponse<unknown>, 'url' | 'status' | 'headers' | 'requestId' | 'receivedAt'> & {
  /** The text holds the bytes, one code unit each (a body valid as UTF-8 without a BOM). */
  byteText?: boolean;
};

/** Throw {@link UnreadableBodyError} to have the attempt retried; any other error ends the request. */
export type BodyParser<T> = (text: string, response: ResponseHead) => T;

export interface GetOptions<T> {
  headers?: Record<string, string>;
  /** Aborts this request and its waits only, e.g. when a consumer of concurrent pages stops. */
  signal?: AbortSignal;
  /** Requests the caller will still make to this endpoint after this one, when known. */
  demand?: number;
  /** Default: the body is the text. */
  parse?: BodyParser<T>;
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
  probe(url: URL): Promise<ProbeResult>;
  /** Every attempt and redirect hop so far. */
  readonly requests: number;
}

/** ms (README, `--timeout`) */
const DEFAULT_TIMEOUT_MS = 60_000;
export const MAX_RATE_LIMITED_ATTEMPTS = 5;
interface Session extends ExchangeSession {
  waits: WaitLedger<ClientEvent>;
  headersFor: (extra?: Record<string, string>) => Record<string, string>;
  signal: AbortSignal | undefined;
  policy: RetryPolicy;
}

/** @throws {UsageError} when the API key holds characters not allowed in an HTTP header */
export function createClient(options: ClientOptions): Client {
  const { baseUrl, apiKey, fetch, clock } = options;
  const headersFor = createRequestHeaders(apiKey, options.headers);
  const retries = Math.max(0, Math.floor(options.retries ?? DEFAULT_RETRIES));
  const maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
  const waits = createWaitLedger<ClientEvent>(clock, options.onEvent ?? ((): void => undefined), options.onWaitCut ?? ((): void => undefined));
  const budget = clientBudgetOf(options.budget, {
    origin: baseUrl.origin,
    apiKey,
    clock,
    maxWaitMs,
    onWait: (w) => waits.emit({ type: 'wait', ...w }),
    ...(options.budgetUrl === undefined ? {} : { budgetUrl: options.budgetUrl }),
  });
  const s: Session = {
    baseUrl,
    fetch,
    clock,
    waits,
    budget,
    headersFor,
    signal: options.signal,
    requests: 0,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    contact: options.budget?.share<OriginContact>(`contact ${baseUrl.origin}`, () => ({ answered: false })) ?? { answered: false },
    redact: scrubberOf(apiKey, options.secrets),
    policy: { retries, maxWaitMs, random: options.random ?? Math.random, clock, serverClock: budget.serverClock, emit: waits.emit },
  };
  return {
    get: (url, call) => getWithRetries(s, url, call),
    probe: (url) => probeOnce(s, url),
    get requests() {
      return s.requests;
    },
  };
}

async function getWithRetries<T>(s: Session, url: URL, call: GetOptions<T> = {}): Promise<ClientResponse<T>> {
  assertSameOrigin(url, s.baseUrl, 'a request');
  const headers = s.headersFor(call.headers);
  const signals = [s.signal, call.signal].filter((x) => x !== undefined);
  const signal = signals.length <= 1 ? signals[0] : AbortSignal.any(signals);
  const parse: BodyParser<T> = call.parse ?? ((text) => text as unknown as T);
  let [retry, limited, afterWait] = [0, 0, false];
  for (;;) {
    let x: HttpExchange | undefined;
    try {
      x = await send(s, url, headers, { signal, pace: true, afterWait, body: 'bytes', demand: call.demand });
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
  const { url, status, headers, receivedAt, requestId } = x;
  const text = x.text ?? '';
  const body = parse(text, { url, status, headers, receivedAt, ...defined({ requestId }), byteText: x.byteText });
  return { url, status, headers, text, receivedAt, body, ...defined({ requestId, rateLimit: x.rateLimit }) };
}

/** A status that is neither 2xx nor 429: a 5xx is retried (honouring its `Retry-After`), the rest fail. */
function failureOf(x: HttpExchange): RetryableFailure | HttpError {
  const { status, serverMessage, requestId } = x;
  if (status >= 500 && status < 600) {
    return new RetryableFailure(`HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`, {
      ...(requestId === undefined ? {} : { requestId }),
      response: { headers: x.rl, receivedAt: x.receivedAt },
    });
  }
  return new HttpError({ method: 'GET', path: pathOf(x.url), status, ...defined({ serverMessage, requestId }) });
}

/**
 * A 429: holds the endpoint until the reset by the server's clock and sleeps; waits are not retries.
 * @param limited 429s in a row of this request, this one included
 * @throws {RateLimitError} (exit 5) after {@link MAX_RATE_LIMITED_ATTEMPTS} 429s in a row, or when
 *   the wait exceeds `--max-wait` (without waiting)
 */
async function waitOutRateLimit(s: Session, x: HttpExchange, limited: number, signal: AbortSignal | undefined): Promise<void> {
  const decision = decideWait({
    kind: '429',
    response: { headers: x.rl, receivedAt: x.receivedAt },
    attempt: limited,
    now: s.clock.now(),
    serverClock: s.budget.serverClock,
    maxWaitMs: s.policy.maxWaitMs,
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
      `rate limited (GET ${path}: HTTP 429); the limit resets in ${describeTooLong(decision.neededMs, s.policy.maxWaitMs)}`,
      decision.until,
      { hint: hint`raise ${option('maxWaitMs')}, or run again after the reset` },
    );
  }
  s.budget.holdUntil(x.url, decision.until);
  const reason = decision.reason === 'retry-after' ? 'retry-after' : 'rate-limit';
  const { limit, remaining = 0 } = x.rl;
  s.waits.emit({ type: 'wait', reason, ms: decision.ms, until: decision.until, ...defined({ limit }), remaining });
  await s.clock.sleep(clampTimerMs(decision.ms), signal);
}

async function probeOnce(s: Session, url: URL): Promise<ProbeResult> {
  assertSameOrigin(url, s.baseUrl, 'a request');
  let x: HttpExchange;
  try {
    x = await send(s, url, s.headersFor(), { signal: s.signal, pace: false, afterWait: false, body: 'discard' });
  } catch (err) {
    throw err instanceof RetryableFailure ? unreadable(err, pathOf(url)) : err;
  }
  const { requestId, rateLimit, serverMessage } = x;
  return { url: x.url, status: x.status, ...defined({ requestId, rateLimit, serverMessage }) };
}
