/**
 * `collections verify` of a database (docs/databases.md, "The run log and `verify`"), against a real
 * PostgreSQL server and a real DuckDB file: tables in every schema a run log names, a read-only
 * open of the DuckDB file, a missing file (exit 8, as a missing output), and a data or Parquet file
 * given in place of a manifest (named what to give instead).
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { duckdbDatabase, postgresDatabase, type TestDatabase } from '../helpers/databases.js';
import { PG_PASSWORD, usePostgres } from '../helpers/postgres.js';
import { removeTempDirs, runInProcess, useTempDir, useWorld } from '../helpers/world.js';

const server = usePostgres();
afterAll(removeTempDirs);

const world = useWorld({ sizes: { taxpayers: 2, invoicesPerTaxpayer: 30 } });
const dir = useTempDir();

const exportTo = (out: string, taxpayer: string, ...extra: string[]): string[] => [
  'invoices',
  '--taxpayer',
  taxpayer,
  '--items-per-page',
  '10',
  '--out',
  out,
  '--no-progress',
  ...extra,
];
const run = (args: string[]) => runInProcess(world, dir, args);
const verify = (...args: string[]) => runInProcess(world, dir, ['verify', ...args], { connectVia: 'none' });

describe.each(['postgres', 'duckdb'] as const)('verify %s', (kind) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = kind === 'postgres' ? await postgresDatabase(server) : duckdbDatabase(dir);
  });

  it('finds the tables of every schema a run log is in: --table analytics.invoices, then verify with and without --table', async () => {
    const [first, second] = world.sandbox.taxpayers();
    await db.run('CREATE SCHEMA analytics');
    expect((await run(exportTo(db.out, first!, '--table', 'analytics.invoices'))).code).toBe(0);
    const all = await verify(db.out);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toBe(`ok analytics.invoices /taxpayers/${first}/invoices: 30 rows, as run 1 left them\n`);
    const one = await verify(db.out, '--table', 'analytics.invoices');
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toBe(all.stdout);
    // A table of the current schema beside it, named without a schema: both are found, each by its name.
    expect((await run(exportTo(db.out, second!))).code).toBe(0);
    const both = await verify(db.out);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout.split('\n').filter(Boolean).sort()).toEqual(
      [
        `ok analytics.invoices /taxpayers/${first}/invoices: 30 rows, as run 1 left them`,
        `ok invoices /taxpayers/${second}/invoices: 30 rows, as run 1 left them`,
      ].sort(),
    );
    const current = kind === 'postgres' ? 'public' : 'main';
    for (const table of ['invoices', `${current}.invoices`]) {
      const r = await verify(db.out, '--table', table);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`ok invoices /taxpayers/${second}/invoices: 30 rows, as run 1 left them\n`);
    }
    // A difference in the other schema is found.
    await db.run('DELETE FROM analytics.invoices WHERE id IN (SELECT id FROM analytics.invoices ORDER BY id LIMIT 1)');
    const bad = await verify(db.out);
    expect(bad.code).toBe(8);
    expect(bad.stderr).toContain(`analytics.invoices /taxpayers/${first}/invoices: 29 rows, but the last complete run left 30 (run 1)`);
    expect(bad.stdout).toContain(`ok invoices /taxpayers/${second}/invoices`);
    const none = await verify(db.out, '--table', 'other.invoices');
    expect(none.code).toBe(8);
    expect(none.stderr).toContain('no complete run of other.invoices in its run log');
    expect(all.stdout + all.stderr + bad.stderr).not.toContain(PG_PASSWORD);
  });
});

describe('verify F.duckdb', () => {
  it('opens the file read-only: a file of mode 0444 verifies and is left byte for byte as it was', async () => {
    const db = duckdbDatabase(dir);
    expect((await run(exportTo(db.out, world.taxpayer))).code).toBe(0);
    chmodSync(db.out, 0o444);
    const before = dir.read('mirror.duckdb');
    const r = await verify(db.out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('30 rows');
    expect(dir.read('mirror.duckdb').equals(before)).toBe(true);
    expect(dir.has('mirror.duckdb.wal')).toBe(false);
  });

  it('a missing file is exit 8, as a missing output', async () => {
    const r = await verify('gone.duckdb');
    expect(r.code).toBe(8);
    expect(r.stderr).toContain('collections: gone.duckdb: missing\n');
    expect(r.stderr).toContain('verification failed: 1 mismatch');
    expect(dir.has('gone.duckdb')).toBe(false);
  });
});

describe('verify given something other than a manifest', () => {
  it('a data file whose manifest lies beside it names that manifest (exit 8)', async () => {
    expect((await run(exportTo('inv.ndjson', world.taxpayer))).code).toBe(0);
    const r = await verify('inv.ndjson');
    expect(r.code).toBe(8);
    expect(r.stderr).toContain('collections: inv.ndjson: an output, not its manifest; give inv.ndjson.manifest.json\n');
    expect(r.stderr).toMatch(/verification failed: 1 mismatch in 1 of 1 file; give each export's manifest/);
    expect(r.stderr).not.toContain('run the export again');
    const ok = await verify('inv.ndjson.manifest.json');
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('a Parquet file: it has no manifest, and the line says what verify checks instead (exit 8)', async () => {
    writeFileSync(dir.file('inv.parquet'), 'PAR1');
    const r = await verify('inv.parquet');
    expect(r.code).toBe(8);
    expect(r.stderr).toContain(
      'collections: inv.parquet: a Parquet file has no manifest: verify checks the manifest of a file export (F.manifest.json) or a database\n',
    );
  });

  it('a data file without a manifest beside it asks for manifests; a real mismatch beside a misnamed one keeps the hint to export again', async () => {
    writeFileSync(dir.file('loose.ndjson'), '{"id":1}\n{"id":2}\n');
    const loose = await verify('loose.ndjson');
    expect(loose.code).toBe(8);
    expect(loose.stderr).toContain('loose.ndjson: not a collections manifest (not JSON); an export writes its manifest beside its output F');
    expect(loose.stderr).toContain("give each export's manifest");
    writeFileSync(dir.file('inv.parquet'), 'PAR1');
    const mixed = await verify('inv.parquet', 'gone.manifest.json');
    expect(mixed.code).toBe(8);
    expect(mixed.stderr).toContain('inv.parquet: a Parquet file has no manifest');
    expect(mixed.stderr).toContain('gone.manifest.json: manifest missing');
    expect(mixed.stderr).toContain('verification failed: 2 mismatches in 2 of 2 files; run the export again');
  });
});
