/**
 * Dates without a zone under a local time zone, as separate processes (the built bin with
 * `TZ=America/Mexico_City` and `PGTZ` alike): DuckDB's `updated_at` and a Parquet file's time columns
 * hold the instant the service meant (UTC), not one shifted by the machine's zone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../helpers/cli.js';
import { duckdbDatabase } from '../helpers/databases.js';
import { cliEnv, removeTempDirs, serveWorld, tempDir, type ServedWorld, type TempDir } from '../helpers/world.js';

let world: ServedWorld;
let dir: TempDir;
beforeAll(async () => {
  requireBuild();
  dir = tempDir();
  world = await serveWorld({ dates: 'naive', sizes: { taxpayers: 1, invoicesPerTaxpayer: 25 } });
}, 60_000);
afterAll(async () => {
  await world.close();
  removeTempDirs();
});

const ZONE = { TZ: 'America/Mexico_City', PGTZ: 'America/Mexico_City' };

/** Epoch seconds of each invoice's `updatedAt`, by id, from the sandbox's own records (ISO 8601, UTC). */
const expected = (): Map<string, number> =>
  new Map(
    (world.sandbox.items(`/taxpayers/${world.taxpayer}/invoices`) as Array<{ id: string; updatedAt: string }>).map((i) => [
      i.id,
      Date.parse(i.updatedAt) / 1000,
    ]),
  );

describe('times without a zone, TZ=America/Mexico_City', () => {
  it.each([
    ['x.duckdb', 'SELECT id, epoch(updated_at)::VARCHAR AS t FROM invoices'],
    ['x.parquet', `SELECT id, epoch("updatedAt")::VARCHAR AS t FROM read_parquet('PATH')`],
  ])('%s holds UTC instants', async (out, sql) => {
    const r = await runCli(['invoices', '--taxpayer', world.taxpayer, '--out', out, '--base-url', world.base, '-q'], {
      cwd: dir.path,
      env: cliEnv(dir, ZONE),
    });
    expect(r.code, r.stderr).toBe(0);
    const db = duckdbDatabase(dir, out.endsWith('.duckdb') ? out : 'read.duckdb');
    const rows = await db.rows(sql.replace('PATH', dir.file(out)));
    const want = expected();
    expect(rows).toHaveLength(want.size);
    for (const row of rows) expect(Number(row.t)).toBe(want.get(row.id!));
  });
});
