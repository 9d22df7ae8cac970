import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockOutput } from '../../../../src/export/files/output-lock.js';
import { CollectionsError } from '../../../../src/errors.js';

let dir: string;
let target: string;
const notes: string[] = [];
const now = () => Date.UTC(2024, 3, 16, 18, 0, 0);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'collections-lock-'));
  target = join(dir, 'x.ndjson');
  notes.length = 0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('lockOutput', () => {
  it('makes F.lock with owner.json (pid, host, since) and removes it on release (twice is fine)', async () => {
    const lock = await lockOutput(target, { now, note: (l) => notes.push(l), pid: 4242 });
    expect(lock.path).toBe(`${target}.lock`);
    expect(JSON.parse(await readFile(join(lock.path, 'owner.json'), 'utf8'))).toEqual({
      pid: 4242,
      host: hostname(),
      since: '2024-04-16T18:00:00.000Z',
    });
    await lock.release();
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a second lock of a live holder fails with E_LOCKED (exit 7) naming it', async () => {
    const lock = await lockOutput(target, { now, note: (l) => notes.push(l), pid: 4242 });
    const error = await lockOutput(target, { now, note: (l) => notes.push(l), isAlive: () => true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CollectionsError);
    expect((error as CollectionsError).code).toBe('E_LOCKED');
    expect((error as CollectionsError).exitCode).toBe(7);
    expect((error as Error).message).toBe(`another export is writing ${target} (pid 4242, since 2024-04-16T18:00:00.000Z)`);
    await lock.release();
  });

  it('takes over the lock of a dead holder of this host, with a note', async () => {
    await lockOutput(target, { now, note: (l) => notes.push(l), pid: 4242 });
    const second = await lockOutput(target, { now, note: (l) => notes.push(l), pid: 4343, isAlive: (pid) => pid !== 4242 });
    expect(notes).toEqual([`collections: took over the stale lock of ${target} (pid 4242, since 2024-04-16T18:00:00.000Z)`]);
    expect(JSON.parse(await readFile(join(second.path, 'owner.json'), 'utf8'))).toMatchObject({ pid: 4343 });
    await second.release();
  });

  it('a folder that does not exist is exit 7 naming the lock', async () => {
    const error = await lockOutput(join(dir, 'missing', 'x.ndjson'), { now, note: () => undefined }).catch((e: unknown) => e);
    expect((error as CollectionsError).exitCode).toBe(7);
    expect((error as Error).message).toMatch(/^cannot create the lock \S+missing\/x\.ndjson\.lock: no such file or folder \(ENOENT\)$/);
  });
});
