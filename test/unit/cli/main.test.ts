/**
 * bin/'s end: `process.exit(code)` once stdout and stderr are flushed, never while a pipe still
 * holds output, and not before a stream error emitted a tick late has had its say.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { exitWhenFlushed, type FlushableStream } from '../../../src/cli/main.js';

/** A stream holding `pending` bytes until {@link FakeStream.drain}. */
class FakeStream extends EventEmitter implements FlushableStream {
  destroyed = false;
  private readonly waiting: Array<() => void> = [];
  constructor(public writableLength = 0) {
    super();
  }
  write(_chunk: string, done: () => void): boolean {
    this.waiting.push(done);
    return false;
  }
  drain(): void {
    this.writableLength = 0;
    for (const done of this.waiting.splice(0)) done();
  }
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function fakeProcess(stdout: FakeStream, stderr: FakeStream): { exits: number[]; stdout: FakeStream; stderr: FakeStream; exit(code: number): void } {
  const exits: number[] = [];
  return { exits, stdout, stderr, exit: (code) => exits.push(code) };
}

describe('exitWhenFlushed', () => {
  it('exits with the code once the streams hold nothing', async () => {
    const proc = fakeProcess(new FakeStream(), new FakeStream());
    await exitWhenFlushed(3, proc);
    expect(proc.exits).toEqual([3]);
  });

  it('waits for a pipe that still holds output (a slow reader), then exits', async () => {
    const stdout = new FakeStream(65_536);
    const proc = fakeProcess(stdout, new FakeStream());
    const done = exitWhenFlushed(0, proc);
    for (let i = 0; i < 5; i++) await tick();
    expect(proc.exits).toEqual([]);
    stdout.drain();
    await done;
    expect(proc.exits).toEqual([0]);
  });

  it('exits when the held stream breaks or closes instead of draining', async () => {
    const stdout = new FakeStream(10);
    const stderr = new FakeStream(10);
    const proc = fakeProcess(stdout, stderr);
    const done = exitWhenFlushed(0, proc);
    await tick();
    await tick();
    stdout.emit('error', new Error('EPIPE'));
    stderr.emit('close');
    await done;
    expect(proc.exits).toEqual([0]);
  });

  it('lets an error emitted in the next tick end the process first (its code wins)', async () => {
    const stdout = new FakeStream();
    const proc = fakeProcess(stdout, new FakeStream());
    stdout.on('error', () => proc.exit(7));
    process.nextTick(() => stdout.emit('error', new Error('ENOSPC')));
    await exitWhenFlushed(0, proc);
    expect(proc.exits[0]).toBe(7);
  });
});
