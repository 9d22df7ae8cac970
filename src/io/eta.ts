/**
 * The ETA of the progress line (docs/progress.md, "Progress"): the larger of two estimates of the time left.
 * - Throughput: the items still to fetch at this run's own pace, measured over a recent window
 *   ({@link RATE_WINDOW_MS}) of the items this process fetched (from its first page on once there
 *   are two), the rate-limit waits left out: the quota estimate accounts for those. After one page
 *   there is no pace yet: the quota estimate alone, or without one that page's response time.
 *   Items restored from a checkpoint count toward the done part, never toward the pace: a resumed
 *   run has fetched nothing yet.
 * - Quota: the requests still to send (pages to go = items left / items per page) against the rate
 *   limit: those beyond the window's `X-RateLimit-Remaining` wait for its `X-RateLimit-Reset` and
 *   for later windows of the length learnt from the responses' successive resets. Until it is known
 *   and later windows are needed, there is no ETA at all: throughput cannot see the waits to come
 *   on a fresh run, whose first pages come at full speed before the quota runs out.
 * Pure: the caller passes the times (monotonic ms for rates, local epoch ms for resets).
 */
import type { RateLimitSnapshot } from '../rate/index.js';

/**
 * The span of the throughput's moving window, ms: long enough to cover several rate-limit windows
 * of seconds, short enough to follow a change of pace.
 */
export const RATE_WINDOW_MS = 30_000;

/** Responses whose mean duration is the time one request takes. */
const DURATION_SAMPLES = 20;

/** The ETA estimator of one export; see {@link createEtaEstimator}. */
export interface EtaEstimator {
  /**
   * The counts after a page was written, with that page's rate-limit headers. The first call sets
   * the counts restored by a resume (or zero): they are done but were not fetched by this run.
   * @param monoMs when, monotonic ms
   */
  page(items: number, pages: number, monoMs: number, rateLimit?: RateLimitSnapshot): void;
  /** A response arrived after `ms` (its duration), with its `X-RateLimit-Reset` (server ms) when sent. */
  response(ms: number, resetAt?: number): void;
  /**
   * A rate-limit wait of `ms` from `monoMs`, until `until` (epoch ms, local clock): the window's
   * quota is spent until then. `limit` is `X-RateLimit-Limit` of the response that caused it.
   */
  wait(event: { ms: number; until: number; limit?: number | undefined }, monoMs: number): void;
  /** The export pages by cursor: its chain ends on the first empty page, one request more than the pages of items. */
  endsOnEmptyPage(): void;
  /** This run's items per second over the last {@link RATE_WINDOW_MS} (0 before any time passed). */
  rate(monoMs: number): number;
  /**
   * The time left, ms: the larger of the throughput and the quota estimates; undefined without a
   * total, before either can be made (no item fetched yet and no rate-limit headers), and while the
   * quota's time needs a window length not learnt yet.
   * @param monoMs now, monotonic ms
   * @param nowMs now, epoch ms by the local clock (resets are local-clock instants)
   */
  etaMs(total: number | undefined, monoMs: number, nowMs: number): number | undefined;
}

/** The quota as last seen: requests left until `resetAt` (epoch ms, local clock). */
interface Quota {
  limit: number;
  remaining: number;
  resetAt: number;
}

/**
 * The window length, ms, learnt from the responses' resets (`X-RateLimit-Reset`, by the server's
 * clock, so the local clock's offset does not blur it) in the order they arrive, 429s included:
 * the smallest gap between successive distinct resets (a window in which no response arrived makes
 * a gap of several). Undefined until two were seen. The time from a response to its window's reset
 * is no measure of the window: the run may start at any point of it (docs/progress.md, "Progress").
 */
function createWindowLearner(): { see(resetAt: number): void; windowMs(): number | undefined } {
  let last: number | undefined;
  let learnt: number | undefined;
  return {
    see(resetAt) {
      // The same window, or an older one (a response overtaken by one of the next window).
      if (last !== undefined && resetAt < last + 1000) return;
      if (last !== undefined) learnt = Math.min(learnt ?? Infinity, resetAt - last);
      last = resetAt;
    },
    windowMs: () => learnt,
  };
}

