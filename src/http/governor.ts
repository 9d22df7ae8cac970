/**
 * The rate-limit governor: one per endpoint (limits are per API key and per endpoint, the API
 * documentation, rate limiting), shared by every request of a client in flight. It paces requests
 * so that an honest server never has to answer 429 (README, "Rate limits, retries and safety":
 * pace before the 429): a request is only sent when the window has room for it, counting the
 * requests already in flight (a reservation), and when the window is spent it waits for the reset
 * by the server's clock. The window model is quota-window.ts; how long to wait is wait.ts.
 */
import { RateLimitError } from '../errors.js';
import type { Clock } from '../time/clock.js';
import { QuotaWindow, type ResponseObservation } from './quota-window.js';
import { createServerClock, type ServerClock } from './server-clock.js';
import { decideWait, describeTooLong } from './wait.js';

export { PROBE_PRECISION_MS, type ResponseObservation } from './quota-window.js';

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
  /** Shared by the governors of one client. */
  serverClock: ServerClock;
  /** Longest pacing wait accepted, ms (default Infinity); longer → {@link RateLimitError} without waiting. */
  maxWaitMs?: number;
  /** Called once per distinct pacing wait (concurrent requests waiting for the same reset report it once). */
  onWait?: (wait: GovernorWait) => void;
  /** Names the endpoint in errors, e.g. `/entities`. */
  name?: string;
}

/** The right to send one request; release it when the response headers arrive (or the attempt failed). */
export interface Permit {
  /** True when this request is the first after a rate-limit wait (a 429 on it means the server rounds its reset down). */
  readonly afterWait: boolean;
  /** Returns the slot; idempotent. Pass the response's observation when there was a response. */
  release(observation?: ResponseObservation): void;
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
  /** Holds every request of this endpoint until `localMs` (a 429 wait the caller reports and sleeps itself). */
  blockUntil(localMs: number): void;
  /** A snapshot of the state. */
  state(): GovernorState;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/** A permit, and how long to hold its request to probe the server's clock (ms, 0 = none). */
interface Grant {
  permit: Permit;
  hold: number;
}

/** The governor of one endpoint; see {@link createRateLimitGovernor}. */
class Governor implements RateLimitGovernor {
  private readonly window: QuotaWindow;
  private readonly maxWaitMs: number;
  private inFlight = 0;
  private blockedUntil = -Infinity;
  private reportedUntil = -Infinity;
  /** Callers inside `acquire` (waiting for a permit): the demand the window has to serve. */
  private acquiring = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly options: GovernorOptions) {
    this.window = new QuotaWindow(options.serverClock);
    this.maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
  }

  async acquire(opts: AcquireOptions = {}): Promise<Permit> {
    const { signal } = opts;
    const waited = opts.afterWait === true;
    if (opts.wait === false) return this.grant(waited);
    this.acquiring++;
    let granted: Grant;
    try {
      granted = await this.acquireWaiting(signal, waited, opts.demand ?? 0);
    } finally {
      this.acquiring--;
    }
    if (granted.hold > 0) {
      // A clock probe: the slot is taken (others see it gone); only the sending waits for its moment.
      try {
        await this.options.clock.sleep(granted.hold, signal);
      } catch (err) {
        granted.permit.release();
        throw err;
      }
    }
    return granted.permit;
  }

  blockUntil(localMs: number): void {
    if (localMs > this.blockedUntil) this.blockedUntil = localMs;
    if (localMs > this.reportedUntil) this.reportedUntil = localMs;
  }

  state(): GovernorState {
    const w = this.window;
    return { limit: w.limit, available: w.available, resetAt: w.resetAt, inFlight: this.inFlight };
  }

  private notify(): void {
    if (this.waiters.length === 0) return;
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }

  private waitForRelease(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((w) => w !== wake);
        reject(abortReason(signal!));
      };
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiters.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private grant(afterWait: boolean): Permit {
    this.inFlight++;
    this.window.take();
    let released = false;
    return {
      afterWait,
      release: (obs) => {
        if (released) return;
        released = true;
        this.inFlight--;
        if (obs !== undefined) {
          if (obs.status === 429 && afterWait) this.options.serverClock.noteRoundedDown();
          this.window.observe(obs, this.inFlight);
        }
        this.notify();
      },
    };
  }

