/**
 * The rate budget's door for http/. Our own code, not a library's: Bottleneck and p-limit pace on
 * the local clock, not by the server's `Remaining` and `Reset`; Octokit's throttling reads the reset
 * on the local clock (plugin-throttling #599); undici caps `Retry-After` and retries into a certain
 * 429; none shares a window across processes or learns whether the API counts a route per path.
 */
import type { Clock } from '../time/clock.js';
import type { RateBudget } from './budget.js';
import type { AcquireOptions, GovernorWait, Permit } from './governor.js';
import { parseRateLimitHeaders, type HeaderSource, type RateLimitHeaders, type ServerClock } from './headers.js';
import { createGovernorPool, keyHashOf, type GovernorPool } from './pool.js';

export type { RateBudget } from './budget.js';
export type { BudgetSession, BudgetWindowView } from './store-postgres.js';
export { parseHttpDate, snapshotOf, type RateLimitHeaders, type RateLimitSnapshot, type ServerClock } from './headers.js';
export { clampTimerMs, decideWait, describeTooLong, type ReceivedResponse } from './wait.js';
export type { LastSeen, LastSeenCache, LastSeenCacheOptions } from './store-file.js';

/** What a client brings to the governors it shares: its listener of waits and its `--max-wait`. */
export interface ClientPacing {
  /** ms (Infinity: any) */
  maxWaitMs: number;
  onWait: (wait: GovernorWait) => void;
}

/** A response's head as {@link BudgetPermit.record} reads it. */
export interface RecordedResponse {
  status: number;
  headers: HeaderSource;
  /** local ms */
  sentAt: number;
  /** When the response headers arrived, local ms. */
  receivedAt: number;
}

export interface BudgetPermit extends Permit {
  /** Parses the rate-limit headers, `Retry-After` and `Date`, narrows the server clock's offset, and releases the permit. */
  record(response: RecordedResponse): RateLimitHeaders;
}

export type ReserveOptions = Omit<AcquireOptions, 'maxWaitMs' | 'onWait'>;

export interface ClientBudget {
  readonly serverClock: ServerClock;
  /**
   * Waits until a request to `url` may be sent, then reserves it in its endpoint's window.
   * @throws {RateLimitError} when the wait for the reset would exceed the client's `maxWaitMs`
   * @throws the signal's reason when aborted
   */
  reserve(url: URL, options?: ReserveOptions): Promise<BudgetPermit>;
  holdUntil(url: URL, localMs: number): void;
}

export function createClientBudget(pool: GovernorPool, client: ClientPacing): ClientBudget {
  const { maxWaitMs, onWait } = client;
  const { serverClock } = pool;
  return {
    serverClock,
    async reserve(url, opts = {}) {
      if (pool.opening !== undefined && opts.wait !== false) await pool.opening;
      const permit = await pool.resolve(url).acquire({ ...opts, maxWaitMs, onWait });
      const sentAfter = pool.receipts;
      let learnt = false;
      const release = (obs?: Parameters<Permit['release']>[0]): void => {
        permit.release(obs);
        if (obs === undefined || learnt) return;
        learnt = true;
        pool.learn(url, sentAfter, obs);
      };
      return {
        afterWait: permit.afterWait,
        cancel: () => permit.cancel(),
        release,
        record({ status, headers, sentAt, receivedAt }) {
          const rl = parseRateLimitHeaders(headers);
          serverClock.observe(rl.date, sentAt, receivedAt);
          release({ status, headers: rl, receivedAt });
          return rl;
        },
      };
    },
    holdUntil: (url, localMs) => pool.resolve(url).blockUntil(localMs, onWait),
  };
}

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
  if (budget === undefined) return createClientBudget(createGovernorPool({ clock }), options);
  const keyHash = keyHashOf(apiKey);
  const name = budgetUrl === undefined ? `governors ${origin} ${keyHash}` : `governors ${origin} ${keyHash} ${budgetUrl}`;
  const pool = budget.share(name, () => {
    const quota = (budgetUrl === undefined ? budget.store : budget.remote?.(budgetUrl))?.open(origin, keyHash);
    return createGovernorPool({ clock, ...(quota === undefined ? {} : { quota }) });
  });
  return createClientBudget(pool, options);
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

/**
 * The waits one client announced, so that its reports add up to the waits taken: a `wait` event goes
 * out before its sleep, and an abort (a read-ahead cancelled, a signal) cuts the waits not yet over.
 */
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
export async function readSharedBudget(
  session: import('./store-postgres.js').BudgetSession,
  origin: string,
  apiKey: string,
  nowServerMs: number,
): Promise<import('./store-postgres.js').BudgetWindowView[]> {
  const { readBudget } = await import('./store-postgres.js');
  return readBudget(session, origin, keyHashOf(apiKey), nowServerMs);
}

/** `ratelimit --cached`'s record, kept in the file store's file (its module is loaded here, on use). */
export async function loadLastSeenCache(options: import('./store-file.js').LastSeenCacheOptions): Promise<import('./store-file.js').LastSeenCache> {
  const { createLastSeenCache } = await import('./store-file.js');
  return createLastSeenCache(options);
}
