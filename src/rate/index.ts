/**
 * The rate budget's door for http/. Our own code, not a library's: Bottleneck and p-limit pace on
 * the local clock, not by the server's `Remaining` and `Reset`; Octokit's throttling reads the reset
 * on the local clock (plugin-throttling #599); undici caps `Retry-After` and retries into a certain
 * 429; none shares a window across processes or learns whether the API counts a route per path.
 */
import type { Clock } from '../time/clock.js';
import type { RateBudget } from './budget.js';
import type { ClientPacing } from './governor.js';
import { createGovernorPool, keyHashOf, type ClientBudget } from './pool.js';
import type { LastSeenCache, LastSeenCacheOptions } from './store-file.js';
import type { BudgetSession, BudgetWindowView } from './store-postgres.js';

export type { RateBudget } from './budget.js';
export type { ClientBudget } from './pool.js';
export type { BudgetSession, BudgetWindowView } from './store-postgres.js';
export { parseHttpDate, snapshotOf, type RateLimitHeaders, type RateLimitSnapshot, type ServerClock } from './headers.js';
export { clampTimerMs, decideWait, describeTooLong, type ReceivedResponse } from './wait.js';
export type { LastSeen, LastSeenCache, LastSeenCacheOptions } from './store-file.js';

export interface ClientBudgetOptions extends ClientPacing {
  origin: string;
  /** Only its SHA-256 names the pool and the store's record. */
  apiKey: string;
  clock: Clock;
  /** `--budget`: a PostgreSQL URL whose store the pool shares with every host naming it. */
  budgetUrl?: string;
}

/** The clients of one budget, origin, key and `--budget` (its database's store, not the host's) share one pool; without a budget, each has its own. */
export function clientBudgetOf(budget: RateBudget | undefined, options: ClientBudgetOptions): ClientBudget {
  const { origin, apiKey, clock, budgetUrl } = options;
  if (budget === undefined) return createGovernorPool({ clock }).client(options);
  const keyHash = keyHashOf(apiKey);
  const name = budgetUrl === undefined ? `governors ${origin} ${keyHash}` : `governors ${origin} ${keyHash} ${budgetUrl}`;
  const pool = budget.share(name, () => {
    const quota = budget.storeOf(budgetUrl)?.open(origin, keyHash);
    return createGovernorPool({ clock, ...(quota === undefined ? {} : { quota }) });
  });
  return pool.client(options);
}

/** The client's `wait` event; the ledger passes every other event on untouched. */
export interface LedgerWait {
  type: 'wait';
  ms: number;
  /** local epoch ms */
  until: number;
}

const isWait = (event: { type: string }): event is LedgerWait => event.type === 'wait';

/** Part of an announced wait not waited because the requests waiting were aborted. */
export interface WaitCut {
  ms: number;
  /** false: cut before it began, so it was no wait at all. */
  begun: boolean;
}

export interface WaitLedger<E extends { type: string }> {
  emit: (event: E) => void;
  /** The client's requests were aborted now: each announced wait not over yet is told to `onCut`. */
  cut(): void;
}

/** A client's announced waits, so its reports sum to those taken: a `wait` precedes its sleep, an abort (read-ahead, signal) cuts those not over. */
export function createWaitLedger<E extends { type: string }>(
  clock: Pick<Clock, 'now'>,
  sink: (event: E) => void,
  onCut: (cut: WaitCut) => void,
): WaitLedger<E> {
  let open: Array<{ ms: number; until: number }> = [];
  return {
    emit(event) {
      if (isWait(event)) {
        const now = clock.now();
        open = open.filter((w) => w.until > now);
        open.push({ ms: event.ms, until: event.until });
      }
      sink(event);
    },
    cut() {
      const now = clock.now();
      for (const w of open) {
        const left = Math.min(w.ms, w.until - now);
        if (left > 0) onCut({ ms: left, begun: left < w.ms });
      }
      open = [];
    },
  };
}

/** `ratelimit --budget`: the windows a `--budget` database holds for `origin` and `apiKey` (by its SHA-256). */
export async function readSharedBudget(session: BudgetSession, origin: string, apiKey: string, nowServerMs: number): Promise<BudgetWindowView[]> {
  const { readBudget } = await import('./store-postgres.js');
  return readBudget(session, origin, keyHashOf(apiKey), nowServerMs);
}

/** `ratelimit --cached`'s record, kept in the file store's file (its module is loaded here, on use). */
export async function loadLastSeenCache(options: LastSeenCacheOptions): Promise<LastSeenCache> {
  const { createLastSeenCache } = await import('./store-file.js');
  return createLastSeenCache(options);
}
