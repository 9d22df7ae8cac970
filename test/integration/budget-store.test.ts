/**
 * The `--budget` store against the suite's real PostgreSQL: two processes' stores (two holders)
 * on one row share one window and never grant past it; a holder's reservations expire; the table
 * is made once when two hosts open it together; `ratelimit --budget` shows the windows and each
 * host's requests in flight, never the key; a database that cannot be reached is said once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBudgetSession } from '../../src/export/destinations/budget-session.js';
import { keyHashOf } from '../../src/rate/pool.js';
import { RESERVATION_TTL_MS, createPostgresStore } from '../../src/rate/store-postgres.js';
import type { SharedQuota } from '../../src/rate/budget.js';
import { collection, exportCollection, type CollectionEvent } from '../../src/index.js';
import { createSandboxFetch } from '../../src/sandbox/fetch.js';
import { PG_PASSWORD, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { CANARY, createWorld, removeTempDirs, runInProcess, tempDir } from '../helpers/world.js';

let pg: TestPostgres | undefined;

beforeAll(async () => {
  pg = await startPostgres();
}, 60_000);
afterAll(async () => {
  await pg?.stop();
  removeTempDirs();
});

const ROUTE = '/taxpayers/{taxpayerId}/invoices';
const ORIGIN = 'http://127.0.0.1:9';

async function hosts(url: string, names: string[], troubles: string[] = []): Promise<SharedQuota[]> {
  const quotas = await Promise.all(
    names.map((holder) =>
      Promise.resolve(
        createPostgresStore({ connect: () => openBudgetSession(url, {}), holder, onTrouble: (m) => troubles.push(m) }).open(
          ORIGIN,
          keyHashOf(CANARY),
        ),
      ),
    ),
  );
  return quotas.map((q) => {
    expect(q).toBeDefined();
    return q!;
  });
}

describe('the PostgreSQL rate budget', () => {
  it('two hosts opening a fresh database together make its table once, and share one window', async () => {
    const db = await pg!.createDatabase();
    const [a, b] = await hosts(pg!.url(db), ['host-a 101', 'host-b 202']);
    const now = Date.now();
    const resetAt = now + 60_000;
    // A window of 3, its first answer seen by host a.
    await a!.observe(ROUTE, { limit: 3, remaining: 2, resetAt });
    const answers = [await a!.reserve(ROUTE, now), await b!.reserve(ROUTE, now), await b!.reserve(ROUTE, now)];
    expect(answers.map((x) => x?.granted)).toEqual([true, true, false]);
    expect(answers[2]).toEqual({ granted: false, resetAt });
    // A request never sent gives its place back, to whichever host asks next.
    a!.cancel(ROUTE, answers[0]!.granted ? answers[0]!.ticket : undefined);
    // Host a's operations go in order: once this answer is in, its cancel is committed.
    await a!.observe(ROUTE, { limit: 3, remaining: 2, resetAt });
    expect((await b!.reserve(ROUTE, now))?.granted).toBe(true);
    const tables = await pg!.query<{ n: string }>(db, "SELECT count(*) AS n FROM pg_tables WHERE tablename = 'collections_rate_budget'");
    expect(Number(tables[0]!.n)).toBe(1);
  });

  it("a host's reservations of a window not learnt yet expire: the others wait for them no longer", async () => {
    const db = await pg!.createDatabase();
    const [a, b] = await hosts(pg!.url(db), ['host-a 1', 'host-b 2']);
    const now = Date.now();
    // Host a reserves the request that learns the window, then dies before its answer.
    expect((await a!.reserve(ROUTE, now))?.granted).toBe(true);
    const waiting = await b!.reserve(ROUTE, now + 10);
    expect(waiting?.granted).toBe(false);
    expect((await b!.reserve(ROUTE, now + RESERVATION_TTL_MS - 1))?.granted).toBe(false);
    expect((await b!.reserve(ROUTE, now + RESERVATION_TTL_MS + 1))?.granted).toBe(true);
  });

  it("settle() resolves once a host's operations are written: a process that exits then holds no one", async () => {
    const db = await pg!.createDatabase();
    const store = createPostgresStore({ connect: () => openBudgetSession(pg!.url(db), {}), holder: 'host-a 1', onTrouble: () => undefined });
    const a = await store.open(ORIGIN, keyHashOf(CANARY));
    // Reserved, then answered: neither awaited, as the governor leaves them.
    void a!.reserve(ROUTE, Date.now());
    void a!.observe(ROUTE, { limit: 10, remaining: 9, resetAt: Date.now() + 60_000 });
    await store.settle?.();
    const rows = await pg!.query<{ holders: unknown; record: { windows: Record<string, unknown> } }>(
      db,
      'SELECT holders, record FROM collections_rate_budget',
    );
    expect(rows[0]!.holders).toEqual({});
    expect(rows[0]!.record.windows[ROUTE]).toMatchObject({ remaining: 9, reserved: 1 });
  });

  it('ratelimit --budget shows each window and the requests each host holds, by host and pid, never the key', async () => {
    const db = await pg!.createDatabase();
    const url = pg!.url(db);
    const world = createWorld({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 3 } });
    const [a, b] = await hosts(url, ['node-1 4242', 'node-2 777']);
    const now = Date.now();
    await a!.observe(ROUTE, { limit: 10, remaining: 7, resetAt: now + 30_000 });
    await a!.reserve(ROUTE, now);
    await a!.reserve(ROUTE, now);
    await b!.reserve(ROUTE, now);
    const dir = tempDir();
    const r = await runInProcess(world, dir, ['ratelimit', '--budget', url, '--json'], { connectVia: 'env' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests).toEqual([]);
    const rows = JSON.parse(r.stdout) as Array<{ endpoint: string; limit: number; remaining: number; reserved: number; holders: unknown[] }>;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ endpoint: ROUTE, limit: 10, remaining: 7, reserved: 6 });
    expect(rows[0]!.holders).toEqual(
      expect.arrayContaining([
        { host: 'node-1', pid: 4242, requests: 2 },
        { host: 'node-2', pid: 777, requests: 1 },
      ]),
    );
    const table = await runInProcess(world, dir, ['ratelimit', '--budget', url], { connectVia: 'env' });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/node-1 \(pid 4242\): 2/);
    const dump = JSON.stringify(await pg!.query(db, 'SELECT * FROM collections_rate_budget'));
    for (const text of [r.stdout, r.stderr, table.stdout, table.stderr, dump]) {
      expect(text).not.toContain(CANARY);
      expect(text).not.toContain(keyHashOf(CANARY));
      expect(text).not.toContain(PG_PASSWORD);
    }
  });

  it('a database that cannot be reached: no quota, said once, without the password', async () => {
    const troubles: string[] = [];
    const store = createPostgresStore({
      connect: () => openBudgetSession(`postgres://postgres:${PG_PASSWORD}@127.0.0.1:1/none`, {}),
      holder: 'h 1',
      onTrouble: (m) => troubles.push(m),
    });
    expect(await store.open(ORIGIN, keyHashOf(CANARY))).toBeUndefined();
    expect(await store.open('http://127.0.0.1:10', keyHashOf(CANARY))).toBeUndefined();
    expect(troubles).toHaveLength(1);
    expect(troubles[0]).toMatch(/rate budget database cannot be used .*ECONNREFUSED.*pacing by the server's headers alone/);
    expect(troubles[0]).not.toContain(PG_PASSWORD);
  });
});

describe('the library with a budget', () => {
  const wired = (world: ReturnType<typeof createWorld>) => ({
    baseUrl: world.base,
    apiKey: world.key,
    fetch: createSandboxFetch(world.sandbox, { origin: world.base }),
    clock: world.clock,
  });

  it('collection() and exportCollection() keep their windows in the database, never the key', async () => {
    const db = await pg!.createDatabase();
    const world = createWorld({ limit: 4, windowSeconds: 10, sizes: { taxpayers: 1, invoicesPerTaxpayer: 12 } });
    const path = `/taxpayers/${world.taxpayer}/invoices`;
    const events: CollectionEvent[] = [];
    const items: unknown[] = [];
    for await (const item of collection(path, { ...wired(world), budget: pg!.url(db), itemsPerPage: 3, onEvent: (e) => events.push(e) }))
      items.push(item);
    expect(items).toHaveLength(12);
    expect(events.some((e) => e.type === 'budget')).toBe(false);
    const dir = tempDir();
    const summary = await exportCollection({ ...wired(world), budget: pg!.url(db), path, out: dir.file('invoices.ndjson'), itemsPerPage: 6 });
    expect(summary.items).toBe(12);
    const rows = await pg!.query<{ record: { windows: Record<string, { limit?: number }> } }>(db, 'SELECT record FROM collections_rate_budget');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.record.windows['/taxpayers/{taxpayerId}/invoices']?.limit).toBe(4);
    expect(JSON.stringify(rows)).not.toContain(CANARY);
  });

  it('an unreachable budget database: every item still comes, and the call is told once by a budget event', async () => {
    const world = createWorld({ limit: 4, windowSeconds: 10, sizes: { taxpayers: 1, invoicesPerTaxpayer: 12 } });
    const events: CollectionEvent[] = [];
    const items: unknown[] = [];
    const budget = `postgres://postgres:${PG_PASSWORD}@127.0.0.1:1/none`;
    const path = `/taxpayers/${world.taxpayer}/invoices`;
    for await (const item of collection(path, { ...wired(world), budget, itemsPerPage: 3, onEvent: (e) => events.push(e) })) items.push(item);
    expect(items).toHaveLength(12);
    const told = events.filter((e) => e.type === 'budget');
    expect(told).toHaveLength(1);
    expect(JSON.stringify(told)).not.toContain(PG_PASSWORD);
    expect(() => collection(path, { ...wired(world), budget: 'mysql://x@h/db' })).toThrow(/budget must be a postgres:\/\/ URL/);
  });
});
