/**
 * The spinner's status line as a terminal receives it (ora writing on a fake terminal): it is
 * redrawn by ora's own interval from the injected clock, so the elapsed time moves with no page
 * arriving; and no redraw is ever wider than the terminal (property-style, widths 20..200).
 */
import fc from 'fast-check';
import ora from 'ora';
import stringWidth from 'string-width';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RateLimitSnapshot } from '../../../src/rate/index.js';
import { createProgress } from '../../../src/io/progress.js';
import { createVirtualClock, type VirtualClock } from '../../helpers/virtual-clock.js';
import { CaptureStream, FakeTerminal } from '../../helpers/world.js';

// eslint-disable-next-line no-control-regex -- ANSI sequences start with ESC, the character stripped
const strip = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/** Every line ora drew: the texts between its returns to the first column, without escape codes. */
function frames(stderr: CaptureStream): string[] {
  return stderr
    .text()
    .split('\x1b[1G')
    .map(strip)
    .filter((f) => f !== '');
}

const START = new Date(2024, 3, 16, 18, 0, 0).getTime();

/** A human progress with a spinner (ora, measured by string-width) on `stderr`. */
function spinnerProgress(stderr: FakeTerminal, clock: VirtualClock) {
  return createProgress({
    stderr,
    isTTY: true,
    env: { NO_COLOR: '1' },
    clock,
    quiet: false,
    spinner: true,
    verbose: false,
    createSpinner: ora,
    measureWidth: stringWidth,
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the live status line', () => {
  it('the elapsed time moves between pages: ora repaints from the injected clock with no page arriving', () => {
    // Only ora's repaint interval is faked; the export's time is the virtual clock's.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stderr = new FakeTerminal(120);
    const clock = createVirtualClock(START, { autoAdvance: false });
    const progress = spinnerProgress(stderr, clock);
    progress.onPage(0, 0, 1_000);
    clock.advance(1_000);
    progress.onPage(100, 1, 1_000);
    const before = frames(stderr).at(-1)!;
    expect(before).toContain('100 of 1,000 items (10%) · 1 pages · 100 items/s · 1.0s elapsed · ETA 9s');
    clock.advance(4_000);
    vi.advanceTimersByTime(100);
    const after = frames(stderr).at(-1)!;
    // Same counts, later time: the elapsed time moved, and a stall slows the rate the ETA uses.
    expect(after).toContain('100 of 1,000 items (10%) · 1 pages · 20 items/s · 5.0s elapsed · ETA 45s');
    progress.stop();
  });

  it('no redraw is wider than the terminal: widths 20..200, long counts, ETAs and waits into another day', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 200 }),
        fc.option(fc.integer({ min: 1, max: 2 ** 40 }), { nil: undefined }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 3 * 86_400_000 }),
        fc.boolean(),
        (columns, total, perPage, waitMs, withQuota) => {
          const stderr = new FakeTerminal(columns);
          const clock = createVirtualClock(START, { autoAdvance: false });
          const progress = spinnerProgress(stderr, clock);
          progress.onPage(0, 0, total);
          const rateLimit: RateLimitSnapshot = {
            limit: 10,
            remaining: 0,
            observedAt: clock.now(),
            resetAt: clock.now() + 5_000,
            resetLocalAt: clock.now() + 5_000,
          };
          for (let page = 1; page <= 3; page++) {
            clock.advance(150);
            progress.onPage(page * perPage, page, total, withQuota ? rateLimit : undefined);
          }
          progress.onClientEvent({ type: 'wait', reason: 'rate-limit', ms: waitMs, until: clock.now() + waitMs, limit: 1_000_000, remaining: 0 });
          clock.advance(1_000);
          progress.onClientEvent({ type: 'retry', attempt: 1, delayMs: 1000, reason: 'HTTP 503' });
          progress.stop();
          const drawn = frames(stderr);
          expect(drawn.length).toBeGreaterThan(1);
          for (const f of drawn) expect(stringWidth(f), f).toBeLessThanOrEqual(columns);
          // ora moves the cursor up only to clear a line that wrapped.
          expect(stderr.text()).not.toContain('\x1b[1A');
        },
      ),
      { numRuns: 150 },
    );
  });
});
