// One attempt of a GET: its permit of the rate budget, its timeout, its same-origin redirects (each
// hop paced, counted and reported) and the read of its final answer.
import type { FetchLike } from '../context.js';
import { ApiUnavailableError, HttpError } from '../errors.js';
import { defined } from '../json/object.js';
import type { Clock } from '../time/clock.js';
import { readBoundedByteText } from './body.js';
import type { ClientEvent } from './events.js';
import { snapshotOf } from '../rate/index.js';
import type { ClientBudget, RateLimitHeaders, RateLimitSnapshot, WaitLedger } from '../rate/index.js';
import { resolveSameOrigin } from './origin.js';
import { readServerMessage } from './server-message.js';
import { attemptFailure, type AttemptContext } from './retry.js';

/** Like fetch's 20, but a collection API needs few. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function pathOf(url: URL): string {
  return url.pathname + url.search;
}

export interface ExchangeSession extends AttemptContext {
  baseUrl: URL;
  fetch: FetchLike;
  clock: Clock;
  maxBodyBytes: number;
  waits: Pick<WaitLedger<ClientEvent>, 'emit'>;
  budget: ClientBudget;
  requests: number;
}

export interface SendOptions {
  /** Aborts the permit wait, the request and the body read; its reason passes through untouched. */
  signal?: AbortSignal;
  /** False: no pacing (`ratelimit` probes). */
  pace: boolean;
  afterWait: boolean;
  demand?: number;
  /** A 2xx body: read as a byte text when it can be (else decoded), or discarded unread. */
  body: 'bytes' | 'discard';
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
export interface HttpExchange extends Hop {
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

async function sendOne(s: ExchangeSession, url: URL, headers: Record<string, string>, send: SendOptions, afterWait: boolean): Promise<Hop> {
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

/** @throws {RetryableFailure} for a network error, a timeout or a failed 2xx body read */
export async function send(s: ExchangeSession, start: URL, headers: Record<string, string>, options: SendOptions): Promise<HttpExchange> {
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

function emitResponse(s: ExchangeSession, h: Hop): void {
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

async function finish(s: ExchangeSession, h: Hop, send: SendOptions): Promise<HttpExchange> {
  const { res } = h;
  let text: string | undefined;
  let byteText = false;
  let serverMessage: string | undefined;
  try {
    if (res.status < 200 || res.status >= 300) serverMessage = await readServerMessage(s.redact, res, `GET ${pathOf(h.url)}`);
    else if (send.body === 'discard') await res.body?.cancel().catch(() => undefined);
    else ({ text, byteText } = await readBoundedByteText(res, s.maxBodyBytes, `GET ${pathOf(h.url)}`));
  } catch (err) {
    throw attemptFailure(s, err, send.signal, h.timeout, ' while reading the body');
  } finally {
    emitResponse(s, h);
  }
  const rateLimit = snapshotOf(h.rl, h.receivedAt, s.budget.serverClock);
  return { ...h, status: res.status, headers: res.headers, text, byteText, serverMessage, rateLimit };
}
