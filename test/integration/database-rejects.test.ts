/**
 * An item a database cannot hold as written (docs/databases.md, "An item the database cannot
 * hold"), against the suite's real PostgreSQL and a real DuckDB file, with the sandbox's
 * `oddText` record (a NUL and a lone surrogate in a string): the run completes, the item is kept
 * apart exactly as received with its reason, counted in the summary, the run log and the exit code
 * (8), never with a hint to resume; a rerun rewrites nothing, and `verify` passes.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { duckdbDatabase, postgresDatabase, type TestDatabase } from '../helpers/databases.js';
import { PG_PASSWORD, usePostgres } from '../helpers/postgres.js';
import { removeTempDirs, runInProcess, useTempDir, useWorld } from '../helpers/world.js';

const server = usePostgres();
afterAll(removeTempDirs);

const world = useWorld({ oddText: true, sizes: { taxpayers: 1, invoicesPerTaxpayer: 30 } });
const dir = useTempDir();

const exportTo = (out: string, ...extra: string[]) =>
  runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--items-per-page', '10', '--out', out, '--no-progress', ...extra], {
    env: { COLLECTIONS_CHECKPOINT_MS: '0' },
  });

describe.each(['postgres', 'duckdb'] as const)('--out %s, an item it cannot hold', (kind) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir);
  });

  it('is kept apart as received with its reason, counted in the summary, the run log and exit 8, without a hint to resume', async () => {
    const ndjson = await exportTo('all.ndjson');
    expect(ndjson.code, ndjson.stderr).toBe(0);
    const odd = dir
      .read('all.ndjson')
      .toString()
      .split('\n')
      .find((l) => l.includes('\\u0000'))!;
    expect(odd).toContain('"reference":"odd\\u0000text\\ud800"');
    const r = await exportTo(db.out);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('30 items to invoices');
    expect(r.stderr).toContain('(29 rows inserted, 0 updated, 1 rejected)');
    expect(r.stderr).toContain(
      'collections: 1 item could not be stored as written in invoices; kept as received, with the reason, in collections_rejects',
    );
    expect(r.stderr).not.toContain('--resume');
    expect(r.stdout + r.stderr).not.toContain(PG_PASSWORD);
    const id = /"id":"([^"]+)"/.exec(odd)![1]!;
    const [kept] = await db.rows('SELECT tbl, source, id, item, reason FROM collections_rejects');
    expect(kept).toEqual({
      tbl: 'invoices',
      source: `/taxpayers/${world.taxpayer}/invoices`,
      id,
      item: odd,
      reason:
        kind === 'postgres'
          ? "a NUL (\\u0000) in a string, which PostgreSQL's jsonb cannot hold"
          : "a lone surrogate (\\ud800-\\udfff) in a string, which DuckDB's JSON cannot hold",
    });
    expect(await db.rows('SELECT count(*) AS n FROM invoices WHERE id = $1', [id])).toEqual([{ n: '0' }]);
    expect(await db.rows('SELECT status, rows_inserted, rows_rejected, rows_total FROM collections_runs')).toEqual([
      { status: 'complete', rows_inserted: '29', rows_rejected: '1', rows_total: '29' },
    ]);
    const checked = await runInProcess(world, dir, ['verify', db.out, '--table', 'invoices'], { connectVia: 'none' });
    expect(checked.code, checked.stderr).toBe(0);
  });

  it('a rerun rejects it again and rewrites nothing', async () => {
    expect((await exportTo(db.out)).code).toBe(8);
    const version = kind === 'postgres' ? 'xmin::text' : 'item';
    const before = await db.rows(`SELECT ${version} AS v FROM collections_rejects`);
    const again = await exportTo(db.out);
    expect(again.code).toBe(8);
    expect(again.stderr).toContain('(0 rows inserted, 0 updated, 1 rejected)');
    expect(await db.rows(`SELECT ${version} AS v FROM collections_rejects`)).toEqual(before);
  });

  it('many taxpayers: each keeps its item apart; exit 8, and no taxpayer is called unfinished', async () => {
    world.recreate({ oddText: true, sizes: { taxpayers: 2, invoicesPerTaxpayer: 30 } });
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.sandbox.taxpayers().join(','), '--out', db.out, '--no-progress'], {
      env: { COLLECTIONS_CHECKPOINT_MS: '0' },
    });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).not.toContain('--resume');
    expect(await db.rows('SELECT count(*) AS n FROM collections_rejects')).toEqual([{ n: '2' }]);
  });
});

describe.each(['postgres', 'duckdb'] as const)('--out %s, a failure that comes back on every run', (kind) => {
  let db: TestDatabase;
  beforeEach(async () => {
    world.recreate({ sizes: { taxpayers: 1, invoicesPerTaxpayer: 30 } });
    db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir);
  });
  const HINT = "every run fails the same way until its cause is fixed: the --key, the table's constraints or the database user's privileges";

  it('--key nosuch: exit 7, a hint to fix the cause, never one to resume', async () => {
    const r = await exportTo(db.out, '--key', 'nosuch');
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/could not commit a group of pages \(invoices in .*\): .*(null|NULL)/);
    expect(r.stderr).toContain(HINT);
    expect(r.stderr).not.toMatch(/--resume|checkpoint is kept/);
  });

  it('a CHECK constraint of the user’s: exit 7, a hint to fix the cause, never one to resume', async () => {
    const text = kind === 'postgres' ? 'text' : 'VARCHAR';
    await db.run(
      `CREATE TABLE invoices (id ${text} PRIMARY KEY, item ${kind === 'postgres' ? 'jsonb' : 'JSON'} NOT NULL, taxpayer ${text}, source ${text} NOT NULL, ` +
        'updated_at timestamptz, synced_at timestamptz NOT NULL, CHECK (taxpayer IS NULL))',
    );
    const r = await exportTo(db.out);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(HINT);
    expect(r.stderr).not.toMatch(/--resume|checkpoint is kept/);
  });
});
