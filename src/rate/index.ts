/**
 * The rate budget: everything about the API's rate limit, in one floor between the ground floor
 * and http/ (it imports only the ground floor; http/ calls it through this file). docs/rate-limits.md,
 * "Rate limits, retries and safety", says what users see; this is how it is built.
 *
 * The interface is narrow. A process has one {@link RateBudget} (`ctx.rateBudget`, budget.ts);
 * each HTTP client takes its view of it ({@link clientBudgetOf}, client-budget.ts) and, per
 * request, reserves a permit for the endpoint's window (`reserve`, a permit that can be
 * cancelled), records the response's headers on it (`record`: `X-RateLimit-*`, `Retry-After`,
 * `Date`, status), and holds the endpoint for a 429 wait it sleeps itself (`holdUntil`, with the
 * wait from {@link decideWait}); the waits it announces go through a {@link createWaitLedger} so
 * the summary counts only the waits really taken. Behind the views:
 * - pool.ts: one governor per endpoint window of an origin and key, per route until the headers
 *   show the API counts per concrete path (then per path);
 * - governor.ts, quota-window.ts: pace before the 429, counting requests in flight, and time the
 *   window's last requests to probe the server's clock;
 * - headers.ts, server-clock.ts, wait.ts: pure header parsing, the server clock's offset, and the
 *   one wait rule (Reset by the server's clock, `Retry-After`, floors, `--max-wait`);
 * - store.ts and its stores: what several processes share: store-file.ts (`rate-budget.json` for
 *   the processes of one host), store-memory.ts (in memory); a networked store would be next.
 *
 * Why this is our own code and not a library's: rate limiting is what this tool exists for, and
 * the pacing libraries do not do what the API needs. Bottleneck and p-limit pace by a local rate
 * or a reservoir refreshed on the local clock, not by the server's `Remaining` and `Reset`;
 * Octokit's throttling plugin reads the reset on the local clock (plugin-throttling #599: limited
 * again right after the reset); undici caps `Retry-After` and retries into a certain 429; and none
 * of them shares a window across processes or learns whether the API counts a route per path. Per-path learning earns its lines: the API's
 * documentation says limits are per key and endpoint but not whether `/taxpayers/A/invoices` and
 * `/taxpayers/B/invoices` are one endpoint; counted per route, a many-taxpayer run would pace all
 * taxpayers through one window when the API gives each its own (`--parallel` would gain nothing),
 * and counted per path it would spend a 429 per taxpayer when the API counts the route.
 */
export type { RateBudget } from './budget.js';
export { clientBudgetOf, type BudgetPermit, type ClientBudget } from './client-budget.js';
export { parseHttpDate, snapshotOf, type RateLimitHeaders, type RateLimitSnapshot } from './headers.js';
export type { ServerClock } from './server-clock.js';
export { createWaitLedger, type WaitCut, type WaitLedger } from './wait-ledger.js';
export { clampTimerMs, decideWait, describeTooLong, type ReceivedResponse } from './wait.js';
