/**
 * The ETA, the larger of: the items left at this run's recent pace, waits left out; and the requests
 * left under the quota, in windows learnt from successive resets. Until a needed window is learnt, no
 * ETA: a fresh run's first pages come at full speed before the quota runs out. Monotonic ms for
 * rates, local epoch ms for resets.
 */
import type { RateLimitSnapshot } from '../rate/index.js';

/** The throughput's window, ms: several rate-limit windows of seconds, short enough to follow a change of pace. */
export const RATE_WINDOW_MS = 30_000;

/** Responses whose mean duration is the time one request takes. */
const DURATION_SAMPLES = 20;

export interface EtaEstimator {
  /** After a page was written; the first call sets the counts restored by a resume (or zero). */
  page(items: number, pages: number, monoMs: number, rateLimit?: RateLimitSnapshot): void;
  /** @param resetAt its `X-RateLimit-Reset`, server ms */
  response(ms: number, resetAt?: number): void;
  /** The window's quota is spent until `until` (epoch ms, local clock). */
  wait(event: { ms: number; until: number; limit?: number | undefined }, monoMs: number): void;
  /** Cursor mode: the chain ends on an empty page, one request more than the pages of items. */
  endsOnEmptyPage(): void;
  /** Items per second over the last {@link RATE_WINDOW_MS}. */
  rate(monoMs: number): number;
  /** Ms; undefined without a total, before any estimate, and while the quota needs a window length not learnt yet. */
  etaMs(total: number | undefined, monoMs: number, nowMs: number): number | undefined;
}

interface Quota {
  limit: number;
  remaining: number;
  resetAt: number;
}

/** Ms the requests left need under the quota; undefined when that depends on a `windowMs` not known. */
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

/** Waits kept apart, so the throughput does not count them twice: the quota estimate knows when the next ones come. */
function createPace(startMono: number) {
  const start = { mono: startMono, fetched: 0 };
  const samples: Array<{ mono: number; fetched: number }> = [start];
  // Waits as disjoint intervals in order (overlapping ones, e.g. of concurrent requests, are merged).
  const waits: Array<{ from: number; to: number }> = [];
  let pages = 0;
  const span = (monoMs: number): { items: number; ms: number; waitedMs: number } => {
    const from = monoMs - RATE_WINDOW_MS;
    while (samples.length > 2 && samples[1]!.mono <= from) samples.shift();
    const first = samples[0]!;
    while (waits.length > 0 && waits[0]!.to <= first.mono) waits.shift();
    const waitedMs = waits.reduce((sum, w) => sum + Math.max(0, Math.min(monoMs, w.to) - Math.max(first.mono, w.from)), 0);
    return { items: samples[samples.length - 1]!.fetched - first.fetched, ms: monoMs - first.mono, waitedMs };
  };
  return {
    add(monoMs: number, fetched: number): void {
      const before = samples[samples.length - 1]!.fetched;
      samples.push({ mono: monoMs, fetched });
      // The pace counts from the first page once a later one brings items: start-up, connecting, a cold server are no pace.
      // An empty page (a cursor chain's end) is no pace of its own.
      if (++pages >= 2 && fetched > before && samples[0] === start) samples.shift();
    },
    waited(fromMono: number, toMono: number): void {
      const last = waits[waits.length - 1];
      if (last !== undefined && fromMono <= last.to) last.to = Math.max(last.to, toMono);
      else waits.push({ from: fromMono, to: toMono });
    },
    /** Waits included (what the line shows). */
    rate(monoMs: number): number {
      const { items, ms } = span(monoMs);
      return ms > 0 ? (items / ms) * 1000 : 0;
    },
    /** Waits left out; undefined when there is no such time. */
    activeRate(monoMs: number): number | undefined {
      const { items, ms, waitedMs } = span(monoMs);
      return ms - waitedMs > 0 && items > 0 ? (items / (ms - waitedMs)) * 1000 : undefined;
    },
  };
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

export function createEtaEstimator(startMono: number): EtaEstimator {
  const pace = createPace(startMono);
  let restored: number | undefined;
  let fetchedPages = 0;
  let done = 0;
  let pagesDone = 0;
  let perPage = 0;
  let quota: Quota | undefined;
  let emptyPage = 0;
  // Smallest gap between distinct resets, server clock (windows without responses make wider gaps); not the time to a reset: runs start mid-window.
  let lastReset: number | undefined;
  let windowMs: number | undefined;
  const durations: number[] = [];

  // `unknown`: the quota applies but its time needs the window's length, not known yet.
  const quotaEta = (itemsLeft: number, nowMs: number): number | 'unknown' | undefined => {
    if (quota === undefined || perPage === 0 || quota.limit <= 0) return undefined;
    const perRequestMs = durations.length > 0 ? mean(durations) : 0;
    return quotaEtaMs(Math.ceil(itemsLeft / perPage) + emptyPage, quota, windowMs, nowMs, perRequestMs) ?? 'unknown';
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
      // Not the same window, nor an older one (a response overtaken by one of the next window).
      if (resetAt !== undefined && (lastReset === undefined || resetAt >= lastReset + 1000)) {
        if (lastReset !== undefined) windowMs = Math.min(windowMs ?? Infinity, resetAt - lastReset);
        lastReset = resetAt;
      }
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
      // One page is no pace (cold connections or servers slow it): the quota's time, else its response time, decides.
      if (fetchedPages === 1 && byQuota !== undefined) return byQuota;
      const r = fetchedPages === 1 && durations.length > 0 ? (perPage / mean(durations)) * 1000 : pace.activeRate(monoMs);
      const byRate = r === undefined ? undefined : (left / r) * 1000;
      if (byRate === undefined) return byQuota;
      return byQuota === undefined ? byRate : Math.max(byRate, byQuota);
    },
  };
}
