/**
 * How long to wait, decided in one place ({@link decideWait}) for the client and the governor:
 * the rate-limit reset read on the server's clock, `Retry-After` (delay-seconds or an HTTP-date,
 * RFC 9110 §10.2.3), the retry backoff, the floors, and the `--max-wait` ceiling (docs/rate-limits.md, "Rate
 * limits, retries and safety"). Pure: callers sleep on the answer.
 *
 * Times: "server ms" are epoch milliseconds by the server's clock; "local ms" are epoch
 * milliseconds by the injected Clock's `now()`.
 */
import { MAX_TIMER_MS } from '../time/clock.js';
import type { RateLimitHeaders } from './headers.js';
import { serverToLocal, type ClockOffset, type ServerClock } from './server-clock.js';

/** The smallest rate-limit wait, ms: zero, past or garbage waits become this. */
const RATE_LIMIT_FLOOR_MS = 1000;

/**
 * The floor of the `attempt`-th consecutive 429 of one request: 1 s, 2 s, 4 s… (exponential growth,
 * so a server that keeps answering 429 with a zero wait is not hammered), clamped to timer range.
 * @param attempt 1-based count of consecutive 429s of the same request
 * @returns ms
 */
export function floorWaitMs(attempt: number): number {
  const n = Math.max(1, Math.floor(attempt));
  return Math.min(RATE_LIMIT_FLOOR_MS * 2 ** Math.min(n - 1, 40), MAX_TIMER_MS);
}

/** Clamps a delay to a Node timer's range `[0, 2^31 − 1]` ms; longer timers would fire at once. */
export function clampTimerMs(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}

/** A response a wait is measured from. */
export interface ReceivedResponse {
  /** Its parsed rate-limit headers, `Retry-After` and `Date`. */
  headers: RateLimitHeaders;
  /** When it arrived, local ms: waits are measured from here, not from when the caller sleeps. */
  receivedAt: number;
}

/**
 * A server instant as a local one: with no offset estimate yet but a `Date`, measured from the
 * response (the same as a one-sample estimate); otherwise {@link serverToLocal}.
 */
function localInstant(serverMs: number, response: ReceivedResponse, offset: ClockOffset | undefined): number {
  if (offset === undefined && response.headers.date !== undefined) return response.receivedAt + (serverMs - response.headers.date);
  return serverToLocal(serverMs, offset);
}

/** Inputs of {@link planWait}. */
export interface WaitInput extends ReceivedResponse {
  /** The clock-offset estimate including this response (see server-clock.ts). */
  offset?: ClockOffset;
  /** Added to waits derived from Reset or a Retry-After date: 0, or the rounding margin once the server rounded down. */
  marginMs?: number;
  /**
   * `429`: the response was a 429 (Retry-After honoured, floor grows with `attempt`);
   * `pacing`: a 2xx with `Remaining: 0` (wait for the reset, 1 s floor when the reset is unusable).
   */
  kind: '429' | 'pacing';
  /** 1-based count of consecutive 429s of the same request (ignored for pacing). */
  attempt?: number;
}

/** The answer of {@link planWait}. */
export interface WaitPlan {
  /** How long to wait from `receivedAt`, ms, clamped to timer range. */
  ms: number;
  /** When the wait ends, local ms (`receivedAt + ms` before clamping: compare it with `--max-wait`). */
  until: number;
  /** What set the wait: the Reset (`rate-limit` / `pacing`) or `Retry-After`. */
  reason: 'rate-limit' | 'pacing' | 'retry-after';
  /** True when the floor replaced a zero, past, missing or garbage wait. */
  floored: boolean;
}

/**
 * How long to wait after a rate-limited response, from the server's clock:
 * - Reset: it ends at the local instant `serverToLocal(Reset, offset)`; with one response that is
 *   `receivedAt + (Reset − Date)`, the wait measured from the response; without `Date`, Reset is
 *   read against the local clock;
 * - `Retry-After` (on a 429): seconds from `receivedAt`, or an HTTP-date read like Reset; the wait
 *   is at least that long (the later of Retry-After and Reset wins);
 * - `marginMs` is added to server-clock instants;
 * - a 429's wait is at least {@link floorWaitMs}(attempt); a pacing wait with no usable future reset
 *   is {@link RATE_LIMIT_FLOOR_MS}.
 */
export function planWait(input: WaitInput): WaitPlan {
  const { headers, receivedAt, kind } = input;
  const margin = input.marginMs ?? 0;
  const resetReason = kind === 'pacing' ? 'pacing' : 'rate-limit';
  let end = -Infinity;
  let reason: WaitPlan['reason'] = resetReason;
  if (headers.resetAt !== undefined) {
    const e = localInstant(headers.resetAt, input, input.offset);
    if (e > receivedAt) end = e + margin;
  }
  if (kind === '429' && headers.retryAfter !== undefined) {
    const ra = headers.retryAfter;
    const e = ra.kind === 'delay' ? receivedAt + ra.ms : localInstant(ra.at, input, input.offset) + margin;
    if (e > receivedAt && e >= end) {
      end = e;
      reason = 'retry-after';
    }
  }
  let wait = end - receivedAt;
  let floored = false;
  const floor = kind === '429' ? floorWaitMs(input.attempt ?? 1) : RATE_LIMIT_FLOOR_MS;
  if (!(wait > 0)) {
    wait = floor;
    floored = true;
    reason = resetReason;
  } else if (kind === '429' && wait < floor) {
    wait = floor;
    floored = true;
  }
  return { ms: clampTimerMs(wait), until: receivedAt + wait, reason, floored };
}

