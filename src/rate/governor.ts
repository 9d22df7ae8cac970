/**
 * The rate-limit governor: one per endpoint (limits are per API key and per endpoint, the API
 * documentation, rate limiting; which paths make one endpoint is pool.ts's), shared
 * by every request in flight of the clients of one origin and key. It paces requests
 * so that an honest server never has to answer 429 (docs/rate-limits.md, "Rate limits, retries and safety":
 * pace before the 429): a request is only sent when the window has room for it, counting the
 * requests already in flight (a reservation), and when the window is spent it waits for the reset
 * by the server's clock. The window model is quota-window.ts; how long to wait is wait.ts.
 */
import type { SharedTicket } from './store.js';
import { RateLimitError } from '../errors.js';
import { abortReason } from '../time/clock.js';
import type { AcquireOptions, GovernorOptions, GovernorState, GovernorWait, Permit, RateLimitGovernor } from './governor-types.js';
import { QuotaWindow, type ResponseObservation } from './quota-window.js';
import { decideWait, describeTooLong } from './wait.js';

export type { AcquireOptions, GovernorOptions, GovernorState, GovernorWait, Permit, RateLimitGovernor } from './governor-types.js';
export { PROBE_PRECISION_MS, type ResponseObservation } from './quota-window.js';

/** Whom a wait is reported to, and the longest wait it accepts, ms (a caller's, or the governor's). */
interface Caller {
  onWait: ((wait: GovernorWait) => void) | undefined;
  maxWaitMs: number;
}

/**
 * Requests left in a window above which the store (store.ts `SharedQuota`) is neither read
 * nor written: the server's `Remaining` already counts every process's answered requests, and
 * other processes cannot spend this many before this one hears again, so only a window's start
 * and its last quarter (at least 64 requests) pay for a file lock per request. A quota of 60 a
 * window is shared on every request; an unlimited one only at its start.
 * @param limit `X-RateLimit-Limit`
 */
function sharedMargin(limit: number): number {
  return Math.max(64, limit / 4);
}

/** A request reserved in what other processes share, and its ticket once the window's reset was known. */
interface Reservation {
  ticket?: SharedTicket;
}

/** A permit, and how long to hold its request to probe the server's clock (ms, 0 = none). */
interface Grant {
  permit: Permit;
  hold: number;
}

