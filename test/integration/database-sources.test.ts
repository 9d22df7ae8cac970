/**
 * Several sources, one table (docs/databases.md, "Several sources, one table"), against the
 * suite's real PostgreSQL and a real DuckDB file: another path to the same records, another
 * taxpayer, a filtered `--param` run and `--max-items` write one table keyed by the item alone.
 * An unchanged rerun of any source rewrites no row (PostgreSQL: every `xmin` as it was), `verify`
 * passes for each source, `--prune` deletes a row only when no source holds it any more, and a
 * table written before memberships were kept is adopted once.
 */
import fc from 'fast-check';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SAMPLE_ENTITY_IDS } from '../../src/sandbox/records/entities.js';
import { duckdbDatabase, postgresDatabase, type TestDatabase } from '../helpers/databases.js';
import { PG_PASSWORD, usePostgres } from '../helpers/postgres.js';
import { removeTempDirs, runInProcess, useTempDir, useWorld } from '../helpers/world.js';

const server = usePostgres();
afterAll(removeTempDirs);

const ENTITY = SAMPLE_ENTITY_IDS[0];

const world = useWorld({ sizes: { taxpayers: 2, invoicesPerTaxpayer: 30 } });
const dir = useTempDir();

/** The sources of the cases, each a command line without `--out`. */
const SOURCES = {
  taxpayer: () => ['invoices', '--taxpayer', world.taxpayer],
  entity: () => ['get', `/entities/${ENTITY}/invoices`],
  other: () => ['invoices', '--taxpayer', world.sandbox.taxpayers()[1]!],
  filtered: () => ['invoices', '--taxpayer', world.taxpayer, '--param', 'status=VIGENTE', '--max-items', '12'],
  first: () => ['invoices', '--taxpayer', world.taxpayer, '--max-items', '7'],
} as const;
type SourceName = keyof typeof SOURCES;

