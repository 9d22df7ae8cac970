import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hintOf } from '../../../../src/commands/error-text.js';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECKPOINT_VERSION, saveCheckpoint, type Checkpoint } from '../../../../src/export/files/checkpoint.js';
import { createDurability, lockTarget, openSidecar, sidecarPaths, type SidecarOptions } from '../../../../src/export/files/sidecar.js';
import type { Destination, PageMark } from '../../../../src/export/files/destination.js';
import { OutputError, UsageError } from '../../../../src/errors.js';

/** A promise with its resolve and reject in hand. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const snapshot = (pages: number): Checkpoint => ({
  version: CHECKPOINT_VERSION,
  fingerprint: {},
  next: `https://h/x?page=${pages + 1}`,
  pages,
  items: pages * 10,
  bytes: pages * 100,
  formatter: { format: 'ndjson' },
  updatedAt: '2024-04-16T18:00:00.000Z',
});

describe('sidecarPaths', () => {
  it('puts the sidecar and the checkpoint next to the target', () => {
    expect(sidecarPaths('/data/x.csv')).toEqual({ sidecar: '/data/x.csv.part', checkpoint: '/data/x.csv.checkpoint.json' });
  });
});

describe('createDurability', () => {
  it('flushes before each checkpoint, and pages written during a flush share the next one (only the latest is saved)', async () => {
    const log: string[] = [];
    const flushes: ReturnType<typeof deferred>[] = [];
    const d = createDurability(
      () => {
        log.push('sync');
        const f = deferred();
        flushes.push(f);
        return f.promise;
      },
      (cp) => {
        log.push(`save ${cp.pages}`);
        return Promise.resolve();
      },
    );
    await d.record(snapshot(1));
    expect(log).toEqual(['sync']);
    await d.record(snapshot(2));
    await d.record(snapshot(3));
    expect(log).toEqual(['sync']);
    flushes[0]!.resolve();
    await tick();
    expect(log).toEqual(['sync', 'save 1', 'sync']);
    flushes[1]!.resolve();
    await d.settle();
    expect(log).toEqual(['sync', 'save 1', 'sync', 'save 3']);
  });

  it('never saves a checkpoint whose flush failed; the failure comes from the next record() and from settle()', async () => {
    const saved: number[] = [];
    const d = createDurability(
      () => Promise.reject(new OutputError('cannot sync x: input/output error (EIO)')),
      (cp) => {
        saved.push(cp.pages);
        return Promise.resolve();
      },
    );
    await d.record(snapshot(1));
    await d.settle().catch(() => undefined);
    await expect(d.record(snapshot(2))).rejects.toThrow(/EIO/);
    await expect(d.settle()).rejects.toThrow(/EIO/);
    expect(saved).toEqual([]);
  });
});

let dir: string;
let options: Omit<SidecarOptions, 'held'>;
const notes: string[] = [];
const mark = (pages: number, next: string | null): PageMark => ({
  next,
  pages,
  items: pages * 2,
  totalItems: undefined,
  formatterState: () => ({ format: 'ndjson' }),
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'collections-sidecar-'));
  const target = join(dir, 'x.ndjson');
  notes.length = 0;
  options = {
    target,
    ...sidecarPaths(target),
    resume: false,
    expectedLink: { origin: 'https://h', path: '/x' },
    fingerprint: { f: 1 },
    now: () => Date.UTC(2024, 3, 16, 18, 0, 0),
    note: (l) => notes.push(l),
  };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** As a run opens it: under the output lock, released after `finish()`, `abort()` or a refusal. */
async function open(o: Omit<SidecarOptions, 'held'>): Promise<Destination> {
  const held = await lockTarget(o.target, { now: o.now, note: o.note });
  const out = await openSidecar({ ...o, held }).catch(async (error: unknown) => {
    await held.release();
    throw error;
  });
  return { ...out, finish: (text) => out.finish(text).finally(() => held.release()), abort: (w) => out.abort(w).finally(() => held.release()) };
}

