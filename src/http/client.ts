// HTTP only (nothing of Hydra or pages): a GET's attempts, their rate-limit waits and retries, and
// what a status means. Hot path: a page (~1 MB) is read as text once and handed to `parse` once.
import type { FetchLike } from '../context.js';
import { ApiUnavailableError, HttpError, RateLimitError, hint, option } from '../errors.js';
import { defined } from '../json/object.js';
import type { Clock } from '../time/clock.js';
import { DEFAULT_MAX_BODY_BYTES, readBoundedByteText } from './body.js';
import type { ClientEvent } from './events.js';
import { clampTimerMs, clientBudgetOf, createWaitLedger, decideWait, describeTooLong, snapshotOf } from '../rate/index.js';
import type { ClientBudget, RateBudget, RateLimitHeaders, RateLimitSnapshot, WaitCut, WaitLedger } from '../rate/index.js';
import { assertSameOrigin, resolveSameOrigin } from './origin.js';
import { scrubberOf } from './redact.js';
import { createRequestHeaders } from './request-headers.js';
import { readServerMessage } from './server-message.js';
import { attemptFailure, DEFAULT_RETRIES, RetryableFailure, waitBeforeRetry, type OriginContact, type RetryPolicy } from './retry.js';

export type { ClientEvent } from './events.js';
export type { RateLimitSnapshot } from '../rate/index.js';

