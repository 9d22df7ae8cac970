/**
 * Issue 11, item 1: one writer per output. An export holds `F.lock` for its whole run; a second
 * export or `--resume` to the same `--out` exits 7 at once and touches nothing; a lock left by a
 * dead process is taken over with a note.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { recordHostile } from '../faults/harness.js';
import { lockOutput } from '../../src/export/files/output-lock.js';
import { idsOfNdjson, removeTempDirs, runInProcess, interruptAt, useTempDir, useWorld } from '../helpers/world.js';
import { snapshot } from './snapshot.js';
import { checkpointPages } from '../e2e/spawn.js';

const world = useWorld();
const dir = useTempDir('collections-hostile-lock-');
const YESTERDAY = '{"id":"yesterday"}\n';
const LOCKED = /^collections: another export is writing \S+\/out\.ndjson \(pid \d+, since \d{4}-\d\d-\d\dT[\d:.]+Z\)$/;

beforeEach(() => {
  writeFileSync(dir.file('out.ndjson'), YESTERDAY);
});
afterAll(removeTempDirs);

/** Whether the folder is as `before` (for the report). */
const untouched = (before: Record<string, string>) => (JSON.stringify(snapshot(dir.path)) === JSON.stringify(before) ? 'untouched' : 'changed');
/** Whether yesterday's file is still there as it was (for the report). */
const kept = () => (dir.has('out.ndjson') && dir.read('out.ndjson').toString() === YESTERDAY ? 'kept' : 'changed');

const args = () => ['invoices', '--taxpayer', world.taxpayer, '--cursor', '--items-per-page', '10', '--out', 'out.ndjson'];

