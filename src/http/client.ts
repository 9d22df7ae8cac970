/**
 * The HTTP client of the Collection API: auth headers, rate-limit waits and pacing, retries with
 * backoff, per-attempt timeouts, same-origin redirects only, and mapping of failures to errors.
 *
 * Hot path: a page (up to 1000 items, ~1 MB) is read as text once and `JSON.parse`d once; nothing
 * here touches individual items.
 */
import type { FetchLike } from './fetch-like.js';
import type { Clock } from '../time/clock.js';
import { parsePage, parseServerMessage, PageFormatError, type HydraPage } from '../pagination/hydra.js';
import { rememberPageText } from '../pagination/page-text.js';
import { ApiUnavailableError, HttpError, RateLimitError, UsageError, type HttpErrorDetails } from '../errors.js';
import { createGovernorRegistry } from './governor.js';
import { assertSameOrigin, resolveSameOrigin } from './origin.js';
import { clampTimerMs, parseRateLimitHeaders, planWait, serverToLocal, type ClockOffset, type RateLimitHeaders } from './rate-limit.js';
import { redactSecret } from './redact.js';
import { backoffDelayMs, DEFAULT_RETRIES, describeNetworkError, RetryableFailure } from './retry.js';

/** What the client reports as it works; progress and `--verbose` consume these. */
export type ClientEvent =
  | {
      type: 'response';
      method: string;
      /** Path and query relative to the origin. */
      path: string;
      status: number;
      /** Duration of the attempt, ms. */
      ms: number;
      limit?: number;
      remaining?: number;
      requestId?: string;
    }
  | {
      type: 'wait';
      /** `rate-limit`: after a 429; `pacing`: after `Remaining: 0`; `retry-after`: a `Retry-After` header. */
      reason: 'rate-limit' | 'pacing' | 'retry-after';
      /** Length of the wait, ms. */
      ms: number;
      /** When the wait ends, epoch ms by the local clock. */
      until: number;
      limit?: number;
      remaining?: number;
    }
  | {
      type: 'retry';
      /** 1 for the first retry. */
      attempt: number;
      /** Backoff before the retry, ms. */
      delayMs: number;
      /** Why, e.g. `HTTP 503`, `ECONNRESET`, `invalid JSON`. */
      reason: string;
    };

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The configured base URL; its origin is the only one requests and the key may go to. */
  baseUrl: URL;
  /** Sent as `X-Api-Key`; never logged, never in errors. */
  apiKey: string;
  fetch: FetchLike;
  clock: Clock;
  /** Uniform [0, 1) for full-jitter backoff (default Math.random). */
  random?: () => number;
  /** Retries after network errors, 5xx or unreadable bodies (default 5). */
  retries?: number;
  /** Per-attempt timeout, ms (default 60 000). */
  timeoutMs?: number;
  /** Longest single rate-limit wait accepted, ms (default Infinity); longer → RateLimitError. */
  maxWaitMs?: number;
  /** Extra request headers (e.g. `User-Agent`). */
  headers?: Record<string, string>;
  onEvent?: (event: ClientEvent) => void;
  /** Aborts waits and requests in flight (used on SIGINT/SIGTERM). */
  signal?: AbortSignal;
}

/** Rate-limit headers of a response (api-contract.md §8). */
export interface RateLimitSnapshot {
  limit?: number;
  remaining?: number;
  /** Reset time by the server's clock, epoch ms. */
  resetAt?: number;
  /** When the response was received, epoch ms by the local clock. */
  observedAt: number;
  /** The reset as a local-clock instant (epoch ms), corrected by the server's `Date` when it sent one. */
  resetLocalAt?: number;
}

/** Per-call options of {@link Client.getPage}. */
export interface RequestOptions {
  /** Aborts this request (and its waits) only, e.g. when a consumer of concurrent pages stops. */
  signal?: AbortSignal;
  /** Requests the caller will still make to this endpoint after this one, when known (see governor.ts `demand`). */
  demand?: number;
}

