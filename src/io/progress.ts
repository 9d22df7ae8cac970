/**
 * Progress on stderr: an ora spinner when stderr is a terminal (not with `--quiet`, `--no-progress`
 * or in CI), plain lines otherwise; `--verbose` request lines; the summary line. Consumes the
 * client's events. Never prints the API key: nothing here ever sees it. Every line and the
 * spinner's text pass through {@link inertText} first: they quote request paths, `X-Request-ID`,
 * retry reasons from the server and warnings naming field names, which must not reach the terminal
 * as escape sequences.
 */
import { clearLine, cursorTo, moveCursor } from 'node:readline';
import type { Ora, Options as OraOptions } from 'ora';
import type { Clock } from '../time/clock.js';
import type { ClientEvent } from '../http/client.js';
import type { OutputStream } from '../context.js';
import { formatCount, formatDuration, formatLocalTime } from './format.js';
import { inertText } from './terminal-text.js';

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  stderr: OutputStream;
  /** Whether stderr is a terminal. */
  isTTY: boolean;
  /** Environment, for `CI` and `NO_COLOR`. */
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** `--quiet`: nothing but errors. */
  quiet: boolean;
  /** `--no-progress` turns this off: no spinner. */
  spinner: boolean;
  /** `--verbose`: one line per request. */
  verbose: boolean;
  /**
   * Makes the spinner (ora's default export). Without it there is no spinner; {@link loadProgress}
   * imports ora only when a spinner will be shown, so exports to a pipe or a log never load it.
   */
  createSpinner?: (options: OraOptions) => Ora;
}

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

