/**
 * The rate budget of one process: the one object the Context carries (`ctx.rateBudget`), made by
 * cli/main.ts (with the file store) and by the test world (in memory). Light on purpose: cli/main.ts
 * makes it before it knows whether a request will be sent, so it imports no governor code (pool.ts
 * builds the pools it keeps, on the first request).
 */
import type { QuotaStore, SharedQuota } from './store.js';

/**
 * What the HTTP clients of one process share about the quota: the governor pool of each API and
 * key (pool.ts `poolFor`), and the store where other processes share theirs.
 */
export interface RateBudget {
  /** The value every client of the process shares under `key`, made by `create` the first time. */
  share<T>(key: string, create: () => T): T;
  /** Where other processes share the windows (store.ts); undefined: this process alone. */
  readonly store?: QuotaStore;
}

/** Options of {@link createRateBudget}. */
export interface RateBudgetOptions {
  /** Where other processes share the windows (store-file.ts, store-memory.ts, {@link loadStoreOnUse}); none: this process alone. */
  store?: QuotaStore;
}

/** Creates a {@link RateBudget}: values shared by key in memory, and the store given. */
export function createRateBudget(options: RateBudgetOptions = {}): RateBudget {
  const values = new Map<string, unknown>();
  return {
    share<T>(key: string, create: () => T): T {
      if (!values.has(key)) values.set(key, create());
      return values.get(key) as T;
    },
    ...(options.store === undefined ? {} : { store: options.store }),
  };
}

/**
 * A store loaded on its first use (cli/main.ts: `--help` loads no store code): `load` is called
 * once, when the first API is opened; a failed load means working alone.
 * @param load imports and makes the store
 */
export function loadStoreOnUse(load: () => Promise<QuotaStore>): QuotaStore {
  let store: Promise<QuotaStore | undefined> | undefined;
  return {
    open(origin, keyHash): Promise<SharedQuota | undefined> {
      store ??= load().catch(() => undefined);
      return store.then((s) => s?.open(origin, keyHash));
    },
  };
}
