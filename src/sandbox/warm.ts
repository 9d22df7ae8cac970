/**
 * Warming ahead: after a page is answered, the next page's items are built (and so cached) in
 * idle time, a batch per event-loop turn, so a client in another process finds them ready.
 */
import type { ByteBudget, CollectionView } from './collection.js';

/** Items built per event-loop turn. */
const BATCH = 50;

/**
 * Creates a warmer that shares the sandbox's byte budget: `warm(key, view, from, count)` builds
 * items `from`..`from + count - 1` of `view` (clamped to its length) in batches of 50 on
 * `setImmediate`. It does nothing while the same key is warming or once the budget is used up, and
 * stops when the budget runs out.
 */
export function createWarmer(budget: ByteBudget): (key: string, view: CollectionView, from: number, count: number) => void {
  const warming = new Set<string>();
  return (key, view, from, count) => {
    if (warming.has(key) || budget.used >= budget.limitBytes) return;
    warming.add(key);
    const end = Math.min(view.length, from + count);
    let pos = from;
    const step = (): void => {
      const stop = Math.min(end, pos + BATCH);
      for (; pos < stop; pos++) view.bytes(pos);
      if (pos < end && budget.used < budget.limitBytes) setImmediate(step);
      else warming.delete(key);
    };
    setImmediate(step);
  };
}