  /** The waiting part of `acquire` (counted in `acquiring` by its caller). */
  private async acquireWaiting(signal: AbortSignal | undefined, afterWait: boolean, demand: number): Promise<Grant> {
    let waited = afterWait;
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      const now = this.options.clock.now();
      if (this.blockedUntil > now) {
        await this.options.clock.sleep(this.blockedUntil - now, signal);
        waited = true;
        continue;
      }
      const available = this.window.available;
      if (available === undefined) {
        if (this.inFlight === 0) return { permit: this.grant(waited), hold: 0 };
        await this.waitForRelease(signal);
        continue;
      }
      if (available > 0) {
        const hold = this.window.probeDelay(now, demand, this.acquiring);
        return { permit: this.grant(waited), hold };
      }
      if (this.inFlight > 0) {
        // Answers in flight will tell how much room the window has left.
        await this.waitForRelease(signal);
        continue;
      }
      if (await this.waitForReset(now, signal)) waited = true;
    }
  }

  /**
   * The window is spent and nothing is in flight: sleeps until its reset by the server's clock
   * (a `pacing` wait, reported once per distinct end), then forgets the window so that one request
   * learns the new one.
   * @returns true when it slept
   * @throws {RateLimitError} when the wait would exceed `maxWaitMs`
   */
  private async waitForReset(now: number, signal: AbortSignal | undefined): Promise<boolean> {
    const { clock, serverClock } = this.options;
    const obs = this.window.last;
    const decision = obs === undefined ? undefined : decideWait({ kind: 'pacing', response: obs, now, serverClock, maxWaitMs: this.maxWaitMs });
    const startEpoch = this.window.epoch;
    let slept = false;
    if (decision !== undefined && decision.ms > 0) {
      if (decision.tooLong) {
        throw new RateLimitError(
          `the rate limit of ${this.options.name ?? 'this endpoint'} resets in ${describeTooLong(decision.ms, this.maxWaitMs)}`,
          decision.until,
          {
            hint: 'raise --max-wait, or run again after the reset',
          },
        );
      }
      if (decision.until > this.reportedUntil + 1) {
        this.reportedUntil = decision.until;
        const wait: GovernorWait = { reason: 'pacing', ms: decision.ms, until: decision.until };
        if (this.window.limit !== undefined) wait.limit = this.window.limit;
        if (obs?.headers.remaining !== undefined) wait.remaining = obs.headers.remaining;
        this.options.onWait?.(wait);
      }
      await clock.sleep(decision.ms, signal);
      slept = true;
    }
    const w = this.window;
    if (w.epoch === startEpoch && this.inFlight === 0 && w.available !== undefined && w.available <= 0) w.reset();
    return slept;
  }
}

/**
 * Creates the governor of one endpoint. While the window's state is unknown (no response yet, or a
 * new window), one request at a time goes out to learn it; then requests are granted while the
 * window has room ({@link QuotaWindow}), so concurrency cannot produce a burst of 429s. When
 * nothing is available and nothing is in flight, it sleeps until the reset by the server's clock
 * ({@link decideWait}, kind `pacing`), then starts the new window with one request.
 */
export function createRateLimitGovernor(options: GovernorOptions): RateLimitGovernor {
  return new Governor(options);
}

/** The governors of one client, by endpoint. */
export interface GovernorRegistry {
  /** The shared server-clock knowledge. */
  readonly serverClock: ServerClock;
  /** The governor of the endpoint of `url` (keyed by pathname: limits are per endpoint). */
  forUrl(url: URL): RateLimitGovernor;
}

/** Creates a {@link GovernorRegistry}; `options` apply to every governor it creates. */
export function createGovernorRegistry(options: Omit<GovernorOptions, 'serverClock' | 'name'>): GovernorRegistry {
  const serverClock = createServerClock();
  const governors = new Map<string, RateLimitGovernor>();
  return {
    serverClock,
    forUrl(url: URL): RateLimitGovernor {
      const key = url.pathname;
      let g = governors.get(key);
      if (g === undefined) {
        g = createRateLimitGovernor({ ...options, serverClock, name: key });
        governors.set(key, g);
      }
      return g;
    },
  };
}
