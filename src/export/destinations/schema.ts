/**
 * The tables a database destination keeps (docs/databases.md, "The tables"), in both dialects: the
 * mirror table (one row per key), the run log `collections_runs` (each run's counts, outcome,
 * checkpoint and watermark), `collections_seen` (the keys a `--prune` run saw, until it
 * completes) and `collections_members` (which sources hold each key of each table: a table is keyed
 * by the item alone, so several sources share its rows). They sit in the mirror table's schema.
 */
import { UsageError, hint, option } from '../../errors.js';
import { besideTable, quoteTable, tableText, type TableName } from './table-name.js';

/** The dialect of a store. */
export type Dialect = 'postgres' | 'duckdb';

/** One column: its name and type in each dialect (as the catalog spells it back), and the rest of its definition. */
interface Column {
  readonly name: string;
  readonly postgres: string;
  readonly duckdb: string;
  readonly rest?: string;
}

const TEXT = { postgres: 'text', duckdb: 'VARCHAR' } as const;
const TIME = { postgres: 'timestamp with time zone', duckdb: 'TIMESTAMP WITH TIME ZONE' } as const;
const COUNT = { postgres: 'bigint', duckdb: 'BIGINT' } as const;

/** The mirror table: what a user filters on without opening the JSON, beside the item itself. */
const MIRROR: readonly Column[] = [
  { name: 'id', ...TEXT, rest: 'PRIMARY KEY' },
  // jsonb keeps every number exactly (numeric), not key order, white space or repeated keys;
  // DuckDB's JSON is the text as received.
  { name: 'item', postgres: 'jsonb', duckdb: 'JSON', rest: 'NOT NULL' },
  { name: 'taxpayer', ...TEXT },
  { name: 'source', ...TEXT, rest: 'NOT NULL' },
  { name: 'updated_at', ...TIME },
  { name: 'synced_at', ...TIME, rest: 'NOT NULL' },
];

/** Counters of the run log that a run log of an earlier release lacks: added to it (`NOT NULL DEFAULT 0`) by the next run. */
const LATER_RUN_COUNTS = ['rows_rejected'];

/** The run log. `run_id` is made by each dialect (an identity column, a sequence). */
const RUNS: readonly Column[] = [
  { name: 'table_name', ...TEXT, rest: 'NOT NULL' },
  { name: 'source', ...TEXT, rest: 'NOT NULL' },
  { name: 'mode', ...TEXT, rest: 'NOT NULL' },
  { name: 'status', ...TEXT, rest: 'NOT NULL' },
  { name: 'started_at', ...TIME, rest: 'NOT NULL' },
  { name: 'ended_at', ...TIME },
  { name: 'server_time', ...TIME },
  ...['items', 'pages', 'requests', 'retries', 'waits', 'wait_ms', 'rows_inserted', 'rows_updated', 'rows_deleted', ...LATER_RUN_COUNTS].map(
    (name) => ({
      name,
      ...COUNT,
      rest: 'NOT NULL DEFAULT 0',
    }),
  ),
  { name: 'rows_total', ...COUNT },
  { name: 'last_request_id', ...TEXT },
  { name: 'next', ...TEXT },
  { name: 'checkpoint', ...TEXT },
  { name: 'watermark', ...TEXT },
];

const SEEN: readonly Column[] = [
  { name: 'run_id', ...COUNT, rest: 'NOT NULL' },
  { name: 'id', ...TEXT, rest: 'NOT NULL' },
];

/**
 * Which sources hold a key of a table (`tbl` as the run log's `table_name`). The key leads with
 * `id` so that `--prune` finds a key's other sources by the index; counting a source reads all of
 * its table's rows anyway.
 */
const MEMBERS: readonly Column[] = [
  { name: 'tbl', ...TEXT, rest: 'NOT NULL' },
  { name: 'id', ...TEXT, rest: 'NOT NULL' },
  { name: 'source', ...TEXT, rest: 'NOT NULL' },
];

/** Items a table could not hold as written (docs/databases.md), kept as received with the reason, by table, source and key. */
const REJECTS: readonly Column[] = [
  { name: 'tbl', ...TEXT, rest: 'NOT NULL' },
  { name: 'source', ...TEXT, rest: 'NOT NULL' },
  { name: 'id', ...TEXT, rest: 'NOT NULL' },
  { name: 'item', ...TEXT, rest: 'NOT NULL' },
  { name: 'reason', ...TEXT, rest: 'NOT NULL' },
  { name: 'run_id', ...COUNT, rest: 'NOT NULL' },
];

/** The name of the table of items kept apart. */
export const REJECTS_TABLE = 'collections_rejects';

/** The name of the run log. */
export const RUNS_TABLE = 'collections_runs';

/** The name of the table of keys seen by a `--prune` run. */
export const SEEN_TABLE = 'collections_seen';

/** The name of the table of which sources hold which keys. */
export const MEMBERS_TABLE = 'collections_members';

