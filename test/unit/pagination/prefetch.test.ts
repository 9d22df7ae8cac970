/**
 * The one-page prefetch of cursor pages (pagination/paginate.ts `prefetch`): item k+1 is asked for while the
 * consumer holds item k; an error of item k+1 comes after item k; `wants` false asks for nothing
 * ahead; stopping aborts the request ahead.
 */
import { describe, expect, it } from 'vitest';
import { prefetch } from '../../../src/pagination/paginate.js';

/** A source of `count` numbers that logs when each is started and can fail at `failAt`. */
function source(count: number, log: string[], failAt?: number) {
  let aborted = false;
  const open = async function* (signal: AbortSignal): AsyncGenerator<number, void, void> {
    for (let n = 1; n <= count; n++) {
      log.push(`fetch ${n}`);
      await new Promise((resolve) => setImmediate(resolve));
      if (signal.aborted) {
        aborted = true;
        throw new DOMException('aborted', 'AbortError');
      }
      if (n === failAt) throw new Error(`page ${n} failed`);
      yield n;
    }
  };
  return { open, aborted: () => aborted };
}

describe('prefetch', () => {
  it('starts item k+1 before the consumer is done with item k, and yields all in order', async () => {
    const log: string[] = [];
    const s = source(3, log);
    const seen: number[] = [];
    for await (const n of prefetch(s.open, () => true)) {
      await new Promise((resolve) => setImmediate(resolve));
      log.push(`write ${n}`);
      seen.push(n);
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(log.indexOf('fetch 2')).toBeLessThan(log.indexOf('write 1'));
    expect(log.indexOf('fetch 3')).toBeLessThan(log.indexOf('write 2'));
  });

  it('an error of item k+1 reaches the consumer after item k', async () => {
    const log: string[] = [];
    const seen: number[] = [];
    const run = async (): Promise<void> => {
      for await (const n of prefetch(source(3, log, 2).open, () => true)) seen.push(n);
    };
    await expect(run()).rejects.toThrow('page 2 failed');
    expect(seen).toEqual([1]);
  });

  it('asks for nothing ahead when `wants` says no (--max-items reached)', async () => {
    const log: string[] = [];
    for await (const n of prefetch(source(3, log).open, (n) => n < 2)) {
      log.push(`write ${n}`);
      if (n === 2) break;
    }
    expect(log).toEqual(['fetch 1', 'fetch 2', 'write 1', 'write 2']);
  });

  it('breaking out aborts the item fetched ahead', async () => {
    const log: string[] = [];
    const s = source(3, log);
    for await (const n of prefetch(s.open, () => true)) {
      if (n === 1) break;
    }
    expect(log).toEqual(['fetch 1', 'fetch 2']);
    expect(s.aborted()).toBe(true);
  });
});
