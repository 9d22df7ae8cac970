/**
 * One attempt of a GET, HTTP only: a permit of the rate budget, a timeout covering the body too, a
 * bounded body read, and same-origin redirects followed by hand (the key must not leave the
 * origin). What a status means is the client's business.
 */
import type { FetchLike } from '../context.js';
import { ApiUnavailableError, HttpError } from '../errors.js';
import type { Clock } from '../time/clock.js';
import { readBoundedByteText, readBoundedText } from './body.js';
import type { ClientEvent, ClientEventSink } from './events.js';
import { resolveSameOrigin } from './origin.js';
import { scrubberOf } from './redact.js';
import { attemptFailure, type OriginContact } from './retry.js';
import { snapshotOf, type ClientBudget, type RateLimitHeaders, type RateLimitSnapshot } from '../rate/index.js';
import { parseServerMessage } from './server-message.js';

/** Like fetch's 20, but a collection API needs few. */
const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Path and query, as events and messages name a URL. */
export function pathOf(url: URL): string {
  return url.pathname + url.search;
}

export interface ExchangeOptions {
  /** Redirects must keep its origin. */
  baseUrl: URL;
  /** Redacted from every message, as are the run's `secrets`. */
  apiKey: string;
  secrets?: { redact(text: string): string } | undefined;
  fetch: FetchLike;
  clock: Clock;
  /** Per attempt, ms: a deadline for the headers and the whole body together. */
  timeoutMs: number;
  /** bytes, after decompression */
  maxBodyBytes: number;
  budget: ClientBudget;
  contact: OriginContact;
  emit: ClientEventSink;
}

export interface SendOptions {
  /** Aborts the permit wait, the request and the body read; its reason passes through untouched. */
  signal?: AbortSignal;
  /** False: no pacing (`ratelimit` probes). */
  pace: boolean;
  afterWait: boolean;
  demand?: number;
  /** A 2xx body: read as text, as a byte text when it can be, or discarded unread. */
  body: 'text' | 'bytes' | 'discard';
}

/** A final (non-redirect) response. */
export interface HttpExchange {
  /** After same-origin redirects. */
  url: URL;
  status: number;
  headers: Headers;
  rateLimitHeaders: RateLimitHeaders;
  requestId: string | undefined;
  /** local epoch ms */
  receivedAt: number;
  /** A 2xx's body, when asked to read it. */
  text: string | undefined;
  byteText: boolean;
  /** A non-2xx's message from its body, secrets redacted. */
  serverMessage: string | undefined;
  /** Read on the server's clock as known once the body was handled. */
  rateLimit: RateLimitSnapshot | undefined;
}

export interface Exchanger {
  /**
   * Sends one GET and follows same-origin redirects (each hop paced, counted and reported), then
   * reads a 2xx's body (or discards it), or another status's for its message.
   * @throws {RetryableFailure} for a network error, a timeout or a failed 2xx body read
   * @throws {HostileResponseError} for a 2xx body over `maxBodyBytes` or past the compression-ratio guard
   * @throws {UnsafeLinkError} for a redirect to another origin; {@link HttpError} for a redirect
   *   without `Location`; {@link ApiUnavailableError} after {@link MAX_REDIRECTS} redirects;
   *   {@link RateLimitError} from the rate budget; the caller's abort reason
   */
  send(url: URL, headers: Record<string, string>, options: SendOptions): Promise<HttpExchange>;
  /** Every attempt and redirect hop so far. */
  readonly requests: number;
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

type Exchange = ExchangeOptions & { redact: (text: string) => string };

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

/** bytes: a message is a line, not a page. */
const MAX_MESSAGE_BODY_BYTES = 1024 * 1024;

/** A failure, an oversized body included, gives undefined: the status says enough. */
async function readMessage(redact: (text: string) => string, res: Response, what: string): Promise<string | undefined> {
  try {
    const text = await readBoundedText(res, MAX_MESSAGE_BODY_BYTES, what);
    const msg = parseServerMessage(res.headers.get('content-type'), text);
    return msg === undefined ? undefined : redact(msg);
  } catch {
    return undefined;
  }
}

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
