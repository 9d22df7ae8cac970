import { describe, expect, it } from 'vitest';
import { createInterrupt, SIGNAL_ECHO_MS } from '../../../../src/export/run/interrupt.js';
import { CollectionsError, InterruptedError } from '../../../../src/errors.js';
import type { TerminationSignal } from '../../../../src/context.js';
import { createTestContext } from '../../../helpers/world.js';
import { createVirtualClock } from '../../../helpers/virtual-clock.js';

function setUp() {
  const clock = createVirtualClock(0);
  const t = createTestContext({ clock });
  const second: TerminationSignal[] = [];
  const interrupt = createInterrupt(t.ctx, (signal) => second.push(signal));
  return { t, clock, second, interrupt };
}

describe('createInterrupt', () => {
  it('the first signal aborts with an InterruptedError and is remembered; nothing is thrown before it', () => {
    const { t, interrupt } = setUp();
    expect(() => interrupt.throwIfStopped()).not.toThrow();
    expect(interrupt.signal.aborted).toBe(false);
    t.raise('SIGTERM');
    expect(interrupt.stopped).toBe('SIGTERM');
    expect(interrupt.signal.aborted).toBe(true);
    expect(interrupt.signal.reason).toBeInstanceOf(InterruptedError);
    expect(() => interrupt.throwIfStopped()).toThrow(expect.objectContaining({ signal: 'SIGTERM', exitCode: 143 }));
    expect(t.forcedExits).toEqual([]);
  });

  it('a second press exits at once with the code of the signal that pressed it', () => {
    const { t, clock, second, interrupt } = setUp();
    t.raise('SIGINT');
    clock.advance(SIGNAL_ECHO_MS);
    t.raise('SIGINT');
    expect(second).toEqual(['SIGINT']);
    expect(t.forcedExits).toEqual([130]);
    expect(interrupt.stopped).toBe('SIGINT');
  });

  it('a repeat of the same signal within the echo window is ignored; another signal is not', () => {
    const { t, clock, second } = setUp();
    t.raise('SIGTERM');
    clock.advance(SIGNAL_ECHO_MS - 1);
    t.raise('SIGTERM');
    expect(second).toEqual([]);
    expect(t.forcedExits).toEqual([]);
    t.raise('SIGINT');
    expect(second).toEqual(['SIGINT']);
    expect(t.forcedExits).toEqual([130]);
  });

  it('explain: after a signal an abort becomes an InterruptedError; other errors, and aborts before a signal, pass', () => {
    const { t, interrupt } = setUp();
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    const other = new Error('boom');
    expect(interrupt.explain(abort)).toBe(abort);
    t.raise('SIGINT');
    expect(interrupt.explain(abort)).toEqual(expect.objectContaining({ signal: 'SIGINT', exitCode: 130 }));
    expect(interrupt.explain(Object.assign(new Error('t'), { name: 'TimeoutError' }))).toBeInstanceOf(InterruptedError);
    expect(interrupt.explain(other)).toBe(other);
  });

  it('release unsubscribes, except after a signal: then an echo after the export cannot kill the process', () => {
    const quiet = setUp();
    quiet.interrupt.release();
    quiet.t.raise('SIGINT');
    expect(quiet.interrupt.stopped).toBeUndefined();

    const stopped = setUp();
    stopped.t.raise('SIGINT');
    stopped.interrupt.release();
    stopped.clock.advance(SIGNAL_ECHO_MS + 1);
    stopped.t.raise('SIGINT');
    expect(stopped.second).toEqual(['SIGINT']);
    expect(stopped.t.forcedExits).toEqual([130]);
  });

  it('fail (a lost output lock) aborts the signal with its reason, which explain gives for aborts in flight', () => {
    const { interrupt } = setUp();
    const lost = new CollectionsError('lost the lock of F', 'E_LOCKED');
    interrupt.fail(lost);
    expect(interrupt.signal.reason).toBe(lost);
    expect(interrupt.stopped).toBeUndefined();
    expect(interrupt.explain(lost)).toBe(lost);
    expect(interrupt.explain(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toBe(lost);
    const other = new Error('ENOSPC');
    expect(interrupt.explain(other)).toBe(other);
    interrupt.fail(new CollectionsError('again', 'E_LOCKED'));
    expect(interrupt.signal.reason).toBe(lost);
  });

  it('fail after a signal changes nothing: the export ends as interrupted', () => {
    const { t, interrupt } = setUp();
    t.raise('SIGINT');
    interrupt.fail(new CollectionsError('lost the lock of F', 'E_LOCKED'));
    expect(interrupt.signal.reason).toBeInstanceOf(InterruptedError);
    expect(interrupt.explain(Object.assign(new Error('aborted'), { name: 'AbortError' }))).toBeInstanceOf(InterruptedError);
  });
});