/**
 * The simple form: ms to wait after a 429 received at `receivedAt` (local ms), from the server's
 * clock, with the floor. See {@link planWait}.
 */
export function waitMs(headers: RateLimitHeaders, receivedAt: number): number {
  return planWait({ headers, receivedAt, kind: '429', attempt: 1 }).ms;
}

/**
 * A response's `Retry-After` as ms to wait from its arrival: delay-seconds as given; an HTTP-date
 * read on the server's clock like a Reset, but without the rounding margin.
 * @returns undefined when there is no (valid) `Retry-After`
 */
function retryAfterMsOf(response: ReceivedResponse, offset: ClockOffset | undefined): number | undefined {
  const ra = response.headers.retryAfter;
  if (ra === undefined) return undefined;
  if (ra.kind === 'delay') return ra.ms;
  return Math.max(0, localInstant(ra.at, response, offset) - response.receivedAt);
}

/** What every {@link WaitRequest} gives. */
interface WaitRequestBase {
  /** The local time now, ms. */
  now: number;
  /** The client's knowledge of the server's clock. */
  serverClock: Pick<ServerClock, 'offset' | 'marginMs'>;
  /** `--max-wait`: the longest wait accepted, ms (Infinity: none). */
  maxWaitMs: number;
}

/**
 * What to decide a wait for:
 * - `429`: a rate-limited response, the `attempt`-th in a row of one request;
 * - `pacing`: the governor's window is spent; `response` is the last one seen in it;
 * - `retry`: a failed attempt about to be retried; `response` is the 5xx whose `Retry-After` sets
 *   the least delay (RFC 9110 §10.2.3), if any; `backoffMs` draws the backoff (full jitter, see
 *   http/retry.ts) and is only called when the retry will happen.
 */
export type WaitRequest =
  | (WaitRequestBase & { kind: '429'; response: ReceivedResponse; attempt: number })
  | (WaitRequestBase & { kind: 'pacing'; response: ReceivedResponse })
  | (WaitRequestBase & { kind: 'retry'; response?: ReceivedResponse; backoffMs: () => number });

/** The answer of {@link decideWait}. */
export interface WaitDecision {
  /** What set the wait. */
  reason: 'rate-limit' | 'pacing' | 'retry-after' | 'backoff';
  /** When the wait ends, local ms. */
  until: number;
  /** How long to sleep from `now`, ms, ≥ 0 (for `retry` clamped to timer range, as reported in `retry` events). */
  ms: number;
  /**
   * The wait compared with `maxWaitMs`, ms: a 429's from the response's arrival, pacing's from
   * `now`, a retry's `Retry-After` alone (the backoff is ours, capped at 30 s).
   */
  neededMs: number;
  /** True when `neededMs` exceeds `maxWaitMs`: the caller fails instead of sleeping. */
  tooLong: boolean;
}

/**
 * THE wait rule: decides how long to wait before the next request. A 429 and a spent window wait
 * for the reset by the server's clock ({@link planWait}); a retry waits for the larger of the
 * backoff and the 5xx's `Retry-After`. Any wait the server asks for that exceeds `maxWaitMs` is
 * `tooLong`; the caller then throws (RateLimitError, exit 5, for rate limits; ApiUnavailableError,
 * exit 6, for a 5xx) without sleeping.
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
  const { response } = request;
  const plan = planWait({
    ...response,
    offset: serverClock.offset,
    marginMs: serverClock.marginMs,
    kind: request.kind,
    ...(request.kind === '429' ? { attempt: request.attempt } : {}),
  });
  const ms = Math.max(0, plan.until - now);
  if (request.kind === 'pacing') return { reason: 'pacing', until: plan.until, ms, neededMs: ms, tooLong: ms > 0 && ms > maxWaitMs };
  const neededMs = plan.until - response.receivedAt;
  return { reason: plan.reason, until: plan.until, ms, neededMs, tooLong: neededMs > maxWaitMs };
}

/**
 * The end of a "wait too long" message: `<n> s, longer than the longest wait allowed (<m> s)`.
 * @param ms the wait asked for, ms (rounded up to seconds)
 * @param maxWaitMs `--max-wait`, ms (rounded down to seconds)
 */
export function describeTooLong(ms: number, maxWaitMs: number): string {
  return `${Math.ceil(ms / 1000)} s, longer than the longest wait allowed (${Math.floor(maxWaitMs / 1000)} s)`;
}
