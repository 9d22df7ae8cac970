/**
 * What a dry run (commands/dry-run.ts) tells of the time an export takes, from one light request:
 * its items, pages and requests, and how the requests meet the quota it saw (docs/progress.md,
 * "Dry run"). Pure.
 */
import { formatCount, formatTimeLeft } from '../../io/format.js';

/**
 * What the light request told: the total when the API sent one, and the quota as it stood. One
 * response never shows the window's length (`X-RateLimit-Reset` is when the current window ends,
 * and a run starts at any point of it), so none is derived from it.
 */
export interface DryRunProbe {
  /** `hydra:totalItems`, when sent. */
  totalItems?: number;
  /** `X-RateLimit-Limit`: requests per window. */
  limit?: number;
  /** `X-RateLimit-Remaining`. */
  remaining?: number;
  /** Time until the window resets, ms: `X-RateLimit-Reset` as a local instant less when the response came. */
  resetInMs?: number;
}

/** How an export's requests meet the quota the light request saw. */
export interface QuotaForecast {
  /** Requests the current window still allows that the export would use now. */
  now: number;
  /** Windows after the current one the other requests need (0: no rate-limit wait). */
  windows: number;
  /** `X-RateLimit-Limit`. */
  limit: number;
  /** Time until the current window resets, ms, when known. */
  resetInMs?: number;
}

/** The work an export would do, from a {@link DryRunProbe}: `undefined` where it is unknown. */
export interface DryRunEstimate {
  /** Items the export would write (`--max-items` and the first `--page` taken into account). */
  items?: number;
  /** Requests of `itemsPerPage` items it would send. */
  pages?: number;
  /** Requests it would send: the pages, and in cursor mode the empty page that ends the chain. */
  requests?: number;
  /** Items a checkpoint `--resume` continues holds already (not fetched again). */
  done?: number;
}

/**
 * The items, pages and requests an export would take (pure).
 * @param itemsPerPage items per page of the real export
 * @param firstPage first page in offset mode (1 in cursor mode)
 * @param done items the checkpoint `--resume` continues holds: only the pages after them are fetched
 */
export function estimateExport(
  probe: DryRunProbe,
  itemsPerPage: number,
  firstPage: number,
  maxItems: number | undefined,
  cursor = false,
  done = 0,
): DryRunEstimate {
  if (probe.totalItems === undefined) return {};
  const left = Math.max(0, probe.totalItems - (firstPage - 1) * itemsPerPage);
  const items = maxItems === undefined ? left : Math.min(left, maxItems);
  const pages = done > 0 ? Math.ceil(Math.max(0, items - done) / itemsPerPage) : Math.max(1, Math.ceil(items / itemsPerPage));
  // A cursor chain ends on its first empty page, unless --max-items stops the export first.
  const requests = pages + (cursor && (maxItems === undefined || maxItems > left) ? 1 : 0);
  return { items, pages, requests, ...(done > 0 ? { done } : {}) };
}

/**
 * How `requests` meet the quota of `probe` (pure): those the window has left go now, the others
 * wait for its reset and then `limit` a window; undefined without `X-RateLimit-Limit` and `-Remaining`.
 */
export function forecastQuota(requests: number, probe: DryRunProbe): QuotaForecast | undefined {
  const { limit, remaining, resetInMs } = probe;
  if (limit === undefined || remaining === undefined || limit <= 0) return undefined;
  const now = Math.min(requests, Math.max(0, remaining));
  return { now, windows: Math.ceil((requests - now) / limit), limit, ...(resetInMs === undefined ? {} : { resetInMs }) };
}

/** The quota a probe saw: `60 requests, 57 left, resets in 3s`, or `unknown`. */
export function quotaText(probe: DryRunProbe): string {
  if (probe.limit === undefined) return 'unknown';
  const left = probe.remaining === undefined ? '' : `, ${formatCount(probe.remaining)} left`;
  const reset = probe.resetInMs === undefined ? '' : `, resets in ${formatTimeLeft(probe.resetInMs)}`;
  return `${formatCount(probe.limit)} ${probe.limit === 1 ? 'request' : 'requests'}${left}${reset}`;
}

const plural = (n: number, one: string, many: string): string => `${formatCount(n)} ${n === 1 ? one : many}`;

/**
 * What is known of the time `requests` take under the quota, never a made-up duration: no wait; the
 * wait for the reset when one more window suffices; else the windows needed, whose length no
 * response tells.
 */
export function estimateText(requests: number | undefined, probe: DryRunProbe): string {
  if (requests === undefined) return 'unknown';
  const forecast = forecastQuota(requests, probe);
  if (forecast === undefined) return `unknown (${plural(requests, 'request', 'requests')}, no rate-limit headers)`;
  const all = plural(requests, 'request', 'requests');
  if (forecast.windows === 0) return `no rate-limit wait: the ${all} fit in the ${formatCount(probe.remaining ?? 0)} left`;
  const reset = forecast.resetInMs === undefined ? 'the reset' : `the reset in ${formatTimeLeft(forecast.resetInMs)}`;
  const head = `${all}: ${formatCount(forecast.now)} now, ${formatCount(requests - forecast.now)}`;
  if (forecast.windows === 1) {
    const text = `${head} after ${reset}`;
    return forecast.resetInMs === undefined ? text : `at least ${formatTimeLeft(forecast.resetInMs)}: ${text}`;
  }
  return `${head} in ${formatCount(forecast.windows)} more windows of ${formatCount(forecast.limit)} after ${reset}; no time given (no response tells a window's length)`;
}
