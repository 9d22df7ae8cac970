/**
 * The rate budget's door for http/: one client's view of the budget. Per request it reserves a
 * permit in the endpoint's window, records the response's headers on it, and holds the endpoint
 * for a 429 wait the client sleeps itself; the windows are the pool's, the waits the client's.
 *
 * Our own code, not a library's: Bottleneck and p-limit pace on the local clock, not by the
 * server's `Remaining` and `Reset`; Octokit's throttling reads the reset on the local clock
 * (plugin-throttling #599); undici caps `Retry-After` and retries into a certain 429; none shares a
 * window across processes or learns whether the API counts a route per path (its documentation
 * does not say whether `/taxpayers/A/invoices` and `/taxpayers/B/invoices` are one endpoint).
 */
import type { Clock } from '../time/clock.js';
import type { RateBudget } from './budget.js';
import type { AcquireOptions, GovernorWait, Permit } from './governor.js';
import { parseRateLimitHeaders, type HeaderSource, type RateLimitHeaders } from './headers.js';
import { poolFor, type GovernorPool } from './pool.js';
import type { ServerClock } from './server-clock.js';

export type { RateBudget } from './budget.js';
export { parseHttpDate, snapshotOf, type RateLimitHeaders, type RateLimitSnapshot } from './headers.js';
export type { ServerClock } from './server-clock.js';
export { createWaitLedger, type WaitCut, type WaitLedger } from './wait-ledger.js';
export { clampTimerMs, decideWait, describeTooLong, type ReceivedResponse } from './wait.js';

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
  /** Shared by the clients of its pool. */
  readonly serverClock: ServerClock;
  /**
   * Waits until a request to `url` may be sent, then reserves it in its endpoint's window.
   * @throws {RateLimitError} when the wait for the reset would exceed the client's `maxWaitMs`
   * @throws the signal's reason when aborted
   */
  reserve(url: URL, options?: ReserveOptions): Promise<BudgetPermit>;
  /** Holds every request to the endpoint of `url` until `localMs`. */
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
}

/** The clients of one budget, origin and key share one pool; without a budget, a pool of this client alone. */
export function clientBudgetOf(budget: RateBudget | undefined, options: ClientBudgetOptions): ClientBudget {
  const { origin, apiKey, clock, maxWaitMs, onWait } = options;
  return createClientBudget(poolFor(budget, origin, apiKey, clock), { maxWaitMs, onWait });
}