/** The quoted names of a destination's tables. */
export interface TableNames {
  readonly mirror: string;
  readonly runs: string;
  readonly seen: string;
  readonly members: string;
  readonly rejects: string;
  /** DuckDB's sequence of run ids. */
  readonly runSequence: string;
}

/** The quoted names of the tables of `table`. */
export function tableNames(table: TableName): TableNames {
  return {
    mirror: quoteTable(table),
    runs: besideTable(table, RUNS_TABLE),
    seen: besideTable(table, SEEN_TABLE),
    members: besideTable(table, MEMBERS_TABLE),
    rejects: besideTable(table, REJECTS_TABLE),
    runSequence: besideTable(table, `${RUNS_TABLE}_seq`),
  };
}

const columnsSql = (columns: readonly Column[], dialect: Dialect): string[] =>
  columns.map((c) => `${c.name} ${c[dialect]}${c.rest === undefined ? '' : ` ${c.rest}`}`);

/** `CREATE … IF NOT EXISTS` of the tables (and DuckDB's sequence), in order. */
export function createStatements(names: TableNames, dialect: Dialect): string[] {
  const runId =
    dialect === 'postgres'
      ? 'run_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY'
      : `run_id BIGINT PRIMARY KEY DEFAULT nextval('${names.runSequence.replace(/'/g, "''")}')`;
  return [
    ...(dialect === 'duckdb' ? [`CREATE SEQUENCE IF NOT EXISTS ${names.runSequence}`] : []),
    `CREATE TABLE IF NOT EXISTS ${names.mirror} (${columnsSql(MIRROR, dialect).join(', ')})`,
    `CREATE TABLE IF NOT EXISTS ${names.runs} (${[runId, ...columnsSql(RUNS, dialect)].join(', ')})`,
    `CREATE TABLE IF NOT EXISTS ${names.seen} (${columnsSql(SEEN, dialect).join(', ')}, PRIMARY KEY (run_id, id))`,
    `CREATE TABLE IF NOT EXISTS ${names.members} (${columnsSql(MEMBERS, dialect).join(', ')}, PRIMARY KEY (tbl, id, source))`,
    `CREATE TABLE IF NOT EXISTS ${names.rejects} (${columnsSql(REJECTS, dialect).join(', ')}, PRIMARY KEY (tbl, source, id))`,
  ];
}

/** `ALTER TABLE` adding to an existing run log the counters it lacks ({@link LATER_RUN_COUNTS}), before its shape is checked. */
export function addedColumns(names: TableNames, runs: ExistingTable | undefined, dialect: Dialect): string[] {
  if (runs === undefined) return [];
  // DuckDB adds no column with a constraint: there the default fills the rows, and the run log's own writes keep it set.
  const rest = dialect === 'postgres' ? 'NOT NULL DEFAULT 0' : 'DEFAULT 0';
  return LATER_RUN_COUNTS.filter((name) => !runs.columns.has(name)).map(
    (name) => `ALTER TABLE ${names.runs} ADD COLUMN ${name} ${COUNT[dialect]} ${rest}`,
  );
}

/**
 * Keeps items apart (`$1` the table's text, `$2` the source, `$3` the run; then a key, the item's
 * text and the reason, from the parameters of {@link rejectRows}): a rerun that rejects the same
 * item again writes nothing.
 */
export function rejectSql(names: TableNames, rows: number): string {
  const values = Array.from({ length: rows }, (_, i) => `($1, $2, $${4 + 3 * i}, $${5 + 3 * i}, $${6 + 3 * i}, $3::BIGINT)`).join(', ');
  return (
    `INSERT INTO ${names.rejects} AS r (tbl, source, id, item, reason, run_id) VALUES ${values} ` +
    'ON CONFLICT (tbl, source, id) DO UPDATE SET item = excluded.item, reason = excluded.reason, run_id = excluded.run_id ' +
    'WHERE r.item IS DISTINCT FROM excluded.item'
  );
}

/**
 * Fills the membership of `$1` (the table's text) from its `source` column when none of its keys
 * has one: a table written before memberships were kept (once; afterwards a no-op that writes nothing).
 */
export function adoptMembersSql(names: TableNames): string {
  return (
    `INSERT INTO ${names.members} (tbl, id, source) SELECT $1, id, source FROM ${names.mirror} ` +
    `WHERE NOT EXISTS (SELECT 1 FROM ${names.members} WHERE tbl = $1) ON CONFLICT DO NOTHING`
  );
}

/** What the catalog says of an existing table: its columns by name with their types, and its primary key. */
export interface ExistingTable {
  readonly columns: ReadonlyMap<string, string>;
  readonly primaryKey: readonly string[];
  /** Columns that refuse a NULL and have no default (nor identity or generation): every insert must fill them. */
  readonly required: readonly string[];
}

/**
 * Checks that an existing table has the columns (with their types) and the primary key a
 * destination writes; more columns are allowed when nullable or with a default (a user's own).
 * @param which `the table`, `the run log`…: how the refusal names it
 * @throws {UsageError} (exit 2) naming the table and the first difference
 */
