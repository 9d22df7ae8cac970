/**
 * Reading a PostgreSQL destination without writing it: the watermarks an incremental export starts
 * from, and the run log and counts of `verify`.
 */
import type { PostgresAddress } from './address.js';
import { databaseError } from './database.js';
import { connect, type PostgresStoreOptions } from './postgres-connect.js';
import { tableNames } from './schema.js';
import type { StoreTarget, TableReader } from './store.js';
import { tableText } from './table-name.js';

/**
 * The watermark of each source of `target`'s table: the newest complete run's that stored one.
 * @returns empty when the run log does not exist yet (a first run exports in full)
 * @throws {CollectionsError} (exit 7) when the server cannot be reached or refuses the login
 */
export async function readPostgresWatermarks(
  target: Pick<StoreTarget, 'address' | 'table'>,
  options: PostgresStoreOptions,
): Promise<Map<string, string>> {
  if (target.address.kind !== 'postgres') throw new Error('not a PostgreSQL address');
  const client = await connect(target.address, options);
  try {
    const names = tableNames(target.table);
    const log = await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [names.runs]);
    if (!log.rows[0]!.found) return new Map();
    const result = await client.query<{ source: string; watermark: string }>(
      `SELECT DISTINCT ON (source) source, watermark FROM ${names.runs} WHERE table_name = $1 AND status = 'complete' AND watermark IS NOT NULL ORDER BY source, run_id DESC`,
      [tableText(target.table)],
    );
    return new Map(result.rows.map((r) => [r.source, r.watermark]));
  } catch (err) {
    throw databaseError(`PostgreSQL could not read the run log (${tableText(target.table)} in ${target.address.shown})`, err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A read-only session (`verify`): rows of a query, every value as text. */
export async function openPostgresReader(address: PostgresAddress, options: PostgresStoreOptions): Promise<TableReader> {
  const client = await connect(address, options);
  return {
    rows: async (sql, params = []) => (await client.query<Record<string, string | null>>(sql, params)).rows,
    exists: async (name) => (await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [name])).rows[0]!.found,
    close: () => client.end().catch(() => undefined),
  };
}
