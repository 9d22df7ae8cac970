/**
 * `--log-format json`: one JSON object a line on stderr per event, for cron wrappers and log
 * collectors (docs/progress.md, "Events for scripts"). Each object starts with `event` (its kind) and `time`
 * (ISO 8601, UTC, from the injected Clock); the other fields are those of {@link LogEvent}. Text
 * fields are made inert for a terminal ({@link inertText}) since they may quote a server; the API
 * key never reaches them (error messages are scrubbed by cli/main.ts with http/redact.ts).
 */
import type { Clock } from '../time/clock.js';
import type { OutputStream } from '../context.js';
import { inertText } from './terminal-text.js';

/** The values of `--log-format`: human lines (`text`, the default) or JSON lines (`json`). */
export const LOG_FORMATS = ['text', 'json'] as const;

/** One of {@link LOG_FORMATS}. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The events of an export, without `event`'s `time` (added by {@link formatEvent}). */
export type LogEvent =
  /** The export starts: what it reads and where it writes (`destination` is `stdout` or the absolute `--out`). */
  | { event: 'start'; command: string; endpoint: string; mode: 'cursor' | 'offset'; format: string; destination: string }
  /** A page was written: cumulative items and pages; `totalItems` null when the API did not say. */
  | { event: 'page'; items: number; pages: number; totalItems: number | null }
  /** A rate-limit wait: why, how long (ms) and when it ends (`until`, ISO 8601). */
  | { event: 'wait'; reason: string; ms: number; until: string }
  /** A retry after a network error, a 5xx or an unreadable body: which attempt, after how long (ms), why. */
  | { event: 'retry'; attempt: number; delayMs: number; reason: string }
  /**
   * The API pages in another mode than the one asked for (docs/choices.md, "Cursor-only endpoints and honest
   * mode"): the mode it uses, the one asked for, and the note's words.
   */
  | { event: 'mode'; mode: 'cursor' | 'offset'; asked: 'cursor' | 'offset'; message: string }
  /** A warning (e.g. a CSV column first seen after the header) or a note (a resume). */
  | { event: 'warning'; message: string }
  /** The failure that ends the run: its one-line message, its `E_…` code and the exit code. */
  | { event: 'error'; message: string; code: string; exitCode: number }
  /** The export finished: counts, rate-limit waits (total ms), elapsed ms, where it wrote and the mode the API paged in. */
  | {
      event: 'summary';
      items: number;
      pages: number;
      requests: number;
      waits: number;
      waitMs: number;
      elapsedMs: number;
      destination: string;
      mode: 'cursor' | 'offset';
    };

/**
 * The JSON line of an event: `{"event":…,"time":…,…}` and a newline. Strings are made inert.
 * @param nowMs the event's time, epoch ms
 */
export function formatEvent(event: LogEvent, nowMs: number): string {
  const { event: kind, ...fields } = event;
  const clean = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? inertText(v) : v]));
  return `${JSON.stringify({ event: kind, time: new Date(nowMs).toISOString(), ...clean })}\n`;
}

/** Writes {@link LogEvent}s as JSON lines. */
export type EventWriter = (event: LogEvent) => void;

/** Creates an {@link EventWriter} on `stream`, stamping each event with `clock.now()`. */
export function createEventWriter(stream: OutputStream, clock: Pick<Clock, 'now'>): EventWriter {
  return (event) => {
    stream.write(formatEvent(event, clock.now()));
  };
}
