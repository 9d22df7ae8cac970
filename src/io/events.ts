/** What an export reports ({@link Progress}), and its events as JSON lines for `--log-format json`. */
import type { Clock } from '../time/clock.js';
import type { OutputStream } from '../context.js';
import type { ClientEvent } from '../http/client.js';
import type { RateLimitSnapshot } from '../rate/index.js';
import { inertText } from './terminal-text.js';

export type LogFormat = 'text' | 'json';

/** The events of an export, without `time`. */
export type LogEvent =
  /** `destination` is `stdout` or the absolute `--out`. */
  | { event: 'start'; command: string; endpoint: string; mode: 'cursor' | 'offset'; format: string; destination: string }
  /** Cumulative counts; `totalItems` null when the API did not say. */
  | { event: 'page'; items: number; pages: number; totalItems: number | null }
  /** `until`: ISO 8601. */
  | { event: 'wait'; reason: string; ms: number; until: string }
  | { event: 'retry'; attempt: number; delayMs: number; reason: string }
  /** The API pages in another mode than the one asked for (docs/choices.md, "Cursor-only endpoints and honest mode"). */
  | { event: 'mode'; mode: 'cursor' | 'offset'; asked: 'cursor' | 'offset'; message: string }
  /** A warning, or a note such as a resume. */
  | { event: 'warning'; message: string }
  | { event: 'error'; message: string; code: string; exitCode: number }
  | ({ event: 'summary'; elapsedMs: number; destination: string; mode: 'cursor' | 'offset' } & Omit<ProgressStats, 'retries'>);

export type StartInfo = Omit<Extract<LogEvent, { event: 'start' }>, 'event'>;

/** `message` without the `collections: ` prefix. */
export type ModeNote = Omit<Extract<LogEvent, { event: 'mode' }>, 'event'>;

export interface ProgressStats {
  items: number;
  pages: number;
  requests: number;
  retries: number;
  waits: number;
  /** Total rate-limit wait, ms. */
  waitMs: number;
}

export interface Progress {
  start(info: StartInfo): void;
  onClientEvent(event: ClientEvent): void;
  /** Cumulative counts after a page; the first call gives those restored by `--resume`, or zero. */
  onPage(items: number, pages: number, totalItems: number | undefined, rateLimit?: RateLimitSnapshot): void;
  /** A one-line note that must not tangle with the spinner. */
  note(line: string): void;
  modeChanged(change: ModeNote): void;
  /**
   * Stops the spinner and prints the summary (unless quiet).
   * @param deleted rows a database run deleted (`--prune`, deletions followed); the JSON summary gives it
   */
  done(destination: string, deleted?: number): void;
  /** Stops the spinner without a summary (on failure). */
  stop(): void;
  readonly stats: ProgressStats;
}

/** What both kinds of {@link Progress} count of a client event. */
export function countEvent(stats: ProgressStats, event: ClientEvent): void {
  if (event.type === 'response') stats.requests++;
  else if (event.type === 'retry') stats.retries++;
  else {
    stats.waits++;
    stats.waitMs += event.ms;
  }
}

/** @param nowMs the event's time, epoch ms */
export function formatEvent(event: { event: string } & Record<string, unknown>, nowMs: number): string {
  const { event: kind, ...fields } = event;
  const clean = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? inertText(v) : v]));
  return `${JSON.stringify({ event: kind, time: new Date(nowMs).toISOString(), ...clean })}\n`;
}

export type EventWriter = (event: LogEvent) => void;

export function createEventWriter(stream: OutputStream, clock: Pick<Clock, 'now'>): EventWriter {
  return (event) => {
    stream.write(formatEvent(event, clock.now()));
  };
}

export interface JsonProgressOptions {
  stderr: OutputStream;
  clock: Clock;
  /** `--quiet`: no events from here (main() still prints the `error` event). */
  quiet: boolean;
}

const PREFIX = 'collections: ';

/** The JSON-lines {@link Progress}: no spinner, no prose; `--verbose` adds nothing (responses are not events). */
export function createJsonProgress(options: JsonProgressOptions): Progress {
  const { clock, quiet } = options;
  const write = createEventWriter(options.stderr, clock);
  const emit: EventWriter = (event) => {
    if (!quiet) write(event);
  };
  const started = clock.monotonic();
  const stats: ProgressStats = { items: 0, pages: 0, requests: 0, retries: 0, waits: 0, waitMs: 0 };
  let primed = false;
  let mode: 'cursor' | 'offset' = 'offset';
  return {
    stats,
    start(info: StartInfo) {
      mode = info.mode;
      emit({ event: 'start', ...info });
    },
    modeChanged(change) {
      mode = change.mode;
      emit({ event: 'mode', ...change });
    },
    onClientEvent(event) {
      countEvent(stats, event);
      if (event.type === 'wait') emit({ event: 'wait', reason: event.reason, ms: event.ms, until: new Date(event.until).toISOString() });
      else if (event.type === 'retry') emit({ event: 'retry', attempt: event.attempt, delayMs: event.delayMs, reason: event.reason });
    },
    onPage(items, pages, totalItems) {
      // The first call only sets the counts of a resume (or zero); a page event is a written page.
      const written = primed && (pages !== stats.pages || items !== stats.items);
      primed = true;
      stats.items = items;
      stats.pages = pages;
      if (written) emit({ event: 'page', items, pages, totalItems: totalItems ?? null });
    },
    note(line) {
      emit({ event: 'warning', message: line.startsWith(PREFIX) ? line.slice(PREFIX.length) : line });
    },
    done(destination, deleted) {
      const { items, pages, requests, waits, waitMs } = stats;
      const elapsedMs = Math.round(clock.monotonic() - started);
      emit({ event: 'summary', items, pages, requests, waits, waitMs, elapsedMs, destination, mode, ...(deleted === undefined ? {} : { deleted }) });
    },
    stop() {},
  };
}
