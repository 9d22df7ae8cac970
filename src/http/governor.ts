/**
 * The rate-limit governor: one per endpoint (limits are per API key and per endpoint,
 * api-contract.md §8), shared by every request of a client in flight. It paces requests so that an
 * honest server never has to answer 429 (reliability.md rule 2): a request is only sent when the
 * window has room for it, counting the requests already in flight (a reservation), and when the
 * window is spent it waits for the reset by the server's clock.
 */
import { RateLimitError } from '../errors.js';
import type { Clock } from '../time/clock.js';
import {
  planWait,
  ROUNDING_MARGIN_MS,
  serverToLocal,
  updateClockOffset,
  type ClockOffset,
  type RateLimitHeaders,
} from './rate-limit.js';

/** Below this uncertainty of the server clock's offset, ms, the governor stops probing it. */
export const PROBE_PRECISION_MS = 25;
/** Requests of a window at most that the governor times to probe the server's clock. */
export const PROBES_PER_WINDOW = 4;
/** A probe is sent at least this long before the window may end by the server's clock, ms. */
const PROBE_DEADLINE_MARGIN_MS = 100;

/** What a client knows about the server's clock; shared by all governors of one client. */
export interface ServerClock {
  /** The offset estimate (`serverTime − localTime`), or undefined before the first `Date`. */
  readonly offset: ClockOffset | undefined;
  /** 0, or {@link ROUNDING_MARGIN_MS} once a request sent right after a wait still got a 429. */
  readonly marginMs: number;
  /**
   * Feeds one response into the offset estimate.
   * @param dateMs its `Date`, server ms (undefined: nothing learnt)
   * @param sentAt when the request was sent, local ms
   * @param receivedAt when the response arrived, local ms
   */
  observe(dateMs: number | undefined, sentAt: number, receivedAt: number): void;
  /** Records that the server rounds its reset down: every later wait gets {@link ROUNDING_MARGIN_MS} more. */
  noteRoundedDown(): void;
  /** The local instant (ms) by which the server's clock has certainly reached `serverMs`. */
  toLocal(serverMs: number): number;
}

/** Creates a {@link ServerClock} with no knowledge yet. */
export function createServerClock(): ServerClock {
  let offset: ClockOffset | undefined;
  let marginMs = 0;
  return {
    get offset() {
      return offset;
    },
    get marginMs() {
      return marginMs;
    },
    observe(dateMs, sentAt, receivedAt) {
      if (dateMs !== undefined) offset = updateClockOffset(offset, dateMs, sentAt, receivedAt);
    },
    noteRoundedDown() {
      marginMs = ROUNDING_MARGIN_MS;
    },
    toLocal: (serverMs) => serverToLocal(serverMs, offset),
  };
}

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

/** What a response said, fed back through {@link Permit.release}. */
export interface ResponseObservation {
  /** HTTP status; a 429 counts as `Remaining: 0`. */
  status: number;
  headers: RateLimitHeaders;
  /** When the response arrived, local ms. */
  receivedAt: number;
}

