import { describe, expect, it } from 'vitest';
import { RESET_GUARD_MS, observeIn, recordOf, reserveIn } from '../../../src/rate/budget.js';

const SCOPE = '/taxpayers/{taxpayerId}/invoices';
const R1 = 1_000_000;
const R2 = R1 + 2_000;

describe('shared budget records: a window learnt anew', () => {
  it('a late answer of the window just passed leaves the reservations of the new one counted', () => {
    const record = recordOf(undefined);
    // Window 1 learnt, spent.
    expect(reserveIn(record, SCOPE, R1 - 1_500)).toEqual({ granted: true });
    observeIn(record, SCOPE, { limit: 10, remaining: 0, resetAt: R1 }, undefined);
    // Its reset passes: the next reservation learns window 2.
    expect(reserveIn(record, SCOPE, R1 + 5)).toEqual({ granted: true });
    // A request of window 1 answered late: it must not stand as the current window.
    expect(observeIn(record, SCOPE, { limit: 10, remaining: 0, resetAt: R1 }, { resetAt: R1, seen: 9 })).toBe(false);
    expect(record.windows[SCOPE]).toMatchObject({ reserved: 1 });
    expect(record.windows[SCOPE]!.resetAt).toBeUndefined();
    // The learning answer: window 2, with the learning request counted, then 9 more and no 10th.
    observeIn(record, SCOPE, { limit: 10, remaining: 9, resetAt: R2 }, undefined);
    const granted = Array.from({ length: 10 }, () => reserveIn(record, SCOPE, R1 + 50).granted);
    expect(granted.filter(Boolean)).toHaveLength(9);
  });

  it('an answer of a later window than the one passed is the new window', () => {
    const record = recordOf(undefined);
    reserveIn(record, SCOPE, R1 - 1_500);
    observeIn(record, SCOPE, { limit: 10, remaining: 9, resetAt: R1 }, undefined);
    reserveIn(record, SCOPE, R1 + 5);
    observeIn(record, SCOPE, { limit: 10, remaining: 9, resetAt: R2 }, undefined);
    expect(record.windows[SCOPE]).toMatchObject({ resetAt: R2, remaining: 9, reserved: 1 });
    expect(record.windows[SCOPE]!.passed).toBeUndefined();
  });
});

describe('shared budget records: the end of a window', () => {
  it('refuses a request that could reach the server after the reset, until the reset', () => {
    const record = recordOf(undefined);
    reserveIn(record, SCOPE, R1 - 1_900);
    observeIn(record, SCOPE, { limit: 10, remaining: 9, resetAt: R1 }, undefined);
    // Room left, but the latest the server's clock may read is within the guard of the reset.
    expect(reserveIn(record, SCOPE, R1 - 300, R1 - RESET_GUARD_MS + 1)).toEqual({ granted: false, resetAt: R1 });
    expect(reserveIn(record, SCOPE, R1 - 300, R1 - RESET_GUARD_MS - 1).granted).toBe(true);
    // Without the latest reading (the file store), as before.
    expect(reserveIn(record, SCOPE, R1 - 50).granted).toBe(true);
  });

  it('a request reserved in one window and counted in the next is counted in the next one', () => {
    const record = recordOf(undefined);
    reserveIn(record, SCOPE, R1 - 1_900);
    observeIn(record, SCOPE, { limit: 10, remaining: 9, resetAt: R1 }, undefined);
    const late = reserveIn(record, SCOPE, R1 - 10);
    expect(late.granted).toBe(true);
    // The next window learnt by another request (1 counted), then the late one's answer (2 counted).
    reserveIn(record, SCOPE, R1 + 5);
    observeIn(record, SCOPE, { limit: 10, remaining: 9, resetAt: R2 }, undefined);
    observeIn(record, SCOPE, { limit: 10, remaining: 8, resetAt: R2 }, late.granted ? late.ticket : undefined);
    const granted = Array.from({ length: 10 }, () => reserveIn(record, SCOPE, R1 + 50).granted);
    expect(granted.filter(Boolean)).toHaveLength(8);
  });
});

describe('shared budget records: old windows', () => {
  it('a reservation drops the windows whose reset is an hour old, and keeps its own', () => {
    const record = recordOf(undefined);
    reserveIn(record, '/entities', R1 - 1_500);
    observeIn(record, '/entities', { limit: 10, remaining: 9, resetAt: R1 }, undefined);
    reserveIn(record, '/events', R1 + 3_600_000);
    expect(Object.keys(record.windows)).toEqual(['/entities', '/events']);
    reserveIn(record, SCOPE, R1 + 3_600_001);
    expect(Object.keys(record.windows)).toEqual(['/events', SCOPE]);
    // Its own window, an hour past its reset, starts again instead.
    observeIn(record, SCOPE, { limit: 10, remaining: 9, resetAt: R1 }, undefined);
    expect(reserveIn(record, SCOPE, R1 + 7_200_000)).toEqual({ granted: true });
    expect(record.windows[SCOPE]).toMatchObject({ reserved: 1, passed: R1, limit: 10 });
  });
});
