/** The rate budget of one process and its stores; light on purpose: made before the CLI knows a request will be sent. */
import { isObject, type JsonObject } from '../json/object.js';

/** What the HTTP clients of one process share: a governor pool per API and key, and the store. */
export interface RateBudget {
  share<T>(key: string, create: () => T): T;
  /** The host's store, or a `--budget` database URL's (one per URL and process); undefined: this process alone. */
  storeOf(budgetUrl: string | undefined): QuotaStore | undefined;
  /** Never rejects; settles when each networked store wrote what it was told (a CLI `process.exit` would leave its reservations in others' way). */
  settle(): Promise<void>;
}

export interface RateBudgetOptions {
  store?: QuotaStore;
  remote?: (url: string) => QuotaStore;
}

export function createRateBudget(options: RateBudgetOptions = {}): RateBudget {
  const values = new Map<string, unknown>();
  const { store, remote } = options;
  const remotes = new Map<string, QuotaStore>();
  return {
    share<T>(key: string, create: () => T): T {
      if (!values.has(key)) values.set(key, create());
      return values.get(key) as T;
    },
    settle: async () => {
      await Promise.all([...remotes.values()].map((store) => store.settle?.() ?? Promise.resolve()));
    },
    storeOf(url) {
      if (url === undefined) return store;
      if (remote !== undefined && !remotes.has(url)) remotes.set(url, remote(url));
      return remotes.get(url);
    },
  };
}

/** A store loaded when the first API is opened (`--help` loads no store code); a failed load means working alone. */
export function loadStoreOnUse(load: () => Promise<QuotaStore>): QuotaStore {
  let store: Promise<QuotaStore | undefined> | undefined;
  return {
    open(origin, keyHash): Promise<SharedQuota | undefined> {
      store ??= load().catch(() => undefined);
      return store.then((s) => s?.open(origin, keyHash));
    },
    settle: async () => {
      await (await store)?.settle?.();
    },
  };
}

export interface SharedWindow {
  limit?: number;
  /** The smallest seen in this window. */
  remaining?: number;
  /** server epoch ms */
  resetAt?: number;
  /** By every process, sent or about to be. */
  reserved: number;
  /** 2xx answers recorded by every process: what the server has certainly counted. */
  seen?: number;
  /** While the window is being learnt: the reset of the one before (server ms); an answer of that window is late news. */
  passed?: number;
}

/** What a reservation knew of its window: its reset (server ms) and the 2xx answers recorded before it. */
export interface SharedTicket {
  resetAt: number;
  seen: number;
}

/** Reset in server ms; status default 200. */
export interface SharedSeen {
  limit?: number;
  remaining: number;
  resetAt: number;
  status?: number;
}

/** `retryMs`: ask again that much later (local ms) instead of waiting for the reset (another host is learning the window). */
export type SharedReservation = { granted: true; ticket?: SharedTicket } | { granted: false; resetAt: number; retryMs?: number };

/**
 * What the processes sharing one API and key learn together. Never throws nor rejects: a store that
 * cannot be used answers undefined and the caller works alone. The file store answers at once (the
 * governors' hot path); a networked store answers `reserve` and `observe` with a promise, which the
 * governor awaits one reservation at a time, and queues the rest (`cancel`, `learnPathScope`) itself.
 */
export interface SharedQuota {
  /**
   * `scope` is a route template or a path; `granted: false` when the others' reservations fill the
   * window. `nowServerMs` is the earliest the server's clock may read, `latestServerMs` the latest
   * (default the same).
   */
  reserve(scope: string, nowServerMs: number, latestServerMs?: number): SharedReservation | undefined | Promise<SharedReservation | undefined>;
  /** @returns true when it shows the API counts `scope` per concrete path */
  observe(scope: string, seen: SharedSeen, ticket?: SharedTicket): boolean | Promise<boolean>;
  /** Only in the window it was made in, and never below the server's own count (limit − remaining). */
  cancel(scope: string, ticket?: SharedTicket): void;
  learnPathScope(route: string): void;
  isPathScope(route: string): boolean;
  /** Every reservation's end must be told (answered or given back): the store holds the others while one is out. */
  readonly holdsUntilTold?: boolean;
}

export interface QuotaStore {
  /** `keyHash` is the key's SHA-256 hex, never the key; undefined: not shared. Must not throw nor reject. */
  open(origin: string, keyHash: string): SharedQuota | Promise<SharedQuota | undefined> | undefined;
  /** Settles once the operations asked so far are done (or given up); never rejects. */
  settle?(): Promise<void>;
}

/** One API's record in a store; `pathScope`: the routes known to be counted per path. */
export interface ApiRecord {
  windows: Record<string, SharedWindow>;
  pathScope: string[];
}

/** The finite numbers among `fields` of `v`, in their order (a store's file may have been edited). */
export function finiteFields<K extends string>(v: JsonObject, fields: readonly K[]): { [F in K]?: number } {
  const out: { [F in K]?: number } = {};
  for (const field of fields) {
    const n = v[field];
    if (typeof n === 'number' && Number.isFinite(n)) out[field] = n;
  }
  return out;
}

/** The records of every API in a store document (`{ "version": 1, "apis": { "<api>": ApiRecord } }`), copied. */
export function apisOf(doc: unknown): Record<string, unknown> {
  return isObject(doc) && isObject(doc.apis) ? { ...doc.apis } : {};
}

