/**
 * The shape of progress (io/progress.ts for people, io/json-progress.ts for scripts) and its human
 * lines: the `--verbose` request line, the rate-limit wait
 * line, the spinner's status and the summary. Pure; durations are pretty-ms's (io/format.ts).
 */
import type { ClientEvent } from '../http/client.js';
import type { LogEvent } from './events.js';
import { formatCount, formatDuration, formatLocalTime, formatTimeLeft } from './format.js';

/** What the `start` event tells: the command, the endpoint's path, mode, format and destination. */
export type StartInfo = Omit<Extract<LogEvent, { event: 'start' }>, 'event'>;

/** The progress reporter of one export. */
export interface Progress {
  /** The export starts (a `start` event with `--log-format json`; nothing on a terminal). */
  start(info: StartInfo): void;
  /** Feeds a client event (response, wait, retry). */
  onClientEvent(event: ClientEvent): void;
  /** A page was written: cumulative items and pages, total if known. */
  onPage(items: number, pages: number, totalItems: number | undefined): void;
  /** A one-line note (a warning, the "resumed" note) that must not tangle with the spinner. */
  note(line: string): void;
  /** Stops the spinner and prints the summary (unless quiet). */
  done(destination: string): void;
  /** Stops the spinner without a summary (on failure). */
  stop(): void;
  /** The counters so far. */
  readonly stats: ProgressStats;
}

/** A client event of one type. */
type EventOf<T extends ClientEvent['type']> = Extract<ClientEvent, { type: T }>;

/** Counters the summary reports. */
export interface ProgressStats {
  items: number;
  pages: number;
  requests: number;
  retries: number;
  waits: number;
  /** Total rate-limit wait, ms. */
  waitMs: number;
}

/**
 * The `--verbose` line of a response: `GET /entities?page=1 200 12ms remaining=5/60 X-Request-ID=r1`
 * (duration rounded to whole ms; quota and request id only when the response had them).
 */
export function formatRequestLine(event: EventOf<'response'>): string {
  const quota = event.remaining !== undefined ? ` remaining=${event.remaining}${event.limit !== undefined ? `/${event.limit}` : ''}` : '';
  const rid = event.requestId ? ` X-Request-ID=${event.requestId}` : '';
  return `${event.method} ${event.path} ${event.status} ${Math.round(event.ms)}ms${quota}${rid}`;
}

/**
 * The line of a rate-limit wait: `rate limit reached (0/3 left), resuming at 18:01:00 (in 1m)`,
 * the resume time local (with the date when it is not today, see {@link formatLocalTime}).
 * @param nowMs epoch ms now, by the local clock
 * @param leftMs for the live countdown of the spinner: the time left, ms, shown in whole seconds
 *   rounded up ({@link formatTimeLeft}); without it, the whole wait ({@link formatDuration})
 */
export function formatWaitLine(event: EventOf<'wait'>, nowMs: number, leftMs?: number): string {
  const quota = event.limit !== undefined ? ` (${event.remaining ?? 0}/${event.limit} left)` : '';
  const why = event.reason === 'pacing' ? 'rate limit reached' : event.reason === 'retry-after' ? 'server asked to wait' : 'rate limited (429)';
  const left = leftMs === undefined ? formatDuration(event.ms) : formatTimeLeft(leftMs);
  return `${why}${quota}, resuming at ${formatLocalTime(event.until, nowMs)} (in ${left})`;
}

/**
 * The summary of a finished export, without the `collections: ` prefix:
 * `60 items to x.ndjson in 2.5s (7 requests, 0 retries, 2 rate-limit waits (2m))`.
 * @param elapsedMs how long the export took, ms
 */
export function formatSummary(stats: ProgressStats, destination: string, elapsedMs: number): string {
  const waits =
    stats.waits > 0 ? `, ${stats.waits} rate-limit wait${stats.waits === 1 ? '' : 's'} (${formatDuration(stats.waitMs)})` : ', no rate-limit waits';
  return (
    `${formatCount(stats.items)} item${stats.items === 1 ? '' : 's'} to ${destination} in ${formatDuration(elapsedMs)}` +
    ` (${formatCount(stats.requests)} request${stats.requests === 1 ? '' : 's'}, ${stats.retries} retr${stats.retries === 1 ? 'y' : 'ies'}${waits})`
  );
}

/**
 * The spinner's text: `1,200 of 5,000 items (24%) · 12 pages · 480 items/s · 2.5s elapsed · ETA 8s`
 * (the total, the percentage and the ETA only when the total is known; the ETA also needs a rate
 * above 0 and is the items left at the rate so far, in whole seconds rounded up).
 * @param elapsedMs time since the export started, ms (the rate is 0 before any time passed)
 */
export function formatStatus(stats: Pick<ProgressStats, 'items' | 'pages'>, total: number | undefined, elapsedMs: number): string {
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? stats.items / seconds : 0;
  const pct = total ? ` (${Math.min(100, Math.floor((stats.items / total) * 100))}%)` : '';
  const of = total ? ` of ${formatCount(total)}` : '';
  const eta = total && rate > 0 ? ` · ETA ${formatTimeLeft((Math.max(0, total - stats.items) / rate) * 1000)}` : '';
  return (
    `${formatCount(stats.items)}${of} items${pct} · ${formatCount(stats.pages)} pages · ${formatCount(rate)} items/s` +
    ` · ${formatDuration(elapsedMs)} elapsed${eta}`
  );
}
