/**
 * The retry policy for GETs (docs/rate-limits.md, "Rate limits, retries and safety": retries): exponential
 * backoff with full jitter ("Exponential Backoff And Jitter", AWS Architecture Blog, 2015), base
 * 1 s, cap 30 s; what counts as retryable ({@link RetryableFailure}); the description of what
 * failed for events and the final error; and {@link waitBeforeRetry}, the step between attempts.
 */
import { ApiUnavailableError } from '../errors.js';
import type { Clock } from '../time/clock.js';
import type { ClientEventSink } from './events.js';
import { decideWait, describeTooLong, type ReceivedResponse, type ServerClock } from '../rate/index.js';

/** Default number of retries after a failed attempt (README, `--retries`). */
export const DEFAULT_RETRIES = 5;
/** Backoff base, ms. */
const BACKOFF_BASE_MS = 1000;
/** Backoff cap, ms. */
const BACKOFF_CAP_MS = 30_000;

/** Options of {@link backoffDelayMs}. */
export interface BackoffOptions {
  /** Base delay, ms (default {@link BACKOFF_BASE_MS}). */
  baseMs?: number;
  /** Largest delay, ms (default {@link BACKOFF_CAP_MS}). */
  capMs?: number;
}

/**
 * Full-jitter backoff: a uniform delay in `[0, min(cap, base · 2^retry))` ms. Full jitter spreads
 * clients that failed together, so they do not come back together.
 * @param retry 0 for the first retry
 * @param random uniform in [0, 1) (injected; seeded in tests)
 */
export function backoffDelayMs(retry: number, random: () => number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? BACKOFF_BASE_MS;
  const cap = options.capMs ?? BACKOFF_CAP_MS;
  const ceiling = Math.min(cap, base * 2 ** Math.min(Math.max(0, retry), 30));
  const r = random();
  const u = r >= 0 && r < 1 ? r : 0;
  return Math.floor(u * ceiling);
}

/**
 * A failed attempt worth retrying: a network error, a timeout, a 5xx, a truncated or unparseable
 * body, or a 200 that is not a collection. `reason` is short and free of secrets (e.g. `HTTP 503`,
 * `ECONNRESET`, `invalid JSON`).
 */
export class RetryableFailure extends Error {
  /** Short description for `retry` events and the final error. */
  readonly reason: string;
  /** `X-Request-ID` of the failed response, when there was one. */
  readonly requestId: string | undefined;
  /**
   * The 5xx response, when its `Retry-After` (RFC 9110 §10.2.3: how long the service expects to be
   * unavailable) should set the least delay before the retry.
   */
  readonly response: ReceivedResponse | undefined;
  /** What to check when the retries run out (e.g. the base URL after a refused connection). */
  readonly hint: string | undefined;

  constructor(reason: string, options: { cause?: unknown; requestId?: string; response?: ReceivedResponse; hint?: string } = {}) {
    super(reason, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RetryableFailure';
    this.reason = reason;
    this.requestId = options.requestId;
    this.response = options.response;
    this.hint = options.hint;
  }
}

/**
 * A 2xx body the caller could not use (invalid JSON, HTML, not the expected document). Thrown by
 * the `parse` callback given to `Client.get`; the client retries it like any other
 * {@link RetryableFailure}, and the caller never sees a half-read page.
 */
export class UnreadableBodyError extends RetryableFailure {
  /**
   * @param reason short and free of secrets, e.g. `invalid JSON`; becomes the `retry` event's reason
   * @param options.cause the parser's error
   */
  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(reason, options);
    this.name = 'UnreadableBodyError';
  }
}

/** Error codes (from Node's net and undici) worth naming as they are. */
function findCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Describes a fetch rejection or a failed body read in a few words: the error code found along the
 * `cause` chain (`ECONNRESET`, `ECONNREFUSED`, `UND_ERR_SOCKET`…), else the innermost message.
 * The caller redacts the key from it.
 */
export function describeNetworkError(err: unknown): string {
  const code = findCode(err);
  if (code !== undefined) return code;
  let e: unknown = err;
  let message = 'network error';
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (e.message) message = e.message;
    e = e.cause;
  }
  return message;
}

/** What {@link waitBeforeRetry} needs from the client. */
export interface RetryPolicy {
  /** Retries allowed per request (`--retries`). */
  retries: number;
  /** Longest wait accepted, ms (`--max-wait`). */
  maxWaitMs: number;
  /** Uniform [0, 1) for the jitter. */
  random: () => number;
  clock: Clock;
  serverClock: ServerClock;
  emit: ClientEventSink;
}

/** The attempt that failed. */
export interface FailedAttempt {
  /** Retries made so far for this request (0 after the first attempt). */
  retry: number;
  /** Path and query of the URL that failed, for the message. */
  path: string;
  /** `X-Request-ID` of its response, when it got one. */
  requestId?: string;
  /** Aborts the backoff sleep. */
  signal?: AbortSignal;
}

/**
 * Between two attempts of one GET: rethrows what is not a {@link RetryableFailure}; gives up when
 * the retries are spent or the server asks for a wait over `--max-wait`; else emits a `retry`
 * event and sleeps the backoff ({@link decideWait}, kind `retry`).
 * @throws {ApiUnavailableError} (exit 6) `the API could not be read (GET <path>): <reason>…`
 *   naming the retries made and the last request id, or the `Retry-After` over `--max-wait`
 * @throws the error itself when it is not retryable; the signal's reason when aborted
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
      {
        cause: err,
        hint: 'raise --max-wait, or run again later',
      },
    );
  }
  policy.emit({ type: 'retry', attempt: retry + 1, delayMs: decision.ms, reason: err.reason });
  await policy.clock.sleep(decision.ms, attempt.signal);
}
