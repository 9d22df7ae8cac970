/**
 * The output lock over time, on a fake clock (vitest's fake `setTimeout` and `Date`, which
 * proper-lockfile's refresh timer and mtimes read; the file system is real): the heartbeat keeps
 * `F.lock` fresh for as long as it is held, and a lock found compromised stops every write with
 * exit 7, the checkpoint as it was.
 */
import { mkdir, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CollectionsError } from '../../../../src/errors.js';
import { LOCK_STALE_MS, LOCK_UPDATE_MS, lockOutput } from '../../../../src/export/files/output-lock.js';
import { lockTarget, openSidecar, sidecarPaths } from '../../../../src/export/files/sidecar.js';
import { tempDir, removeTempDirs, type TempDir } from '../../../helpers/world.js';

const T0 = Date.UTC(2030, 0, 1, 0, 0, 0);
let dir: TempDir;
let target: string;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
  dir = tempDir('collections-lock-heartbeat-');
  target = dir.file('x.ndjson');
});
afterEach(() => {
  vi.useRealTimers();
  removeTempDirs();
});

/**
 * Polls on event-loop turns until `ok()` holds (the refresh's stat and utimes are real I/O, which the
 * fake clock does not wait for); fails after 10 s of real time (`performance` is not faked).
 */
async function until(ok: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    if (await ok()) return;
    await tick();
  }
  throw new Error('condition never held');
}

const mtimeOf = async (path: string) => (await stat(path)).mtimeMs;

describe('the heartbeat', () => {
  it('keeps F.lock fresh for a minute of the clock: its mtime follows it, and a second export is still refused', async () => {
    const lock = await lockOutput(target, { now: () => Date.now(), note: () => undefined });
    for (let elapsed = 0; elapsed < 60_000; elapsed += LOCK_UPDATE_MS) {
      await vi.advanceTimersByTimeAsync(LOCK_UPDATE_MS);
      const now = Date.now();
      await until(async () => (await mtimeOf(lock.path)) === now);
    }
    expect(lock.lost).toBeUndefined();
    const second = await lockOutput(target, { now: () => Date.now(), note: () => undefined, isAlive: () => true }).catch((e: unknown) => e);
    expect((second as CollectionsError).code).toBe('E_LOCKED');
    expect((second as Error).message).toBe(`another export is writing ${target} (pid ${process.pid}, since 2030-01-01T00:00:00.000Z)`);
    await lock.release();
    expect(await readdir(dir.path)).toEqual([]);
  });

  it('without it the folder would be stale: a lock whose mtime stood still for the stale time is taken over', async () => {
    // The control: what a second export does to a lock that is not refreshed (here: an old folder).
    await mkdir(`${target}.lock`);
    const old = new Date(T0 - LOCK_STALE_MS - 1000);
    await utimes(`${target}.lock`, old, old);
    const lock = await lockOutput(target, { now: () => Date.now(), note: () => undefined, isAlive: () => true });
    expect(JSON.parse(await readFile(join(lock.path, 'owner.json'), 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });
});

describe('a compromised lock', () => {
  it('stops every write with exit 7: no more bytes, no checkpoint, no rename; its own folder is removed', async () => {
    const lost: CollectionsError[] = [];
    const held = await lockTarget(target, { now: () => Date.now(), note: () => undefined, onLost: (e) => lost.push(e) });
    const out = await openSidecar({
      target,
      ...sidecarPaths(target),
      resume: false,
      expectedLink: { origin: 'https://h', path: '/x' },
      fingerprint: { f: 1 },
      now: () => Date.now(),
      note: () => undefined,
      held,
    });
    await out.write('{"a":1}\n');
    await out.pageWritten({ next: 'https://h/x?page=2', pages: 1, items: 1, totalItems: undefined, formatterState: () => ({ format: 'ndjson' }) });
    await out.settle();
    const checkpoint = await readFile(`${target}.checkpoint.json`, 'utf8');
    // Another process touches the lock folder: its mtime is no longer the one the holder set.
    const other = new Date(T0 + 123_000);
    await utimes(`${target}.lock`, other, other);
    await vi.advanceTimersByTimeAsync(LOCK_UPDATE_MS);
    await until(() => lost.length > 0);

    expect(lost[0]!.exitCode).toBe(7);
    expect(lost[0]!.message).toBe(
      `lost the lock of ${target}: ${target}.lock was changed by another process or not refreshed in time; stopped without writing more`,
    );
    await expect(out.write('{"a":2}\n')).rejects.toBe(lost[0]);
    await expect(
      out.pageWritten({ next: null, pages: 2, items: 2, totalItems: undefined, formatterState: () => ({ format: 'ndjson' }) }),
    ).rejects.toBe(lost[0]);
    await expect(out.finish('')).rejects.toBe(lost[0]);
    expect(await readFile(`${target}.part`, 'utf8')).toBe('{"a":1}\n');
    expect(await readFile(`${target}.checkpoint.json`, 'utf8')).toBe(checkpoint);
    await out.abort(false);
    await held.release();
    expect((await readdir(dir.path)).sort()).toEqual(['x.ndjson.checkpoint.json', 'x.ndjson.part']);
  });

  it('taken over by another export: release leaves the other export’s lock alone', async () => {
    const lost: CollectionsError[] = [];
    const lock = await lockOutput(target, { now: () => Date.now(), note: () => undefined, onLost: (e) => lost.push(e) });
    await rm(lock.path, { recursive: true });
    await mkdir(lock.path);
    const theirs = JSON.stringify({ pid: 999_999, host: hostname(), since: '2030-01-01T00:00:01.000Z' });
    await writeFile(join(lock.path, 'owner.json'), theirs);
    await vi.advanceTimersByTimeAsync(LOCK_UPDATE_MS);
    await until(() => lost.length > 0);
    expect(() => lock.check()).toThrow(lost[0]);
    await lock.release();
    expect(await readFile(join(lock.path, 'owner.json'), 'utf8')).toBe(theirs);
  });
});
