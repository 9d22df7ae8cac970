/** One endpoint's window: a request goes out only when the window has room for it, counting those in flight. */
import { hint, option, RateLimitError } from '../errors.js';
import { defined } from '../json/object.js';
import { abortReason, type Clock } from '../time/clock.js';
import type { ServerClock } from './headers.js';
import type { SharedQuota, SharedReservation } from './budget.js';
import { decideWait, describeTooLong, type ReceivedResponse } from './wait.js';

/** Below this uncertainty of the server clock's offset, ms, the governor stops probing it. */
export const PROBE_PRECISION_MS = 25;
/** Requests of a window at most that are timed to probe the server's clock. */
const PROBES_PER_WINDOW = 4;
/** A probe is sent at least this long before the window may end by the server's clock, ms. */
const PROBE_DEADLINE_MARGIN_MS = 100;

export interface ResponseObservation extends ReceivedResponse {
  /** A 429 counts as `Remaining: 0`. */
  status: number;
}

/**
 * `available` = the smallest `Remaining` seen in the window minus the requests in flight when it was
 * seen, minus those granted since (the safe side). An earlier Reset (a late answer) changes nothing.
 */
class QuotaWindow {
  limit: number | undefined;
  available: number | undefined;
  /** server ms */
  resetAt: number | undefined;
  /** The last response of the current window that counted, for the wait until its reset. */
  last: ResponseObservation | undefined;
  /** Bumped whenever the window changes, so concurrent sleepers do not reset a window twice. */
  epoch = 0;
  /** local ms */
  private probeNotBefore = -Infinity;

  constructor(private readonly serverClock: ServerClock) {}

  /** The reset has passed: the next request goes out alone to learn the new window. */
  reset(): void {
    this.epoch++;
    this.available = undefined;
    this.resetAt = undefined;
    this.last = undefined;
  }

  /** Room for a request; an unknown window has room for one at a time. */
  free(inFlight: number): boolean {
    return this.available === undefined ? inFlight === 0 : this.available > 0;
  }

  take(): void {
    if (this.available !== undefined) this.available--;
  }

  /** A granted request never sent: whether `available` was counted down by `take` or set by a response since, it counted it. */
  untake(): void {
    if (this.available !== undefined && Number.isFinite(this.available)) this.available++;
  }

  /** @param inFlight requests sent and not yet answered, this one excluded */
  observe(obs: ResponseObservation, inFlight: number): void {
    const h = obs.headers;
    if (h.limit !== undefined) this.limit = h.limit;
    const remaining = obs.status === 429 ? 0 : h.remaining;
    if (remaining === undefined) {
      // A server (or a proxy's error page) that reports no quota: do not hold requests back on it.
      if (this.available === undefined && obs.status < 400) this.available = Number.POSITIVE_INFINITY;
      return;
    }
    const room = remaining - inFlight;
    const reset = h.resetAt;
    const newWindow =
      this.available === undefined ||
      this.available === Number.POSITIVE_INFINITY ||
      (reset !== undefined && (this.resetAt === undefined || reset > this.resetAt));
    if (newWindow) {
      this.epoch++;
      this.available = room;
      this.resetAt = reset;
      this.last = obs;
    } else if (reset === undefined || reset === this.resetAt) {
      if (room < this.available!) this.available = room;
      this.last = obs;
    }
  }