/** The progress reporter of one export. */
export interface Progress {
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

/** Whether a spinner may be shown: stderr is a terminal, not quiet, not disabled, not CI. */
export function spinnerEnabled(options: Pick<ProgressOptions, 'isTTY' | 'quiet' | 'spinner' | 'env'>): boolean {
  const ci = options.env.CI;
  return options.isTTY && !options.quiet && options.spinner && !(ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false');
}

/** The cursor methods ora calls on its stream (those of `tty.WriteStream`). */
interface CursorMethods {
  cursorTo(x: number, y?: number, callback?: () => void): boolean;
  clearLine(dir: -1 | 0 | 1, callback?: () => void): boolean;
  moveCursor(dx: number, dy: number, callback?: () => void): boolean;
}

/** Width assumed when a terminal reports none (a pseudo-terminal without a size reports 0). */
const FALLBACK_COLUMNS = 80;

/**
 * The stream ora draws on. A real terminal (`tty.WriteStream`) with a width is used as is. Any other
 * stream the context says is a terminal (a test's capture, a wrapped stream) gets the cursor methods
 * ora calls, written as ANSI sequences by node:readline. A terminal that reports 0 columns (`script`,
 * some container ttys) gets a width of {@link FALLBACK_COLUMNS}: ora divides by the width to count
 * the lines to clear, and with 0 it clears Infinity lines, writing escape codes forever.
 */
function spinnerStream(stream: OutputStream): NodeJS.WritableStream {
  const hasCursor = typeof (stream as Partial<CursorMethods>).cursorTo === 'function';
  if (hasCursor && (stream.columns ?? 0) > 0) return stream;
  const terminal: Pick<NodeJS.WritableStream, 'write' | 'once' | 'removeListener'> & CursorMethods & { isTTY: boolean; columns: number } = {
    isTTY: true,
    get columns() {
      return stream.columns !== undefined && stream.columns > 0 ? stream.columns : FALLBACK_COLUMNS;
    },
    write: ((chunk: string, encoding?: BufferEncoding, callback?: (err?: Error | null) => void) =>
      stream.write(chunk, encoding as BufferEncoding, callback)) as NodeJS.WritableStream['write'],
    once: (event: string, listener: (...args: unknown[]) => void) => (stream.once(event, listener), terminal as unknown as NodeJS.WritableStream),
    removeListener: (event: string, listener: (...args: unknown[]) => void) => (
      stream.removeListener(event, listener),
      terminal as unknown as NodeJS.WritableStream
    ),
    cursorTo: (x, y, callback) => cursorTo(stream, x, y, callback),
    clearLine: (dir, callback) => clearLine(stream, dir, callback),
    moveCursor: (dx, dy, callback) => moveCursor(stream, dx, dy, callback),
  };
  return terminal as unknown as NodeJS.WritableStream;
}

/**
 * Creates a {@link Progress}, importing ora first when a spinner will be shown (see
 * {@link spinnerEnabled}).
 */
export async function loadProgress(options: ProgressOptions): Promise<Progress> {
  const createSpinner = options.createSpinner ?? (spinnerEnabled(options) ? (await import('ora')).default : undefined);
  return createProgress(createSpinner ? { ...options, createSpinner } : options);
}

/** A client event of one type. */
type EventOf<T extends ClientEvent['type']> = Extract<ClientEvent, { type: T }>;

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
 */
export function formatWaitLine(event: EventOf<'wait'>, nowMs: number): string {
  const quota = event.limit !== undefined ? ` (${event.remaining ?? 0}/${event.limit} left)` : '';
  const why = event.reason === 'pacing' ? 'rate limit reached' : event.reason === 'retry-after' ? 'server asked to wait' : 'rate limited (429)';
  return `${why}${quota}, resuming at ${formatLocalTime(event.until, nowMs)} (in ${formatDuration(event.ms)})`;
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
 * The spinner's text: `1,200 of 5,000 items (24%) · 12 pages · 480 items/s` (the total and the
 * percentage only when the total is known).
 * @param elapsedMs time since the export started, ms (the rate is 0 before any time passed)
 */
export function formatStatus(stats: Pick<ProgressStats, 'items' | 'pages'>, total: number | undefined, elapsedMs: number): string {
  const seconds = elapsedMs / 1000;
  const rate = seconds > 0 ? stats.items / seconds : 0;
  const pct = total ? ` (${Math.min(100, Math.floor((stats.items / total) * 100))}%)` : '';
  const of = total ? ` of ${formatCount(total)}` : '';
  return `${formatCount(stats.items)}${of} items${pct} · ${formatCount(stats.pages)} pages · ${formatCount(rate)} items/s`;
}

/** Starts the spinner on stderr when one may be shown and `createSpinner` is given; cyan unless NO_COLOR. */
function startSpinner(options: ProgressOptions, noColor: boolean): Ora | undefined {
  if (!spinnerEnabled(options) || !options.createSpinner) return undefined;
  const stream = spinnerStream(options.stderr);
  return options.createSpinner({ stream, isEnabled: true, discardStdin: false, color: noColor ? false : 'cyan', text: 'starting…' }).start();
}

/** Creates a {@link Progress}; a spinner only with `options.createSpinner`. */
export function createProgress(options: ProgressOptions): Progress {
  const { stderr, clock, quiet, verbose } = options;
  const started = clock.monotonic();
  const stats: ProgressStats = { items: 0, pages: 0, requests: 0, retries: 0, waits: 0, waitMs: 0 };
  let total: number | undefined;
  let waitingUntil: number | undefined;
  let waitLine = '';
  let lastPaint: number | undefined;
  const noColor = options.env.NO_COLOR !== undefined && options.env.NO_COLOR !== '';
  const spinner = startSpinner(options, noColor);

  const line = (raw: string): void => {
    const text = inertText(raw);
    if (spinner) {
      spinner.clear();
      stderr.write(`${text}\n`);
      spinner.render();
    } else {
      stderr.write(`${text}\n`);
    }
  };

  const render = (): void => {
    if (!spinner) return;
    let text = formatStatus(stats, total, clock.monotonic() - started);
    if (waitingUntil !== undefined && waitingUntil > clock.now()) text += ` · ${waitLine}`;
    spinner.text = text;
    // ora only repaints on its 80 ms tick; a wait is shown at once so it is never missed.
    if (waitingUntil !== undefined && waitingUntil > clock.now()) spinner.render();
  };

  return {
    stats,
    onClientEvent(event) {
      switch (event.type) {
        case 'response':
          stats.requests++;
          if (verbose) line(formatRequestLine(event));
          break;
        case 'wait':
          stats.waits++;
          stats.waitMs += event.ms;
          waitingUntil = event.until;
          waitLine = inertText(formatWaitLine(event, clock.now()));
          if (spinner) render();
          else if (!quiet) line(`collections: ${waitLine}`);
          break;
        case 'retry':
          stats.retries++;
          if ((verbose || !spinner) && !quiet) line(`collections: ${event.reason}; retry ${event.attempt} in ${formatDuration(event.delayMs)}`);
          break;
      }
    },
    onPage(items, pages, totalItems) {
      stats.items = items;
      stats.pages = pages;
      if (totalItems !== undefined) total = totalItems;
      render();
      // Repaint at once when the counts change (ora's own tick is 80 ms), at most every 100 ms.
      const now = clock.monotonic();
      if (spinner && pages > 0 && (lastPaint === undefined || now - lastPaint >= 100)) {
        lastPaint = now;
        spinner.render();
      }
    },
    note(text) {
      if (!quiet) line(text);
    },
    done(destination) {
      const summary = inertText(formatSummary(stats, destination, clock.monotonic() - started));
      // ora's success symbol is coloured from process-wide state; NO_COLOR in our env wins.
      if (spinner && noColor) spinner.stopAndPersist({ symbol: '✔', text: summary });
      else if (spinner) spinner.succeed(summary);
      else if (!quiet) stderr.write(`collections: ${summary}\n`);
    },
    stop() {
      spinner?.stop();
    },
  };
}
