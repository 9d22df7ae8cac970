/**
 * The figures of the fault suite, computed from the sandbox's request log (server clock): items
 * lost and duplicated by `id`, requests sent before a reset, 429s per window, how late requests
 * came after a reset, and the gaps of 429 streaks. Windows are fixed, `[floor(t / w) · w, … + w)`
 * ms, as the sandbox's limiter counts them (src/sandbox/limiter.ts).
 */
import type { RequestLogEntry } from '../../src/sandbox/app.js';

/** Ids expected but absent, and ids present more than once. */
export function lostAndDuplicated(expected: readonly string[], got: readonly string[]): { lost: number; duplicated: number } {
  const counts = new Map<string, number>();
  for (const id of got) counts.set(id, (counts.get(id) ?? 0) + 1);
  let duplicated = 0;
  for (const n of counts.values()) if (n > 1) duplicated += n - 1;
  const lost = expected.filter((id) => !counts.has(id)).length;
  return { lost, duplicated };
}

/**
 * Requests sent before a reset, by the server's clock: every request to an endpoint that the
 * server received after it had answered a 429 (or a success with `Remaining: 0`) on that endpoint
 * and before the end of that window. Windows are fixed, `[floor(t / w) · w, … + w)` ms
 * (src/sandbox/limiter.ts). `retryAfterMs`, when given, extends the embargo after each 429 to at
 * least that long (a `Retry-After` without Reset).
 */
export function requestsBeforeReset(
  log: readonly RequestLogEntry[],
  windowSeconds: number,
  options: { remainingZero?: boolean; retryAfterMs?: number } = {},
): number {
  const w = windowSeconds * 1000;
  const embargo = new Map<string, number>();
  let early = 0;
  for (const e of log) {
    const key = e.endpoint ?? e.url;
    const until = embargo.get(key);
    if (until !== undefined && e.timeMs < until) early++;
    const closes = e.status === 429 || (options.remainingZero === true && e.status === 200);
    if (closes) {
      let end = (Math.floor(e.timeMs / w) + 1) * w;
      if (e.status === 429 && options.retryAfterMs !== undefined) end = Math.max(end, e.timeMs + options.retryAfterMs);
      embargo.set(key, Math.max(until ?? 0, end));
    }
  }
  return early;
}

/** The largest number of 429s in one window of one endpoint (0 when none). */
export function max429PerWindow(log: readonly RequestLogEntry[], windowSeconds: number): number {
  const w = windowSeconds * 1000;
  const per = new Map<string, number>();
  for (const e of log) {
    if (e.status !== 429) continue;
    const k = `${e.endpoint}\u0000${Math.floor(e.timeMs / w)}`;
    per.set(k, (per.get(k) ?? 0) + 1);
  }
  return Math.max(0, ...per.values());
}

/**
 * How late each request that followed an exhausted window came, ms after that window's reset (by
 * the server's clock): for consecutive requests to one endpoint where the first one's window was
 * spent (`limit` requests or a 429 in it) and the second one falls in a later window. Negative
 * values would be requests before the reset (they are counted by {@link requestsBeforeReset}).
 */
export function lateAfterReset(log: readonly RequestLogEntry[], windowSeconds: number, limit: number): number[] {
  const w = windowSeconds * 1000;
  const out: number[] = [];
  const last = new Map<string, { window: number; count: number; limited: boolean }>();
  for (const e of log) {
    const key = e.endpoint ?? e.url;
    const window = Math.floor(e.timeMs / w);
    const prev = last.get(key);
    if (prev && window > prev.window && (prev.count >= limit || prev.limited)) out.push(e.timeMs - (prev.window + 1) * w);
    const cur = prev && prev.window === window ? prev : { window, count: 0, limited: false };
    cur.count++;
    if (e.status === 429) cur.limited = true;
    last.set(key, cur);
  }
  return out;
}

/**
 * The gaps between consecutive 429s of one streak (429s with no success between them), ms, per
 * streak: `[[g1, g2, …], …]`, where g1 is the gap between the first 429 and the next request.
 */
export function streakGaps(log: readonly RequestLogEntry[]): number[][] {
  const streaks: number[][] = [];
  let current: number[] | undefined;
  let prev: RequestLogEntry | undefined;
  for (const e of log) {
    if (prev?.status === 429) {
      current ??= [];
      current.push(e.timeMs - prev.timeMs);
    }
    if (e.status !== 429 && current) {
      streaks.push(current);
      current = undefined;
    }
    prev = e;
  }
  if (current) streaks.push(current);
  return streaks;
}
