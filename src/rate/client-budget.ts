/**
 * One HTTP client's view of the rate budget, the narrow interface http/ calls: reserve a request
 * for its endpoint's window ({@link ClientBudget.reserve}, a permit that can be cancelled), record
 * the response's headers on the permit ({@link BudgetPermit.record}), and hold an endpoint during
 * a 429 wait the client sleeps itself ({@link ClientBudget.holdUntil}). The windows are the pool's
 * (pool.ts), shared by every client of the same budget, origin and key; the waits are the client's
 * own: reported to its listener and bounded by its `--max-wait`.
 */
import type { Clock } from '../time/clock.js';
import type { RateBudget } from './budget.js';
import type { AcquireOptions, GovernorWait, Permit } from './governor-types.js';
import { parseRateLimitHeaders, type HeaderSource, type RateLimitHeaders } from './headers.js';
import { poolFor, type GovernorPool } from './pool.js';
import type { ServerClock } from './server-clock.js';

/** What a client brings to the governors it shares: its listener of waits and its `--max-wait`. */
export interface ClientPacing {
  /** Longest pacing wait accepted, ms (Infinity: any). */
  maxWaitMs: number;
  /** Told of each pacing wait of this client's requests. */
  onWait: (wait: GovernorWait) => void;
}

/** A response's head as {@link BudgetPermit.record} reads it. */
export interface RecordedResponse {
  status: number;
  /** Its headers: `X-RateLimit-*`, `Retry-After`, `Date`. */
  headers: HeaderSource;
  /** When the request was sent, local ms. */
  sentAt: number;
  /** When the response headers arrived, local ms. */
  receivedAt: number;
}

/** The right to send one request (governor-types.ts {@link Permit}), which also records its response. */
export interface BudgetPermit extends Permit {
  /**
   * The response's headers arrived: parses its rate-limit headers, `Retry-After` and `Date`
   * (headers.ts), narrows the server clock's offset with `Date` (server-clock.ts), and releases the
   * permit with what the response said.
   * @returns the parsed headers
   */
  record(response: RecordedResponse): RateLimitHeaders;
}

/** Options of {@link ClientBudget.reserve}: the governor's, without the client's own pacing. */
export type ReserveOptions = Omit<AcquireOptions, 'maxWaitMs' | 'onWait'>;

/** One client's view of the budget; see the module comment. */
export interface ClientBudget {
  /** What the client knows of the server's clock (shared by the clients of its pool). */
  readonly serverClock: ServerClock;
  /**
   * Waits until a request to `url` may be sent, then reserves it in its endpoint's window.
   * @throws {RateLimitError} when the wait for the reset would exceed the client's `maxWaitMs`
   * @throws the signal's reason when aborted
   */
  reserve(url: URL, options?: ReserveOptions): Promise<BudgetPermit>;
  /** Holds every request to the endpoint of `url` until `localMs` (a 429 wait the client reports and sleeps itself). */
  holdUntil(url: URL, localMs: number): void;
}

/** One client's view of a pool: its waits are its own, the windows are shared. */
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

/** Options of {@link clientBudgetOf}: the API and key, the client's clock and its pacing. */
export interface ClientBudgetOptions extends ClientPacing {
  /** The URL origin of the API. */
  origin: string;
  /** The API key (only its SHA-256 names the pool and the store's record). */
  apiKey: string;
  clock: Clock;
}

/**
 * The view of a client of `budget` (pool.ts `poolFor`: the clients of one budget, origin and key
 * share one pool); without a budget, a pool of this client alone.
 */
export function clientBudgetOf(budget: RateBudget | undefined, options: ClientBudgetOptions): ClientBudget {
  const { origin, apiKey, clock, maxWaitMs, onWait } = options;
  return createClientBudget(poolFor(budget, origin, apiKey, clock), { maxWaitMs, onWait });
}
