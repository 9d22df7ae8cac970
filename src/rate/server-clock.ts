/**
 * "Server ms" are epoch ms by the server's clock (`Date`, `Reset`), which may be minutes away from
 * the local one; "local ms" by the injected Clock's `now()`.
 */

/**
 * `serverTime − localTime` lies in `[low, high]`, ms: the server wrote `Date` (rounded down to the
 * second, RFC 9110 §6.6.1) at some local instant between sending and receiving.
 */
export interface ClockOffset {
  /** Waits use it, so they never end early. */
  low: number;
  high: number;
  samples: number;
}

/**
 * Intersects `[Date − receivedAt, Date + 1000 − sentAt]` with the previous estimate; an empty
 * intersection (a clock jumped) restarts from this response alone.
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

/** The local instant (ms) by which the server's clock has certainly reached `serverMs`; without an estimate, the local clock is trusted. */
export function serverToLocal(serverMs: number, offset: ClockOffset | undefined): number {
  return offset === undefined ? serverMs : serverMs - offset.low;
}

/** Added to every wait, ms, once a request sent right after a wait still got a 429: the server rounds its reset down. */
const ROUNDING_MARGIN_MS = 1000;

/** Shared by all governors of one pool. */
export interface ServerClock {
  /** undefined before the first `Date` */
  readonly offset: ClockOffset | undefined;
  /** 0, or {@link ROUNDING_MARGIN_MS} */
  readonly marginMs: number;
  observe(dateMs: number | undefined, sentAt: number, receivedAt: number): void;
  noteRoundedDown(): void;
  toLocal(serverMs: number): number;
}

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