/** A page fetched and parsed whole. */
export interface FetchedPage {
  /** The final URL (after same-origin redirects). */
  url: URL;
  page: HydraPage;
  status: number;
  requestId?: string;
  rateLimit?: RateLimitSnapshot;
}

/** The answer of a quota probe (`ratelimit`): any status, never waited on. */
export interface ProbeResult {
  url: URL;
  status: number;
  requestId?: string;
  rateLimit?: RateLimitSnapshot;
  serverMessage?: string;
}

/** The client. */
export interface Client {
  /**
   * GETs a collection page (`Accept: application/ld+json`, `X-Api-Key`, plus `headers`), waiting out
   * rate limits and retrying as configured.
   * @throws {HttpError} 400/401/403/404/other 4xx; {@link ApiUnavailableError} after retries;
   *   {@link RateLimitError} for a wait over maxWait; {@link UnsafeLinkError} for a redirect to another origin.
   */
  getPage(url: URL, headers?: Record<string, string>, options?: RequestOptions): Promise<FetchedPage>;
  /** One request, no rate-limit wait, no retry on 429; for `ratelimit`. */
  probe(url: URL, headers?: Record<string, string>): Promise<ProbeResult>;
  /** Requests sent so far (attempts, including retries). */
  readonly requests: number;
}

