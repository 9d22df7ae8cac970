/**
 * Reading a DuckDB destination without writing it: the watermarks an incremental export starts
 * from, and the run log and counts of `verify`.
 */
import { existsSync } from 'node:fs';
import { OutputError } from '../../errors.js';
import type { DuckDbAddress } from './address.js';
import { databaseError } from './database.js';
import { connect, existing, instanceOf, leave, rows } from './duckdb-instance.js';
import { RUNS_TABLE, tableNames } from './schema.js';
import type { StoreTarget, TableReader } from './store.js';
import { tableText } from './table-name.js';

/**
 * The watermark of each source of `target`'s table: the newest complete run's that stored one.
 * @returns empty when the file or its run log does not exist yet (a first run exports in full)
 * @throws {CollectionsError} (exit 7) when another process holds the file
 */
export async function readDuckDbWatermarks(target: Pick<StoreTarget, 'address' | 'table'>): Promise<Map<string, string>> {
  if (target.address.kind !== 'duckdb') throw new Error('not a DuckDB address');
  const { path, shown } = target.address;
  if (!existsSync(path)) return new Map();
  const shared = await instanceOf(path, shown);
  try {
    const connection = await connect(shared);
    try {
      if ((await existing(connection, target.table, RUNS_TABLE)) === undefined) return new Map();
      const found = await rows(
        connection,
        `SELECT source, watermark FROM ${tableNames(target.table).runs} WHERE table_name = $1 AND status = 'complete' AND watermark IS NOT NULL ` +
          'QUALIFY row_number() OVER (PARTITION BY source ORDER BY run_id DESC) = 1',
        [tableText(target.table)],
      );
      return new Map(found.map((r) => [r.source!, r.watermark!]));
    } finally {
      connection.closeSync();
    }
  } catch (err) {
    throw databaseError(`DuckDB could not read the run log (${tableText(target.table)} in ${shown})`, err);
  } finally {
    await leave(path, shared);
  }
}

/** A read-only session (`verify`): rows of a query, every value as text. */
export async function openDuckDbReader(address: DuckDbAddress): Promise<TableReader> {
  const { path, shown } = address;
  if (!existsSync(path)) throw new OutputError(`the DuckDB file ${shown} does not exist`);
  const shared = await instanceOf(path, shown);
  const connection = await connect(shared);
  return {
    rows: (sql, params = []) => rows(connection, sql, params),
    exists: async (name) => {
      try {
        await connection.run(`SELECT 1 FROM ${name} LIMIT 0`);
        return true;
      } catch {
        return false;
      }
    },
    close: async () => {
      connection.closeSync();
      await leave(path, shared);
    },
  };
}
