/**
 * Churn (`SandboxOptions.churn`, `collections sandbox --churn <n>`): n items a minute of the
 * sandbox's clock inserted or updated in each collection with date filters, so an incremental
 * export (`--since`, `--state`) has something to find. Nothing runs in the background: when a
 * collection is read, the changes that fell due since the last read are applied at once, each
 * stamped with the time it fell due, so the result depends only on the clock, never on timers.
 */
import type { Clock } from '../time/clock.js';
import type { CollectionState } from './collection.js';
import type { JsonObject } from './data.js';
import type { DeletionRecorder } from './deletions.js';
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
  /** `SandboxOptions.deletions`: a third of the changes of a collection with `updatedAt` are deletions, recorded here. */
  deletions?: DeletionRecorder;
}

/**
 * Creates the churner: a function that brings a collection's churn up to the clock's time. Change
 * k (0-based) of a collection falls due at `startMs + ceil((k + 1) × 60 000 / perMinute)`; it is an
 * insert (fresh `createdAt` and `updatedAt`) or, in a collection with `updatedAt` filters and at
 * seeded random, an update of a seeded random item (fresh `updatedAt`, same place); with
 * `deletions`, one in three such changes deletes a seeded random item instead (its event recorded).
 * An event collection is first brought up to date with the others' deletions (`beforeRead`).
 */
export function createChurner(options: ChurnOptions): (state: CollectionState) => void {
  const { perMinute, clock, seed, startMs, deletions } = options;
  const done = new Map<string, number>();
  return (state) => {
    deletions?.beforeRead(state);
    if (!(perMinute > 0) || state.dateFields.length === 0) return;
    const due = Math.floor(((clock.now() - startMs) * perMinute) / 60_000);
    const keyHash = hashString(state.key);
    const updates = state.dateFields.includes('updatedAt');
    // Recorded change by change: recording a deletion reads the event collections, which read this one again.
    for (let k = done.get(state.key) ?? 0; k < due; k = done.get(state.key) ?? k + 1) {
      done.set(state.key, k + 1);
      const at = startMs + Math.ceil(((k + 1) * 60_000) / perMinute);
      const length = state.view().length;
      const choice = hash32(seed, keyHash, k, 5151) % (deletions ? 3 : 2);
      const pos = length > 0 ? hash32(seed, keyHash, k, 5152) % length : 0;
      if (updates && length > 0 && choice === 2 && deletions!.canDelete(state, state.view().id(pos))) deleteAt(state, pos, at, deletions!);
      else if (updates && length > 0 && choice >= 1) state.touchAt(pos, at);
      else state.insert(at, { updated: true });
    }
  };
}

/** Deletes the item at `pos` of the full view and records its event with its last state. */
function deleteAt(state: CollectionState, pos: number, at: number, deletions: DeletionRecorder): void {
  const view = state.view();
  const obj = state.parse(view, pos) as JsonObject;
  state.remove(view.id(pos));
  deletions.deleted(state, obj, at);
}