/** An API's record as a store keeps it (empty when absent or malformed). */
export function recordOf(raw: unknown): ApiRecord {
  const record: ApiRecord = { windows: Object.create(null) as Record<string, SharedWindow>, pathScope: [] };
  if (!isObject(raw)) return record;
  if (isObject(raw.windows)) {
    for (const [scope, v] of Object.entries(raw.windows)) {
      if (!isObject(v)) continue;
      const reserved = typeof v.reserved === 'number' && Number.isFinite(v.reserved) ? Math.max(0, v.reserved) : 0;
      record.windows[scope] = { reserved, ...finiteFields(v, ['limit', 'remaining', 'resetAt', 'seen', 'passed']) };
    }
  }
  if (Array.isArray(raw.pathScope)) record.pathScope = raw.pathScope.filter((r): r is string => typeof r === 'string');
  return record;
}

export const windowIn = (record: ApiRecord, scope: string): SharedWindow | undefined =>
  Object.hasOwn(record.windows, scope) ? record.windows[scope] : undefined;

const countedIn = (w: SharedWindow): number => (w.limit !== undefined && w.remaining !== undefined ? w.limit - w.remaining : 0);

export function addPathScope(record: ApiRecord, route: string): void {
  if (!record.pathScope.includes(route)) record.pathScope.push(route);
}

/** Windows whose reset is older than this, ms, are dropped (at a reservation). */
const KEEP_MS = 3_600_000;

/**
 * A request reserved this close to its window's reset, server ms, is refused until the reset: sent
 * a moment later it could reach the server in the next window, which never reserved it.
 */
export const RESET_GUARD_MS = 100;

/**
 * A window whose reset has passed starts again from zero; one whose count (the larger of the
 * reservations and the server's own count, limit − remaining) has reached the limit is refused,
 * and so is a request that could reach the server after the reset (`latest`: the latest the
 * server's clock may read now; a store whose hosts' clocks and sends are far apart passes it).
 */
export function reserveIn(record: ApiRecord, scope: string, now: number, latest?: number): SharedReservation {
  let w = windowIn(record, scope);
  if (w !== undefined && w.resetAt !== undefined && now >= w.resetAt)
    w = { reserved: 0, passed: w.resetAt, ...(w.limit === undefined ? {} : { limit: w.limit }) };
  w ??= { reserved: 0 };
  record.windows[scope] = w;
  record.windows = Object.fromEntries(Object.entries(record.windows).filter(([, x]) => x.resetAt === undefined || x.resetAt >= now - KEEP_MS));
  if (w.limit !== undefined && w.resetAt !== undefined && Math.max(w.reserved, countedIn(w)) >= w.limit)
    return { granted: false, resetAt: w.resetAt };
  if (w.resetAt !== undefined && latest !== undefined && latest + RESET_GUARD_MS >= w.resetAt) return { granted: false, resetAt: w.resetAt };
  w.reserved++;
  return w.resetAt === undefined ? { granted: true } : { granted: true, ticket: { resetAt: w.resetAt, seen: w.seen ?? 0 } };
}

/**
 * @returns per-path counting: with a shared counter the server would have counted every 2xx
 *   recorded before the reservation, and the request itself (`limit − remaining ≥ ticket.seen + 1`)
 */
export function observeIn(record: ApiRecord, scope: string, seen: SharedSeen, ticket: SharedTicket | undefined): boolean {
  const w = windowIn(record, scope);
  const limit = seen.limit ?? w?.limit;
  const counted = limit === undefined ? 0 : Math.max(0, limit - seen.remaining);
  const ok = seen.status === undefined || (seen.status >= 200 && seen.status < 300);
  // Reserved in an earlier window, counted by the server in this one, which never reserved it.
  const stray = ticket !== undefined && seen.resetAt > ticket.resetAt ? 1 : 0;
  // A late answer of the window that just passed would stand as the new window and lose the
  // reservations already made in it (the next reservation would find its reset past).
  if (w?.passed !== undefined && w.resetAt === undefined && seen.resetAt <= w.passed) return false;
  if (w === undefined || w.resetAt === undefined || seen.resetAt > w.resetAt) {
    const since = w !== undefined && w.resetAt === undefined ? w.reserved : 0;
    record.windows[scope] = {
      remaining: seen.remaining,
      resetAt: seen.resetAt,
      reserved: Math.max(since + stray, counted),
      seen: ok ? 1 : 0,
      ...(limit === undefined ? {} : { limit }),
    };
    return false;
  }
  if (seen.resetAt !== w.resetAt) return false;
  w.reserved += stray;
  w.remaining = Math.min(w.remaining ?? seen.remaining, seen.remaining);
  if (limit !== undefined) w.limit = limit;
  if (!ok) return false;
  w.seen = (w.seen ?? 0) + 1;
  const perPath = ticket !== undefined && limit !== undefined && ticket.resetAt === seen.resetAt && counted < ticket.seen + 1;
  if (perPath) addPathScope(record, scope);
  return perPath;
}

export function cancelIn(record: ApiRecord, scope: string, ticket: SharedTicket | undefined): void {
  const w = windowIn(record, scope);
  if (w === undefined || (ticket !== undefined && w.resetAt !== ticket.resetAt)) return;
  if (w.reserved > countedIn(w)) w.reserved--;
}
