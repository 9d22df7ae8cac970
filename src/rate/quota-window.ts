/** The governor's model of one endpoint's window: pure bookkeeping, the governor waits on it. */
import type { ServerClock } from './server-clock.js';
import type { ReceivedResponse } from './wait.js';

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
export class QuotaWindow {
  limit: number | undefined;
  /** Net of the requests in flight; undefined: unknown (one at a time). */
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
    const windowReset = this.resetAt;
    if (offset === undefined || available === undefined || available <= 0 || windowReset === undefined) return 0;
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
    if (at > latest || at > windowReset - offset.high - PROBE_DEADLINE_MARGIN_MS) return 0;
    this.probeNotBefore = at + spacing;
    return Math.max(0, Math.ceil(at - now));
  }
}
