/**
 * The {@link Progress} of `--log-format json`: no spinner and no prose, one JSON line on stderr per
 * event (io/events.ts): `start`, `page`, `wait`, `retry`, `warning` (notes and warnings) and
 * `summary`. `--quiet` keeps only what main() prints (the `error` event); `--verbose` adds nothing
 * (responses are not events).
 */
import type { Clock } from '../time/clock.js';
import type { OutputStream } from '../context.js';
import { createEventWriter } from './events.js';
import type { Progress, ProgressStats, StartInfo } from './progress-text.js';

/** Options of {@link createJsonProgress}. */
export interface JsonProgressOptions {
  stderr: OutputStream;
  clock: Clock;
  /** `--quiet`: no events from here (main() still prints the `error` event). */
  quiet: boolean;
}

/** The `collections: ` prefix of the human notes, left out of a `warning` event's message. */
const PREFIX = 'collections: ';

/** Creates the JSON-lines {@link Progress}. */
export function createJsonProgress(options: JsonProgressOptions): Progress {
  const { clock, quiet } = options;
  const write = createEventWriter(options.stderr, clock);
  const emit: typeof write = (event) => {
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
      if (event.type === 'response') stats.requests++;
      else if (event.type === 'wait') {
        stats.waits++;
        stats.waitMs += event.ms;
        emit({ event: 'wait', reason: event.reason, ms: event.ms, until: new Date(event.until).toISOString() });
      } else {
        stats.retries++;
        emit({ event: 'retry', attempt: event.attempt, delayMs: event.delayMs, reason: event.reason });
      }
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
    done(destination) {
      const { items, pages, requests, waits, waitMs } = stats;
      emit({ event: 'summary', items, pages, requests, waits, waitMs, elapsedMs: Math.round(clock.monotonic() - started), destination, mode });
    },
    stop() {},
  };
}
