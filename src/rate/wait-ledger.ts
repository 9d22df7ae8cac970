/**
 * The waits one client announced, so that what it reports adds up to the waits really taken: a
 * `wait` event goes out before its sleep, and when the client's requests are aborted (a read-ahead
 * cancelled, a signal) a wait under way or not begun was not taken in full.
 */
import type { Clock } from '../time/clock.js';

/** The client's `wait` event; the ledger passes every other event on untouched. */
export interface LedgerWait {
  type: 'wait';
  ms: number;
  /** local epoch ms */
  until: number;
}

const isWait = (event: { type: string }): event is LedgerWait => event.type === 'wait';

/** Part of an announced wait not waited because the requests waiting were aborted. */
export interface WaitCut {
  /** ms */
  ms: number;
  /** false: cut before it began, so it was no wait at all. */
  begun: boolean;
}

export interface WaitLedger<E extends { type: string }> {
  emit: (event: E) => void;
  /** The client's requests were aborted now: each announced wait not over yet is told to `onCut`. */
  cut(): void;
}

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
