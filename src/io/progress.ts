/**
 * Progress on stderr: an ora spinner when stderr is a terminal (not with `--quiet`, `--no-progress`,
 * in CI or on `TERM=dumb`) showing items, pages, rate, elapsed time, an ETA when the total is known
 * and a rate-limit wait's countdown, repainted every second of the injected Clock; plain lines
 * otherwise; `--verbose` request lines; the summary line. `--log-format json` gets JSON lines
 * instead (io/json-progress.ts). Consumes the
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
import { formatDuration } from './format.js';
import { formatRequestLine, formatStatus, formatSummary, formatWaitLine, type Progress, type ProgressStats } from './progress-text.js';
import type { LogFormat } from './events.js';
import { createJsonProgress } from './json-progress.js';

export type { Progress, ProgressStats, StartInfo } from './progress-text.js';
import { inertText } from './terminal-text.js';

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  stderr: OutputStream;
  /** Whether stderr is a terminal. */
  isTTY: boolean;
  /** Environment, for `CI`, `TERM` and `NO_COLOR`. */
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  /** `--quiet`: nothing but errors. */
  quiet: boolean;
  /** `--no-progress` turns this off: no spinner. */
  spinner: boolean;
  /** `--verbose`: one line per request. */
  verbose: boolean;
  /** `--log-format`: `json` gives the JSON-lines progress of io/json-progress.ts (default `text`). */
  logFormat?: LogFormat | undefined;
  /**
   * Makes the spinner (ora's default export). Without it there is no spinner; {@link loadProgress}
   * imports ora only when a spinner will be shown, so exports to a pipe or a log never load it.
   */
  createSpinner?: (options: OraOptions) => Ora;
}

/**
 * Whether a spinner may be shown: stderr is a terminal, not quiet, not disabled, not CI, and the
 * terminal can move its cursor (`TERM=dumb` cannot: terminfo's `dumb` has no cursor addressing).
 */
export function spinnerEnabled(options: Pick<ProgressOptions, 'isTTY' | 'quiet' | 'spinner' | 'env'>): boolean {
  const ci = options.env.CI;
  const inCI = ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
  return options.isTTY && !options.quiet && options.spinner && !inCI && options.env.TERM !== 'dumb';
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
 * Creates a {@link Progress}: JSON lines with `logFormat: 'json'`, else the human one, importing ora
 * first when a spinner will be shown (see {@link spinnerEnabled}).
 */
export async function loadProgress(options: ProgressOptions): Promise<Progress> {
  if (options.logFormat === 'json') return createJsonProgress(options);
  const createSpinner = options.createSpinner ?? (spinnerEnabled(options) ? (await import('ora')).default : undefined);
  return createProgress(createSpinner ? { ...options, createSpinner } : options);
}

/** Starts the spinner on stderr when one may be shown and `createSpinner` is given; cyan unless NO_COLOR. */
function startSpinner(options: ProgressOptions, noColor: boolean): Ora | undefined {
  if (!spinnerEnabled(options) || !options.createSpinner) return undefined;
  const stream = spinnerStream(options.stderr);
  return options.createSpinner({ stream, isEnabled: true, discardStdin: false, color: noColor ? false : 'cyan', text: 'starting…' }).start();
}

/** A repaint every second of the injected clock until a wait ends; see {@link createCountdown}. */
interface Countdown {
  /** Starts ticking until `endMono` (monotonic ms), stopping a countdown under way. */
  start(endMono: number): void;
  /** Stops ticking. */
  stop(): void;
}

/**
 * Calls `render` every second of `clock` (and once at `endMono`) until `endMono`, so the time left
 * of a rate-limit wait is live. It sleeps on the injected Clock: a virtual clock drives it in tests.
 */
function createCountdown(clock: Clock, render: () => void): Countdown {
  let ticker: AbortController | undefined;
  const stop = (): void => {
    ticker?.abort();
    ticker = undefined;
  };
  const run = async (endMono: number, signal: AbortSignal): Promise<void> => {
    while (clock.monotonic() < endMono) {
      await clock.sleep(Math.min(1000, endMono - clock.monotonic()), signal);
      render();
    }
  };
  return {
    start(endMono) {
      stop();
      ticker = new AbortController();
      run(endMono, ticker.signal).catch(() => undefined);
    },
    stop,
  };
}

/** Writes one inert line on stderr, clearing the spinner first and repainting it after. */
function lineWriter(stderr: OutputStream, spinner: Ora | undefined): (raw: string) => void {
  return (raw) => {
    spinner?.clear();
    stderr.write(`${inertText(raw)}\n`);
    spinner?.render();
  };
}

/** Creates a {@link Progress}; a spinner only with `options.createSpinner`. */
export function createProgress(options: ProgressOptions): Progress {
  const { stderr, clock, quiet, verbose } = options;
  const started = clock.monotonic();
  const stats: ProgressStats = { items: 0, pages: 0, requests: 0, retries: 0, waits: 0, waitMs: 0 };
  let total: number | undefined;
  // The rate-limit wait under way: its event and when it ends on the monotonic clock.
  let wait: { event: Extract<ClientEvent, { type: 'wait' }>; endMono: number } | undefined;
  let lastPaint: number | undefined;
  const noColor = options.env.NO_COLOR !== undefined && options.env.NO_COLOR !== '';
  const spinner = startSpinner(options, noColor);

  const line = lineWriter(stderr, spinner);

  // The wait line with the time left, while a wait is under way.
  const waitText = (): string | undefined =>
    wait && wait.endMono > clock.monotonic() ? inertText(formatWaitLine(wait.event, clock.now(), wait.endMono - clock.monotonic())) : undefined;

  const render = (): void => {
    if (!spinner) return;
    const waiting = waitText();
    spinner.text = formatStatus(stats, total, clock.monotonic() - started) + (waiting === undefined ? '' : ` · ${waiting}`);
    // ora only repaints on its 80 ms tick; a wait is shown at once so it is never missed.
    if (waiting !== undefined) spinner.render();
  };

  const countdown = createCountdown(clock, render);

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
          wait = { event, endMono: clock.monotonic() + event.ms };
          if (spinner) {
            render();
            countdown.start(wait.endMono);
          } else if (!quiet) line(`collections: ${inertText(formatWaitLine(event, clock.now()))}`);
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
    start() {},
    done(destination) {
      countdown.stop();
      const summary = inertText(formatSummary(stats, destination, clock.monotonic() - started));
      // ora's success symbol is coloured from process-wide state; NO_COLOR in our env wins.
      if (spinner && noColor) spinner.stopAndPersist({ symbol: '✔', text: summary });
      else if (spinner) spinner.succeed(summary);
      else if (!quiet) stderr.write(`collections: ${summary}\n`);
    },
    stop() {
      countdown.stop();
      spinner?.stop();
    },
  };
}
