/**
 * One request of the client, HTTP only: the request headers, a permit from the rate budget
 * (rate/index.ts: the endpoint's window; the response's headers are recorded on it), a timeout per
 * attempt (`AbortSignal.timeout`, covering the body too), a bounded body read (body.ts),
 * same-origin redirects followed by hand (the key must not leave the origin: docs/rate-limits.md, "Rate
 * limits, retries and safety"), and the response with its status, headers, body text or server
 * message, and timing.
 * What a status means (wait, retry, fail) is the client's business.
 */
import { ApiUnavailableError, HttpError, UsageError } from '../errors.js';
import type { Clock } from '../time/clock.js';
import { readBoundedByteText, readBoundedText } from './body.js';
import type { ClientEvent, ClientEventSink } from './events.js';
import type { FetchLike } from './fetch-like.js';
import { attemptFailure, type OriginContact } from './connect-failure.js';
import { resolveSameOrigin } from './origin.js';
import { scrubberOf } from './redact.js';
import { extraHeaders } from './request-headers.js';
import { snapshotOf, type ClientBudget, type RateLimitHeaders, type RateLimitSnapshot } from '../rate/index.js';
import { parseServerMessage } from './server-message.js';

/** Same-origin redirects followed per request (like fetch's 20, but a collection API needs few). */
const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Header values fetch accepts (RFC 9110 §5.5 field-value without CR/LF/NUL; printable Latin-1). */
function isHeaderSafe(value: string): boolean {
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(value);
}

/**
 * The request headers: `extras` first, then `Accept: application/ld+json` and `X-Api-Key`, which
 * no extra can replace.
 * @returns a function giving the headers of one request plus its own extras (same rule)
 * @throws {UsageError} (exit 2) when the key holds characters not allowed in a header (checked
 *   here because fetch's own error would quote the header value, i.e. the key), or an extra header
 *   is invalid (request-headers.ts `extraHeaders`)
 */
export function createRequestHeaders(
  apiKey: string,
  extras: Record<string, string> = {},
): (extra?: Record<string, string>) => Record<string, string> {
  if (!isHeaderSafe(apiKey)) {
    throw new UsageError('the API key contains characters not allowed in an HTTP header', {
      hint: 'check for a stray newline or quote in the key',
    });
  }
  const base: Record<string, string> = { ...extraHeaders(extras), Accept: 'application/ld+json', 'X-Api-Key': apiKey };
  return (extra) => (extra === undefined ? base : { ...base, ...extraHeaders(extra) });
}

/** Path and query of a URL, as events and messages name it. */
export function pathOf(url: URL): string {
  return url.pathname + url.search;
}

/** Options of {@link createExchanger}. */
export interface ExchangeOptions {
  /** The configured base URL: redirects must keep its origin. */
  baseUrl: URL;
  /** Redacted from every message, as are the run's `secrets` (the Context's) when given. */
  apiKey: string;
  secrets?: { redact(text: string): string } | undefined;
  fetch: FetchLike;
  clock: Clock;
  /** Per-attempt timeout, ms: a deadline for the headers and the whole body together. */
  timeoutMs: number;
  /** Largest body accepted per response, bytes, counted after decompression. */
  maxBodyBytes: number;
  /** The client's view of the rate budget: a permit per request, the response's headers recorded on it. */
  budget: ClientBudget;
  /** Whether the origin has answered yet; set by the first response. */
  contact: OriginContact;
  emit: ClientEventSink;
}

/** Per-request options of {@link Exchanger.send}. */
export interface SendOptions {
  /** Aborts the permit wait, the request and the body read; its reason passes through untouched. */
  signal?: AbortSignal;
  /** False: no pacing (the budget grants at once; `ratelimit` probes). */
  pace: boolean;
  /** The caller has just slept a rate-limit wait (see rate/governor-types.ts `Permit.afterWait`). */
  afterWait: boolean;
  /** Requests still to come to this endpoint, when known (see rate/governor-types.ts `AcquireOptions.demand`). */
  demand?: number;
  /** What to do with a 2xx body: read it as text, as a byte text when it can be (body.ts `readBoundedByteText`), or discard it unread. */
  body: 'text' | 'bytes' | 'discard';
}

/** A final (non-redirect) response. */
export interface HttpExchange {
  /** The final URL, after same-origin redirects. */
  url: URL;
  status: number;
  headers: Headers;
  /** The parsed rate-limit headers, `Retry-After` and `Date`. */
  rateLimitHeaders: RateLimitHeaders;
  /** `X-Request-ID`, when sent. */
  requestId: string | undefined;
  /** When the headers arrived, local epoch ms. */
  receivedAt: number;
  /** A 2xx's body, when asked to read it. */
  text: string | undefined;
  /** Whether `text` is a byte text (body.ts `readBoundedByteText`). */
  byteText: boolean;
  /** A non-2xx's message from its body ({@link parseServerMessage}, secrets redacted), when it had one. */
  serverMessage: string | undefined;
  /** The rate-limit snapshot, read on the server's clock as known once the body was handled. */
  rateLimit: RateLimitSnapshot | undefined;
}

