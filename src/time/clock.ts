/** Everything that waits or measures time takes a {@link Clock}, so tests drive a virtual clock and never sleep for real. */
import { setTimeout } from 'node:timers/promises';

/** 2^31 − 1 ms: longer Node timers fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

export interface Clock {
  /** Wall-clock time, epoch milliseconds (like `Date.now()`); may be skewed against the server. */
  now(): number;
  /** Monotonic ms from an arbitrary origin, for durations and rates. */
  monotonic(): number;
  /** @throws the signal's reason (an `AbortError` DOMException by default) when `signal` aborts first */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Callers see the reason they gave, as fetch and `node:timers/promises` do. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/** Its sleep rejects with the signal's own reason (timers/promises would wrap it), as the virtual clock does. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw abortReason(signal);
    // Clamped here: a longer delay would make Node warn and fire after 1 ms.
    const delay = Math.min(Math.max(0, ms), MAX_TIMER_MS);
    try {
      await setTimeout(delay, undefined, signal === undefined ? undefined : { signal });
    } catch (err) {
      if (signal?.aborted) throw abortReason(signal);
      throw err;
    }
  },
};
