/**
 * What the client reports as it works. A leaf module, so the client, the exchange and the retry
 * policy can all emit events without importing one another.
 */

/**
 * One event of the client; progress and `--verbose` consume these (docs/rate-limits.md, "Rate limits, retries
 * and safety"):
 * - `response`: one HTTP response (every hop of a redirect included), with the attempt's duration;
 * - `wait`: a rate-limit wait about to be slept (a 429, pacing on `Remaining: 0`, or `Retry-After`);
 * - `retry`: a failed attempt about to be retried after a backoff.
 */
export type ClientEvent =
  | {
      type: 'response';
      method: string;
      /** Path and query relative to the origin. */
      path: string;
      status: number;
      /** Duration of the attempt, ms: from sending to the end of the body read (to the headers, for a redirect). */
      ms: number;
      limit?: number;
      remaining?: number;
      /** `X-RateLimit-Reset`, epoch ms by the server's clock. */
      resetAt?: number;
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

/** Receives {@link ClientEvent}s; must not throw. */
export type ClientEventSink = (event: ClientEvent) => void;
