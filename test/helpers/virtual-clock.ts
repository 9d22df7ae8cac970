/** The virtual clock of the tests: waits take no real time. */
import { abortReason, MAX_TIMER_MS, type Clock } from '../../src/time/clock.js';

export interface VirtualClock extends Clock {
  /** Fires due sleepers in order. */
  advance(ms: number): void;
  /** Without firing anything; for skew scenarios. */
  setNow(epochMs: number): void;
  /** Sleepers not yet woken. */
  pending(): number;
}

interface Sleeper {
  due: number;
  seq: number;
  resolve: () => void;
}

/**
 * When the event loop has nothing else to do but sleepers wait, time jumps to the earliest, so a
 * 10-minute wait takes no real time. Network timeouts stay on real timers: they guard the transport.
 * @param options.autoAdvance when false, only {@link VirtualClock.advance} moves time
 */
export function createVirtualClock(startEpochMs = Date.UTC(2024, 3, 16, 18, 0, 0), options: { autoAdvance?: boolean } = {}): VirtualClock {
  const autoAdvance = options.autoAdvance ?? true;
  let wall = startEpochMs;
  let mono = 0;
  let seq = 0;
  let scheduled = false;
  const sleepers: Sleeper[] = [];

  const fireDue = (): void => {
    sleepers.sort((a, b) => a.due - b.due || a.seq - b.seq);
    while (sleepers.length > 0 && sleepers[0]!.due <= mono) sleepers.shift()!.resolve();
  };

  const schedule = (): void => {
    if (!autoAdvance || scheduled) return;
    scheduled = true;
    // Two turns of setImmediate let promise chains started by the last wake-up run first.
    setImmediate(() =>
      setImmediate(() => {
        scheduled = false;
        if (sleepers.length === 0) return;
        sleepers.sort((a, b) => a.due - b.due || a.seq - b.seq);
        const next = sleepers[0]!;
        if (next.due > mono) {
          wall += next.due - mono;
          mono = next.due;
        }
        fireDue();
        if (sleepers.length > 0) schedule();
      }),
    );
  };

  return {
    now: () => wall,
    monotonic: () => mono,
    sleep(ms: number, signal?: AbortSignal): Promise<void> {
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      const delay = Math.min(Math.max(0, ms), MAX_TIMER_MS);
      return new Promise<void>((resolve, reject) => {
        const sleeper: Sleeper = {
          due: mono + delay,
          seq: seq++,
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = (): void => {
          const i = sleepers.indexOf(sleeper);
          if (i >= 0) sleepers.splice(i, 1);
          reject(abortReason(signal!));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        sleepers.push(sleeper);
        schedule();
      });
    },
    advance(ms: number): void {
      wall += ms;
      mono += ms;
      fireDue();
    },
    setNow(epochMs: number): void {
      wall = epochMs;
    },
    pending: () => sleepers.length,
  };
}