  /**
   * How long to hold the next request so that it probes the server's clock, ms. `Date` has a
   * resolution of one second (RFC 9110 §6.6.1): a response narrows the offset only when in flight
   * while the server's second turns. When the window will run out anyway, holding its last requests
   * costs nothing; probes are spread over the tick's uncertainty until it is below {@link PROBE_PRECISION_MS}.
   * @param acquiring callers waiting for a permit, this one included
   */
  probeDelay(now: number, demand: number, acquiring: number): number {
    const offset = this.serverClock.offset;
    const available = this.available;
    if (offset === undefined || available === undefined || available <= 0 || this.resetAt === undefined) return 0;
    const width = offset.high - offset.low;
    if (!(width > PROBE_PRECISION_MS) || !Number.isFinite(width)) return 0;
    // Only the window's last requests, and only when more requests than it has room for will follow.
    if (available > PROBES_PER_WINDOW || Math.max(acquiring - 1, demand) < available) return 0;
    // The next whole second of the server's clock, and when it may turn by the local clock.
    const tick = (Math.floor((now + offset.low) / 1000) + 1) * 1000;
    const earliest = tick - offset.high;
    const latest = tick - offset.low;
    const spacing = width / (Math.min(available, PROBES_PER_WINDOW) + 1);
    const at = Math.max(now, this.probeNotBefore, earliest + spacing / 2);
    // A probe must still reach the server in this window; past the tick it learns nothing.
    if (at > latest || at > this.resetAt - offset.high - PROBE_DEADLINE_MARGIN_MS) return 0;
    this.probeNotBefore = at + spacing;
    return Math.max(0, Math.ceil(at - now));
  }
}

export interface GovernorWait {
  reason: 'pacing';
  ms: number;
  /** local epoch ms */
  until: number;
  limit?: number;
  remaining?: number;
}

/** What a client brings to the governors it shares: its listener of waits and its `--max-wait`. */
export interface ClientPacing {
  /** Longest pacing wait accepted, ms (Infinity: any); longer → {@link RateLimitError} without waiting. */
  maxWaitMs: number;
  /** Called once per distinct pacing wait (concurrent requests waiting for the same reset report it once). */
  onWait: (wait: GovernorWait) => void;
}

export interface GovernorOptions {
  clock: Clock;
  serverClock: ServerClock;
  /** The endpoint's route or path, for errors. */
  name?: string;
  /** `quota()` is undefined until the shared quota is open; `onPerPath`: its records show the API counts `scope` per path. */
  shared?: { quota: () => SharedQuota | undefined; scope: string; onPerPath?: () => void };
}

/** Released when the response headers arrive or the attempt failed; idempotent. */
export interface Permit {
  release(observation?: ResponseObservation): void;
  /** The request was never sent: gives its reservation back, also to the shared quota, so no phantom holds it. */
  cancel(): void;
}

export interface AcquireOptions {
  signal?: AbortSignal;
  /** The caller has just slept a 429 wait itself: a 429 on this request means the server rounds its reset down. */
  afterWait?: boolean;
  /** False: grant at once whatever the window says (`ratelimit` probes); still counted. Default true. */
  wait?: boolean;
  /** Requests the caller will still make to this endpoint after this one, when it knows (offset pages). */
  demand?: number;
}

/** Above this many requests left, the shared quota is untouched (`Remaining` counts all processes): only a window's start and last quarter lock. */
function sharedMargin(limit: number): number {
  return Math.max(64, limit / 4);
}

type Reservation = Extract<SharedReservation, { granted: true }>;

/** `hold`: ms to hold the request to probe the server's clock. */
interface Grant {
  permit: Permit;
  hold: number;
}

/**
 * One endpoint's governor. While the window is unknown (no response yet, or a new window) one
 * request at a time goes out to learn it, so concurrency cannot produce a burst of 429s.
 */
export class RateLimitGovernor {
  private readonly window: QuotaWindow;
  private inFlight = 0;
  private blockedUntil = -Infinity;
  /** The latest wait end (local ms) each listener was told of: a wait is reported once per listener. */
  private readonly reported = new Map<(wait: GovernorWait) => void, number>();
  /** Callers waiting inside `acquire`: the demand the window has to serve. */
  private acquiring = 0;
  private waiters: Array<() => void> = [];
  /** A networked store's reservation under way: the callers who find the window free wait for its answer. */
  private reserving: Promise<void> | undefined;

  constructor(private readonly options: GovernorOptions) {
    this.window = new QuotaWindow(options.serverClock);
  }

