/**
 * The shape of progress (io/progress.ts for people, io/json-progress.ts for scripts) and its human
 * lines: the `--verbose` request line, the rate-limit wait line, the spinner's status (fitted to the
 * terminal's width) and the summary. Pure; durations are pretty-ms's (io/format.ts).
 */
import type { ClientEvent } from '../http/client.js';
import type { RateLimitSnapshot } from '../rate/index.js';
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
  /**
   * A page was written: cumulative items and pages, total if known, and the page's rate-limit
   * headers (`X-RateLimit-Limit`, `-Remaining`, `-Reset`) for the ETA. The first call gives the
   * counts before this run's first page (those restored by `--resume`, or zero).
   */
  onPage(items: number, pages: number, totalItems: number | undefined, rateLimit?: RateLimitSnapshot): void;
  /** A one-line note (a warning, the "resumed" note) that must not tangle with the spinner. */
  note(line: string): void;
  /** The API pages in another mode than the one asked for: a note (a `mode` event), and the summary names the mode. */
  modeChanged(change: ModeNote): void;
  /** Stops the spinner and prints the summary (unless quiet). */
  done(destination: string): void;
  /** Stops the spinner without a summary (on failure). */
  stop(): void;
  /** The counters so far. */
  readonly stats: ProgressStats;
}

/** The API pages in `mode`, not in `asked`; `message` says so (without the `collections: ` prefix). */
export interface ModeNote {
  mode: 'cursor' | 'offset';
  asked: 'cursor' | 'offset';
  message: string;
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
 * `60 items to x.ndjson in 2.5s (7 requests, 0 retries, 2 rate-limit waits (2m))`, and
 * `; the API paged by cursor` before the `)` when it paged in another mode than the one asked for.
 * @param elapsedMs how long the export took, ms
 * @param mode the mode the API paged in, when it is not the one asked for
 */
export function formatSummary(stats: ProgressStats, destination: string, elapsedMs: number, mode?: 'cursor' | 'offset'): string {
  const waits =
    stats.waits > 0 ? `, ${stats.waits} rate-limit wait${stats.waits === 1 ? '' : 's'} (${formatDuration(stats.waitMs)})` : ', no rate-limit waits';
  return (
    `${formatCount(stats.items)} item${stats.items === 1 ? '' : 's'} to ${destination} in ${formatDuration(elapsedMs)}` +
    ` (${formatCount(stats.requests)} request${stats.requests === 1 ? '' : 's'}, ${stats.retries} retr${stats.retries === 1 ? 'y' : 'ies'}${waits}` +
    `${mode === undefined ? '' : `; the API paged by ${mode}`})`
  );
}

/** What the spinner's status line shows; see {@link formatStatus}. */
export interface StatusInfo {
  items: number;
  pages: number;
  /** `hydra:totalItems`, when the API sent it. */
  total: number | undefined;
  /** This run's items per second (io/eta.ts). */
  rate: number;
  /** Time since the export started, ms. */
  elapsedMs: number;
  /** Time left, ms (io/eta.ts); undefined when unknown. */
  etaMs: number | undefined;
  /** A rate-limit wait under way: its event and the time left of it, ms. */
  wait?: { event: EventOf<'wait'>; leftMs: number } | undefined;
}

/** Measures a text's width in terminal columns (string-width's, or any stand-in for tests). */
export type MeasureWidth = (text: string) => number;

/** The parts of the status line, in their long and short forms. */
type Part = 'count' | 'shortCount' | 'pages' | 'rate' | 'elapsed' | 'eta' | 'wait' | 'mediumWait' | 'shortWait';

/**
 * Layouts of the status line from the richest to the barest: the first that fits is shown. The
 * counts, the ETA and a wait's resume time stay longest (the spec: waits show with the resume time).
 */
const LAYOUTS: readonly (readonly Part[])[] = [
  ['count', 'pages', 'rate', 'elapsed', 'eta', 'wait'],
  ['count', 'rate', 'elapsed', 'eta', 'wait'],
  ['count', 'elapsed', 'eta', 'wait'],
  ['count', 'eta', 'wait'],
  ['count', 'eta', 'mediumWait'],
  ['shortCount', 'eta', 'mediumWait'],
  ['shortCount', 'eta', 'shortWait'],
];

/**
 * The spinner's text: `1,200 of 5,000 items (24%) · 12 pages · 480 items/s · 2.5s elapsed · ETA 8s`,
 * then the wait under way (`rate limit reached (0/3 left), resuming at 18:01:00 (in 59s)`). The
 * total, the percentage and the ETA only when the total is known; the ETA in whole seconds rounded up.
 * The line fits `width` columns: the least useful parts go first (pages, rate, elapsed time, then
 * the long forms of the wait and the counts), then the text is cut with an ellipsis, so a redraw
 * never wraps.
 * @param nowMs epoch ms now, by the local clock (for the wait's resume time)
 * @param width columns available (default unbounded)
 * @param measure width of a text in columns (default: one per grapheme)
 */
export function formatStatus(info: StatusInfo, nowMs: number, width = Infinity, measure: MeasureWidth = graphemes): string {
  const { total } = info;
  const pct = total ? ` (${Math.min(100, Math.floor((info.items / total) * 100))}%)` : '';
  const of = total ? ` of ${formatCount(total)}` : '';
  const resume = info.wait && `${formatLocalTime(info.wait.event.until, nowMs)} (in ${formatTimeLeft(info.wait.leftMs)})`;
  const parts: Record<Part, string | undefined> = {
    count: `${formatCount(info.items)}${of} items${pct}`,
    shortCount: `${formatCount(info.items)}${total ? `/${formatCount(total)}` : ' items'}${pct}`,
    pages: `${formatCount(info.pages)} pages`,
    rate: `${formatCount(info.rate)} items/s`,
    elapsed: `${formatDuration(info.elapsedMs)} elapsed`,
    eta: total && info.etaMs !== undefined ? `ETA ${formatTimeLeft(info.etaMs)}` : undefined,
    wait: info.wait && formatWaitLine(info.wait.event, nowMs, info.wait.leftMs),
    mediumWait: resume && `rate limit, resuming at ${resume}`,
    shortWait: resume && `waiting until ${resume}`,
  };
  const texts = LAYOUTS.map((layout) => layout.flatMap((part) => parts[part] ?? []).join(' · '));
  return texts.find((t) => measure(t) <= width) ?? truncate(texts[texts.length - 1]!, width, measure);
}

/** One column per grapheme: the measure when string-width is not loaded (the status text is ours, narrow characters only). */
function graphemes(text: string): number {
  let n = 0;
  for (const _ of new Intl.Segmenter().segment(text)) n++;
  return n;
}

/**
 * `text` cut to `width` columns with an ellipsis at the end, whole graphemes only (a wide character
 * that does not fit is left out whole).
 */
export function truncate(text: string, width: number, measure: MeasureWidth = graphemes): string {
  if (measure(text) <= width) return text;
  if (width < 1) return '';
  let out = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    const w = measure(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}
