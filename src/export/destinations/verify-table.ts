/**
 * `collections verify` on a database destination (docs/databases.md, "The run log"):
 * each source of each table in the run log is re-counted and compared with the row count its last
 * complete run recorded in its final transaction.
 */
import type { DatabaseAddress } from './address.js';
import { MEMBERS_TABLE, RUNS_TABLE } from './schema.js';
import type { TableReader } from './store.js';
import { besideTable, parseTableName, quoteTable, tableText, type TableName } from './table-name.js';

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

/** The newest complete run of each table and source of one run log. */
interface LoggedRun {
  /** As the run log stores it: `name`, or `schema.name` when `--table` gave one. */
  readonly stored: string;
  /** The table it names: a name without a schema is in the run log's (the run log sits beside its table). */
  readonly table: TableName;
  readonly source: string;
  readonly total: string;
  readonly runId: string;
}

/** The newest complete runs of the run log in `schema`, ordered by table and source. */
async function loggedRuns(reader: TableReader, schema: string): Promise<LoggedRun[]> {
  const runs = besideTable({ schema, name: RUNS_TABLE }, RUNS_TABLE);
  const last = await reader.rows(
    `SELECT table_name, source, rows_total::TEXT AS total, run_id::TEXT AS id FROM ${runs} r WHERE status = 'complete' AND rows_total IS NOT NULL ` +
      `AND run_id = (SELECT max(run_id) FROM ${runs} q WHERE q.table_name = r.table_name AND q.source = r.source AND q.status = 'complete') ` +
      'ORDER BY table_name, source',
  );
  return last.flatMap((row) => {
    const stored = row.table_name!;
    let named: TableName;
    try {
      named = parseTableName(stored);
    } catch {
      return [];
    }
    const table = named.schema === undefined ? { schema, name: named.name } : named;
    return [{ stored, table, source: row.source!, total: row.total!, runId: row.id! }];
  });
}

/** A schema name `quoteTable` takes (a plain identifier); others hold no table of ours. */
function plainSchema(schema: string): boolean {
  try {
    parseTableName(`${schema}.${RUNS_TABLE}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The rows of each source of `table` (`stored`: as the run log spells it): its keys in the
 * membership table whose row is there (a row held by several sources counts for each), else, for a
 * table no release with memberships has written yet (none of its keys has one), by its `source` column.
 */
async function sourceCounts(reader: TableReader, table: TableName, stored: string): Promise<Array<Record<string, string | null>>> {
  const members = besideTable(table, MEMBERS_TABLE);
  const adopted =
    (await reader.exists(members)) && (await reader.rows(`SELECT 1 AS one FROM ${members} WHERE tbl = $1 LIMIT 1`, [stored])).length > 0;
  if (!adopted) return reader.rows(`SELECT source, count(*)::TEXT AS n FROM ${quoteTable(table)} GROUP BY source`);
  return reader.rows(
    `SELECT m.source, count(*)::TEXT AS n FROM ${members} m JOIN ${quoteTable(table)} t ON t.id = m.id WHERE m.tbl = $1 GROUP BY m.source`,
    [stored],
  );
}

/**
 * Re-counts the sources of `table` (every table of every run log without it) against their last
 * complete run. The run log sits in its table's schema, so every schema holding one is read; a
 * `--table` without a schema is in the current one (as the export's own).
 * @returns one check per source; empty when no run log has a complete run of them
 * @throws {CollectionsError} (exit 7) when the database cannot be read
 */
export async function checkTables(
  address: Exclude<DatabaseAddress, { kind: 'parquet' }>,
  table: TableName | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<TableCheck[]> {
  const reader = await openReader(address, env);
  try {
    const current = (await reader.rows('SELECT current_schema() AS s'))[0]?.s ?? undefined;
    const wanted = table === undefined ? undefined : tableText({ schema: table.schema ?? current, name: table.name });
    const checks: TableCheck[] = [];
    const counted = new Map<string, Map<string, number>>();
    for (const schema of (await reader.runLogSchemas()).filter(plainSchema)) {
      for (const run of await loggedRuns(reader, schema)) {
        const qualified = tableText(run.table);
        if (wanted !== undefined && qualified !== wanted) continue;
        let counts = counted.get(qualified);
        if (counts === undefined) {
          const rows = await sourceCounts(reader, run.table, run.stored);
          counts = new Map(rows.map((r) => [r.source!, Number(r.n)]));
          counted.set(qualified, counts);
        }
        // As stored, unless two schemas' run logs could name it alike.
        const shown = schema === current ? run.stored : qualified;
        checks.push({ table: shown, source: run.source, rows: counts.get(run.source) ?? 0, expected: Number(run.total), runId: run.runId });
      }
    }
    return checks;
  } finally {
    await reader.close();
  }
}