/** The right to send one request; release it when the response headers arrive (or the attempt failed). */
export interface Permit {
  /** True when this request is the first after a rate-limit wait (for the rounding check of reliability.md rule 1). */
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
   * clock at no cost (see createRateLimitGovernor).
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

/**
 * Creates the governor of one endpoint. The model: `available` = the smallest `Remaining` seen in
 * the current window minus the requests in flight when it was seen, minus the requests granted since.
 * Counting every in-flight request as not yet counted by the server under-estimates, which is the
 * safe side: a request is never sent without room for it, so concurrency cannot produce a burst of
 * 429s. While the state is unknown (no response yet, or a new window), one request at a time goes
 * out to learn it. When nothing is available and nothing is in flight, it sleeps until the reset by
 * the server's clock ({@link planWait}, kind `pacing`), then starts the new window with one request.
 * A response with a later Reset starts a new window; one with an earlier Reset (a late answer from
 * the previous window) changes nothing.
 */
export function createRateLimitGovernor(options: GovernorOptions): RateLimitGovernor {
  const { clock, serverClock } = options;
  const maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
  let limit: number | undefined;
  let available: number | undefined;
  let windowReset: number | undefined;
  let lastObs: ResponseObservation | undefined;
  let inFlight = 0;
  let blockedUntil = -Infinity;
  let reportedUntil = -Infinity;
  /** Callers inside `acquire` (waiting for a permit): the demand the window has to serve. */
  let acquiring = 0;
  /** Earliest local instant of the next clock probe (see {@link probeDelay}). */
  let probeNotBefore = -Infinity;
  /** Bumped whenever the window changes, so concurrent sleepers do not reset a window twice. */
  let epoch = 0;
  let waiters: Array<() => void> = [];

  const notify = (): void => {
    if (waiters.length === 0) return;
    const ws = waiters;
    waiters = [];
    for (const w of ws) w();
  };

  const waitForRelease = (signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        waiters = waiters.filter((w) => w !== wake);
        reject(abortReason(signal!));
      };
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      waiters.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });

  const resetWindow = (): void => {
    epoch++;
    available = undefined;
    windowReset = undefined;
    lastObs = undefined;
  };

  const observe = (obs: ResponseObservation): void => {
    const h = obs.headers;
    if (h.limit !== undefined) limit = h.limit;
    const remaining = obs.status === 429 ? 0 : h.remaining;
    if (remaining === undefined) {
      // A server (or a proxy's error page) that reports no quota: do not hold requests back on it.
      if (available === undefined && obs.status < 400) available = Number.POSITIVE_INFINITY;
      return;
    }
    const room = remaining - inFlight;
    const reset = h.resetAt;
    const newWindow =
      available === undefined ||
      available === Number.POSITIVE_INFINITY ||
      (reset !== undefined && (windowReset === undefined || reset > windowReset));
    if (newWindow) {
      epoch++;
      available = room;
      windowReset = reset;
      lastObs = obs;
    } else if (reset === undefined || reset === windowReset) {
      if (room < available!) available = room;
      lastObs = obs;
    }
  };

  /**
   * How long to hold the next request of this window so that it probes the server's clock
   * (reliability.md rule 1). `Date` has a resolution of one second, so responses only narrow the
   * clock offset when one is in flight while the server's clock turns a whole second; requests
   * sent back to back right after each reset never are, and every wait would end as late as the
   * first one did. When the window will run out anyway (more callers wait than it has room for,
   * or the caller says more requests will follow: `demand`), holding its last requests until the
   * moments the next tick may happen costs no time: the requests after them wait for the reset
   * whatever happens. (A sequential caller that does not say its demand is never held.) The probes
   * are spread evenly over the tick's uncertainty, so each window divides it by the number of
   * probes, and probing stops once it is below {@link PROBE_PRECISION_MS}.
   * @returns ms to wait before granting (0: grant now)
   */
  const probeDelay = (now: number, demand: number): number => {
    const offset = serverClock.offset;
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
    const at = Math.max(now, probeNotBefore, earliest + spacing / 2);
    // A probe must still reach the server in this window; past the tick it learns nothing.
    if (at > latest || at > windowReset - offset.high - PROBE_DEADLINE_MARGIN_MS) return 0;
    probeNotBefore = at + spacing;
    return Math.max(0, Math.ceil(at - now));
  };

  const grant = (afterWait: boolean): Permit => {
    inFlight++;
    if (available !== undefined) available--;
    let released = false;
    return {
      afterWait,
      release(obs) {
        if (released) return;
        released = true;
        inFlight--;
        if (obs !== undefined) {
          if (obs.status === 429 && afterWait) serverClock.noteRoundedDown();
          observe(obs);
        }
        notify();
      },
    };
  };

  return {
    async acquire(opts: AcquireOptions = {}): Promise<Permit> {
      const { signal } = opts;
      let waited = opts.afterWait === true;
      if (opts.wait === false) return grant(waited);
      acquiring++;
      let granted: { permit: Permit; hold: number };
      try {
        granted = await acquireWaiting(signal, waited, opts.demand ?? 0);
      } finally {
        acquiring--;
      }
      if (granted.hold > 0) {
        // A clock probe: the slot is taken (others see it gone); only the sending waits for its moment.
        try {
          await clock.sleep(granted.hold, signal);
        } catch (err) {
          granted.permit.release();
          throw err;
        }
      }
      return granted.permit;
    },
    blockUntil(localMs: number): void {
      if (localMs > blockedUntil) blockedUntil = localMs;
      if (localMs > reportedUntil) reportedUntil = localMs;
    },
    state: () => ({ limit, available, resetAt: windowReset, inFlight }),
  };

  /**
   * The waiting part of `acquire` (counted in `acquiring` by its caller).
   * @returns the permit, and how long to hold the request to probe the server's clock (ms, 0 = none)
   */
  async function acquireWaiting(signal: AbortSignal | undefined, afterWait: boolean, demand: number): Promise<{ permit: Permit; hold: number }> {
    let waited = afterWait;
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      const now = clock.now();
      if (blockedUntil > now) {
        await clock.sleep(blockedUntil - now, signal);
        waited = true;
        continue;
      }
      if (available === undefined) {
        if (inFlight === 0) return { permit: grant(waited), hold: 0 };
        await waitForRelease(signal);
        continue;
      }
      if (available > 0) {
        const hold = probeDelay(now, demand);
        return { permit: grant(waited), hold };
      }
      if (inFlight > 0) {
        // Answers in flight will tell how much room the window has left.
        await waitForRelease(signal);
        continue;
      }
      const obs = lastObs;
      const end =
        obs === undefined
          ? now
          : planWait({
              headers: obs.headers,
              receivedAt: obs.receivedAt,
              offset: serverClock.offset,
              marginMs: serverClock.marginMs,
              kind: 'pacing',
            }).until;
      const startEpoch = epoch;
      if (end > now) {
        const ms = end - now;
        if (ms > maxWaitMs) {
          throw new RateLimitError(
            `the rate limit of ${options.name ?? 'this endpoint'} resets in ${Math.ceil(ms / 1000)} s, longer than the longest wait allowed (${Math.floor(maxWaitMs / 1000)} s)`,
            end,
            { hint: 'raise --max-wait, or run again after the reset' },
          );
        }
        if (end > reportedUntil + 1) {
          reportedUntil = end;
          const wait: GovernorWait = { reason: 'pacing', ms, until: end };
          if (limit !== undefined) wait.limit = limit;
          if (obs?.headers.remaining !== undefined) wait.remaining = obs.headers.remaining;
          options.onWait?.(wait);
        }
        await clock.sleep(ms, signal);
        waited = true;
      }
      if (epoch === startEpoch && inFlight === 0 && available !== undefined && available <= 0) resetWindow();
    }
  }
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