/** Default per-attempt timeout, ms (cli-spec.md `--timeout` 60 s). */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Same-origin redirects followed per request (like fetch's 20, but a collection API needs few). */
export const MAX_REDIRECTS = 5;
/** Consecutive 429s of one request after which the client gives up with {@link RateLimitError}. */
export const MAX_RATE_LIMITED_ATTEMPTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A response received for one hop, with its bookkeeping. */
interface Exchange {
  res: Response;
  url: URL;
  rl: RateLimitHeaders;
  requestId: string | undefined;
  receivedAt: number;
  /** Monotonic start of the attempt, ms. */
  startedAt: number;
  /** The attempt's signal (timeout + caller), which still guards the body read. */
  signal: AbortSignal;
  timeout: AbortSignal;
}

/** Why an attempt's fetch or body read failed: the caller's abort passes through untouched. */
function failure(err: unknown, callerSignal: AbortSignal | undefined, timeout: AbortSignal, timeoutMs: number, what: string, apiKey: string): unknown {
  if (callerSignal?.aborted) return abortReason(callerSignal);
  if (timeout.aborted) return new RetryableFailure(`timeout after ${formatSeconds(timeoutMs)}${what}`, { cause: err });
  return new RetryableFailure(redactSecret(describeNetworkError(err), apiKey) + what, { cause: err });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function combine(signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const s = signals.filter((x): x is AbortSignal => x !== undefined);
  return s.length === 0 ? undefined : s.length === 1 ? s[0] : AbortSignal.any(s);
}

/** Header values fetch accepts (RFC 9110 §5.5 field-value without CR/LF/NUL; printable Latin-1). */
function isHeaderSafe(value: string): boolean {
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(value);
}

/**
 * A response's `Retry-After` as ms to wait from `receivedAt`: delay-seconds as given; an HTTP-date
 * read on the server's clock (its `Date`, or the offset estimate), like a rate-limit reset.
 * @returns undefined when there is no (valid) `Retry-After`
 */
function retryAfterOf(rl: RateLimitHeaders, receivedAt: number, offset: ClockOffset | undefined): number | undefined {
  const ra = rl.retryAfter;
  if (ra === undefined) return undefined;
  if (ra.kind === 'delay') return ra.ms;
  const end = offset === undefined && rl.date !== undefined ? receivedAt + (ra.at - rl.date) : serverToLocal(ra.at, offset);
  return Math.max(0, end - receivedAt);
}

/** Creates a {@link Client}. */
export function createClient(options: ClientOptions): Client {
  const { baseUrl, apiKey, fetch, clock } = options;
  if (!isHeaderSafe(apiKey)) {
    // Checked here because fetch's own error would quote the header value, i.e. the key.
    throw new UsageError('the API key contains characters not allowed in an HTTP header', {
      hint: 'check for a stray newline or quote in the key',
    });
  }
  const random = options.random ?? Math.random;
  const retries = Math.max(0, Math.floor(options.retries ?? DEFAULT_RETRIES));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
  const emit = options.onEvent ?? ((): void => undefined);
  const governors = createGovernorRegistry({
    clock,
    maxWaitMs,
    onWait: (w) => emit({ type: 'wait', ...w }),
  });
  let requests = 0;

  // Built once: extras first, then the two the contract requires (an extra cannot replace the key).
  const baseHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.headers ?? {})) {
    const lk = k.toLowerCase();
    if (lk !== 'x-api-key' && lk !== 'accept') baseHeaders[k] = v;
  }
  baseHeaders['Accept'] = 'application/ld+json';
  baseHeaders['X-Api-Key'] = apiKey;

  const headersFor = (extra: Record<string, string> | undefined): Record<string, string> => {
    if (extra === undefined) return baseHeaders;
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(extra)) {
      const lk = k.toLowerCase();
      if (lk !== 'x-api-key' && lk !== 'accept') h[k] = v;
    }
    return { ...baseHeaders, ...h };
  };

  const pathOf = (url: URL): string => url.pathname + url.search;

  const emitResponse = (x: Exchange): void => {
    const event: ClientEvent = {
      type: 'response',
      method: 'GET',
      path: pathOf(x.url),
      status: x.res.status,
      ms: Math.max(0, Math.round(clock.monotonic() - x.startedAt)),
    };
    if (x.rl.limit !== undefined) event.limit = x.rl.limit;
    if (x.rl.remaining !== undefined) event.remaining = x.rl.remaining;
    if (x.requestId !== undefined) event.requestId = x.requestId;
    emit(event);
  };

  /** Reads an error response's body for its message; failures give undefined (the status says enough). */
  const readMessage = async (x: Exchange): Promise<string | undefined> => {
    try {
      const text = await x.res.text();
      const msg = parseServerMessage(x.res.headers.get('content-type'), text);
      return msg === undefined ? undefined : redactSecret(msg, apiKey);
    } catch {
      return undefined;
    }
  };

  /**
   * Sends one GET and follows same-origin redirects (each hop paced and counted as a request).
   * Returns the first non-redirect response with its body unread.
   */
  const exchange = async (
    start: URL,
    headers: Record<string, string>,
    callerSignal: AbortSignal | undefined,
    pace: boolean,
    afterWait: boolean,
    demand?: number,
  ): Promise<Exchange> => {
    let url = start;
    for (let hop = 0; ; hop++) {
      const permit = await governors.forUrl(url).acquire({ signal: callerSignal, afterWait, wait: pace, ...(demand !== undefined ? { demand } : {}) });
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = callerSignal === undefined ? timeout : AbortSignal.any([timeout, callerSignal]);
      requests++;
      const sentAt = clock.now();
      const startedAt = clock.monotonic();
      let res: Response;
      try {
        res = await fetch(url, { method: 'GET', headers, redirect: 'manual', signal });
      } catch (err) {
        permit.release();
        throw failure(err, callerSignal, timeout, timeoutMs, '', apiKey);
      }
      const receivedAt = clock.now();
      const rl = parseRateLimitHeaders(res.headers);
      governors.serverClock.observe(rl.date, sentAt, receivedAt);
      permit.release({ status: res.status, headers: rl, receivedAt });
      const x: Exchange = {
        res,
        url,
        rl,
        requestId: res.headers.get('x-request-id') ?? undefined,
        receivedAt,
        startedAt,
        signal,
        timeout,
      };
      if (!REDIRECT_STATUSES.has(res.status)) return x;
      emitResponse(x);
      await res.body?.cancel().catch(() => undefined);
      const location = res.headers.get('location');
      if (location === null) {
        throw new HttpError({ method: 'GET', path: pathOf(url), status: res.status, serverMessage: 'redirect without a Location', ...(x.requestId ? { requestId: x.requestId } : {}) });
      }
      // Checked before anything is sent there: the key must not leave the origin (reliability.md rule 5).
      url = resolveSameOrigin(location, url, baseUrl, `a redirect from ${pathOf(x.url)}`);
      if (hop + 1 > MAX_REDIRECTS) {
        throw new ApiUnavailableError(`too many redirects (more than ${MAX_REDIRECTS}) from GET ${pathOf(start)}`);
      }
      afterWait = false;
    }
  };

  const snapshot = (rl: RateLimitHeaders, receivedAt: number): RateLimitSnapshot | undefined => {
    if (rl.limit === undefined && rl.remaining === undefined && rl.resetAt === undefined) return undefined;
    const s: RateLimitSnapshot = { observedAt: receivedAt };
    if (rl.limit !== undefined) s.limit = rl.limit;
    if (rl.remaining !== undefined) s.remaining = rl.remaining;
    if (rl.resetAt !== undefined) {
      s.resetAt = rl.resetAt;
      s.resetLocalAt = governors.serverClock.toLocal(rl.resetAt);
    }
    return s;
  };

  const getPage = async (url: URL, extra?: Record<string, string>, call?: RequestOptions): Promise<FetchedPage> => {
    assertSameOrigin(url, baseUrl, 'a request');
    const headers = headersFor(extra);
    const callerSignal = combine([options.signal, call?.signal]);
    let retry = 0;
    let limited = 0;
    let afterWait = false;
    for (;;) {
      let x: Exchange | undefined;
      try {
        x = await exchange(url, headers, callerSignal, true, afterWait, call?.demand);
        afterWait = false;
        const { res } = x;
        const status = res.status;
        if (status >= 200 && status < 300) {
          let text: string;
          try {
            text = await res.text();
          } catch (err) {
            throw failure(err, callerSignal, x.timeout, timeoutMs, ' while reading the body', apiKey);
          } finally {
            emitResponse(x);
          }
          if ((res.headers.get('content-type') ?? '').toLowerCase().includes('html')) {
            throw new RetryableFailure('HTML instead of JSON');
          }
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch (err) {
            throw new RetryableFailure('invalid JSON', { cause: err });
          }
          let page: HydraPage;
          try {
            page = parsePage(body);
          } catch (err) {
            if (err instanceof PageFormatError) throw new RetryableFailure(err.message, { cause: err });
            throw err;
          }
          // Lets the JSON/NDJSON formatters write items as received instead of serialising them again.
          rememberPageText(page.members, text);
          const fetched: FetchedPage = { url: x.url, page, status };
          if (x.requestId !== undefined) fetched.requestId = x.requestId;
          const rl = snapshot(x.rl, x.receivedAt);
          if (rl !== undefined) fetched.rateLimit = rl;
          return fetched;
        }
        const serverMessage = await readMessage(x);
        emitResponse(x);
        if (status === 429) {
          limited++;
          const plan = planWait({
            headers: x.rl,
            receivedAt: x.receivedAt,
            offset: governors.serverClock.offset,
            marginMs: governors.serverClock.marginMs,
            kind: '429',
            attempt: limited,
          });
          const path = pathOf(x.url);
          if (limited >= MAX_RATE_LIMITED_ATTEMPTS) {
            throw new RateLimitError(`rate limited ${limited} times in a row (GET ${path}: HTTP 429)${serverMessage ? `: ${serverMessage}` : ''}`, plan.until, {
              hint: 'another client may be using the same API key; try again later',
              code: 'E_RATE_LIMIT_REPEATED',
            });
          }
          const needed = plan.until - x.receivedAt;
          if (needed > maxWaitMs) {
            throw new RateLimitError(
              `rate limited (GET ${path}: HTTP 429); the limit resets in ${Math.ceil(needed / 1000)} s, longer than the longest wait allowed (${Math.floor(maxWaitMs / 1000)} s)`,
              plan.until,
              { hint: 'raise --max-wait, or run again after the reset' },
            );
          }
          governors.forUrl(x.url).blockUntil(plan.until);
          const ms = Math.max(0, plan.until - clock.now());
          const wait: ClientEvent = { type: 'wait', reason: plan.reason === 'retry-after' ? 'retry-after' : 'rate-limit', ms, until: plan.until };
          if (x.rl.limit !== undefined) wait.limit = x.rl.limit;
          wait.remaining = x.rl.remaining ?? 0;
          emit(wait);
          await clock.sleep(clampTimerMs(ms), callerSignal);
          afterWait = true;
          continue;
        }
        if (status >= 500 && status < 600) {
          const retryAfterMs = retryAfterOf(x.rl, x.receivedAt, governors.serverClock.offset);
          throw new RetryableFailure(`HTTP ${status}${serverMessage ? `: ${serverMessage}` : ''}`, {
            ...(x.requestId === undefined ? {} : { requestId: x.requestId }),
            ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
          });
        }
        const details: HttpErrorDetails = { method: 'GET', path: pathOf(x.url), status };
        if (serverMessage !== undefined) details.serverMessage = serverMessage;
        if (x.requestId !== undefined) details.requestId = x.requestId;
        throw new HttpError(details);
      } catch (err) {
        if (!(err instanceof RetryableFailure)) throw err;
        if (retry >= retries) {
          const id = err.requestId ?? x?.requestId;
          throw new ApiUnavailableError(
            `the API could not be read (GET ${pathOf(x?.url ?? url)}): ${err.reason}${retries > 0 ? ` (after ${retries} ${retries === 1 ? 'retry' : 'retries'})` : ''}${id ? ` [X-Request-ID: ${id}]` : ''}`,
            { cause: err },
          );
        }
        if (err.retryAfterMs !== undefined && err.retryAfterMs > maxWaitMs) {
          throw new ApiUnavailableError(
            `the API could not be read (GET ${pathOf(x?.url ?? url)}): ${err.reason}; it asks to retry in ${Math.ceil(err.retryAfterMs / 1000)} s, longer than the longest wait allowed (${Math.floor(maxWaitMs / 1000)} s)`,
            { cause: err, hint: 'raise --max-wait, or run again later' },
          );
        }
        // A 5xx's Retry-After is a minimum: retrying sooner only meets the same outage (got and
        // urllib3 honour it on 503 as well).
        const delayMs = clampTimerMs(Math.max(backoffDelayMs(retry, random), err.retryAfterMs ?? 0));
        retry++;
        emit({ type: 'retry', attempt: retry, delayMs, reason: err.reason });
        await clock.sleep(delayMs, callerSignal);
      }
    }
  };

  const probe = async (url: URL, extra?: Record<string, string>): Promise<ProbeResult> => {
    assertSameOrigin(url, baseUrl, 'a request');
    const headers = headersFor(extra);
    let x: Exchange;
    try {
      x = await exchange(url, headers, options.signal, false, false);
    } catch (err) {
      if (err instanceof RetryableFailure) {
        throw new ApiUnavailableError(`the API could not be read (GET ${pathOf(url)}): ${err.reason}`, { cause: err });
      }
      throw err;
    }
    const serverMessage = x.res.status >= 200 && x.res.status < 300 ? (await x.res.body?.cancel().catch(() => undefined), undefined) : await readMessage(x);
    emitResponse(x);
    const result: ProbeResult = { url: x.url, status: x.res.status };
    if (x.requestId !== undefined) result.requestId = x.requestId;
    const rl = snapshot(x.rl, x.receivedAt);
    if (rl !== undefined) result.rateLimit = rl;
    if (serverMessage !== undefined) result.serverMessage = serverMessage;
    return result;
  };

  return {
    getPage,
    probe,
    get requests() {
      return requests;
    },
  };
}
