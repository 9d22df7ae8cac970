/** A leaf, so the client, the exchange and the retry policy emit events without importing one another. */

/**
 * What the client reports as it works: `response` (every hop of a redirect included), `wait` (a
 * rate-limit wait about to be slept), `retry` (a failed attempt about to be retried after a backoff).
 */
export type ClientEvent =
  | {
      type: 'response';
      method: string;
      /** Path and query relative to the origin. */
      path: string;
      status: number;
      /** From sending to the end of the body read (to the headers, for a redirect), ms. */
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
      /** ms */
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
      /** ms */
      delayMs: number;
      /** Why, e.g. `HTTP 503`, `ECONNRESET`, `invalid JSON`. */
      reason: string;
    };

/** Must not throw. */
export type ClientEventSink = (event: ClientEvent) => void;