describe('openSidecar', () => {
  it('writes the sidecar, checkpoints each page with the bytes on disk, then renames it onto --out and removes the checkpoint', async () => {
    const out = await open(options);
    expect(out.resumed).toBeUndefined();
    expect(out.name).toBe(options.target);
    await out.write('{"a":1}\n');
    await out.pageWritten(mark(1, 'https://h/x?page=2'));
    await out.settle();
    const cp = JSON.parse(await readFile(options.checkpoint, 'utf8')) as Checkpoint;
    expect(Object.keys(cp)).toEqual(['version', 'fingerprint', 'next', 'pages', 'items', 'bytes', 'formatter', 'updatedAt']);
    expect(cp).toMatchObject({
      next: 'https://h/x?page=2',
      pages: 1,
      items: 2,
      bytes: 8,
      fingerprint: { f: 1 },
      updatedAt: '2024-04-16T18:00:00.000Z',
    });
    expect((await stat(options.sidecar)).size).toBe(8);
    await out.finish(']');
    expect(await readFile(options.target, 'utf8')).toBe('{"a":1}\n]');
    expect(await readdir(dir)).toEqual(['x.ndjson']);
  });

  it('a fresh export that fails before its first page leaves nothing behind; after a page it keeps both files', async () => {
    const first = await open(options);
    await first.abort(false);
    expect(await readdir(dir)).toEqual([]);
    const second = await open(options);
    await second.write('x\n');
    await second.pageWritten(mark(1, 'https://h/x?page=2'));
    await second.abort(true);
    expect((await readdir(dir)).sort()).toEqual(['x.ndjson.checkpoint.json', 'x.ndjson.part']);
  });

  it('starting afresh refuses a left-over checkpoint (exit 2) and --restart removes it first; --resume without one says so', async () => {
    await saveCheckpoint(options.checkpoint, snapshot(3));
    const refused = await open({ ...options, resume: false }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as UsageError).code).toBe('E_CHECKPOINT');
    expect(hintOf(refused as UsageError)).toBe('use --resume to continue it, or --restart to start over');
    expect((refused as UsageError).hint).toBe('use resume: true to continue it, or restart: true to start over');
    expect(await readdir(dir)).toEqual(['x.ndjson.checkpoint.json']);
    const out = await open({ ...options, resume: false, restart: true });
    expect((await readdir(dir)).sort()).toEqual(['x.ndjson.lock', 'x.ndjson.part']);
    await out.abort(false);
    const resumed = await open({ ...options, resume: true });
    expect(resumed.resumed).toBeUndefined();
    expect(notes).toEqual([`collections: no checkpoint for ${options.target}; starting afresh`]);
    await resumed.abort(false);
  });

  it('--resume continues after the checkpoint (truncating what came after it) and keeps both files on failure', async () => {
    await writeFile(options.sidecar, 'AAAA\nBBBB\njunk');
    await saveCheckpoint(options.checkpoint, { ...snapshot(2), fingerprint: { f: 1 }, items: 1234, bytes: 10 });
    const out = await open({ ...options, resume: true });
    expect(out.resumed?.pages).toBe(2);
    expect(notes).toEqual(['collections: resuming after 1,234 items (2 pages)']);
    expect(await readFile(options.sidecar, 'utf8')).toBe('AAAA\nBBBB\n');
    await out.abort(false);
    expect((await readdir(dir)).sort()).toEqual(['x.ndjson.checkpoint.json', 'x.ndjson.part']);
  });

  it('a refused --resume (other options) leaves the sidecar and the checkpoint exactly as they were', async () => {
    await writeFile(options.sidecar, 'AAAA\n');
    await saveCheckpoint(options.checkpoint, { ...snapshot(1), fingerprint: { f: 2 }, bytes: 5 });
    const before = await readFile(options.checkpoint, 'utf8');
    await expect(open({ ...options, resume: true })).rejects.toBeInstanceOf(UsageError);
    expect(await readFile(options.checkpoint, 'utf8')).toBe(before);
    expect(await readFile(options.sidecar, 'utf8')).toBe('AAAA\n');
  });
});
