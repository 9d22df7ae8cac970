import { describe, expect, it } from 'vitest';
import { PROBE_PRECISION_MS, RateLimitGovernor } from '../../../src/rate/governor.js';
import { ServerClock } from '../../../src/rate/headers.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';

const T = Date.UTC(2024, 3, 16, 18, 0, 0);
const LIMIT = 10;
const WINDOW_MS = 2000;
const RTT_MS = 6;

/**
 * A sequence of requests against a fixed-window server (windows aligned on whole seconds, like the
 * sandbox) whose clock runs `skewMs` ahead of the client's, through one governor, `workers` at a
 * time (4 like offset pages at the default concurrency). Returns, per window, how late its first request reached the server, and
 * how many requests went over the limit.
 */
async function run(pages: number, skewMs: number, withDemand: boolean, workers = 4) {
  const clock = createVirtualClock(T + 300);
  const serverClock = new ServerClock();
  const gov = new RateLimitGovernor({ clock, serverClock });
  const pacing = { onWait: () => undefined, maxWaitMs: Infinity };
  const counts = new Map<number, number>();
  const firstInWindow = new Map<number, number>();
  let over = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < pages) {
      const n = next++;
      const permit = await gov.acquire(pacing, withDemand ? { demand: pages - 1 - n } : {});
      const sentAt = clock.now();
      await clock.sleep(RTT_MS / 2);
      const serverNow = clock.now() + skewMs;
      const start = Math.floor(serverNow / WINDOW_MS) * WINDOW_MS;
      const count = (counts.get(start) ?? 0) + 1;
      counts.set(start, count);
      if (!firstInWindow.has(start)) firstInWindow.set(start, serverNow - start);
      if (count > LIMIT) over++;
      const headers = { limit: LIMIT, remaining: Math.max(0, LIMIT - count), resetAt: start + WINDOW_MS, date: Math.floor(serverNow / 1000) * 1000 };
      await clock.sleep(RTT_MS / 2);
      const receivedAt = clock.now();
      serverClock.observe(headers.date, sentAt, receivedAt);
      permit.release({ status: count > LIMIT ? 429 : 200, headers, receivedAt });
    }
  };
  await Promise.all(Array.from({ length: workers }, () => worker()));
  const lateness = [...firstInWindow.values()];
  return { over, lateness, width: serverClock.offset!.high - serverClock.offset!.low, end: clock.now() };
}

describe('governor: probing the server clock with the last requests of a window', () => {
  it.each([437, -250, 901, 5 * 60_000 + 120])(
    'server clock %d ms ahead: zero 429s, waits end within tens of ms of the reset after a few windows',
    async (skew) => {
      const { over, lateness, width } = await run(100, skew, true);
      expect(over).toBe(0);
      expect(lateness).toHaveLength(10);
      // The first window starts whenever the export does; from the fourth reset on, the wake-up is close.
      for (const late of lateness.slice(4)) expect(late).toBeLessThan(50);
      expect(width).toBeLessThanOrEqual(PROBE_PRECISION_MS + RTT_MS);
    },
  );

  it('a sequential caller without a demand hint is never held, and its wake-ups stay as late as the first burst left them', async () => {
    const { over, lateness } = await run(100, 437, false, 1);
    expect(over).toBe(0);
    expect(Math.min(...lateness.slice(1))).toBeGreaterThan(200);
    const hinted = await run(100, 437, true, 1);
    expect(hinted.over).toBe(0);
    for (const late of hinted.lateness.slice(4)) expect(late).toBeLessThan(50);
  });

  it('holds nothing in the last window: no demand beyond what the window can serve', async () => {
    const hinted = await run(25, 437, true);
    const plain = await run(25, 437, false);
    expect(hinted.over).toBe(0);
    // 25 requests: three windows; probing only makes the waits end earlier, never the run longer.
    expect(hinted.end).toBeLessThanOrEqual(plain.end);
  });
});
