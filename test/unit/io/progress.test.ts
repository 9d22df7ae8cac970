import ora from 'ora';
import { describe, expect, it, vi } from 'vitest';
import { createProgress, spinnerEnabled } from '../../../src/io/progress.js';
import stringWidth from 'string-width';
import { formatRequestLine, formatStatus, formatSummary, formatWaitLine, truncate } from '../../../src/io/format.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';
import { CaptureStream, FakeTerminal } from '../../helpers/world.js';

/** A human progress with ora's spinner on a terminal `stderr`, without colours. */
function spinnerProgress(stderr: CaptureStream, clock: ReturnType<typeof createVirtualClock>) {
  return createProgress({ stderr, isTTY: true, env: { NO_COLOR: '1' }, clock, quiet: false, spinner: true, verbose: false, createSpinner: ora });
}

describe('spinnerEnabled', () => {
  it.each([
    [{ isTTY: true, quiet: false, spinner: true, env: { TERM: 'dumb' } }, false],
    [{ isTTY: true, quiet: false, spinner: true, env: { TERM: 'xterm-256color' } }, true],
    [{ isTTY: true, quiet: false, spinner: true, env: {} }, true],
    [{ isTTY: false, quiet: false, spinner: true, env: {} }, false],
    [{ isTTY: true, quiet: true, spinner: true, env: {} }, false],
    [{ isTTY: true, quiet: false, spinner: false, env: {} }, false],
    [{ isTTY: true, quiet: false, spinner: true, env: { CI: 'true' } }, false],
    [{ isTTY: true, quiet: false, spinner: true, env: { CI: '1' } }, false],
    [{ isTTY: true, quiet: false, spinner: true, env: { CI: '' } }, true],
    [{ isTTY: true, quiet: false, spinner: true, env: { CI: 'false' } }, true],
    [{ isTTY: true, quiet: false, spinner: true, env: { CI: '0' } }, true],
  ])('%j → %s', (options, expected) => {
    expect(spinnerEnabled(options)).toBe(expected);
  });
});

