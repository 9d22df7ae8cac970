import { describe, expect, it } from 'vitest';
import { serverToLocal, updateClockOffset, type ClockOffset } from '../../../src/rate/headers.js';

const T = Date.UTC(2024, 3, 16, 18, 0, 0); // 2024-04-16T18:00:00Z
const MIN = 60_000;

describe('updateClockOffset', () => {
  it('bounds the offset by [Date − receivedAt, Date + 1000 − sentAt]', () => {
    expect(updateClockOffset(undefined, T, T - 5_100, T - 5_000)).toEqual({ low: 5_000, high: 6_100, samples: 1 });
  });

  it('narrows to tens of ms over responses whose Date ticks at different instants', () => {
    const trueOffset = 5 * MIN + 437; // the server is 5 min 437 ms ahead
    let est: ClockOffset | undefined;
    let local = T;
    for (let i = 0; i < 40; i++) {
      local += 173; // requests every 173 ms, 20 ms round trips
      const sentAt = local;
      const receivedAt = local + 20;
      const serverAtHandling = sentAt + 10 + trueOffset;
      const date = Math.floor(serverAtHandling / 1000) * 1000;
      est = updateClockOffset(est, date, sentAt, receivedAt);
      expect(est.low).toBeLessThanOrEqual(trueOffset);
      expect(est.high).toBeGreaterThanOrEqual(trueOffset);
    }
    // The round trip (20 ms) bounds how narrow it can get.
    expect(est!.high - est!.low).toBeLessThanOrEqual(50);
    expect(est!.samples).toBe(40);
  });

  it('restarts when the intersection becomes empty (the server clock jumped)', () => {
    const a = updateClockOffset(undefined, T, T, T + 10);
    const b = updateClockOffset(a, T + 3_600_000, T + 100, T + 110);
    expect(b).toEqual({ low: 3_600_000 - 110, high: 3_600_000 + 1000 - 100, samples: 1 });
  });

  it('serverToLocal subtracts the lower bound, or trusts the local clock without an estimate', () => {
    expect(serverToLocal(T, { low: 300_000, high: 300_500, samples: 3 })).toBe(T - 300_000);
    expect(serverToLocal(T, undefined)).toBe(T);
  });
});