function checkShape(existing: ExistingTable, expected: readonly Column[], key: readonly string[], dialect: Dialect, which: string): void {
  const refuse = (what: string): never => {
    throw new UsageError(`${which} exists with another shape (${what}); nothing was written`, {
      hint: hint`choose another table with ${option('table')}, or drop or rename that one`,
    });
  };
  for (const column of expected) {
    const type = existing.columns.get(column.name);
    if (type === undefined) refuse(`no column ${column.name}`);
    else if (type.toLowerCase() !== column[dialect].toLowerCase()) refuse(`${column.name} is ${type}, not ${column[dialect]}`);
  }
  if (existing.primaryKey.join(',') !== key.join(',')) refuse(`its primary key is not (${key.join(', ')})`);
  // The export fills only its own columns: an insert would fail at the first commit, after requests were spent.
  const unfilled = existing.required.find((name) => !expected.some((c) => c.name === name));
  if (unfilled !== undefined) refuse(`${unfilled} is NOT NULL without a default, and the export does not fill it`);
}

/** Checks the tables of `table` that exist (undefined: missing, to be created). @throws {UsageError} (exit 2) */
export function checkShapes(
  table: TableName,
  dialect: Dialect,
  found: {
    mirror?: ExistingTable | undefined;
    runs?: ExistingTable | undefined;
    seen?: ExistingTable | undefined;
    members?: ExistingTable | undefined;
    rejects?: ExistingTable | undefined;
  },
): void {
  if (found.mirror) checkShape(found.mirror, MIRROR, ['id'], dialect, `the table ${tableText(table)}`);
  const runs = [{ name: 'run_id', ...COUNT }, ...RUNS];
  if (found.runs) checkShape(found.runs, runs, ['run_id'], dialect, `the run log ${RUNS_TABLE}`);
  if (found.seen) checkShape(found.seen, SEEN, ['run_id', 'id'], dialect, `the table ${SEEN_TABLE}`);
  if (found.rejects) checkShape(found.rejects, REJECTS, ['tbl', 'source', 'id'], dialect, `the table ${REJECTS_TABLE}`);
  if (found.members) checkShape(found.members, MEMBERS, ['tbl', 'id', 'source'], dialect, `the table ${MEMBERS_TABLE}`);
}

/**
 * The `SET … WHERE` of both dialects' upsert (`t` the row, `excluded` the item): a row is keyed by
 * the item alone, so it is rewritten only when the item differs, not when another source or
 * taxpayer brings the same item (each would rewrite it on every run). `source` becomes the source
 * that last changed the item; `taxpayer` is never overwritten by NULL (a path without a taxpayer
 * keeps the one a taxpayer's run set) and a NULL one is filled once.
 */
export const SAME_ITEM =
  'item = excluded.item, taxpayer = coalesce(excluded.taxpayer, t.taxpayer), ' +
  'source = CASE WHEN t.item IS DISTINCT FROM excluded.item THEN excluded.source ELSE t.source END, ' +
  'updated_at = excluded.updated_at, synced_at = excluded.synced_at ' +
  'WHERE t.item IS DISTINCT FROM excluded.item OR (t.taxpayer IS NULL AND excluded.taxpayer IS NOT NULL)';

/** `FROM …` the rows source `$2` holds in table `$1` (its memberships whose row is there). */
export function sourceRowsSql(names: TableNames): string {
  return `FROM ${names.members} m JOIN ${names.mirror} t ON t.id = m.id WHERE m.tbl = $1 AND m.source = $2`;
}

/**
 * `--prune` of source `$2` of table `$1` after run `$3`, in order: the rows only this source held
 * and the run did not see, then the source's memberships the run did not see. A row another source
 * holds stays.
 */
export function pruneSql(names: TableNames): [rows: string, members: string] {
  const unseen = (alias: string): string => `NOT EXISTS (SELECT 1 FROM ${names.seen} s WHERE s.run_id = $3::BIGINT AND s.id = ${alias}.id)`;
  return [
    `DELETE FROM ${names.mirror} t WHERE ${unseen('t')} ` +
      `AND EXISTS (SELECT 1 FROM ${names.members} m WHERE m.tbl = $1 AND m.id = t.id AND m.source = $2) ` +
      `AND NOT EXISTS (SELECT 1 FROM ${names.members} o WHERE o.tbl = $1 AND o.id = t.id AND o.source <> $2)`,
    `DELETE FROM ${names.members} m WHERE m.tbl = $1 AND m.source = $2 AND ${unseen('m')}`,
  ];
}

/** Marks killed the runs of table `$1` and source `$2` left `running`, but run `$3` (one resumed; `0`: none): their lock is free. */
export function killedRunsSql(names: TableNames): string {
  return `UPDATE ${names.runs} SET status = 'killed' WHERE table_name = $1 AND source = $2 AND status = 'running' AND run_id <> $3::BIGINT`;
}
