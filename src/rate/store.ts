/**
 * The store interface of the rate budget: where what several processes learn together about the
 * quota of one API and key is kept (docs/rate-limits.md, "Rate limits, retries and safety"). Two stores
 * implement it: store-file.ts (the processes of one host, through `rate-budget.json` in the cache
 * folder) and store-memory.ts (budgets of one process acting as separate processes). A networked
 * store (the processes of several hosts, e.g. over Redis) is what would implement it next: it
 * opens asynchronously ({@link QuotaStore.open} may return a promise), and answers every call of
 * {@link SharedQuota} from what it last synchronised, since the governors call them on their hot path.
 */

/**
 * One rate-limit window as the processes sharing a key and base URL see it (governor.ts reserves
 * and records; the store keeps it). Never holds the key.
 */
export interface SharedWindow {
  /** `X-RateLimit-Limit`, when seen. */
  limit?: number;
  /** Smallest `X-RateLimit-Remaining` seen in this window, when seen. */
  remaining?: number;
  /** The window's reset, server epoch ms, when seen. */
  resetAt?: number;
  /** Requests reserved (about to be sent, or sent) in this window by every process. */
  reserved: number;
  /** 2xx answers recorded in this window by every process (how much the server has certainly counted). */
  seen?: number;
}

/**
 * What a reservation knew of its window, handed back with the response's headers: the window's
 * reset (server ms) and the 2xx answers recorded in it before the request was reserved.
 */
export interface SharedTicket {
  resetAt: number;
  seen: number;
}

/** A response as {@link SharedQuota.observe} records it: `X-RateLimit-*` (reset in server ms) and the status (default 200). */
export interface SharedSeen {
  limit?: number;
  remaining: number;
  resetAt: number;
  status?: number;
}

/** The answer of {@link SharedQuota.reserve}. */
export type SharedReservation = { granted: true; ticket?: SharedTicket } | { granted: false; resetAt: number };

/**
 * What several processes learn together about the quota of one API and key. Every method is
 * synchronous and never throws: a store that cannot be used answers `undefined` (or false) and the
 * caller works alone.
 */
export interface SharedQuota {
  /**
   * Reserves one request of `scope` (a route template or a path) unless the window is spent.
   * @param nowServerMs the current time by the server's clock (best estimate), epoch ms
   * @returns `{ granted: true, ticket }` (a ticket once the window's reset is known); `{ granted:
   *   false, resetAt }` when the others' reservations fill the window until `resetAt` (server ms);
   *   undefined when the store could not be used
   */
  reserve(scope: string, nowServerMs: number): SharedReservation | undefined;
  /**
   * Records a response's `X-RateLimit-*` of `scope` (a 429 recorded as remaining 0), with the
   * ticket of its reservation.
   * @returns true when the response shows that the API counts `scope` (a route) per concrete path:
   *   it was reserved after answers other processes recorded in the same window, yet the server
   *   counts fewer requests than those (recorded with {@link SharedQuota.learnPathScope})
   */
  observe(scope: string, seen: SharedSeen, ticket?: SharedTicket): boolean;
  /**
   * Gives back a reservation whose request was never sent (aborted before sending, or no longer
   * needed), so the window is not held for a phantom. Only in the window it was made in (`ticket`'s
   * reset; none: a window whose reset was not known yet), and never below the server's own count
   * (limit − remaining). A reservation never given back (a crashed process) ends with its window.
   */
  cancel(scope: string, ticket?: SharedTicket): void;
  /** Records that the API counts `route` per concrete path (see pool.ts). */
  learnPathScope(route: string): void;
  /** Whether some process learnt that the API counts `route` per concrete path. */
  isPathScope(route: string): boolean;
}

/** Where the windows of every API are kept; see the module comment. */
export interface QuotaStore {
  /**
   * Opens the windows of one API (`origin`) and key (`keyHash`, a SHA-256 hex of the key, never
   * the key); undefined, or a promise of undefined: not shared (the caller works alone). Must not
   * throw nor reject.
   */
  open(origin: string, keyHash: string): SharedQuota | Promise<SharedQuota | undefined> | undefined;
}
