/**
 * The sandbox's request log and counters: every request is numbered on arrival and recorded once
 * answered, with its status (0 when a network fault replaced the answer).
 */
import type { RequestLogEntry } from './types.js';

/** Numbers, records and counts requests; see {@link createRequestLog}. */
export interface RequestLog {
  /** Numbers a new request (1-based, counted on arrival, before any latency). */
  next(): number;
  /** Requests numbered so far. */
  count(): number;
  /** Records an answered request (the log keeps the newest `limit` entries; the counts keep all). */
  record(entry: RequestLogEntry): void;
  /** Copies of the kept entries, oldest first. */
  entries(): RequestLogEntry[];
  /** A copy of the answers per status. */
  byStatus(): Record<number, number>;
}

/**
 * Creates a request log.
 * @param limit entries kept; older ones are dropped (0 keeps none)
 */
export function createRequestLog(limit: number): RequestLog {
  const log: RequestLogEntry[] = [];
  const byStatus: Record<number, number> = {};
  let numbered = 0;
  return {
    next: () => ++numbered,
    count: () => numbered,
    record(entry) {
      log.push(entry);
      if (log.length > limit) log.splice(0, log.length - limit);
      byStatus[entry.status] = (byStatus[entry.status] ?? 0) + 1;
    },
    entries: () => log.map((e) => ({ ...e, faults: [...e.faults] })),
    byStatus: () => ({ ...byStatus }),
  };
}
