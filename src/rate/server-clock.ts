/**
 * The server's clock as the client knows it. Rate-limit resets are instants by the server's clock,
 * which may be minutes away from the local one (docs/rate-limits.md, "Rate limits, retries and safety": waits
 * come from the server's clock); every response's `Date` bounds the offset between the two, and
 * intersecting those bounds narrows it to tens of milliseconds.
 *
 * Times: "server ms" are epoch milliseconds by the server's clock (from `Date`, `Reset`); "local
 * ms" are epoch milliseconds by the injected Clock's `now()`.
 */

/**
 * What the responses so far say about `offset = serverTime − localTime`, ms: it lies in
 * `[low, high]`. Each response bounds it, since the server's time when it wrote `Date` was in
 * `[Date, Date + 1000)` (`Date` is rounded down to the second, RFC 9110 §6.6.1) at some local
 * instant between sending and receiving.
 */
export interface ClockOffset {
  /** Lower bound, ms. Waits use it, so they never end early. */
  low: number;
  /** Upper bound, ms. */
  high: number;
  /** Responses intersected since the last reset of the estimate. */
  samples: number;
}

/**
 * Narrows the clock-offset estimate with one response: its interval is
 * `[Date − receivedAt, Date + 1000 − sentAt]`, intersected with the previous estimate. When the
 * intersection is empty (the server's or the local clock jumped), the estimate restarts from this
 * response alone.
 * @param previous the estimate so far, or undefined
 * @param dateMs the response's `Date`, server ms
 * @param sentAt when the request was sent, local ms
 * @param receivedAt when the response headers arrived, local ms
 */
export function updateClockOffset(previous: ClockOffset | undefined, dateMs: number, sentAt: number, receivedAt: number): ClockOffset {
  const low = dateMs - receivedAt;
  const high = dateMs + 1000 - Math.min(sentAt, receivedAt);
  if (previous === undefined) return { low, high, samples: 1 };
  const l = Math.max(previous.low, low);
  const h = Math.min(previous.high, high);
  if (l > h) return { low, high, samples: 1 };
  return { low: l, high: h, samples: previous.samples + 1 };
}

/**
 * The local instant by which the server's clock has certainly reached `serverMs`:
 * `serverMs − offset.low`. Without an estimate (no `Date` seen) the local clock is trusted.
 * @returns local ms
 */
export function serverToLocal(serverMs: number, offset: ClockOffset | undefined): number {
  return offset === undefined ? serverMs : serverMs - offset.low;
}

/**
 * The extra wait, ms, once a request sent right after a rate-limit wait still got a 429: the
 * server rounds its reset down (a `Reset` in whole seconds that ends up to a second early).
 */
const ROUNDING_MARGIN_MS = 1000;

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

/** Creates a {@link ServerClock} with no knowledge yet (no offset, no margin). */
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
