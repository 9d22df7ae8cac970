/** How long to wait, decided in one place for the client and the governor; pure: callers sleep on the answer. */
import { MAX_TIMER_MS } from '../time/clock.js';
import { serverToLocal, type ClockOffset, type RateLimitHeaders, type ServerClock } from './headers.js';

/** Zero, past or garbage waits become this, ms. */
const RATE_LIMIT_FLOOR_MS = 1000;

/**
 * The floor of the `attempt`-th (1-based) consecutive 429 of one request, ms: 1 s, 2 s, 4 s…, so a
 * server that keeps answering 429 with a zero wait is not hammered.
 */
export function floorWaitMs(attempt: number): number {
  const n = Math.max(1, Math.floor(attempt));
  return Math.min(RATE_LIMIT_FLOOR_MS * 2 ** Math.min(n - 1, 40), MAX_TIMER_MS);
}

/** Clamps a delay to a Node timer's range `[0, 2^31 − 1]` ms; longer timers would fire at once. */
export function clampTimerMs(ms: number): number {
  return ms > 0 ? Math.min(ms, MAX_TIMER_MS) : 0;
}

export interface ReceivedResponse {
  headers: RateLimitHeaders;
  /** local ms: waits are measured from here, not from when the caller sleeps. */
  receivedAt: number;
}

/** With no offset estimate yet but a `Date`, measured from the response (as a one-sample estimate). */
function localInstant(serverMs: number, response: ReceivedResponse, offset: ClockOffset | undefined): number {
  if (offset === undefined && response.headers.date !== undefined) return response.receivedAt + (serverMs - response.headers.date);
  return serverToLocal(serverMs, offset);
}

/**
 * Ends at the Reset on the server's clock, or a 429's later `Retry-After`; a 429's is at least
 * {@link floorWaitMs}(attempt), a pacing wait without a future reset {@link RATE_LIMIT_FLOOR_MS}.
 */
function waitEnd(request: Extract<WaitRequest, { kind: '429' | 'pacing' }>): { until: number; reason: WaitDecision['reason'] } {
  const { response, kind } = request;
  const { headers, receivedAt } = response;
  const { offset, marginMs } = request.serverClock;
  const resetReason = kind === 'pacing' ? 'pacing' : 'rate-limit';
  let end = -Infinity;
  let reason: WaitDecision['reason'] = resetReason;
  if (headers.resetAt !== undefined) {
    const e = localInstant(headers.resetAt, response, offset);
    if (e > receivedAt) end = e + marginMs;
  }
  if (kind === '429' && headers.retryAfter !== undefined) {
    const ra = headers.retryAfter;
    const e = ra.kind === 'delay' ? receivedAt + ra.ms : localInstant(ra.at, response, offset) + marginMs;
    if (e > receivedAt && e >= end) {
      end = e;
      reason = 'retry-after';
    }
  }
  const floor = kind === '429' ? floorWaitMs(request.attempt) : RATE_LIMIT_FLOOR_MS;
  const wait = end - receivedAt;
  if (!(wait > 0)) return { until: receivedAt + floor, reason: resetReason };
  return { until: receivedAt + (kind === '429' ? Math.max(wait, floor) : wait), reason };
}

/** ms from the response's arrival; a date is read like a Reset, but without the rounding margin. */
function retryAfterMsOf(response: ReceivedResponse, offset: ClockOffset | undefined): number | undefined {
  const ra = response.headers.retryAfter;
  if (ra === undefined) return undefined;
  if (ra.kind === 'delay') return ra.ms;
  return Math.max(0, localInstant(ra.at, response, offset) - response.receivedAt);
}

interface WaitRequestBase {
  /** local ms */
  now: number;
  serverClock: Pick<ServerClock, 'offset' | 'marginMs'>;
  /** `--max-wait`, ms (Infinity: none). */
  maxWaitMs: number;
}

/**
 * `pacing`: the governor's window is spent, `response` the last one seen in it; `retry`: `response`
 * is the 5xx whose `Retry-After` sets the least delay (RFC 9110 §10.2.3), and `backoffMs` is called
 * only when the retry will happen.
 */
export type WaitRequest =
  | (WaitRequestBase & { kind: '429'; response: ReceivedResponse; attempt: number })
  | (WaitRequestBase & { kind: 'pacing'; response: ReceivedResponse })
  | (WaitRequestBase & { kind: 'retry'; response?: ReceivedResponse; backoffMs: () => number });

export interface WaitDecision {
  reason: 'rate-limit' | 'pacing' | 'retry-after' | 'backoff';
  /** local ms */
  until: number;
  /** From `now`, ms, ≥ 0 (a retry's clamped to timer range, as its `retry` event reports it). */
  ms: number;
  /** Compared with `maxWaitMs`, ms: a 429's from its arrival, pacing's from `now`, a retry's `Retry-After` alone (the backoff is ours). */
  neededMs: number;
  /** The caller fails instead of sleeping: RateLimitError (exit 5), or ApiUnavailableError (exit 6) for a 5xx. */
  tooLong: boolean;
}

/**
 * The one wait rule: a 429 and a spent window wait for the reset by the server's clock; a retry
 * for the larger of the backoff and the 5xx's `Retry-After`.
 */
export function decideWait(request: WaitRequest): WaitDecision {
  const { now, serverClock, maxWaitMs } = request;
  if (request.kind === 'retry') {
    const retryAfterMs = request.response === undefined ? undefined : retryAfterMsOf(request.response, serverClock.offset);
    if (retryAfterMs !== undefined && retryAfterMs > maxWaitMs) {
      return { reason: 'retry-after', until: now + retryAfterMs, ms: clampTimerMs(retryAfterMs), neededMs: retryAfterMs, tooLong: true };
    }
    const backoff = request.backoffMs();
    const ms = clampTimerMs(Math.max(backoff, retryAfterMs ?? 0));
    const reason = retryAfterMs !== undefined && retryAfterMs > backoff ? 'retry-after' : 'backoff';
    return { reason, until: now + ms, ms, neededMs: retryAfterMs ?? 0, tooLong: false };
  }
  const { reason, until } = waitEnd(request);
  const ms = Math.max(0, until - now);
  const neededMs = request.kind === 'pacing' ? ms : until - request.response.receivedAt;
  return { reason, until, ms, neededMs, tooLong: neededMs > 0 && neededMs > maxWaitMs };
}

/** `<n> s, longer than the longest wait allowed (<m> s)`: the end of a "wait too long" message. */
export function describeTooLong(ms: number, maxWaitMs: number): string {
  return `${Math.ceil(ms / 1000)} s, longer than the longest wait allowed (${Math.floor(maxWaitMs / 1000)} s)`;
}