describe('one writer per output', () => {
  it('a second export to a locked --out exits 7 at once, names the holder, sends nothing and touches nothing', async () => {
    const held = await lockOutput(dir.file('out.ndjson'), { now: () => Date.UTC(2024, 3, 16, 18, 0, 0), note: () => undefined });
    const before = snapshot(dir.path);
    const r = await runInProcess(world, dir, args());
    recordHostile({ exit: r.code, message: r.lines.join(' / '), files: untouched(before), output: `yesterday’s file ${kept()}` });
    expect(r.code).toBe(7);
    expect(r.lines).toEqual([expect.stringMatching(LOCKED)]);
    expect(r.lines[0]).toContain(`(pid ${process.pid}, since 2024-04-16T18:00:00.000Z)`);
    expect(r.requests).toHaveLength(0);
    expect(snapshot(dir.path)).toEqual(before);
    await held.release();
    expect(dir.has('out.ndjson.lock')).toBe(false);
  });

  it('--resume to a locked --out exits 7 and leaves the checkpoint and the partial file as they were', async () => {
    const first = await runInProcess(world, dir, args(), interruptAt(3));
    expect(first.code).toBe(130);
    expect(dir.has('out.ndjson.lock')).toBe(false);
    const held = await lockOutput(dir.file('out.ndjson'), { now: () => Date.now(), note: () => undefined });
    const before = snapshot(dir.path);
    const r = await runInProcess(world, dir, [...args(), '--resume']);
    recordHostile({ exit: r.code, message: r.lines.join(' / '), files: untouched(before), output: 'partial file and checkpoint kept' });
    expect(r.code).toBe(7);
    expect(r.lines).toEqual([expect.stringMatching(LOCKED)]);
    expect(r.requests).toHaveLength(0);
    expect(snapshot(dir.path)).toEqual(before);
    await held.release();
    const resumed = await runInProcess(world, dir, [...args(), '--resume']);
    expect(resumed.code).toBe(0);
    expect(idsOfNdjson(dir.read('out.ndjson').toString())).toHaveLength(60);
  });

  it('two exports to the same --out at once: one completes, the other exits 7; the file is whole', async () => {
    // The first export is held after its first page until the second has run, so the two overlap
    // however the event loop schedules them (two free-running exports may not overlap at all).
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let sent = 0;
    const first = runInProcess(world, dir, args(), {
      wrapFetch: (inner) => async (input, init) => {
        if (++sent === 2) await gate;
        return inner(input, init);
      },
    });
    while (sent < 2) await new Promise((resolve) => setImmediate(resolve));
    const b = await runInProcess(world, dir, args());
    release();
    const a = await first;
    expect([a.code, b.code]).toEqual([0, 7]);
    const loser = b;
    recordHostile({
      exit: loser.code,
      message: loser.lines.join(' / '),
      output: `${idsOfNdjson(dir.read('out.ndjson').toString()).length} of 60 items`,
    });
    expect(loser.lines).toEqual([expect.stringMatching(LOCKED)]);
    const ids = idsOfNdjson(dir.read('out.ndjson').toString());
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
    expect(dir.has('out.ndjson.lock') || dir.has('out.ndjson.part') || dir.has('out.ndjson.checkpoint.json')).toBe(false);
  });

  it('a stale lock of a dead process of this host is taken over with a one-line note', async () => {
    mkdirSync(dir.file('out.ndjson.lock'));
    writeFileSync(
      dir.file('out.ndjson.lock/owner.json'),
      JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), since: '2024-04-16T17:00:00.000Z' }),
    );
    const r = await runInProcess(world, dir, args());
    recordHostile({ exit: r.code, message: r.lines.join(' / '), output: `${idsOfNdjson(dir.read('out.ndjson').toString()).length} of 60 items` });
    expect(r.code).toBe(0);
    expect(r.lines[0]).toMatch(/^collections: took over the stale lock of \S+\/out\.ndjson \(pid 4206649, since 2024-04-16T17:00:00\.000Z\)$/);
    expect(idsOfNdjson(dir.read('out.ndjson').toString())).toHaveLength(60);
    expect(dir.has('out.ndjson.lock')).toBe(false);
  });

  it('a lock of a live process on another host is not taken over', async () => {
    mkdirSync(dir.file('out.ndjson.lock'));
    writeFileSync(dir.file('out.ndjson.lock/owner.json'), JSON.stringify({ pid: 1, host: 'elsewhere.example', since: '2024-04-16T17:00:00.000Z' }));
    const before = snapshot(dir.path);
    const r = await runInProcess(world, dir, args());
    recordHostile({ exit: r.code, message: r.lines.join(' / '), files: untouched(before), output: `yesterday’s file ${kept()}` });
    expect(r.code).toBe(7);
    expect(r.lines).toEqual([
      'collections: another export is writing ' + dir.file('out.ndjson') + ' (pid 1 on elsewhere.example, since 2024-04-16T17:00:00.000Z)',
    ]);
    expect(r.requests).toHaveLength(0);
    expect(snapshot(dir.path)).toEqual(before);
  });

  it('the lock is released after a failure too', async () => {
    world.sandbox.setFaults([{ kind: 'status', status: 503 }]);
    const r = await runInProcess(world, dir, [...args(), '--retries', '0']);
    recordHostile({
      exit: r.code,
      message: r.lines.join(' / '),
      files: dir.has('out.ndjson.lock') ? 'lock left' : 'lock released',
      output: `yesterday’s file ${kept()}`,
    });
    expect(r.code).toBe(6);
    expect(dir.has('out.ndjson.lock')).toBe(false);
    expect(dir.read('out.ndjson').toString()).toBe(YESTERDAY);
  });

  it('a lock found compromised mid-export stops it at once with exit 7; the checkpoint and partial file stay as they were', async () => {
    // The second request waits until the export gives up on it: the lock folder's mtime is changed
    // behind the holder's back, which its next refresh (within 2 s) finds and aborts the run for.
    let sent = 0;
    let before: Record<string, string> = {};
    const r = await runInProcess(world, dir, [...args(), '--no-progress'], {
      env: { COLLECTIONS_CHECKPOINT_MS: '0' },
      wrapFetch: (inner) => async (input, init) => {
        if (++sent === 2) {
          while (checkpointPages(dir.file('out.ndjson.checkpoint.json')) < 1) await new Promise((resolve) => setTimeout(resolve, 5));
          before = snapshot(dir.path);
          const other = new Date(Date.now() + 60_000);
          utimesSync(dir.file('out.ndjson.lock'), other, other);
          const signal = init?.signal;
          await new Promise((resolve) => signal?.addEventListener('abort', resolve));
          throw signal?.reason;
        }
        return inner(input, init);
      },
    });
    recordHostile({ exit: r.code, message: r.lines.join(' / '), output: `yesterday’s file ${kept()}` });
    expect(r.code).toBe(7);
    expect(r.lines).toEqual([
      `collections: lost the lock of ${dir.file('out.ndjson')}: ${dir.file('out.ndjson.lock')} was changed by another process or not refreshed in time; stopped without writing more`,
    ]);
    expect(sent).toBe(2);
    const after = snapshot(dir.path);
    expect(after['out.ndjson.part']).toBe(before['out.ndjson.part']);
    expect(after['out.ndjson.checkpoint.json']).toBe(before['out.ndjson.checkpoint.json']);
    expect(dir.read('out.ndjson').toString()).toBe(YESTERDAY);
    expect(dir.has('out.ndjson.lock')).toBe(false);
  });
});
