import { describe, expect, it } from 'vitest';
import { systemClock, MAX_TIMER_MS } from '../../../src/time/clock.js';
import { createVirtualClock } from '../../helpers/virtual-clock.js';

describe('createVirtualClock', () => {
  it('jumps to the earliest sleeper when idle, in order', async () => {
    const clock = createVirtualClock(1_000_000);
    const woke: Array<[string, number]> = [];
    const a = clock.sleep(5000).then(() => woke.push(['a', clock.now()]));
    const b = clock.sleep(1000).then(() => woke.push(['b', clock.now()]));
    await Promise.all([a, b]);
    expect(woke).toEqual([
      ['b', 1_001_000],
      ['a', 1_005_000],
    ]);
    expect(clock.monotonic()).toBe(5000);
  });

  it('takes no real time for a ten-minute wait', async () => {
    const clock = createVirtualClock();
    const t0 = performance.now();
    await clock.sleep(600_000);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(clock.monotonic()).toBe(600_000);
  });

  it('rejects with the abort reason and forgets the sleeper', async () => {
    const clock = createVirtualClock(0, { autoAdvance: false });
    const controller = new AbortController();
    const p = clock.sleep(1000, controller.signal);
    expect(clock.pending()).toBe(1);
    controller.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    expect(clock.pending()).toBe(0);
  });

  it('advance() fires due sleepers only; setNow() skews the wall clock alone', async () => {
    const clock = createVirtualClock(0, { autoAdvance: false });
    let fired = false;
    const p = clock.sleep(100).then(() => (fired = true));
    clock.advance(99);
    await Promise.resolve();
    expect(fired).toBe(false);
    clock.advance(1);
    await p;
    expect(fired).toBe(true);
    clock.setNow(42);
    expect(clock.now()).toBe(42);
    expect(clock.monotonic()).toBe(100);
  });
});

describe('systemClock', () => {
  it('clamps huge delays instead of firing at once', async () => {
    const controller = new AbortController();
    const p = systemClock.sleep(MAX_TIMER_MS * 10, controller.signal);
    let settled = false;
    p.catch(() => undefined).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    controller.abort();
    await expect(p).rejects.toThrow();
  });

  it('rejects with the reason of the signal, aborted before or during the sleep', async () => {
    const reason = new Error('stop');
    const during = new AbortController();
    const p = systemClock.sleep(60_000, during.signal);
    during.abort(reason);
    await expect(p).rejects.toBe(reason);
    await expect(systemClock.sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    const plain = new AbortController();
    const q = systemClock.sleep(60_000, plain.signal);
    plain.abort();
    await expect(q).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('resolves after a short delay', async () => {
    await expect(systemClock.sleep(1)).resolves.toBeUndefined();
  });
});
