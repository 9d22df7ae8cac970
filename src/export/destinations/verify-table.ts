/**
 * `collections verify` on a database destination (docs/databases.md, "The run log"):
 * each source of each table in the run log is re-counted and compared with the row count its last
 * complete run recorded in its final transaction.
 */
import type { DatabaseAddress } from './address.js';
import { RUNS_TABLE } from './schema.js';
import type { TableReader } from './store.js';
import { besideTable, parseTableName, quoteTable, type TableName } from './table-name.js';

/** One source of one table, re-counted. */
export interface TableCheck {
  readonly table: string;
  readonly source: string;
  /** Its rows now. */
  readonly rows: number;
  /** Its rows when its last complete run ended. */
  readonly expected: number;
  readonly runId: string;
}

/** Opens a read-only session of the driver of `address`. */
async function openReader(
  address: Exclude<DatabaseAddress, { kind: 'parquet' }>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<TableReader> {
  if (address.kind === 'postgres') return (await import('./postgres-read.js')).openPostgresReader(address, { env });
  return (await import('./duckdb-read.js')).openDuckDbReader(address);
}

/**
 * Re-counts the sources of `table` (every table of the run log without it) against their last complete run.
 * @returns one check per source; empty when the run log has no complete run of them
 * @throws {CollectionsError} (exit 7) when the database cannot be read
 */
export async function checkTables(
  address: Exclude<DatabaseAddress, { kind: 'parquet' }>,
  table: TableName | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<TableCheck[]> {
  const reader = await openReader(address, env);
  try {
    const runs = besideTable(table ?? { schema: undefined, name: RUNS_TABLE }, RUNS_TABLE);
    if (!(await reader.exists(runs))) return [];
    const last = await reader.rows(
      `SELECT table_name, source, rows_total::TEXT AS total, run_id::TEXT AS id FROM ${runs} r WHERE status = 'complete' AND rows_total IS NOT NULL ` +
        `AND run_id = (SELECT max(run_id) FROM ${runs} q WHERE q.table_name = r.table_name AND q.source = r.source AND q.status = 'complete')` +
        `${table === undefined ? '' : ' AND table_name = $1'} ORDER BY table_name, source`,
      table === undefined ? [] : [table.schema === undefined ? table.name : `${table.schema}.${table.name}`],
    );
    const checks: TableCheck[] = [];
    const counted = new Map<string, Map<string, number>>();
    for (const row of last) {
      const name = row.table_name!;
      let counts = counted.get(name);
      if (counts === undefined) {
        const rows = await reader.rows(`SELECT source, count(*)::TEXT AS n FROM ${quoteTable(parseTableName(name))} GROUP BY source`);
        counts = new Map(rows.map((r) => [r.source!, Number(r.n)]));
        counted.set(name, counts);
      }
      checks.push({ table: name, source: row.source!, rows: counts.get(row.source!) ?? 0, expected: Number(row.total), runId: row.id! });
    }
    return checks;
  } finally {
    await reader.close();
  }
}
