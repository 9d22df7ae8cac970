/** Text for people: counts, durations and times (pretty-ms's), and the progress lines. Pure. */
import prettyMilliseconds from 'pretty-ms';
import type { ClientEvent } from '../http/client.js';
import type { ProgressStats } from './events.js';

const pad2 = (n: number): string => String(n).padStart(2, '0');
const localDate = (d: Date): string => `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;

/** `12345` → `12,345`, as `toLocaleString('en-US')`, whose first call loads ICU's number data at start-up. */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '∞' : '-∞';
  const digits = String(Math.abs(Math.round(n)));
  const grouped = digits.length > 21 ? digits : digits.replace(/\B(?=(\d{3})+$)/g, ',');
  return (n <= -0.5 ? '-' : '') + grouped;
}

/** `850ms`, `12.3s`, `1.0s`, `4m 5s`, `2h 3m`, `26h`. @param ms negative or not finite counts as 0 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  return ms < 60_000
    ? prettyMilliseconds(ms, { keepDecimalsOnWholeSeconds: true })
    : prettyMilliseconds(ms, { unitCount: 2, secondsDecimalDigits: 0, hideYearAndDays: true });
}

/** `HH:MM:SS` in the machine's time zone, with the date in front when it is not the local day of `nowMs` (epoch ms). */
export function formatLocalTime(epochMs: number, nowMs?: number): string {
  const d = new Date(epochMs);
  const time = `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
  return nowMs === undefined || localDate(d) === localDate(new Date(nowMs)) ? time : `${localDate(d)} ${time}`;
}

/** `0s`, `59s`, `4m 5s`, `1d 2h`: whole seconds rounded up, since a quota resets no earlier than shown. */
export function formatTimeLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  // pretty-ms writes zero as `0ms`; time left is counted in seconds.
  return seconds === 0 ? '0s' : prettyMilliseconds(seconds * 1000, { unitCount: 2, hideYear: true });
}

type EventOf<T extends ClientEvent['type']> = Extract<ClientEvent, { type: T }>;

/** `--verbose`: `GET /entities?page=1 200 12ms remaining=5/60 X-Request-ID=r1`. */
export function formatRequestLine(event: EventOf<'response'>): string {
  const quota = event.remaining !== undefined ? ` remaining=${event.remaining}${event.limit !== undefined ? `/${event.limit}` : ''}` : '';
  const rid = event.requestId ? ` X-Request-ID=${event.requestId}` : '';
  return `${event.method} ${event.path} ${event.status} ${Math.round(event.ms)}ms${quota}${rid}`;
}

/**
 * `rate limit reached (0/3 left), resuming at 18:01:00 (in 1m)`.
 * @param leftMs the spinner's countdown, ms; without it, the whole wait
 */
export function formatWaitLine(event: EventOf<'wait'>, nowMs: number, leftMs?: number): string {
  const quota = event.limit !== undefined ? ` (${event.remaining ?? 0}/${event.limit} left)` : '';
  const why = event.reason === 'pacing' ? 'rate limit reached' : event.reason === 'retry-after' ? 'server asked to wait' : 'rate limited (429)';
  const left = leftMs === undefined ? formatDuration(event.ms) : formatTimeLeft(leftMs);
  return `${why}${quota}, resuming at ${formatLocalTime(event.until, nowMs)} (in ${left})`;
}

/**
 * `60 items to x.ndjson in 2.5s (7 requests, 0 retries, 2 rate-limit waits (2m))`, with
 * `; the API paged by cursor` when it paged in another `mode` than the one asked for.
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

export interface StatusInfo {
  items: number;
  pages: number;
  total: number | undefined;
  /** Items per second. */
  rate: number;
  elapsedMs: number;
  etaMs: number | undefined;
  wait?: { event: EventOf<'wait'>; leftMs: number } | undefined;
}

/** A text's width in terminal columns (string-width's, or a stand-in for tests). */
export type MeasureWidth = (text: string) => number;

type Part = 'count' | 'shortCount' | 'pages' | 'rate' | 'elapsed' | 'eta' | 'wait' | 'mediumWait' | 'shortWait';

/** From the richest to the barest, the first that fits is shown: counts, ETA and a wait's resume time stay longest. */
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
 * The spinner's text, `1,200 of 5,000 items (24%) · 12 pages · 480 items/s · 2.5s elapsed · ETA 8s`
 * and a wait under way, fitted to `width` columns so a redraw never wraps.
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

/** The measure when string-width is not loaded: the status text is ours, narrow characters only. */
function graphemes(text: string): number {
  let n = 0;
  for (const _ of new Intl.Segmenter().segment(text)) n++;
  return n;
}

/** `text` cut to `width` columns with an ellipsis, whole graphemes only. */
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
