/**
 * The dates of a collection's generated items, read once: a date-range filter
 * (`updatedAt[after]=…`, sandbox/filters.ts) then compares numbers instead of building every item
 * of the collection on each query (50,000 invoices took about 2 s a query, so an incremental
 * export looked slower than a full one). Generated items never change (an updated one lives in
 * the collection's `updated` map), so the index stays valid for the sandbox's life.
 */
import type { GeneratedCollection } from './data.js';
import { fieldTime } from './filters.js';

/** The times of the date fields of a collection's generated items; see {@link createDateIndex}. */
export interface DateIndex {
  /** The time of `field` of generated item `i`, epoch ms (NaN when missing or not a date). */
  time(field: string, i: number): number;
}

/**
 * Creates the index of `base`'s date fields (`GeneratedCollection.dateFilters`). It is built on the
 * first call of `time`, in one pass over the items (each generated once for all fields).
 */
export function createDateIndex(base: GeneratedCollection): DateIndex {
  let times: Map<string, Float64Array> | undefined;
  const build = (): Map<string, Float64Array> => {
    const fields = base.dateFilters ?? [];
    const built = new Map(fields.map((f) => [f, new Float64Array(base.count)]));
    for (let i = 0; i < base.count; i++) {
      const obj = base.item(i);
      for (const [f, arr] of built) arr[i] = fieldTime(obj, f);
    }
    return built;
  };
  return {
    time(field, i) {
      times ??= build();
      return times.get(field)?.[i] ?? Number.NaN;
    },
  };
}
