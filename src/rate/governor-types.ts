/**
 * The shapes of the rate-limit governor (governor.ts) and of its pools (pool.ts):
 * its options, permits, waits and state.
 */
import type { SharedQuota } from './store.js';
import type { Clock } from '../time/clock.js';
import type { ResponseObservation } from './quota-window.js';
import type { ServerClock } from './server-clock.js';

/** A pacing wait the governor is about to sleep, for `wait` events. */
export interface GovernorWait {
  reason: 'pacing';
  /** Length, ms. */
  ms: number;
  /** End, local epoch ms. */
  until: number;
  limit?: number;
  remaining?: number;
}

/** Options of {@link createRateLimitGovernor}. */
export interface GovernorOptions {
  clock: Clock;
  /** Shared by the governors of one pool (pool.ts): every client of one origin and key. */
  serverClock: ServerClock;
  /** Longest pacing wait accepted, ms (default Infinity); longer → {@link RateLimitError} without waiting. */
  maxWaitMs?: number;
  /** Called once per distinct pacing wait (concurrent requests waiting for the same reset report it once). */
  onWait?: (wait: GovernorWait) => void;
  /** Names the endpoint in errors: its route or path, e.g. `/taxpayers/{taxpayerId}/invoices`. */
  name?: string;
  /**
   * What other processes share about this window (docs/rate-limits.md, "Rate limits, retries and safety"):
   * each request is reserved in `quota()` under `scope` before it is sent, and every response's
   * headers are recorded there (`quota()` undefined: nothing shared, or not open yet);
   * `onPerPath` is called when those records show that the API counts `scope` per concrete path.
   */
  shared?: { quota: () => SharedQuota | undefined; scope: string; onPerPath?: () => void };
}

/** The right to send one request; release it when the response headers arrive (or the attempt failed). */
export interface Permit {
  /** True when this request is the first after a rate-limit wait (a 429 on it means the server rounds its reset down). */
  readonly afterWait: boolean;
  /** Returns the slot; idempotent. Pass the response's observation when there was a response. */
  release(observation?: ResponseObservation): void;
  /**
   * The request was never sent (aborted before sending): returns the slot and gives its
   * reservation back, to this process's window and to what other processes share, so no phantom
   * holds the quota; idempotent, and nothing once released.
   */
  cancel(): void;
}

/** Options of {@link RateLimitGovernor.acquire}. */
export interface AcquireOptions {
  /** Aborts the wait (rejects with the signal's reason). */
  signal?: AbortSignal;
  /** The caller has just waited for a rate limit itself (a 429 wait): mark the permit {@link Permit.afterWait}. */
  afterWait?: boolean;
  /** False: grant at once whatever the window says (`ratelimit` probes); still counted. Default true. */
  wait?: boolean;
  /**
   * Requests the caller will still make to this endpoint after this one, when it knows (offset
   * pages): a window that cannot serve them all may time its last requests to probe the server's
   * clock at no cost (see QuotaWindow.probeDelay).
   */
  demand?: number;
  /** This caller's longest pacing wait, ms (default the governor's): governors shared by clients take each client's. */
  maxWaitMs?: number;
  /** This caller's listener of pacing waits (default the governor's): each client hears the waits of its own requests. */
  onWait?: (wait: GovernorWait) => void;
}

/** The governor's view of its endpoint, for diagnostics and tests. */
export interface GovernorState {
  /** Last `X-RateLimit-Limit` seen. */
  limit: number | undefined;
  /** Requests that may still be started in this window, net of those in flight; undefined: unknown (one at a time). */
  available: number | undefined;
  /** The current window's reset, server ms. */
  resetAt: number | undefined;
  /** Requests sent and not yet answered. */
  inFlight: number;
}

/** One endpoint's rate-limit pacing; see {@link createRateLimitGovernor}. */
export interface RateLimitGovernor {
  /**
   * Waits until a request may be sent, then reserves a slot for it.
   * @throws {RateLimitError} when the wait for the reset would exceed `maxWaitMs`
   * @throws the signal's reason when aborted
   */
  acquire(options?: AcquireOptions): Promise<Permit>;
  /**
   * Holds every request of this endpoint until `localMs` (a 429 wait the caller reports and sleeps
   * itself; `reportedTo`, default the governor's listener, is not told it again as a pacing wait).
   */
  blockUntil(localMs: number, reportedTo?: (wait: GovernorWait) => void): void;
  /** A snapshot of the state. */
  state(): GovernorState;
}