/**
 * The time the requests still to send need under the quota, ms: those the current window still
 * allows go at once; the others wait for its reset and then `limit` a window of `windowMs`.
 * @param windowMs the window's length; undefined when not known
 * @param perRequestMs the time one request takes, ms
 * @returns undefined when the answer depends on the window's length and it is not known (more
 *   requests than the current window and the next one allow, or a window rolled over)
 */
export function quotaEtaMs(requests: number, quota: Quota, windowMs: number | undefined, nowMs: number, perRequestMs: number): number | undefined {
  let { remaining, resetAt } = quota;
  if (resetAt <= nowMs) {
    // The window has rolled over since the last response: a fresh quota, up to the next reset.
    if (windowMs === undefined) return requests <= quota.limit ? requests * perRequestMs : undefined;
    remaining = quota.limit;
    resetAt += (Math.floor((nowMs - resetAt) / windowMs) + 1) * windowMs;
  }
  if (requests <= remaining) return requests * perRequestMs;
  const beyond = requests - remaining;
  const windows = Math.ceil(beyond / quota.limit);
  if (windows > 1 && windowMs === undefined) return undefined;
  const lastBatch = beyond - (windows - 1) * quota.limit;
  return resetAt - nowMs + (windows - 1) * (windowMs ?? 0) + lastBatch * perRequestMs;
}

/** This run's pace: items fetched over time and the rate-limit waits within it; see {@link createPace}. */
interface Pace {
  /** This run has fetched `fetched` items by `monoMs`. */
  add(monoMs: number, fetched: number): void;
  /** A rate-limit wait from `fromMono` to `toMono` (monotonic ms). */
  waited(fromMono: number, toMono: number): void;
  /** Items per second over the recent window, waits included (what the line shows). */
  rate(monoMs: number): number;
  /** Items per second over the recent window with the rate-limit waits left out; undefined when there is no such time. */
  activeRate(monoMs: number): number | undefined;
}

/**
 * The pace of one run over the last {@link RATE_WINDOW_MS}: from the newest sample at or before
 * the window's start. Rate-limit waits are kept apart so that the throughput estimate does not count
 * them twice: the quota estimate is the one that knows when the next waits come and how long they are.
 * @param startMono the run's start, monotonic ms (the first sample, with 0 items)
 */
function createPace(startMono: number): Pace {
  const samples: Array<{ mono: number; fetched: number }> = [{ mono: startMono, fetched: 0 }];
  // Waits as disjoint intervals in order (overlapping ones, e.g. of concurrent requests, are merged).
  const waits: Array<{ from: number; to: number }> = [];
  let added = 0;
  const span = (monoMs: number): { items: number; ms: number; waitedMs: number } => {
    const from = monoMs - RATE_WINDOW_MS;
    while (samples.length > 2 && samples[1]!.mono <= from) samples.shift();
    const first = samples[0]!;
    while (waits.length > 0 && waits[0]!.to <= first.mono) waits.shift();
    const waitedMs = waits.reduce((sum, w) => sum + Math.max(0, Math.min(monoMs, w.to) - Math.max(first.mono, w.from)), 0);
    return { items: samples[samples.length - 1]!.fetched - first.fetched, ms: monoMs - first.mono, waitedMs };
  };
  return {
    add(monoMs, fetched) {
      samples.push({ mono: monoMs, fetched });
      // From this run's second page on, the pace counts from its first page: the time to the first
      // one (start-up, connecting, a cold server) is not the pace of the pages after it.
      if (++added === 2) samples.splice(0, samples.length - 2);
    },
    waited(fromMono, toMono) {
      const last = waits[waits.length - 1];
      if (last !== undefined && fromMono <= last.to) last.to = Math.max(last.to, toMono);
      else waits.push({ from: fromMono, to: toMono });
    },
    rate(monoMs) {
      const { items, ms } = span(monoMs);
      return ms > 0 ? (items / ms) * 1000 : 0;
    },
    activeRate(monoMs) {
      const { items, ms, waitedMs } = span(monoMs);
      return ms - waitedMs > 0 && items > 0 ? (items / (ms - waitedMs)) * 1000 : undefined;
    },
  };
}