describe('createProgress on a terminal', () => {
  it.each([0, 40])('a terminal reporting %i columns: output stays bounded (ora divides by the width)', (columns) => {
    const stderr = new FakeTerminal(columns);
    const clock = createVirtualClock();
    const progress = createProgress({ stderr, isTTY: true, env: {}, clock, quiet: false, spinner: true, verbose: false, createSpinner: ora });
    for (let page = 1; page <= 5; page++) {
      clock.advance(200);
      progress.onPage(page * 10, page, 50);
    }
    progress.done('x.ndjson');
    const text = stderr.text();
    expect(text.length).toBeLessThan(5_000);
    expect(text).toContain('50 items to x.ndjson');
  });

  it('a stream without cursor methods (a capture marked as a terminal) works', () => {
    const stderr = new CaptureStream(true, 80);
    const clock = createVirtualClock();
    const progress = spinnerProgress(stderr, clock);
    progress.onClientEvent({ type: 'wait', reason: 'pacing', ms: 30_000, until: clock.now() + 30_000, limit: 60, remaining: 0 });
    progress.note('collections: a note');
    progress.done('stdout');
    const text = stderr.text();
    expect(text).toContain('rate limit reached (0/60 left), resuming at ');
    expect(text).toContain('collections: a note\n');
    // eslint-disable-next-line no-control-regex -- an SGR colour sequence starts with ESC, the character looked for
    expect(text).not.toMatch(/\x1b\[3\dm/);
    expect(progress.stats.waits).toBe(1);
    expect(progress.stats.waitMs).toBe(30_000);
  });
});

describe('progress lines', () => {
  it('formatRequestLine: method, path, status, whole ms, then quota and request id when known', () => {
    expect(formatRequestLine({ type: 'response', method: 'GET', path: '/entities?page=1', status: 200, ms: 12.6 })).toBe(
      'GET /entities?page=1 200 13ms',
    );
    expect(formatRequestLine({ type: 'response', method: 'GET', path: '/e', status: 429, ms: 3, limit: 60, remaining: 0, requestId: 'r1' })).toBe(
      'GET /e 429 3ms remaining=0/60 X-Request-ID=r1',
    );
  });

  it('formatWaitLine: why, quota, local resume time and the wait', () => {
    const now = new Date(2024, 3, 16, 18, 0, 0).getTime();
    const until = now + 60_000;
    expect(formatWaitLine({ type: 'wait', reason: 'pacing', ms: 60_000, until, limit: 3, remaining: 0 }, now)).toBe(
      'rate limit reached (0/3 left), resuming at 18:01:00 (in 1m)',
    );
    expect(formatWaitLine({ type: 'wait', reason: 'retry-after', ms: 1_500, until }, now)).toBe(
      'server asked to wait, resuming at 18:01:00 (in 1.5s)',
    );
    expect(formatWaitLine({ type: 'wait', reason: 'rate-limit', ms: 90_000, until, limit: 5 }, now)).toBe(
      'rate limited (429) (0/5 left), resuming at 18:01:00 (in 1m 30s)',
    );
  });

  it('formatSummary: counts with plurals, the duration and the waits', () => {
    const stats = { items: 1, pages: 1, requests: 1, retries: 1, waits: 0, waitMs: 0 };
    expect(formatSummary(stats, 'stdout', 850)).toBe('1 item to stdout in 850ms (1 request, 1 retry, no rate-limit waits)');
    expect(formatSummary({ ...stats, items: 12_345, requests: 13, retries: 2, waits: 2, waitMs: 120_000 }, 'x.csv', 125_000)).toBe(
      '12,345 items to x.csv in 2m 5s (13 requests, 2 retries, 2 rate-limit waits (2m))',
    );
  });

  it('formatSummary names the mode the API paged in when it is not the one asked for', () => {
    const stats = { items: 2, pages: 1, requests: 1, retries: 0, waits: 0, waitMs: 0 };
    expect(formatSummary(stats, 'stdout', 850, 'cursor')).toBe(
      '2 items to stdout in 850ms (1 request, 0 retries, no rate-limit waits; the API paged by cursor)',
    );
  });

  it('formatStatus: the total, percentage and ETA only when known, items per second, elapsed time', () => {
    const info = { items: 1_200, pages: 12, total: 5_000, rate: 480, elapsedMs: 2_500, etaMs: 7_200 };
    expect(formatStatus(info, 0)).toBe('1,200 of 5,000 items (24%) · 12 pages · 480 items/s · 2.5s elapsed · ETA 8s');
    expect(formatStatus({ ...info, total: undefined }, 0)).toBe('1,200 items · 12 pages · 480 items/s · 2.5s elapsed');
    expect(formatStatus({ ...info, etaMs: undefined }, 0)).toBe('1,200 of 5,000 items (24%) · 12 pages · 480 items/s · 2.5s elapsed');
    expect(formatStatus({ items: 0, pages: 0, total: 5_000, rate: 0, elapsedMs: 0, etaMs: undefined }, 0)).toBe(
      '0 of 5,000 items (0%) · 0 pages · 0 items/s · 0ms elapsed',
    );
    expect(formatStatus({ items: 0, pages: 0, total: undefined, rate: 0, elapsedMs: 0, etaMs: undefined }, 0)).toBe(
      '0 items · 0 pages · 0 items/s · 0ms elapsed',
    );
  });

  it('formatStatus in a narrow terminal: pages, rate and elapsed time go first, then the long forms, then an ellipsis', () => {
    const now = new Date(2024, 3, 16, 18, 0, 0).getTime();
    const wait = { event: { type: 'wait', reason: 'pacing', ms: 5_000, until: now + 5_000, limit: 10, remaining: 0 } as const, leftMs: 4_200 };
    const info = { items: 75_000, pages: 75, total: 200_000, rate: 2_000, elapsedMs: 12_300, etaMs: 62_000, wait };
    expect(formatStatus(info, now)).toBe(
      '75,000 of 200,000 items (37%) · 75 pages · 2,000 items/s · 12.3s elapsed · ETA 1m 2s · rate limit reached (0/10 left), resuming at 18:00:05 (in 5s)',
    );
    // Each layout at the width it needs exactly; one column less and the next one is shown.
    expect(formatStatus(info, now, 136)).toBe(
      '75,000 of 200,000 items (37%) · 2,000 items/s · 12.3s elapsed · ETA 1m 2s · rate limit reached (0/10 left), resuming at 18:00:05 (in 5s)',
    );
    expect(formatStatus(info, now, 135)).toBe(
      '75,000 of 200,000 items (37%) · 12.3s elapsed · ETA 1m 2s · rate limit reached (0/10 left), resuming at 18:00:05 (in 5s)',
    );
    expect(formatStatus(info, now, 119)).toBe(
      '75,000 of 200,000 items (37%) · ETA 1m 2s · rate limit reached (0/10 left), resuming at 18:00:05 (in 5s)',
    );
    expect(formatStatus(info, now, 103)).toBe('75,000 of 200,000 items (37%) · ETA 1m 2s · rate limit, resuming at 18:00:05 (in 5s)');
    // 80 columns less ora's frame: the resume time stays.
    expect(formatStatus(info, now, 78)).toBe('75,000/200,000 (37%) · ETA 1m 2s · rate limit, resuming at 18:00:05 (in 5s)');
    expect(formatStatus(info, now, 65)).toBe('75,000/200,000 (37%) · ETA 1m 2s · waiting until 18:00:05 (in 5s)');
    expect(formatStatus(info, now, 64)).toBe('75,000/200,000 (37%) · ETA 1m 2s · waiting until 18:00:05 (in 5…');
    expect(formatStatus(info, now, 30)).toBe('75,000/200,000 (37%) · ETA 1m…');
    expect(formatStatus({ ...info, wait: undefined }, now, 60)).toBe('75,000 of 200,000 items (37%) · 12.3s elapsed · ETA 1m 2s');
  });

  it('truncate: whole characters measured by the given width function, an ellipsis at the end', () => {
    expect(truncate('abcdef', 6)).toBe('abcdef');
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abcdef', 1)).toBe('…');
    expect(truncate('abcdef', 0)).toBe('');
    // A wide character (2 columns) that does not fit whole is left out.
    expect(truncate('ab界界', 4, stringWidth)).toBe('ab…');
    expect(truncate('ab界界', 5, stringWidth)).toBe('ab界…');
  });

  it('formatWaitLine with the time left: the live countdown in whole seconds', () => {
    const now = new Date(2024, 3, 16, 18, 0, 0).getTime();
    const event = { type: 'wait', reason: 'pacing', ms: 60_000, until: now + 60_000, limit: 3, remaining: 0 } as const;
    expect(formatWaitLine(event, now, 58_500)).toBe('rate limit reached (0/3 left), resuming at 18:01:00 (in 59s)');
  });
});

describe('the countdown of a rate-limit wait', () => {
  it("ora's own frames show the time left falling with the clock; progress puts no timer on the clock", () => {
    // ora's 80 ms tick, under our hand; the virtual clock, whose sleeps would show a timer of ours.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const stderr = new FakeTerminal(120);
      const clock = createVirtualClock(new Date(2024, 3, 16, 18, 0, 0).getTime(), { autoAdvance: false });
      const progress = spinnerProgress(stderr, clock);
      progress.onClientEvent({ type: 'wait', reason: 'pacing', ms: 3_000, until: clock.now() + 3_000, limit: 3, remaining: 0 });
      const frame = (): void => void vi.advanceTimersByTime(80);
      expect(stderr.text()).toContain('resuming at 18:00:03 (in 3s)');
      expect(stderr.text()).not.toContain('(in 2s)');
      clock.advance(1_000);
      frame();
      expect(stderr.text()).toContain('(in 2s)');
      expect(stderr.text()).not.toContain('(in 1s)');
      clock.advance(1_000);
      frame();
      expect(stderr.text()).toContain('(in 1s)');
      clock.advance(1_000);
      expect(clock.pending()).toBe(0);
      progress.done('x.ndjson');
      expect(stderr.text()).toContain('0 items to x.ndjson');
    } finally {
      vi.useRealTimers();
    }
  });
});
