/**
 * The rate-limit waits one client announced, so that what it reports adds up to the waits that
 * really happened (docs/rate-limits.md, "Rate limits, retries and safety"). A `wait` event goes out before its
 * sleep (progress shows the resume time while it lasts); when the client's requests are aborted
 * (a read-ahead cancelled, a signal), a wait still under way or not begun was not taken in full,
 * and the client's `onWaitCut` is told how much of it was not waited.
 */
import type { Clock } from '../time/clock.js';

/**
 * A wait as the ledger remembers it: the `wait` event of http/events.ts `ClientEvent` (the
 * ledger passes every other event on untouched, so it needs no more of their shape).
 */
export interface LedgerWait {
  type: 'wait';
  /** Length of the wait, ms. */
  ms: number;
  /** When the wait ends, local epoch ms. */
  until: number;
}

const isWait = (event: { type: string }): event is LedgerWait => event.type === 'wait';

/** Part of an announced wait not waited because the requests waiting were aborted. */
export interface WaitCut {
  /** The part of the wait not waited, ms. */
  ms: number;
  /** Whether some of it was waited (false: it was cut before it began, so it was no wait at all). */
  begun: boolean;
}

/** See {@link createWaitLedger}; `E` is the client's event type. */
export interface WaitLedger<E extends { type: string }> {
  /** Passes every event on, remembering each `wait` until its end. */
  emit: (event: E) => void;
  /** The client's requests were aborted now: each announced wait not over yet is cut (told to `onCut`). */
  cut(): void;
}

/**
 * Creates a {@link WaitLedger} in front of `sink`.
 * @param clock the client's clock (`until` of a wait is local epoch ms)
 * @param onCut told of each wait cut
 */
export function createWaitLedger<E extends { type: string }>(
  clock: Pick<Clock, 'now'>,
  sink: (event: E) => void,
  onCut: (cut: WaitCut) => void,
): WaitLedger<E> {
  let open: Array<{ ms: number; until: number }> = [];
  return {
    emit(event) {
      if (isWait(event)) {
        const now = clock.now();
        open = open.filter((w) => w.until > now);
        open.push({ ms: event.ms, until: event.until });
      }
      sink(event);
    },
    cut() {
      const now = clock.now();
      for (const w of open) {
        const left = Math.min(w.ms, w.until - now);
        if (left > 0) onCut({ ms: left, begun: left < w.ms });
      }
      open = [];
    },
  };
}