/** The mean of a non-empty list. */
function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * Creates the estimator of one export.
 * @param startMono when the export started, monotonic ms (the throughput counts from then)
 */
export function createEtaEstimator(startMono: number): EtaEstimator {
  const pace = createPace(startMono);
  let restored: number | undefined;
  let fetchedPages = 0;
  let done = 0;
  let pagesDone = 0;
  let perPage = 0;
  let quota: Quota | undefined;
  let emptyPage = 0;
  const windows = createWindowLearner();
  const durations: number[] = [];

  // `unknown`: the quota applies but its time needs the window's length, not known yet.
  const quotaEta = (itemsLeft: number, nowMs: number): number | 'unknown' | undefined => {
    if (quota === undefined || perPage === 0 || quota.limit <= 0) return undefined;
    const perRequestMs = durations.length > 0 ? mean(durations) : 0;
    return quotaEtaMs(Math.ceil(itemsLeft / perPage) + emptyPage, quota, windows.windowMs(), nowMs, perRequestMs) ?? 'unknown';
  };

  return {
    page(items, pages, monoMs, rateLimit) {
      if (restored === undefined) restored = items;
      else {
        fetchedPages++;
        if (pages > pagesDone && items > done) perPage = Math.max(perPage, Math.ceil((items - done) / (pages - pagesDone)));
        pace.add(monoMs, items - restored);
      }
      done = items;
      pagesDone = pages;
      const { limit, remaining, resetLocalAt } = rateLimit ?? {};
      if (limit === undefined || remaining === undefined || resetLocalAt === undefined) return;
      // A page fetched in an earlier window, written after later ones (offset mode), tells an old quota.
      if (quota === undefined || resetLocalAt > quota.resetAt - 1000) quota = { limit, remaining, resetAt: resetLocalAt };
    },
    response(ms, resetAt) {
      if (resetAt !== undefined) windows.see(resetAt);
      durations.push(ms);
      if (durations.length > DURATION_SAMPLES) durations.shift();
    },
    wait(event, monoMs) {
      pace.waited(monoMs, monoMs + event.ms);
      const limit = event.limit ?? quota?.limit;
      if (limit !== undefined) quota = { limit, remaining: 0, resetAt: event.until };
    },
    endsOnEmptyPage() {
      emptyPage = 1;
    },
    rate: (monoMs) => pace.rate(monoMs),
    etaMs(total, monoMs, nowMs) {
      if (total === undefined) return undefined;
      const left = Math.max(0, total - done);
      if (left === 0) {
        const last = emptyPage === 0 ? 0 : quotaEta(0, nowMs);
        return typeof last === 'number' ? last : 0;
      }
      const byQuota = quotaEta(left, nowMs);
      // No ETA rather than a wrong one: the pace of the first windows says nothing of the waits to come.
      if (byQuota === 'unknown') return undefined;
      // One page is no pace yet: the first response of a run is often several times slower than
      // the next (a cold connection, a cold server). The quota's time decides when there is one;
      // else that page's response time (the time since the start also holds the start-up).
      if (fetchedPages === 1 && byQuota !== undefined) return byQuota;
      const r = fetchedPages === 1 && durations.length > 0 ? (perPage / mean(durations)) * 1000 : pace.activeRate(monoMs);
      const byRate = r === undefined ? undefined : (left / r) * 1000;
      if (byRate === undefined) return byQuota;
      return byQuota === undefined ? byRate : Math.max(byRate, byQuota);
    },
  };
}
