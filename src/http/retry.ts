/**
 * The retry policy for GETs (reliability.md rule 4): exponential backoff with full jitter
 * ("Exponential Backoff And Jitter", AWS Architecture Blog, 2015), base 1 s, cap 30 s, and the
 * description of what failed for events and the final error.
 */

/** Default number of retries after a failed attempt (cli-spec.md `--retries`). */
export const DEFAULT_RETRIES = 5;
/** Backoff base, ms. */
export const BACKOFF_BASE_MS = 1000;
/** Backoff cap, ms. */
export const BACKOFF_CAP_MS = 30_000;

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
   * The server's `Retry-After` on a 5xx (RFC 9110 §10.2.3: how long the service expects to be
   * unavailable), ms from when the response arrived; the retry waits at least this long.
   */
  readonly retryAfterMs: number | undefined;

  constructor(reason: string, options: { cause?: unknown; requestId?: string; retryAfterMs?: number } = {}) {
    super(reason, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RetryableFailure';
    this.reason = reason;
    this.requestId = options.requestId;
    this.retryAfterMs = options.retryAfterMs;
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