/** The governor of one endpoint; see {@link createRateLimitGovernor}. */
class Governor implements RateLimitGovernor {
  private readonly window: QuotaWindow;
  private inFlight = 0;
  private blockedUntil = -Infinity;
  /** The latest wait end (local ms) each listener was told of, so a wait is reported once per listener. */
  private readonly reported = new Map<((wait: GovernorWait) => void) | undefined, number>();
  /** Callers inside `acquire` (waiting for a permit): the demand the window has to serve. */
  private acquiring = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly options: GovernorOptions) {
    this.window = new QuotaWindow(options.serverClock);
  }

  async acquire(opts: AcquireOptions = {}): Promise<Permit> {
    const { signal } = opts;
    const waited = opts.afterWait === true;
    if (opts.wait === false) return this.grant(waited);
    const caller: Caller = {
      onWait: opts.onWait ?? this.options.onWait,
      maxWaitMs: opts.maxWaitMs ?? this.options.maxWaitMs ?? Number.POSITIVE_INFINITY,
    };
    this.acquiring++;
    let granted: Grant;
    try {
      granted = await this.acquireWaiting(caller, signal, waited, opts.demand ?? 0);
    } finally {
      this.acquiring--;
    }
    if (granted.hold > 0) {
      // A clock probe: the slot is taken (others see it gone); only the sending waits for its moment.
      try {
        await this.options.clock.sleep(granted.hold, signal);
      } catch (err) {
        granted.permit.cancel();
        throw err;
      }
    }
    return granted.permit;
  }

  blockUntil(localMs: number, reportedTo?: (wait: GovernorWait) => void): void {
    if (localMs > this.blockedUntil) this.blockedUntil = localMs;
    const listener = reportedTo ?? this.options.onWait;
    if (localMs > (this.reported.get(listener) ?? -Infinity)) this.reported.set(listener, localMs);
  }

  state(): GovernorState {
    const w = this.window;
    return { limit: w.limit, available: w.available, resetAt: w.resetAt, inFlight: this.inFlight };
  }

  /** Tells the caller of a wait unless it was told of one ending at the same instant (±1 ms). */
  private report(caller: Caller, wait: GovernorWait): void {
    if (wait.until <= (this.reported.get(caller.onWait) ?? -Infinity) + 1) return;
    this.reported.set(caller.onWait, wait.until);
    caller.onWait?.(wait);
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

  /** A permit; `reservation`: the request was reserved in what other processes share (with its ticket, if any). */
  private grant(afterWait: boolean, reservation?: Reservation): Permit {
    this.inFlight++;
    this.window.take();
    const ticket = reservation?.ticket;
    let released = false;
    return {
      afterWait,
      cancel: () => {
        if (released) return;
        released = true;
        this.inFlight--;
        this.window.untake();
        if (reservation !== undefined) this.options.shared?.quota()?.cancel(this.options.shared.scope, ticket);
        this.notify();
      },
      release: (obs) => {
        if (released) return;
        released = true;
        this.inFlight--;
        if (obs !== undefined) {
          if (obs.status === 429 && afterWait) this.options.serverClock.noteRoundedDown();
          this.window.observe(obs, this.inFlight);
          this.share(obs, ticket);
        }
        this.notify();
      },
    };
  }

  /** Records a response's window where other processes read it (a 429 is recorded as none left). */
  private share(obs: ResponseObservation, ticket: SharedTicket | undefined): void {
    const { shared } = this.options;
    const quota = shared?.quota();
    const h = obs.headers;
    const remaining = obs.status === 429 ? 0 : h.remaining;
    if (shared === undefined || quota === undefined || remaining === undefined || h.resetAt === undefined) return;
    if (h.limit !== undefined && remaining > sharedMargin(h.limit)) return;
    const seen = { remaining, resetAt: h.resetAt, status: obs.status, ...(h.limit === undefined ? {} : { limit: h.limit }) };
    if (quota.observe(shared.scope, seen, ticket)) shared.onPerPath?.();
  }

  /**
   * Reserves the request in what other processes share: `until`, the local instant (ms) the
   * window's reset is certainly past by the server's clock, when their reservations fill it; else
   * the reservation's ticket, if any (go).
   */
  private sharedHold(now: number): { until?: number; reservation?: Reservation } {
    const { shared, serverClock } = this.options;
    const quota = shared?.quota();
    if (shared === undefined || quota === undefined) return {};
    const h = this.window.last?.headers;
    if (h?.limit !== undefined && h.remaining !== undefined && h.remaining - this.inFlight > sharedMargin(h.limit)) return {};
    const answer = quota.reserve(shared.scope, now + (serverClock.offset?.low ?? 0));
    if (answer === undefined) return {};
    if (answer.granted) return { reservation: answer.ticket === undefined ? {} : { ticket: answer.ticket } };
    const until = serverClock.toLocal(answer.resetAt) + serverClock.marginMs;
    return until > now ? { until } : {};
  }

  /** The waiting part of `acquire` (counted in `acquiring` by its caller). */
  private async acquireWaiting(caller: Caller, signal: AbortSignal | undefined, afterWait: boolean, demand: number): Promise<Grant> {
    let waited = afterWait;
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      const now = this.options.clock.now();
      if (this.blockedUntil > now) {
        this.report(caller, { reason: 'pacing', ms: this.blockedUntil - now, until: this.blockedUntil });
        await this.sleepReported(caller, this.blockedUntil - now, this.blockedUntil, signal);
        waited = true;
        continue;
      }
      const available = this.window.available;
      const free = available === undefined ? this.inFlight === 0 : available > 0;
      if (free) {
        const { until, reservation } = this.sharedHold(now);
        if (until !== undefined) {
          await this.sleepUntil(caller, now, until, signal);
          waited = true;
          continue;
        }
        if (available === undefined) return { permit: this.grant(waited, reservation), hold: 0 };
        return { permit: this.grant(waited, reservation), hold: this.window.probeDelay(now, demand, this.acquiring) };
      }
      if (this.inFlight > 0) {
        // Answers in flight will tell how much room the window has left.
        await this.waitForRelease(signal);
        continue;
      }
      if (await this.waitForReset(caller, now, signal)) waited = true;
    }
  }

  /**
   * A pacing wait until `until` (local ms): reported to the caller, then slept.
   * @throws {RateLimitError} when it would exceed the caller's `maxWaitMs`
   */
  private async sleepUntil(caller: Caller, now: number, until: number, signal: AbortSignal | undefined): Promise<void> {
    const ms = until - now;
    if (ms > caller.maxWaitMs) {
      throw new RateLimitError(
        `the rate limit of ${this.options.name ?? 'this endpoint'} resets in ${describeTooLong(ms, caller.maxWaitMs)}`,
        until,
        {
          hint: 'raise --max-wait, or run again after the reset',
        },
      );
    }
    const wait: GovernorWait = { reason: 'pacing', ms, until };
    if (this.window.limit !== undefined) wait.limit = this.window.limit;
    const remaining = this.window.last?.headers.remaining;
    if (remaining !== undefined) wait.remaining = remaining;
    this.report(caller, wait);
    await this.sleepReported(caller, ms, until, signal);
  }

  /** Sleeps a wait reported to `caller` ending at `until`; aborted, it was not taken (wait-ledger.ts) and may be reported again. */
  private async sleepReported(caller: Caller, ms: number, until: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.options.clock.sleep(ms, signal);
    } catch (err) {
      if (this.reported.get(caller.onWait) === until) this.reported.delete(caller.onWait);
      throw err;
    }
  }

  /**
   * The window is spent and nothing is in flight: sleeps until its reset by the server's clock
   * (a `pacing` wait, reported once per distinct end), then forgets the window so that one request
   * learns the new one.
   * @returns true when it slept
   * @throws {RateLimitError} when the wait would exceed `maxWaitMs`
   */
  private async waitForReset(caller: Caller, now: number, signal: AbortSignal | undefined): Promise<boolean> {
    const { serverClock } = this.options;
    const obs = this.window.last;
    const decision = obs === undefined ? undefined : decideWait({ kind: 'pacing', response: obs, now, serverClock, maxWaitMs: caller.maxWaitMs });
    const startEpoch = this.window.epoch;
    let slept = false;
    if (decision !== undefined && decision.ms > 0) {
      await this.sleepUntil(caller, now, decision.until, signal);
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
 * ({@link decideWait}, kind `pacing`), then starts the new window with one request. With
 * `options.shared`, each request is also reserved in what other processes share, and waits for the
 * reset when their reservations fill the window.
 */
export function createRateLimitGovernor(options: GovernorOptions): RateLimitGovernor {
  return new Governor(options);
}
