// Why an attempt failed, and whether and when it is retried: backoff with full jitter ("Exponential
// Backoff And Jitter", AWS Architecture Blog, 2015), and the first-contact rule: a failure that says
// the URL is wrong, before the origin has answered in this run, ends the run instead of a retry.
import { ApiUnavailableError, CollectionsError, hint, option, type Hint } from '../errors.js';
import { abortReason, type Clock } from '../time/clock.js';
import type { ClientEventSink } from './events.js';
import { describeConnectFailure, describeNetworkError } from './connect-failure.js';
import { ProxyFailure } from './proxy.js';
import { decideWait, describeTooLong, type ReceivedResponse, type ServerClock } from '../rate/index.js';

export const DEFAULT_RETRIES = 5;
/** ms */
const BACKOFF_BASE_MS = 1000;
const BACKOFF_CAP_MS = 30_000;

/**
 * A uniform delay in `[0, min(cap, base · 2^retry))` ms: full jitter spreads clients that failed
 * together, so they do not come back together.
 * @param retry 0 for the first retry
 */
export function backoffDelayMs(retry: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(Math.max(0, retry), 30));
  const r = random();
  const u = r >= 0 && r < 1 ? r : 0;
  return Math.floor(u * ceiling);
}

/** A network error, a timeout, a 5xx or an unusable 2xx body. `reason` is short and free of secrets (`HTTP 503`, `ECONNRESET`). */
export class RetryableFailure extends Error {
  readonly reason: string;
  readonly requestId: string | undefined;
  /** A 5xx whose `Retry-After` (RFC 9110 §10.2.3) sets the least delay before the retry. */
  readonly response: ReceivedResponse | undefined;
  /** What to check when the retries run out (e.g. the base URL after a refused connection). */
  readonly hint: Hint | undefined;

  constructor(reason: string, options: { cause?: unknown; requestId?: string; response?: ReceivedResponse; hint?: Hint } = {}) {
    super(reason, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RetryableFailure';
    this.reason = reason;
    this.requestId = options.requestId;
    this.response = options.response;
    this.hint = options.hint;
  }
}

/** `250 ms` below a second (never `0.0 s`). */
function formatTimeout(ms: number): string {
  if (ms < 1000) return `${Math.round(ms * 10) / 10} ms`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Whether the origin has answered in this run (a response, or a connection that broke after it was made); shared by the process's clients. */
export interface OriginContact {
  answered: boolean;
}

export interface AttemptContext {
  redact: (text: string) => string;
  timeoutMs: number;
  contact: OriginContact;
}

/** The caller's abort as it is; a connection never made ends the run at once when it says the setting is wrong and the origin has not answered yet. */
export function attemptFailure(
  options: AttemptContext,
  err: unknown,
  caller: AbortSignal | undefined,
  timeout: AbortSignal,
  what: string,
  url?: URL,
): unknown {
  if (caller?.aborted) return abortReason(caller);
  // A bound of the body read or the transport (HostileResponseError), or a bad proxy setting: not retried.
  if (err instanceof CollectionsError) return err;
  if (timeout.aborted) return new RetryableFailure(`timeout after ${formatTimeout(options.timeoutMs)}${what}`, { cause: err });
  const connect = url === undefined ? undefined : describeConnectFailure(err, url);
  if (connect !== undefined && connect.likely !== undefined && !options.contact.answered) {
    const message = `${connect.reason}, before the API answered anything in this run: ${connect.likely}`;
    return new ApiUnavailableError(options.redact(message), { cause: err, hint: connect.hint });
  }
  if (connect !== undefined) return new RetryableFailure(options.redact(connect.reason), { cause: err, hint: connect.hint });
  const proxy = err instanceof ProxyFailure ? ` (through the proxy ${err.proxy})` : '';
  // A connection reset or broken after it was made: something listens there, so the URL is not the mistake.
  if (proxy === '') options.contact.answered = true;
  return new RetryableFailure(options.redact(describeNetworkError(err)) + what + proxy, { cause: err });
}

/** The end of a GET whose attempt failed with `err`: `tail` follows the reason, `advice` defaults to the failure's hint. */
export function unreadable(err: RetryableFailure, path: string, tail = '', advice = err.hint): ApiUnavailableError {
  return new ApiUnavailableError(`the API could not be read (GET ${path}): ${err.reason}${tail}`, {
    cause: err,
    ...(advice === undefined ? {} : { hint: advice }),
  });
}

export interface RetryPolicy {
  retries: number;
  /** `--max-wait`, ms */
  maxWaitMs: number;
  random: () => number;
  clock: Clock;
  serverClock: ServerClock;
  emit: ClientEventSink;
}

export interface FailedAttempt {
  /** Retries made so far for this request (0 after the first attempt). */
  retry: number;
  path: string;
  requestId?: string;
  signal?: AbortSignal;
}

/**
 * Between two attempts of one GET: rethrows what is not a {@link RetryableFailure}, else emits a
 * `retry` event and sleeps the backoff.
 * @throws {ApiUnavailableError} (exit 6) when the retries are spent or a `Retry-After` is over `--max-wait`
 */
export async function waitBeforeRetry(err: unknown, attempt: FailedAttempt, policy: RetryPolicy): Promise<void> {
  if (!(err instanceof RetryableFailure)) throw err;
  const { retries, maxWaitMs } = policy;
  const { retry, path } = attempt;
  if (retry >= retries) {
    const id = err.requestId ?? attempt.requestId;
    const after = retries > 0 ? ` (after ${retries} ${retries === 1 ? 'retry' : 'retries'})` : '';
    throw unreadable(err, path, `${after}${id ? ` [X-Request-ID: ${id}]` : ''}`);
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
    const wait = describeTooLong(decision.neededMs, maxWaitMs);
    throw unreadable(err, path, `; it asks to retry in ${wait}`, hint`raise ${option('maxWaitMs')}, or run again later`);
  }
  policy.emit({ type: 'retry', attempt: retry + 1, delayMs: decision.ms, reason: err.reason });
  await policy.clock.sleep(decision.ms, attempt.signal);
}