/** Sends requests; see {@link createExchanger}. */
export interface Exchanger {
  /**
   * Sends one GET and follows same-origin redirects (each hop paced, counted and reported as a
   * `response` event), then handles the final response's body: a 2xx's is read (or discarded),
   * another status's is read for its message.
   * @throws {RetryableFailure} for a network error, a timeout or a failed 2xx body read
   * @throws {HostileResponseError} for a 2xx body over `maxBodyBytes` or past the transport's
   *   compression-ratio guard (not retried)
   * @throws {UnsafeLinkError} for a redirect to another origin; {@link HttpError} for a redirect
   *   without `Location`; {@link ApiUnavailableError} after {@link MAX_REDIRECTS} redirects;
   *   {@link RateLimitError} from the rate budget; the caller's abort reason
   */
  send(url: URL, headers: Record<string, string>, options: SendOptions): Promise<HttpExchange>;
  /** Requests sent so far (every attempt and redirect hop). */
  readonly requests: number;
}

/** A response received for one hop, with its bookkeeping. */
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

/** The options and the scrubbing of every message (http/redact.ts `scrubberOf`). */
type Exchange = ExchangeOptions & { redact: (text: string) => string };

/** Creates an {@link Exchanger}. */
export function createExchanger(given: ExchangeOptions): Exchanger {
  const options: Exchange = { ...given, redact: scrubberOf(given.apiKey, given.secrets) };
  let requests = 0;
  const sendOne = async (url: URL, headers: Record<string, string>, send: SendOptions, afterWait: boolean): Promise<Hop> => {
    const demand = send.demand !== undefined ? { demand: send.demand } : {};
    const permit = await options.budget.reserve(url, { signal: send.signal, afterWait, wait: send.pace, ...demand });
    // Stopped after the permit (a read-ahead cancelled, a signal): nothing is sent, so nothing is spent.
    if (send.signal?.aborted === true) permit.cancel();
    send.signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = send.signal === undefined ? timeout : AbortSignal.any([timeout, send.signal]);
    requests++;
    const sentAt = options.clock.now();
    const startedAt = options.clock.monotonic();
    let res: Response;
    try {
      res = await options.fetch(url, { method: 'GET', headers, redirect: 'manual', signal });
    } catch (err) {
      permit.release();
      throw attemptFailure(options, err, send.signal, timeout, '', url);
    }
    options.contact.answered = true;
    const receivedAt = options.clock.now();
    const rl = permit.record({ status: res.status, headers: res.headers, sentAt, receivedAt });
    return { res, url, rl, requestId: res.headers.get('x-request-id') ?? undefined, receivedAt, startedAt, timeout };
  };

  return {
    async send(start, headers, send) {
      let url = start;
      let afterWait = send.afterWait;
      for (let hop = 0; ; hop++) {
        const h = await sendOne(url, headers, send, afterWait);
        if (!REDIRECT_STATUSES.has(h.res.status)) return finish(options, h, send);
        emitResponse(options, h);
        await h.res.body?.cancel().catch(() => undefined);
        url = redirectTarget(options.baseUrl, h, start, hop);
        afterWait = false;
      }
    },
    get requests() {
      return requests;
    },
  };
}

function emitResponse(options: Exchange, h: Hop): void {
  const event: ClientEvent = {
    type: 'response',
    method: 'GET',
    path: pathOf(h.url),
    status: h.res.status,
    ms: Math.max(0, Math.round(options.clock.monotonic() - h.startedAt)),
  };
  if (h.rl.limit !== undefined) event.limit = h.rl.limit;
  if (h.rl.remaining !== undefined) event.remaining = h.rl.remaining;
  if (h.rl.resetAt !== undefined) event.resetAt = h.rl.resetAt;
  if (h.requestId !== undefined) event.requestId = h.requestId;
  options.emit(event);
}

/**
 * Where a redirect goes: its `Location`, resolved against the hop's URL and checked before anything
 * is sent there (the key must not leave the origin).
 */
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

/** Largest error body read for its message, bytes: a message is a line, not a page. */
const MAX_MESSAGE_BODY_BYTES = 1024 * 1024;

/**
 * Reads an error response's body (at most {@link MAX_MESSAGE_BODY_BYTES}) for its message;
 * failures, an oversized body included, give undefined (the status says enough).
 */
async function readMessage(redact: (text: string) => string, res: Response, what: string): Promise<string | undefined> {
  try {
    const text = await readBoundedText(res, MAX_MESSAGE_BODY_BYTES, what);
    const msg = parseServerMessage(res.headers.get('content-type'), text);
    return msg === undefined ? undefined : redact(msg);
  } catch {
    return undefined;
  }
}

/** Handles the final response's body, reports the response, and describes it. */
async function finish(options: Exchange, h: Hop, send: SendOptions): Promise<HttpExchange> {
  const { res } = h;
  let text: string | undefined;
  let byteText = false;
  let serverMessage: string | undefined;
  if (res.status < 200 || res.status >= 300) {
    serverMessage = await readMessage(options.redact, res, `GET ${pathOf(h.url)}`);
    emitResponse(options, h);
  } else if (send.body === 'discard') {
    await res.body?.cancel().catch(() => undefined);
    emitResponse(options, h);
  } else {
    try {
      ({ text, byteText } = await readBoundedByteText(res, options.maxBodyBytes, `GET ${pathOf(h.url)}`, send.body === 'bytes'));
    } catch (err) {
      throw attemptFailure(options, err, send.signal, h.timeout, ' while reading the body');
    } finally {
      emitResponse(options, h);
    }
  }
  return {
    url: h.url,
    status: res.status,
    headers: res.headers,
    rateLimitHeaders: h.rl,
    requestId: h.requestId,
    receivedAt: h.receivedAt,
    text,
    byteText,
    serverMessage,
    rateLimit: snapshotOf(h.rl, h.receivedAt, options.budget.serverClock),
  };
}
