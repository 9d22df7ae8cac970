/**
 * The HTTP client of the Collection API: auth headers, rate-limit waits and pacing, retries with
 * backoff, per-attempt timeouts, same-origin redirects only, and mapping of failures to errors.
 * STUB: interface fixed; implementation by the http work.
 */
import type { FetchLike } from '../cli/context.js';
import type { Clock } from '../time/clock.js';
import type { HydraPage } from '../pagination/hydra.js';

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
  getPage(url: URL, headers?: Record<string, string>): Promise<FetchedPage>;
  /** One request, no rate-limit wait, no retry on 429; for `ratelimit`. */
  probe(url: URL, headers?: Record<string, string>): Promise<ProbeResult>;
  /** Requests sent so far (attempts, including retries). */
  readonly requests: number;
}

/** Creates a {@link Client}. */
export function createClient(options: ClientOptions): Client {
  void options;
  throw new Error('not implemented');
}
