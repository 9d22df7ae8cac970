/**
 * The record of one API in a store (store.ts), and the pure operations on it that every store
 * shares: a reservation, a response recorded, a reservation given back. The file store
 * (store-file.ts) runs them under its lock on the record read from the file; the memory store
 * (store-memory.ts) on a record it keeps. Pure: no I/O, no clock (times come in as arguments).
 */
import { isObject } from '../json/object.js';
import type { SharedReservation, SharedSeen, SharedTicket, SharedWindow } from './store.js';

/** One API's record: its windows by scope, and the routes known to be counted per path. */
export interface ApiRecord {
  windows: Record<string, SharedWindow>;
  /** Routes known to be counted per concrete path. */
  pathScope: string[];
}

const finite = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** A window read back from a store's document: its numbers if they are numbers, else nothing. */
function windowOf(v: unknown): SharedWindow | undefined {
  if (!isObject(v)) return undefined;
  const w: SharedWindow = { reserved: Math.max(0, finite(v.reserved) ?? 0) };
  for (const field of ['limit', 'remaining', 'resetAt', 'seen'] as const) {
    const n = finite(v[field]);
    if (n !== undefined) w[field] = n;
  }
  return w;
}

/** The records of every API in a parsed store document (`{ "version": 1, "apis": { "<api>": ApiRecord } }`), copied; empty when malformed. */
export function apisOf(doc: unknown): Record<string, unknown> {
  return isObject(doc) && isObject(doc.apis) ? { ...doc.apis } : {};
}

/** The record of `api` in a parsed store document (empty when absent or malformed). */
export function recordOf(doc: unknown, api: string): ApiRecord {
  const raw = isObject(doc) && isObject(doc.apis) && Object.hasOwn(doc.apis, api) ? doc.apis[api] : undefined;
  const record: ApiRecord = { windows: Object.create(null) as Record<string, SharedWindow>, pathScope: [] };
  if (!isObject(raw)) return record;
  if (isObject(raw.windows)) {
    for (const [scope, value] of Object.entries(raw.windows)) {
      const w = windowOf(value);
      if (w !== undefined) record.windows[scope] = w;
    }
  }
  if (Array.isArray(raw.pathScope)) record.pathScope = raw.pathScope.filter((r): r is string => typeof r === 'string');
  return record;
}

/**
 * Reserves one request of `scope` in `record` at `now` (server ms): a window whose reset has passed
 * starts again from zero; one whose count (the larger of the reservations and the server's own
 * count, limit − remaining) has reached the limit is refused until its reset. A granted request
 * gets a ticket once the window's reset is known.
 */
export function reserveIn(record: ApiRecord, scope: string, now: number): SharedReservation {
  let w = Object.hasOwn(record.windows, scope) ? record.windows[scope] : undefined;
  if (w !== undefined && w.resetAt !== undefined && now >= w.resetAt) w = { reserved: 0, ...(w.limit === undefined ? {} : { limit: w.limit }) };
  w ??= { reserved: 0 };
  record.windows[scope] = w;
  const counted = w.limit !== undefined && w.remaining !== undefined ? w.limit - w.remaining : 0;
  if (w.limit !== undefined && w.resetAt !== undefined && Math.max(w.reserved, counted) >= w.limit) return { granted: false, resetAt: w.resetAt };
  w.reserved++;
  return w.resetAt === undefined ? { granted: true } : { granted: true, ticket: { resetAt: w.resetAt, seen: w.seen ?? 0 } };
}

/**
 * Records a response's window: a later reset starts a new window (keeping the reservations made
 * since the old one ended, or else the server's count); the same reset lowers `remaining` and
 * counts a 2xx; an earlier one (a late answer) changes nothing.
 * @returns true when the response shows per-path counting: with a shared counter, the server would
 *   have counted every 2xx recorded in this window before the request was reserved, and the request
 *   itself (`limit − remaining ≥ ticket.seen + 1`); fewer means the others were counted elsewhere
 */
export function observeIn(record: ApiRecord, scope: string, seen: SharedSeen, ticket: SharedTicket | undefined): boolean {
  const w = Object.hasOwn(record.windows, scope) ? record.windows[scope] : undefined;
  const limit = seen.limit ?? w?.limit;
  const counted = limit === undefined ? 0 : Math.max(0, limit - seen.remaining);
  const ok = seen.status === undefined || (seen.status >= 200 && seen.status < 300);
  if (w === undefined || w.resetAt === undefined || seen.resetAt > w.resetAt) {
    const since = w !== undefined && w.resetAt === undefined ? w.reserved : 0;
    record.windows[scope] = {
      remaining: seen.remaining,
      resetAt: seen.resetAt,
      reserved: Math.max(since, counted),
      seen: ok ? 1 : 0,
      ...(limit === undefined ? {} : { limit }),
    };
    return false;
  }
  if (seen.resetAt !== w.resetAt) return false;
  w.remaining = Math.min(w.remaining ?? seen.remaining, seen.remaining);
  if (limit !== undefined) w.limit = limit;
  if (!ok) return false;
  w.seen = (w.seen ?? 0) + 1;
  const perPath = ticket !== undefined && limit !== undefined && ticket.resetAt === seen.resetAt && counted < ticket.seen + 1;
  if (perPath && !record.pathScope.includes(scope)) record.pathScope.push(scope);
  return perPath;
}

/** Gives back one reservation of `scope` made under `ticket` (see store.ts `SharedQuota.cancel`). */
export function cancelIn(record: ApiRecord, scope: string, ticket: SharedTicket | undefined): void {
  const w = Object.hasOwn(record.windows, scope) ? record.windows[scope] : undefined;
  if (w === undefined || (ticket !== undefined && w.resetAt !== ticket.resetAt)) return;
  const counted = w.limit !== undefined && w.remaining !== undefined ? w.limit - w.remaining : 0;
  if (w.reserved > counted) w.reserved--;
}
