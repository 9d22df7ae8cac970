/**
 * Reading a PostgreSQL destination without writing it: the watermarks an incremental export starts
 * from, what a dry run checks, and the run log and counts of `verify`.
 */
import type { Client } from 'pg';
import type { PostgresAddress } from './address.js';
import { databaseError } from './database.js';
import { loadDriver } from './driver.js';
import { connect, existing, type PostgresStoreOptions } from './postgres-connect.js';
import { checkLock, latestRun } from './postgres-store.js';
import { RUNS_TABLE, checkShapes, tableNames } from './schema.js';
import type { StoreInspection, StoreTarget, TableReader } from './store.js';
import { tableText, type TableName } from './table-name.js';

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

/**
 * The run creates its tables when missing and its staging tables every time, so it needs `CREATE`
 * in the table's schema even when the tables exist (PostgreSQL checks it before it looks).
 * @throws PostgreSQL's own refusal when the schema does not exist; the run's (42501) without the privilege
 */
async function checkCreate(client: Client, table: TableName): Promise<void> {
  const result = await client.query<{ schema: string | null; allowed: boolean | null }>(
    "SELECT coalesce($1, current_schema()) AS schema, has_schema_privilege(coalesce($1, current_schema()), 'CREATE') AS allowed",
    [table.schema ?? null],
  );
  const { schema, allowed } = result.rows[0]!;
  if (schema !== null && allowed === false) throw Object.assign(new Error(`permission denied for schema ${schema}`), { code: '42501' });
}

/**
 * What a run would find (`--dry-run`), in a read-only transaction: the login, the shape of the
 * tables, the right to create in their schema, the lock of the table and source (looked at, not
 * taken) and the run log.
 * @throws what the run would throw before its first request: {@link CollectionsError} (exit 7: the
 *   login refused, the server unreachable, the lock held), {@link UsageError} (exit 2: another shape)
 */
export async function inspectPostgres(target: StoreTarget, options: PostgresStoreOptions): Promise<StoreInspection> {
  if (target.address.kind !== 'postgres') throw new Error('not a PostgreSQL address');
  const client = await connect(target.address, options);
  // The run's writing needs it too: missing, the run is exit 2 after connecting.
  await loadDriver('pg-copy-streams', target.address.shown).catch(async (err: unknown) => {
    await client.end().catch(() => undefined);
    throw err;
  });
  const names = tableNames(target.table);
  const fail = (what: string) => (err: unknown) => {
    throw databaseError(`PostgreSQL ${what} (${tableText(target.table)} in ${target.address.shown})`, err);
  };
  try {
    await client.query('BEGIN READ ONLY');
    const read = async () => ({
      mirror: await existing(client, names.mirror),
      runs: await existing(client, names.runs),
      seen: await existing(client, names.seen),
    });
    const found = await read().catch(fail('could not prepare the tables'));
    checkShapes(target.table, 'postgres', found);
    await checkCreate(client, target.table).catch(fail('could not prepare the tables'));
    await checkLock(client, target, names).catch(fail('could not take the lock'));
    const latest = found.runs === undefined ? undefined : await latestRun(client, target, names).catch(fail('could not read the run log'));
    return { database: true, table: found.mirror !== undefined, latest };
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

/** A read-only session (`verify`): rows of a query, every value as text. */
export async function openPostgresReader(address: PostgresAddress, options: PostgresStoreOptions): Promise<TableReader> {
  const client = await connect(address, options);
  const rows = async (sql: string, params: string[] = []) => (await client.query<Record<string, string | null>>(sql, params)).rows;
  try {
    await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
  } catch (err) {
    await client.end().catch(() => undefined);
    throw databaseError(`PostgreSQL could not open a read-only session (${address.shown})`, err);
  }
  return {
    rows,
    exists: async (name) => (await rows('SELECT (to_regclass($1) IS NOT NULL)::text AS found', [name]))[0]?.found === 'true',
    runLogSchemas: async () =>
      (
        await rows(
          'SELECT n.nspname AS s FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace ' +
            "WHERE c.relname = $1 AND c.relkind IN ('r', 'p') AND has_table_privilege(c.oid, 'SELECT') " +
            'ORDER BY n.nspname = current_schema() DESC, n.nspname',
          [RUNS_TABLE],
        )
      ).map((r) => r.s!),
    close: () => client.end().catch(() => undefined),
  };
}
