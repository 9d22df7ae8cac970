/**
 * Reading a DuckDB destination without writing it, through a read-only open of the file
 * (`openReadOnly`): the watermarks an incremental export starts from, what a dry run checks, and
 * the run log and counts of `verify`.
 */
import { existsSync } from 'node:fs';
import { OutputError } from '../../errors.js';
import type { DuckDbAddress } from './address.js';
import { databaseError } from './database.js';
import { existing, openReadOnly, rows } from './duckdb-instance.js';
import { latestRun } from './duckdb-store.js';
import { RUNS_TABLE, SEEN_TABLE, checkShapes, tableNames } from './schema.js';
import type { StoreInspection, StoreTarget, TableReader } from './store.js';
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
  const file = await openReadOnly(path, shown);
  try {
    if ((await existing(file.connection, target.table, RUNS_TABLE)) === undefined) return new Map();
    const found = await rows(
      file.connection,
      `SELECT source, watermark FROM ${tableNames(target.table).runs} WHERE table_name = $1 AND status = 'complete' AND watermark IS NOT NULL ` +
        'QUALIFY row_number() OVER (PARTITION BY source ORDER BY run_id DESC) = 1',
      [tableText(target.table)],
    );
    return new Map(found.map((r) => [r.source!, r.watermark!]));
  } catch (err) {
    throw databaseError(`DuckDB could not read the run log (${tableText(target.table)} in ${shown})`, err);
  } finally {
    file.close();
  }
}

/**
 * What a run would find in the file (`--dry-run`), read-only: a missing file is left missing.
 * @throws what opening the file for the run throws (exit 7: held by another process, not a DuckDB
 *   file) and {@link UsageError} (exit 2) for a table of another shape
 */
export async function inspectDuckDb(target: StoreTarget): Promise<StoreInspection> {
  if (target.address.kind !== 'duckdb') throw new Error('not a DuckDB address');
  const { path, shown } = target.address;
  const fail = (what: string) => (err: unknown) => {
    throw databaseError(`DuckDB ${what} (${tableText(target.table)} in ${shown})`, err);
  };
  // The run's first statement in a schema that is not there fails with DuckDB's words (a new file has only `main`).
  const noSchema = (): never =>
    fail('could not prepare the tables')(new Error(`Catalog Error: Schema with name ${target.table.schema!} does not exist!`));
  if (!existsSync(path)) {
    if (target.table.schema !== undefined && target.table.schema !== 'main') noSchema();
    return { database: false, table: false, latest: undefined };
  }
  const file = await openReadOnly(path, shown);
  try {
    const { connection } = file;
    const read = async () => ({
      mirror: await existing(connection, target.table, target.table.name),
      runs: await existing(connection, target.table, RUNS_TABLE),
      seen: await existing(connection, target.table, SEEN_TABLE),
    });
    const found = await read().catch(fail('could not prepare the tables'));
    checkShapes(target.table, 'duckdb', found);
    const schema = target.table.schema;
    if (
      schema !== undefined &&
      (await rows(connection, 'SELECT 1 FROM duckdb_schemas() WHERE database_name = current_database() AND schema_name = $1', [schema])).length === 0
    )
      noSchema();
    const q = (sql: string, values: Array<string | null> = []) => rows(connection, sql, values);
    const latest =
      found.runs === undefined ? undefined : await latestRun(q, target, tableNames(target.table)).catch(fail('could not read the run log'));
    return { database: true, table: found.mirror !== undefined, latest };
  } finally {
    file.close();
  }
}

/**
 * A read-only session (`verify`): rows of a query, every value as text. A file the user may only
 * read verifies.
 * @throws {OutputError} (exit 7) when the file does not exist (`verify` checks that first)
 */
export async function openDuckDbReader(address: DuckDbAddress): Promise<TableReader> {
  const { path, shown } = address;
  if (!existsSync(path)) throw new OutputError(`the DuckDB file ${shown} does not exist`);
  const file = await openReadOnly(path, shown);
  const { connection } = file;
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
    runLogSchemas: async () =>
      (
        await rows(
          connection,
          'SELECT schema_name AS s FROM duckdb_tables() WHERE database_name = current_database() AND table_name = $1 ' +
            'ORDER BY schema_name = current_schema() DESC, schema_name',
          [RUNS_TABLE],
        )
      ).map((r) => r.s!),
    close: () => {
      file.close();
      return Promise.resolve();
    },
  };
}