/** A 2xx body `parse` could not use (invalid JSON, HTML, not a collection): retried like a 5xx, so the caller never sees a half-read page. */
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
  /** The text holds the bytes, one code unit each (asked with {@link GetOptions.bytes}). */
  byteText?: boolean;
};

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
/** Like fetch's 20, but a collection API needs few. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function pathOf(url: URL): string {
  return url.pathname + url.search;
}

interface Session {
  baseUrl: URL;
  fetch: FetchLike;
  clock: Clock;
  timeoutMs: number;
  maxBodyBytes: number;
  waits: WaitLedger<ClientEvent>;
  budget: ClientBudget;
  contact: OriginContact;
  redact: (text: string) => string;
  headersFor: (extra?: Record<string, string>) => Record<string, string>;
  signal: AbortSignal | undefined;
  policy: RetryPolicy;
  requests: number;
}

/** @throws {UsageError} when the API key holds characters not allowed in an HTTP header */
export function createClient(options: ClientOptions): Client {
  const { baseUrl, apiKey, fetch, clock } = options;
  const headersFor = createRequestHeaders(apiKey, options.headers);
  const retries = Math.max(0, Math.floor(options.retries ?? DEFAULT_RETRIES));
  const maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
  const waits = createWaitLedger<ClientEvent>(clock, options.onEvent ?? ((): void => undefined), options.onWaitCut ?? ((): void => undefined));
  const emit = waits.emit;
  const budget = clientBudgetOf(options.budget, {
    origin: baseUrl.origin,
    apiKey,
    clock,
    maxWaitMs,
    onWait: (w) => emit({ type: 'wait', ...w }),
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
    policy: { retries, maxWaitMs, random: options.random ?? Math.random, clock, serverClock: budget.serverClock, emit },
  };
  return {
    get: (url, call) => getWithRetries(s, url, call),
    probe: (url, extra) => probeOnce(s, url, extra),
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
      x = await send(s, url, headers, { signal, pace: true, afterWait, body: call.bytes === true ? 'bytes' : 'text', demand: call.demand });
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
  const rl = x.rl;
  const decision = decideWait({
    kind: '429',
    response: { headers: rl, receivedAt: x.receivedAt },
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
  const { limit, remaining = 0 } = rl;
  s.waits.emit({ type: 'wait', reason, ms: decision.ms, until: decision.until, ...defined({ limit }), remaining });
  await s.clock.sleep(clampTimerMs(decision.ms), signal);
}

async function probeOnce(s: Session, url: URL, extra: Record<string, string> | undefined): Promise<ProbeResult> {
  assertSameOrigin(url, s.baseUrl, 'a request');
  const headers = s.headersFor(extra);
  let x: HttpExchange;
  try {
    x = await send(s, url, headers, { signal: s.signal, pace: false, afterWait: false, body: 'discard' });
  } catch (err) {
    if (err instanceof RetryableFailure) {
      throw new ApiUnavailableError(`the API could not be read (GET ${pathOf(url)}): ${err.reason}`, {
        cause: err,
        ...(err.hint === undefined ? {} : { hint: err.hint }),
      });
    }
    throw err;
  }
  const { requestId, rateLimit, serverMessage } = x;
  return { url: x.url, status: x.status, ...defined({ requestId, rateLimit, serverMessage }) };
}

interface SendOptions {
  /** Aborts the permit wait, the request and the body read; its reason passes through untouched. */
  signal?: AbortSignal;
  /** False: no pacing (`ratelimit` probes). */
  pace: boolean;
  afterWait: boolean;
  demand?: number;
  /** A 2xx body: read as text, as a byte text when it can be, or discarded unread. */
  body: 'text' | 'bytes' | 'discard';
}

interface Hop {
  res: Response;
  url: URL;
  rl: RateLimitHeaders;
  requestId: string | undefined;
  receivedAt: number;
  /** Monotonic start of the attempt, ms. */
  startedAt: number;
  timeout: AbortSignal;
}

/** A final (non-redirect) response. */
interface HttpExchange extends Hop {
  status: number;
  headers: Headers;
  /** A 2xx's body, when asked to read it. */
  text: string | undefined;
  byteText: boolean;
  /** A non-2xx's, secrets redacted. */
  serverMessage: string | undefined;
  /** Read on the server's clock as known once the body was handled. */
  rateLimit: RateLimitSnapshot | undefined;
}

async function sendOne(s: Session, url: URL, headers: Record<string, string>, send: SendOptions, afterWait: boolean): Promise<Hop> {
  const permit = await s.budget.reserve(url, { signal: send.signal, afterWait, wait: send.pace, ...defined({ demand: send.demand }) });
  // Stopped after the permit (a read-ahead cancelled, a signal): nothing is sent, so nothing is spent.
  if (send.signal?.aborted === true) permit.cancel();
  send.signal?.throwIfAborted();
  const timeout = AbortSignal.timeout(s.timeoutMs);
  const signal = send.signal === undefined ? timeout : AbortSignal.any([timeout, send.signal]);
  s.requests++;
  const sentAt = s.clock.now();
  const startedAt = s.clock.monotonic();
  let res: Response;
  try {
    res = await s.fetch(url, { method: 'GET', headers, redirect: 'manual', signal });
  } catch (err) {
    permit.release();
    throw attemptFailure(s, err, send.signal, timeout, '', url);
  }
  s.contact.answered = true;
  const receivedAt = s.clock.now();
  const rl = permit.record({ status: res.status, headers: res.headers, sentAt, receivedAt });
  return { res, url, rl, requestId: res.headers.get('x-request-id') ?? undefined, receivedAt, startedAt, timeout };
}

/**
 * One attempt: a GET and its same-origin redirects, each hop paced, counted and reported.
 * @throws {RetryableFailure} for a network error, a timeout or a failed 2xx body read
 */
async function send(s: Session, start: URL, headers: Record<string, string>, options: SendOptions): Promise<HttpExchange> {
  let url = start;
  let afterWait = options.afterWait;
  for (let hop = 0; ; hop++) {
    const h = await sendOne(s, url, headers, options, afterWait);
    if (!REDIRECT_STATUSES.has(h.res.status)) return finish(s, h, options);
    emitResponse(s, h);
    await h.res.body?.cancel().catch(() => undefined);
    url = redirectTarget(s.baseUrl, h, start, hop);
    afterWait = false;
  }
}

function emitResponse(s: Session, h: Hop): void {
  const { limit, remaining, resetAt } = h.rl;
  s.waits.emit({
    type: 'response',
    method: 'GET',
    path: pathOf(h.url),
    status: h.res.status,
    ms: Math.max(0, Math.round(s.clock.monotonic() - h.startedAt)),
    ...defined({ limit, remaining, resetAt, requestId: h.requestId }),
  });
}

function redirectTarget(baseUrl: URL, h: Hop, start: URL, hop: number): URL {
  const location = h.res.headers.get('location');
  if (location === null) {
    throw new HttpError({
      method: 'GET',
      path: pathOf(h.url),
      status: h.res.status,
      serverMessage: 'redirect without a Location',
      ...(h.requestId ? { requestId: h.requestId } : {}),
    });
  }
  const url = resolveSameOrigin(location, h.url, baseUrl, `a redirect from ${pathOf(h.url)}`);
  if (hop + 1 > MAX_REDIRECTS) {
    throw new ApiUnavailableError(`too many redirects (more than ${MAX_REDIRECTS}) from GET ${pathOf(start)}`);
  }
  return url;
}

async function finish(s: Session, h: Hop, send: SendOptions): Promise<HttpExchange> {
  const { res } = h;
  let text: string | undefined;
  let byteText = false;
  let serverMessage: string | undefined;
  if (res.status < 200 || res.status >= 300) {
    serverMessage = await readServerMessage(s.redact, res, `GET ${pathOf(h.url)}`);
    emitResponse(s, h);
  } else if (send.body === 'discard') {
    await res.body?.cancel().catch(() => undefined);
    emitResponse(s, h);
  } else {
    try {
      ({ text, byteText } = await readBoundedByteText(res, s.maxBodyBytes, `GET ${pathOf(h.url)}`, send.body === 'bytes'));
    } catch (err) {
      throw attemptFailure(s, err, send.signal, h.timeout, ' while reading the body');
    } finally {
      emitResponse(s, h);
    }
  }
  const rateLimit = snapshotOf(h.rl, h.receivedAt, s.budget.serverClock);
  return { ...h, status: res.status, headers: res.headers, text, byteText, serverMessage, rateLimit };
}
