/**
 * The memory store (store.ts `QuotaStore`): the same records and operations as the file store
 * (store-record.ts), kept in this process's memory with no lock and no file. Budgets that share
 * one memory store behave towards each other as processes sharing `rate-budget.json` do, which is
 * how tests act out several processes in one (and what a networked store is measured against).
 * One budget alone needs no store: its clients already share their windows in memory (pool.ts).
 */
import type { QuotaStore, SharedQuota } from './store.js';
import { cancelIn, observeIn, recordOf, reserveIn, type ApiRecord } from './store-record.js';

/** Creates an empty memory store: no window known, every route counted as one window. */
export function createMemoryStore(): QuotaStore {
  const records = new Map<string, ApiRecord>();
  return {
    open(origin, keyHash): SharedQuota {
      const api = `${origin} ${keyHash}`;
      let record = records.get(api);
      if (record === undefined) {
        record = recordOf(undefined, api);
        records.set(api, record);
      }
      const r = record;
      return {
        reserve: (scope, now) => reserveIn(r, scope, now),
        observe: (scope, seen, ticket) => observeIn(r, scope, seen, ticket),
        cancel: (scope, ticket) => cancelIn(r, scope, ticket),
        learnPathScope(route) {
          if (!r.pathScope.includes(route)) r.pathScope.push(route);
        },
        isPathScope: (route) => r.pathScope.includes(route),
      };
    },
  };
}