const exportTo = async (db: TestDatabase, source: SourceName, ...extra: string[]) => {
  const r = await runInProcess(world, dir, [...SOURCES[source](), '--items-per-page', '10', '--out', db.out, '--no-progress', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout + r.stderr).not.toContain(PG_PASSWORD);
  return r;
};

const verify = async (db: TestDatabase) => {
  const r = await runInProcess(world, dir, ['verify', db.out, '--table', 'invoices'], { connectVia: 'none' });
  return { code: r.code, out: r.stdout + r.stderr };
};

/** Each row's `xmin` (PostgreSQL) or item text (DuckDB, which has no row versions): what a rewrite changes. */
async function versions(db: TestDatabase): Promise<Map<string | null, string | null>> {
  const sql = db.kind === 'postgres' ? 'SELECT id, xmin::text AS v FROM invoices' : `SELECT id, ${db.itemText} AS v FROM invoices`;
  return new Map((await db.rows(sql)).map((r) => [r.id!, r.v!]));
}

/** Reruns `source` unchanged: no row inserted or rewritten, every row version as it was. */
async function rerunWritesNothing(db: TestDatabase, source: SourceName): Promise<void> {
  const before = await versions(db);
  const again = await exportTo(db, source);
  expect(again.stderr).toContain('(0 rows inserted, 0 updated)');
  expect(await versions(db)).toEqual(before);
}

describe.each(['postgres', 'duckdb'] as const)('several sources into one %s table', (kind) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir);
  });

  it('another path to the same records: one row per invoice, the taxpayer kept, reruns of either write nothing, verify passes for both', async () => {
    await exportTo(db, 'taxpayer');
    const second = await exportTo(db, 'entity');
    expect(second.stderr).toContain('(0 rows inserted, 0 updated)');
    const rows = await db.rows('SELECT taxpayer, source, count(*) AS n FROM invoices GROUP BY taxpayer, source');
    expect(rows).toEqual([{ taxpayer: world.taxpayer, source: `/taxpayers/${world.taxpayer}/invoices`, n: '30' }]);
    await rerunWritesNothing(db, 'taxpayer');
    await rerunWritesNothing(db, 'entity');
    const checked = await verify(db);
    expect(checked.code, checked.out).toBe(0);
    expect(checked.out).toContain(`ok invoices /entities/${ENTITY}/invoices: 30 rows`);
    expect(checked.out).toContain(`ok invoices /taxpayers/${world.taxpayer}/invoices: 30 rows`);
  });

  it('a path without a taxpayer first: the taxpayer run fills the taxpayer once, then neither rewrites', async () => {
    await exportTo(db, 'entity');
    expect(await db.rows('SELECT count(*) AS n FROM invoices WHERE taxpayer IS NULL')).toEqual([{ n: '30' }]);
    const filled = await exportTo(db, 'taxpayer');
    expect(filled.stderr).toContain('(0 rows inserted, 30 updated)');
    expect(await db.rows('SELECT count(*) AS n FROM invoices WHERE taxpayer IS NULL')).toEqual([{ n: '0' }]);
    await rerunWritesNothing(db, 'entity');
    await rerunWritesNothing(db, 'taxpayer');
    expect((await verify(db)).code).toBe(0);
  });

  it('another taxpayer, a filtered --param run and --max-items into the same table: reruns write nothing, verify passes for each', async () => {
    await exportTo(db, 'taxpayer');
    await exportTo(db, 'other');
    const filtered = await exportTo(db, 'filtered');
    expect(filtered.stderr).toContain('(0 rows inserted, 0 updated)');
    await exportTo(db, 'first');
    for (const source of ['taxpayer', 'other', 'filtered', 'first'] as const) await rerunWritesNothing(db, source);
    const checked = await verify(db);
    expect(checked.code, checked.out).toBe(0);
    // `--max-items` keeps its source (the path and its filters): three sources.
    expect(checked.out.match(/^ok /gm)).toHaveLength(3);
    expect(checked.out).toContain(`ok invoices /taxpayers/${world.taxpayer}/invoices?status=VIGENTE: 12 rows`);
    expect(await db.rows('SELECT count(*) AS n FROM invoices')).toEqual([{ n: '60' }]);
  });

  it('--prune removes the source’s memberships it did not see and deletes a row only when no source holds it', async () => {
    await exportTo(db, 'taxpayer');
    await exportTo(db, 'entity');
    const path = `/taxpayers/${world.taxpayer}/invoices`;
    const gone = (world.sandbox.items(path) as Array<{ id: string }>)[4]!.id;
    expect(world.sandbox.remove(path, gone)).toBe(true);
    const first = await exportTo(db, 'taxpayer', '--prune');
    expect(first.stderr).toContain('(0 rows inserted, 0 updated, 0 deleted)');
    expect(await db.rows('SELECT count(*) AS n FROM invoices WHERE id = $1', [gone])).toEqual([{ n: '1' }]);
    const checked = await verify(db);
    expect(checked.code, checked.out).toBe(0);
    expect(checked.out).toContain(`ok invoices ${path}: 29 rows`);
    const second = await exportTo(db, 'entity', '--prune');
    expect(second.stderr).toContain('(0 rows inserted, 0 updated, 1 deleted)');
    expect(await db.rows('SELECT count(*) AS n FROM invoices WHERE id = $1', [gone])).toEqual([{ n: '0' }]);
    expect((await verify(db)).code).toBe(0);
  });

  it('a table and run log of an earlier release are adopted (memberships from the source column, once); verify passes, reruns write nothing', async () => {
    await exportTo(db, 'taxpayer');
    await exportTo(db, 'other');
    // The tables and the run log as the release before memberships and rejects left them.
    await db.run('DROP TABLE collections_members');
    await db.run('DROP TABLE collections_rejects');
    await db.run('ALTER TABLE collections_runs DROP COLUMN rows_rejected');
    const checked = await verify(db);
    expect(checked.code, checked.out).toBe(0);
    await rerunWritesNothing(db, 'taxpayer');
    expect(await db.rows('SELECT source, count(*) AS n FROM collections_members GROUP BY source ORDER BY source')).toEqual(
      [world.taxpayer, world.sandbox.taxpayers()[1]!].sort().map((t) => ({ source: `/taxpayers/${t}/invoices`, n: '30' })),
    );
    await exportTo(db, 'entity');
    await rerunWritesNothing(db, 'other');
    expect((await verify(db)).code).toBe(0);
  });
});

describe('several sources in any order (property)', () => {
  it('two paths and a filtered run into one table in any order: verify of each passes, an unchanged rerun of each rewrites no row', async () => {
    const order = fc.array(fc.constantFrom<SourceName>('taxpayer', 'entity', 'filtered'), { minLength: 2, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(order, fc.constantFrom('postgres', 'duckdb'), async (sources, kind) => {
        world.recreate({ sizes: { taxpayers: 2, invoicesPerTaxpayer: 30 } });
        dir.recreate();
        const db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir);
        for (const source of sources) await exportTo(db, source);
        const checked = await verify(db);
        expect(checked.code, checked.out).toBe(0);
        expect(checked.out.match(/^ok /gm)).toHaveLength(new Set(sources).size);
        for (const source of new Set(sources)) await rerunWritesNothing(db, source);
      }),
      { numRuns: 8 },
    );
  }, 60_000);
});
