/**
 * Progress on stderr: an ora spinner when stderr is a terminal (not with `--quiet`, `--no-progress`,
 * in CI or on `TERM=dumb`) showing items, pages, rate, elapsed time, an ETA when the total is known
 * (io/eta.ts) and a rate-limit wait's countdown, on one line fitted to the terminal's width; the
 * line is computed afresh at each of ora's frames from the injected Clock, and a wait repaints it
 * every second of that Clock. Plain lines otherwise; `--verbose` request lines; the summary line.
 * `--log-format json` gets JSON lines instead (io/json-progress.ts). Consumes the client's events.
 * Never prints the API key: nothing here ever sees it. Every line and the spinner's text pass
 * through {@link inertText} first: they quote request paths, `X-Request-ID`, retry reasons from the
 * server and warnings naming field names, which must not reach the terminal as escape sequences.
 */
import { clearLine, cursorTo, moveCursor } from 'node:readline';
import type { Ora, Options as OraOptions } from 'ora';
import type { Clock } from '../time/clock.js';
import type { ClientEvent } from '../http/client.js';
import type { OutputStream } from '../context.js';
import { formatDuration } from './format.js';
import { createEtaEstimator, type EtaEstimator } from './eta.js';
import {
  formatRequestLine,
  formatStatus,
  formatSummary,
  formatWaitLine,
  type MeasureWidth,
  type Progress,
  type ProgressStats,
} from './progress-text.js';
import type { LogFormat } from './events.js';
import { createJsonProgress } from './json-progress.js';

export type { ModeNote, Progress, ProgressStats, StartInfo } from './progress-text.js';
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
  /**
   * Measures the status line in terminal columns (string-width's default export, which
   * {@link loadProgress} imports with ora); without it, one column per code point.
   */
  measureWidth?: MeasureWidth;
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

/** Columns ora puts before the text: one spinner frame (every frame of `dots` and `line` is one column wide) and a space. */
const SPINNER_FRAME_COLUMNS = 2;

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
  if (options.createSpinner || !spinnerEnabled(options)) return createProgress(options);
  const [ora, stringWidth] = await Promise.all([import('ora'), import('string-width')]);
  return createProgress({ ...options, createSpinner: ora.default, measureWidth: options.measureWidth ?? stringWidth.default });
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

/**
 * Makes `spinner.text` a live view of `status()`: ora reads `text` on every frame of its own interval
 * (80 ms), so the elapsed time, the ETA and a wait's countdown move between pages without a timer of
 * ours (a timer on the injected Clock would make a virtual clock race ahead whenever the run waits on
 * real I/O). ora's own writes to `text` (its constructor, `start()`) are ignored.
 */
function liveText(spinner: Ora, status: () => string): void {
  Object.defineProperty(spinner, 'text', { get: status, set: () => undefined, configurable: true, enumerable: true });
}

/** What the status line shows besides the counters: the total, the wait under way, whether anything is known yet. */
interface StatusState {
  readonly stats: ProgressStats;
  total: number | undefined;
  /** The rate-limit wait under way: its event and when it ends on the monotonic clock. */
  wait: { event: Extract<ClientEvent, { type: 'wait' }>; endMono: number } | undefined;
  /** Whether the counts or a wait are known yet: until then the spinner says `starting…`. */
  primed: boolean;
}

/**
 * The status line of `state` now, fitted to the terminal's width less ora's frame and its space
 * (read at each frame: the terminal may be resized).
 * @param started when the export started, monotonic ms
 */
function statusLine(state: StatusState, eta: EtaEstimator, started: number, options: ProgressOptions): string {
  if (!state.primed) return 'starting…';
  const { clock, stderr } = options;
  const mono = clock.monotonic();
  const now = clock.now();
  const { wait, total } = state;
  const waiting = wait && wait.endMono > mono ? { event: wait.event, leftMs: wait.endMono - mono } : undefined;
  const info = { ...state.stats, total, rate: eta.rate(mono), elapsedMs: mono - started, etaMs: eta.etaMs(total, mono, now), wait: waiting };
  const columns = stderr.columns !== undefined && stderr.columns > 0 ? stderr.columns : FALLBACK_COLUMNS;
  return inertText(formatStatus(info, now, columns - SPINNER_FRAME_COLUMNS, options.measureWidth));
}

/** Creates a {@link Progress}; a spinner only with `options.createSpinner`. */
export function createProgress(options: ProgressOptions): Progress {
  const { stderr, clock, quiet, verbose } = options;
  const started = clock.monotonic();
  const stats: ProgressStats = { items: 0, pages: 0, requests: 0, retries: 0, waits: 0, waitMs: 0 };
  const eta = createEtaEstimator(started);
  const state: StatusState = { stats, total: undefined, wait: undefined, primed: false };
  let lastPaint: number | undefined;
  let changedMode: 'cursor' | 'offset' | undefined; // the API's, once it is not the one asked for
  const noColor = options.env.NO_COLOR !== undefined && options.env.NO_COLOR !== '';
  const spinner = startSpinner(options, noColor);
  if (spinner) liveText(spinner, () => statusLine(state, eta, started, options));
  const line = lineWriter(stderr, spinner);

  // Repaints at once (ora's own tick is 80 ms) so a wait or a page is never missed.
  const render = (): void => {
    spinner?.render();
  };
  const countdown = createCountdown(clock, render);

  return {
    stats,
    onClientEvent(event) {
      switch (event.type) {
        case 'response':
          stats.requests++;
          eta.response(event.ms, event.resetAt);
          if (verbose) line(formatRequestLine(event));
          break;
        case 'wait':
          stats.waits++;
          stats.waitMs += event.ms;
          state.wait = { event, endMono: clock.monotonic() + event.ms };
          state.primed = true;
          eta.wait(event, clock.monotonic());
          if (spinner) {
            render();
            countdown.start(state.wait.endMono);
          } else if (!quiet) line(`collections: ${inertText(formatWaitLine(event, clock.now()))}`);
          break;
        case 'retry':
          stats.retries++;
          if ((verbose || !spinner) && !quiet) line(`collections: ${event.reason}; retry ${event.attempt} in ${formatDuration(event.delayMs)}`);
          break;
      }
    },
    onPage(items, pages, totalItems, rateLimit) {
      stats.items = items;
      stats.pages = pages;
      if (totalItems !== undefined) state.total = totalItems;
      const now = clock.monotonic();
      eta.page(items, pages, now, rateLimit);
      state.primed = true;
      // Repaint at once when the counts change (ora's own tick is 80 ms), at most every 100 ms.
      if (spinner && pages > 0 && (lastPaint === undefined || now - lastPaint >= 100)) {
        lastPaint = now;
        spinner.render();
      }
    },
    note(text) {
      if (!quiet) line(text);
    },
    modeChanged(change) {
      changedMode = change.mode;
      if (change.mode === 'cursor') eta.endsOnEmptyPage();
      if (!quiet) line(`collections: ${change.message}`);
    },
    start(info) {
      if (info.mode === 'cursor') eta.endsOnEmptyPage();
    },
    done(destination) {
      countdown.stop();
      const summary = inertText(formatSummary(stats, destination, clock.monotonic() - started, changedMode));
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