  /** @throws {RateLimitError} when the wait for the reset would exceed `maxWaitMs` */
  async acquire(caller: ClientPacing, opts: AcquireOptions = {}): Promise<Permit> {
    const { signal } = opts;
    const waited = opts.afterWait === true;
    if (opts.wait === false) return this.grant(waited);
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

  /** A 429 wait the caller reports and sleeps itself: `reportedTo` is not told it again as a pacing wait. */
  blockUntil(localMs: number, reportedTo: (wait: GovernorWait) => void): void {
    if (localMs > this.blockedUntil) this.blockedUntil = localMs;
    if (localMs > (this.reported.get(reportedTo) ?? -Infinity)) this.reported.set(reportedTo, localMs);
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

  private grant(afterWait: boolean, reservation?: Reservation): Permit {
    this.inFlight++;
    this.window.take();
    let released = false;
    const end = (sent: boolean, obs?: ResponseObservation): void => {
      if (released) return;
      released = true;
      this.inFlight--;
      if (!sent) {
        this.window.untake();
        this.giveBack(reservation);
      } else if (obs !== undefined) {
        if (obs.status === 429 && afterWait) this.options.serverClock.noteRoundedDown();
        this.window.observe(obs, this.inFlight);
        this.share(obs, reservation);
      } else this.giveBack(reservation, true);
      this.notify();
    };
    return { cancel: () => end(false), release: (obs) => end(true, obs) };
  }

  /** Gives a reservation back to the shared quota; `unanswered` (sent, no answer to tell): only to a store that holds the others while it is out. */
  private giveBack(reservation: Reservation | undefined, unanswered = false): void {
    const { shared } = this.options;
    const quota = shared?.quota();
    if (reservation !== undefined && quota !== undefined && (!unanswered || quota.holdsUntilTold === true))
      quota.cancel(shared!.scope, reservation.ticket);
  }

  /** A store that {@link SharedQuota.holdsUntilTold} hears every reserved request's answer, whatever room the window has. */
  private share(obs: ResponseObservation, reservation: Reservation | undefined): void {
    const { shared } = this.options;
    const quota = shared?.quota();
    if (shared === undefined || quota === undefined) return;
    const h = obs.headers;
    const remaining = obs.status === 429 ? 0 : h.remaining;
    if (remaining === undefined || h.resetAt === undefined) {
      this.giveBack(reservation, true);
      return;
    }
    const told = reservation !== undefined && quota.holdsUntilTold === true;
    if (!told && h.limit !== undefined && remaining > sharedMargin(h.limit)) return;
    const seen = { remaining, resetAt: h.resetAt, status: obs.status, ...(h.limit === undefined ? {} : { limit: h.limit }) };
    const perPath = quota.observe(shared.scope, seen, reservation?.ticket);
    if (perPath instanceof Promise) {
      void perPath.then((yes) => {
        if (yes) shared.onPerPath?.();
      });
    } else if (perPath) shared.onPerPath?.();
  }

  /** The request's reservation in the shared quota (undefined: go unshared); a promise of it from a networked store. */
  private reserveShared(now: number): SharedReservation | undefined | Promise<SharedReservation | undefined> {
    const { shared, serverClock } = this.options;
    const quota = shared?.quota();
    if (shared === undefined || quota === undefined) return undefined;
    const h = this.window.last?.headers;
    if (h?.limit !== undefined && h.remaining !== undefined && h.remaining - this.inFlight > sharedMargin(h.limit)) return undefined;
    const offset = serverClock.offset;
    const latest = offset !== undefined && Number.isFinite(offset.high) ? now + offset.high : now + (offset?.low ?? 0);
    const answer = quota.reserve(shared.scope, now + (offset?.low ?? 0), latest);
    return answer instanceof Promise ? answer.catch(() => undefined) : answer;
  }

  /**
   * A networked store's answer, awaited by one caller at a time (the others wait for it, then look
   * again): the window may have changed meanwhile, so a reservation it no longer has room for is
   * given back. undefined: look again.
   */
  private async reserveSharedAsync(pending: Promise<SharedReservation | undefined>, signal: AbortSignal | undefined) {
    this.reserving = pending.then(() => undefined);
    let answer: SharedReservation | undefined;
    try {
      answer = await pending;
    } finally {
      this.reserving = undefined;
    }
    if (this.window.free(this.inFlight) && signal?.aborted !== true && this.blockedUntil <= this.options.clock.now()) return { answer };
    if (answer?.granted === true) this.giveBack(answer);
    return undefined;
  }

  private async acquireWaiting(caller: ClientPacing, signal: AbortSignal | undefined, afterWait: boolean, demand: number): Promise<Grant> {
    let waited = afterWait;
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      let now = this.options.clock.now();
      if (this.blockedUntil > now) {
        await this.sleepReported(caller, { reason: 'pacing', ms: this.blockedUntil - now, until: this.blockedUntil }, signal);
        waited = true;
        continue;
      }
      if (this.window.free(this.inFlight)) {
        if (this.reserving !== undefined) {
          await this.reserving;
          continue;
        }
        const asked = now;
        let answer = this.reserveShared(now);
        if (answer instanceof Promise) {
          const settled = await this.reserveSharedAsync(answer, signal);
          if (settled === undefined) continue;
          answer = settled.answer;
          now = this.options.clock.now();
        }
        // Refused: the other processes' reservations fill the window (wait for its reset), or another host is learning it (ask again soon).
        if (answer?.granted === false) {
          if (answer.retryMs !== undefined) {
            await this.options.clock.sleep(answer.retryMs, signal);
            continue;
          }
          const until = this.options.serverClock.toLocal(answer.resetAt) + this.options.serverClock.marginMs;
          if (until > asked) {
            await this.sleepUntil(caller, now, until, signal);
            waited = true;
            continue;
          }
        }
        const permit = this.grant(waited, answer?.granted === true ? answer : undefined);
        return { permit, hold: this.window.probeDelay(now, demand, this.acquiring) };
      }
      if (this.inFlight > 0) {
        // Answers in flight will tell how much room the window has left.
        await this.waitForRelease(signal);
        continue;
      }
      if (await this.waitForReset(caller, now, signal)) waited = true;
    }
  }

  private async sleepUntil(caller: ClientPacing, now: number, until: number, signal: AbortSignal | undefined): Promise<void> {
    const ms = until - now;
    if (ms > caller.maxWaitMs) {
      const message = `the rate limit of ${this.options.name ?? 'this endpoint'} resets in ${describeTooLong(ms, caller.maxWaitMs)}`;
      throw new RateLimitError(message, until, { hint: hint`raise ${option('maxWaitMs')}, or run again after the reset` });
    }
    const { limit } = this.window;
    await this.sleepReported(caller, { reason: 'pacing', ms, until, ...defined({ limit, remaining: this.window.last?.headers.remaining }) }, signal);
  }

  /** Reported once per listener and end (±1 ms); an aborted wait was not taken, so it may be reported again. */
  private async sleepReported(caller: ClientPacing, wait: GovernorWait, signal: AbortSignal | undefined): Promise<void> {
    if (wait.until > (this.reported.get(caller.onWait) ?? -Infinity) + 1) {
      this.reported.set(caller.onWait, wait.until);
      caller.onWait(wait);
    }
    try {
      await this.options.clock.sleep(wait.ms, signal);
    } catch (err) {
      if (this.reported.get(caller.onWait) === wait.until) this.reported.delete(caller.onWait);
      throw err;
    }
  }

  /** The window is spent and nothing is in flight: after its reset, one request learns the new one. */
  private async waitForReset(caller: ClientPacing, now: number, signal: AbortSignal | undefined): Promise<boolean> {
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
