/**
 * The commits of a database destination beside the fetching: groups that end while one commits
 * wait and are committed together, and past 16 MiB waiting the page loop waits only for the commit
 * under way, never for the waiting groups' own commit.
 */
import { describe, expect, it } from 'vitest';
import { openDatabase, type DatabasePlan } from '../../../../src/export/destinations/database.js';
import type { GroupMark, TableStore } from '../../../../src/export/destinations/store.js';
import type { PageMark } from '../../../../src/export/files/destination.js';

const MiB = 1024 * 1024;

/** A store whose commits end when the test says so; `atOnce`: its {@link TableStore.commitsAtOnce}. */
function heldStore(atOnce?: number): { store: TableStore; commits: Array<{ bytes: number; mark: GroupMark; end: () => void }> } {
  const commits: Array<{ bytes: number; mark: GroupMark; end: () => void }> = [];
  const store: TableStore = {
    ...(atOnce === undefined ? {} : { commitsAtOnce: atOnce }),
    prepare: () => Promise.resolve(),
    lock: () => Promise.resolve(),
    latestRun: () => Promise.resolve(undefined),
    startRun: () => Promise.resolve('1'),
    commitGroup: (_run, ndjson, mark) =>
      new Promise((resolve) => {
        const bytes = ndjson.reduce((n, c) => n + c.length, 0);
        commits.push({ bytes, mark, end: () => resolve({ inserted: 0, updated: 0, rejected: 0 }) });
      }),
    finishRun: () => Promise.resolve({ deleted: 0, rows: 0 }),
    endRun: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  return { store, commits };
}

const plan = {
  address: { kind: 'postgres', shown: 'postgres://db/m', password: undefined },
  table: { name: 'invoices' },
  key: undefined,
  source: '/invoices',
  taxpayer: undefined,
  mode: 'full',
  prune: false,
  storeWatermark: false,
} as unknown as DatabasePlan;

const mark = (pages: number): PageMark => ({
  next: `http://api/invoices?page=${pages + 1}`,
  pages,
  items: pages,
  totalItems: undefined,
  formatterState: () => ({}),
});
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A destination on `store`. */
const open = (store: TableStore) =>
  openDatabase(plan, {
    resume: false,
    fingerprint: {},
    expectedLink: { origin: 'http://api', path: '/invoices' },
    note: () => undefined,
    stats: () => ({ items: 0, pages: 0, requests: 0, retries: 0, waits: 0, waitMs: 0 }),
    signal: new AbortController().signal,
    now: () => 0,
    openStore: () => Promise.resolve(store),
  });

describe('the commit chain of a database destination', () => {
  it('lets fetching go on once the commit under way ends, while the waiting groups commit', async () => {
    const { store, commits } = heldStore();
    const out = await open(store);
    // A promise in an object: an async function would wait for the one it returns.
    const group = async (pages: number): Promise<{ written: Promise<void> }> => {
      await out.write(Buffer.alloc(8 * MiB));
      return { written: out.pageWritten(mark(pages)) };
    };
    await (
      await group(1)
    ).written;
    await (
      await group(2)
    ).written;
    let released = false;
    const third = (await group(3)).written.then(() => (released = true));
    await tick();
    expect(released).toBe(false); // 16 MiB wait behind the first commit
    expect(commits.map((c) => c.bytes)).toEqual([8 * MiB]);
    commits[0]!.end();
    await tick();
    // The waiting groups commit as one, with the latest mark; the page loop is free meanwhile.
    expect(commits.map((c) => [c.bytes, c.mark.pages])).toEqual([
      [8 * MiB, 1],
      [16 * MiB, 3],
    ]);
    expect(released).toBe(true);
    commits[1]!.end();
    await out.settle();
    await third;
  });

  it('starts as many commits at once as the store takes, and the groups that end meanwhile wait for the oldest', async () => {
    const { store, commits } = heldStore(2);
    const out = await open(store);
    const group = async (pages: number): Promise<void> => {
      await out.write(Buffer.alloc(MiB));
      await out.pageWritten(mark(pages));
    };
    await group(1);
    await group(2);
    // The second group's commit is under way beside the first's (a PostgreSQL loader and writer).
    expect(commits.map((c) => c.mark.pages)).toEqual([1, 2]);
    await group(3);
    await group(4);
    expect(commits).toHaveLength(2);
    commits[1]!.end();
    await tick();
    expect(commits).toHaveLength(3);
    expect([commits[2]!.bytes, commits[2]!.mark.pages]).toEqual([2 * MiB, 4]);
    commits[0]!.end();
    commits[2]!.end();
    await out.settle();
  });
});
