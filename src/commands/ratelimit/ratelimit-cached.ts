/**
 * `ratelimit --cached` (README, "Checking the quota"): the last rate-limit headers any command saw,
 * with their age, from the config store's cache; sends nothing. Also the table helpers that the
 * live `ratelimit` output shares.
 */
import type { Context } from '../../context.js';
import type { ConfigStore, RateLimitCacheEntry } from '../../config/store.js';
import { ENDPOINTS } from '../../endpoints.js';
import { ExitCode } from '../../errors.js';
import { formatLocalTime, formatTimeLeft } from '../../io/format.js';
import { inertText } from '../../io/terminal-text.js';
import { outputColumns } from '../../io/terminal-text.js';
import { drawTable, loadTableSupport } from '../../output/table-draw.js';

/** One row of `ratelimit --cached --json`. */
export interface CachedRatelimitRow {
  /** Origin of the API, e.g. `https://api.example.com`. */
  origin: string;
  endpoint: string;
  /** The endpoint's path template, e.g. `/taxpayers/{taxpayerId}/invoices`, or the path `get` exported. */
  path: string;
  limit: number | null;
  remaining: number | null;
  reset: string | null;
  resetInSeconds: number | null;
  /** When the headers were seen, ISO 8601 UTC. */
  observedAt: string;
  /** Whole seconds since then. */
  ageSeconds: number;
}

/** A table of {@link newTable}: `push` a row of cell texts, `toString` draws it. */
export interface PlainTable {
  /** Adds a row; each cell is made inert first. */
  push(row: readonly string[]): void;
  /** The drawn table, without a final newline. */
  toString(): string;
}

/**
 * A plain table: no ANSI colours, like the export's `table` format, drawn by output/table-draw.ts
 * `drawTable` (which needs `loadTableSupport` first): fitted to `columns` (text columns shrink,
 * numbers are aligned right and never cut). Every heading and cell is made inert for a terminal
 * ({@link inertText}): origins come from the config file and values from response headers.
 * @param columns the width to fit, in terminal columns (Infinity: natural widths)
 */
export function newTable(head: readonly string[], columns: number): PlainTable {
  const rows: string[][] = [];
  return {
    push: (row) => void rows.push(row.map(inertText)),
    toString: () => drawTable(head.map(inertText), rows, columns).text,
  };
}

/** The width `ratelimit` tables fit: `COLUMNS` or the terminal's (io/columns.ts), else natural widths (Infinity). */
export const tableWidth = (ctx: Pick<Context, 'io' | 'env'>): number => outputColumns(ctx.io, ctx.env) ?? Number.POSITIVE_INFINITY;

/** A table cell of an optional number: `-` when unknown. */
export const cell = (v: number | undefined): string => (v === undefined ? '-' : String(v));

/** Whole seconds from `now` until `resetAt` (epoch ms), rounded up and never negative; null when unknown. */
export const resetSeconds = (resetAt: number | undefined, now: number): number | null =>
  resetAt === undefined ? null : Math.max(0, Math.ceil((resetAt - now) / 1000));

/** What {@link runCachedRatelimit} needs of the `ratelimit` options. */
export interface CachedRatelimitOptions {
  /** The configured origin's entries only, when a base URL is known; else every origin's. */
  baseUrl?: URL;
  /** `--json`: an array of {@link CachedRatelimitRow} instead of a table. */
  json: boolean;
}

/**
 * Shows the cached observations (`--cached`), sorted by origin then endpoint table order; sends
 * nothing and needs no key.
 * @returns 0
 */
export async function runCachedRatelimit(options: CachedRatelimitOptions, ctx: Context, store: ConfigStore): Promise<number> {
  const now = ctx.clock.now();
  const origin = options.baseUrl?.origin;
  const order = (e: RateLimitCacheEntry): number => {
    const i = ENDPOINTS.findIndex((row) => row.key === e.endpoint);
    return i < 0 ? ENDPOINTS.length : i;
  };
  const entries = store
    .rateLimits(origin)
    .sort((a, b) => a.origin.localeCompare(b.origin) || order(a) - order(b) || a.endpoint.localeCompare(b.endpoint));

  const rows: CachedRatelimitRow[] = entries.map((e) => ({
    origin: e.origin,
    endpoint: e.endpoint,
    // The key of a path exported by `get` is the path itself.
    path: ENDPOINTS.find((row) => row.key === e.endpoint)?.path ?? (e.endpoint.startsWith('/') ? e.endpoint : ''),
    limit: e.limit ?? null,
    remaining: e.remaining ?? null,
    reset: e.resetAt === undefined ? null : new Date(e.resetAt).toISOString(),
    resetInSeconds: resetSeconds(e.resetLocalAt ?? e.resetAt, now),
    observedAt: new Date(e.observedAt).toISOString(),
    ageSeconds: Math.max(0, Math.floor((now - e.observedAt) / 1000)),
  }));

  if (options.json) {
    ctx.io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  } else if (rows.length === 0) {
    ctx.io.stderr.write(
      `No rate-limit headers seen yet${origin ? ` for ${inertText(origin)}` : ''}; \`collections ratelimit\` checks them (one request per endpoint).\n`,
    );
  } else {
    await loadTableSupport();
    const showOrigin = new Set(rows.map((r) => r.origin)).size > 1 || origin === undefined;
    const table = newTable([...(showOrigin ? ['origin'] : []), 'endpoint', 'limit', 'remaining', 'reset', 'time left', 'seen'], tableWidth(ctx));
    for (const e of entries) {
      const resetLocal = e.resetLocalAt ?? e.resetAt;
      const passed = resetLocal !== undefined && resetLocal <= now;
      table.push([
        ...(showOrigin ? [e.origin] : []),
        e.endpoint,
        cell(e.limit),
        cell(e.remaining),
        resetLocal === undefined ? '-' : formatLocalTime(resetLocal, now),
        resetLocal === undefined ? '-' : passed ? 'reset since' : formatTimeLeft(resetLocal - now),
        `${formatTimeLeft(now - e.observedAt)} ago`,
      ]);
    }
    ctx.io.stdout.write(`${table.toString()}\n`);
  }
  return ExitCode.Ok;
}
