/**
 * Progress on stderr for people: an ora spinner on a terminal, plain lines otherwise. Every line
 * passes through {@link inertText}: paths, request ids and server reasons may hold escapes.
 */
import { clearLine, cursorTo, moveCursor } from 'node:readline';
import type { Ora, Options as OraOptions } from 'ora';
import type { Clock } from '../time/clock.js';
import type { ClientEvent } from '../http/client.js';
import type { OutputStream } from '../context.js';
import { formatDuration, formatRequestLine, formatStatus, formatSummary, formatWaitLine, type MeasureWidth } from './format.js';
import { createEtaEstimator, type EtaEstimator } from './eta.js';
import { countEvent, createJsonProgress, type LogFormat, type Progress, type ProgressStats } from './events.js';
import { inertText } from './terminal-text.js';

export interface ProgressOptions {
  stderr: OutputStream;
  isTTY: boolean;
  /** For `CI`, `TERM` and `NO_COLOR`. */
  env: Readonly<Record<string, string | undefined>>;
  clock: Clock;
  quiet: boolean;
  spinner: boolean;
  verbose: boolean;
  logFormat?: LogFormat | undefined;
  /** ora's default export; {@link loadProgress} imports ora only when a spinner will be shown. */
  createSpinner?: (options: OraOptions) => Ora;
  /** string-width's default export; without it, one column per code point. */
  measureWidth?: MeasureWidth;
}

/** Not quiet, not `--no-progress`, not CI, and a terminal that can move its cursor (terminfo's `dumb` cannot). */
export function spinnerEnabled(options: Pick<ProgressOptions, 'isTTY' | 'quiet' | 'spinner' | 'env'>): boolean {
  const ci = options.env.CI;
  const inCI = ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
  return options.isTTY && !options.quiet && options.spinner && !inCI && options.env.TERM !== 'dumb';
}

/** What ora calls on its stream, of `tty.WriteStream`. */
interface CursorMethods {
  cursorTo(x: number, y?: number, callback?: () => void): boolean;
  clearLine(dir: -1 | 0 | 1, callback?: () => void): boolean;
  moveCursor(dx: number, dy: number, callback?: () => void): boolean;
}

/** Width assumed when a terminal reports none (a pseudo-terminal without a size reports 0). */
const FALLBACK_COLUMNS = 80;

const columnsOf = (stream: OutputStream): number => (stream.columns !== undefined && stream.columns > 0 ? stream.columns : FALLBACK_COLUMNS);

/** A spinner frame (every frame of `dots` and `line` is one column wide) and a space. */
const SPINNER_FRAME_COLUMNS = 2;

/**
 * A test's capture gets ora's cursor methods from node:readline; a terminal of 0 columns (`script`)
 * gets {@link FALLBACK_COLUMNS}: ora divides by the width, and with 0 clears Infinity lines for ever.
 */
function spinnerStream(stream: OutputStream): NodeJS.WritableStream {
  const hasCursor = typeof (stream as Partial<CursorMethods>).cursorTo === 'function';
  if (hasCursor && (stream.columns ?? 0) > 0) return stream;
  const terminal: Pick<NodeJS.WritableStream, 'write' | 'once' | 'removeListener'> & CursorMethods & { isTTY: boolean; columns: number } = {
    isTTY: true,
    get columns() {
      return columnsOf(stream);
    },
    write: stream.write.bind(stream),
    once: stream.once.bind(stream),
    removeListener: stream.removeListener.bind(stream),
    cursorTo: (x, y, callback) => cursorTo(stream, x, y, callback),
    clearLine: (dir, callback) => clearLine(stream, dir, callback),
    moveCursor: (dx, dy, callback) => moveCursor(stream, dx, dy, callback),
  };
  return terminal as unknown as NodeJS.WritableStream;
}

/** JSON lines with `logFormat: 'json'`, else the human {@link Progress}, importing ora only when a spinner will be shown. */
export async function loadProgress(options: ProgressOptions): Promise<Progress> {
  if (options.logFormat === 'json') return createJsonProgress(options);
  if (options.createSpinner || !spinnerEnabled(options)) return createProgress(options);
  const [ora, stringWidth] = await Promise.all([import('ora'), import('string-width')]);
  return createProgress({ ...options, createSpinner: ora.default, measureWidth: options.measureWidth ?? stringWidth.default });
}

function startSpinner(options: ProgressOptions, noColor: boolean): Ora | undefined {
  if (!spinnerEnabled(options) || !options.createSpinner) return undefined;
  const stream = spinnerStream(options.stderr);
  return options.createSpinner({ stream, isEnabled: true, discardStdin: false, color: noColor ? false : 'cyan', text: 'starting…' }).start();
}

/**
 * ora reads `text` every frame (80 ms): no timer of ours, which on the injected Clock would make a
 * virtual clock race ahead whenever the run waits on real I/O. ora's own writes are ignored.
 */
function liveText(spinner: Ora, status: () => string): void {
  Object.defineProperty(spinner, 'text', { get: status, set: () => undefined, configurable: true, enumerable: true });
}

interface StatusState {
  readonly stats: ProgressStats;
  total: number | undefined;
  wait: { event: Extract<ClientEvent, { type: 'wait' }>; endMono: number } | undefined;
  /** Until the counts or a wait are known, the spinner says `starting…`. */
  primed: boolean;
}

/** Fitted to the terminal's width at each frame: it may be resized. */
function statusLine(state: StatusState, eta: EtaEstimator, started: number, options: ProgressOptions): string {
  if (!state.primed) return 'starting…';
  const { clock, stderr } = options;
  const mono = clock.monotonic();
  const now = clock.now();
  const { wait, total } = state;
  const waiting = wait && wait.endMono > mono ? { event: wait.event, leftMs: wait.endMono - mono } : undefined;
  const info = { ...state.stats, total, rate: eta.rate(mono), elapsedMs: mono - started, etaMs: eta.etaMs(total, mono, now), wait: waiting };
  return inertText(formatStatus(info, now, columnsOf(stderr) - SPINNER_FRAME_COLUMNS, options.measureWidth));
}

/** A spinner only with `options.createSpinner`. */
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
  const line = (raw: string): void => {
    spinner?.clear();
    stderr.write(`${inertText(raw)}\n`);
    spinner?.render();
  };

  return {
    stats,
    onClientEvent(event) {
      countEvent(stats, event);
      switch (event.type) {
        case 'response':
          eta.response(event.ms, event.resetAt);
          if (verbose) line(formatRequestLine(event));
          break;
        case 'wait':
          state.wait = { event, endMono: clock.monotonic() + event.ms };
          state.primed = true;
          eta.wait(event, clock.monotonic());
          // At once: ora's own tick (80 ms) counts the wait down.
          if (spinner) spinner.render();
          else if (!quiet) line(`collections: ${inertText(formatWaitLine(event, clock.now()))}`);
          break;
        case 'retry':
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
      const summary = inertText(formatSummary(stats, destination, clock.monotonic() - started, changedMode));
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
