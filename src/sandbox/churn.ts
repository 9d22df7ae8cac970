/**
 * Churn (`SandboxOptions.churn`, `collections sandbox --churn <n>`): n items a minute of the
 * sandbox's clock inserted or updated in each collection with date filters, so an incremental
 * export (`--since`, `--state`) has something to find. Nothing runs in the background: when a
 * collection is read, the changes that fell due since the last read are applied at once, each
 * stamped with the time it fell due, so the result depends only on the clock, never on timers.
 */
import type { Clock } from '../time/clock.js';
import type { CollectionState } from './collection.js';
import { hash32, hashString } from './random.js';

/** Options of {@link createChurner}. */
export interface ChurnOptions {
  /** Changes a minute per collection; 0 = none. */
  perMinute: number;
  clock: Clock;
  /** The sandbox seed (seeds which changes are inserts and which items are updated). */
  seed: number;
  /** When churn starts, epoch ms by `clock` (the sandbox's creation). */
  startMs: number;
}

/**
 * Creates the churner: a function that brings a collection's churn up to the clock's time. Change
 * k (0-based) of a collection falls due at `startMs + ceil((k + 1) × 60 000 / perMinute)`; it is an
 * insert (fresh `createdAt` and `updatedAt`) or, in a collection with `updatedAt` filters and at
 * seeded random, an update of a seeded random item (fresh `updatedAt`, same place).
 */
export function createChurner(options: ChurnOptions): (state: CollectionState) => void {
  const { perMinute, clock, seed, startMs } = options;
  const done = new Map<string, number>();
  return (state) => {
    if (!(perMinute > 0) || state.dateFields.length === 0) return;
    const due = Math.floor(((clock.now() - startMs) * perMinute) / 60_000);
    const keyHash = hashString(state.key);
    const updates = state.dateFields.includes('updatedAt');
    let k = done.get(state.key) ?? 0;
    for (; k < due; k++) {
      const at = startMs + Math.ceil(((k + 1) * 60_000) / perMinute);
      const length = state.view().length;
      if (updates && length > 0 && hash32(seed, keyHash, k, 5151) % 2 === 1) state.touchAt(hash32(seed, keyHash, k, 5152) % length, at);
      else state.insert(at, { updated: true });
    }
    done.set(state.key, k);
  };
}
