/**
 * Dates without a zone (docs/databases.md, "Dates without a zone"): what the real service writes
 * (`2025-04-29 19:41:06`, the sandbox's `--dates naive`) is read as UTC by PostgreSQL, DuckDB and
 * Parquet alike, never NULL and never shifted by the session's time zone (the PostgreSQL database's
 * sessions here default to America/Mexico_City); dates with a zone keep their instant.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { duckdbDatabase, postgresDatabase, type TestDatabase } from '../helpers/databases.js';
import { usePostgres } from '../helpers/postgres.js';
import { createWorld, removeTempDirs, runInProcess, tempDir, type SandboxWorld } from '../helpers/world.js';

const server = usePostgres();
afterAll(removeTempDirs);

const ZONE = 'America/Mexico_City';

/** Epoch seconds of each invoice's `updatedAt` and `issuedAt`, by id, from the sandbox's own records (ISO 8601, UTC). */
function instants(world: SandboxWorld): Map<string, { updated: number; issued: number }> {
  const items = world.sandbox.items(`/taxpayers/${world.taxpayer}/invoices`) as Array<{ id: string; updatedAt: string; issuedAt: string }>;
  return new Map(items.map((i) => [i.id, { updated: Date.parse(i.updatedAt) / 1000, issued: Date.parse(i.issuedAt) / 1000 }]));
}

describe.each([
  ['postgres', 'naive'],
  ['postgres', 'iso'],
  ['duckdb', 'naive'],
  ['duckdb', 'iso'],
] as const)('%s, --dates %s', (kind, dates) => {
  it('updated_at is every item’s updatedAt as UTC, whatever the session’s zone; the guide’s view reads issuedAt the same way', async () => {
    const world = createWorld({ dates, sizes: { taxpayers: 1, invoicesPerTaxpayer: 25 } });
    const dir = tempDir();
    let db: TestDatabase;
    if (kind === 'postgres') {
      db = await postgresDatabase(server);
      // Every later session of the database (the export's, the queries below) starts in Mexico City's zone.
      await server.query('postgres', `ALTER DATABASE ${new URL(db.out).pathname.slice(1)} SET timezone TO '${ZONE}'`);
      expect(await db.rows('SHOW timezone')).toEqual([{ TimeZone: ZONE }]);
    } else db = duckdbDatabase(dir);
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', db.out, '-q']);
    expect(r.code, r.stderr).toBe(0);
    const issued =
      kind === 'postgres'
        ? dates === 'naive'
          ? "(item->>'issuedAt')::timestamp AT TIME ZONE 'UTC'"
          : "(item->>'issuedAt')::timestamptz"
        : "timezone('UTC', (item->>'$.issuedAt')::TIMESTAMP)";
    const raw = kind === 'postgres' ? "item->>'updatedAt'" : "item->>'$.updatedAt'";
    const rows = await db.rows(
      `SELECT id, ${raw} AS raw, extract(epoch FROM updated_at)::text AS updated, extract(epoch FROM ${dates === 'iso' && kind === 'duckdb' ? "(item->>'$.issuedAt')::TIMESTAMPTZ" : issued})::text AS issued FROM invoices`,
    );
    const expected = instants(world);
    expect(rows).toHaveLength(expected.size);
    for (const row of rows) {
      expect(row.raw).toMatch(dates === 'naive' ? /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/ : /Z$/);
      expect([Number(row.updated), Number(row.issued)]).toEqual([expected.get(row.id!)!.updated, expected.get(row.id!)!.issued]);
    }
  });
});

describe('--out F.parquet, --dates naive', () => {
  it('a column of times without a zone is TIMESTAMP WITH TIME ZONE, read as UTC', async () => {
    const world = createWorld({ dates: 'naive', sizes: { taxpayers: 1, invoicesPerTaxpayer: 25 } });
    const dir = tempDir();
    const r = await runInProcess(world, dir, ['invoices', '--taxpayer', world.taxpayer, '--out', 'inv.parquet', '-q']);
    expect(r.code, r.stderr).toBe(0);
    const db = duckdbDatabase(dir, 'read.duckdb');
    const file = `read_parquet('${dir.file('inv.parquet')}')`;
    const types = new Map((await db.rows(`DESCRIBE SELECT * FROM ${file}`)).map((c) => [c.column_name, c.column_type]));
    expect([types.get('updatedAt'), types.get('issuedAt')]).toEqual(['TIMESTAMP WITH TIME ZONE', 'TIMESTAMP WITH TIME ZONE']);
    const rows = await db.rows(`SELECT id, epoch(updatedAt)::VARCHAR AS updated, epoch(issuedAt)::VARCHAR AS issued FROM ${file}`);
    const expected = instants(world);
    expect(rows).toHaveLength(expected.size);
    for (const row of rows)
      expect([Number(row.updated), Number(row.issued)]).toEqual([expected.get(row.id!)!.updated, expected.get(row.id!)!.issued]);
  });
});
