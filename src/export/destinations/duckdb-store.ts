/**
 * The DuckDB store of a database destination (export/destinations/store.ts): an embedded database
 * file, no server, through `@duckdb/node-api` (loaded only here, only when asked for). A group's
 * NDJSON reaches DuckDB as a file its own JSON reader reads (no row-by-row appends), and one
 * `INSERT … ON CONFLICT (id) DO UPDATE … WHERE the row differs` upserts it.
 * DuckDB locks its file for one process (export/destinations/duckdb-instance.ts); inside it, one
 * session writes a table and source at a time.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { CollectionsError } from '../../errors.js';
import { FAILS_AGAIN_HINT, commitFailure, databaseError, failsAgain } from './database.js';
import { connect, existing, fitMemoryLimit, inTransaction, instanceOf, leave, rows, serial, type SharedInstance } from './duckdb-instance.js';
import {
  MEMBERS_TABLE,
  REJECTS_TABLE,
  addedColumns,
  killedRunsSql,
  rejectSql,
  RUNS_TABLE,
  SAME_ITEM,
  SEEN_TABLE,
  adoptMembersSql,
  checkShapes,
  createStatements,
  pruneSql,
  sourceRowsSql,
  tableNames,
  type TableNames,
} from './schema.js';
import {
  parseCheckpoint,
  type FinalRun,
  type GroupMark,
  type RowCounts,
  type RunStats,
  type StoreTarget,
  type StoredRun,
  type TableStore,
} from './store.js';
import { tableText } from './table-name.js';
import { keepingApart, rejectParams, type Rejected } from './unholdable.js';

/** Items kept apart by one statement. */
const REJECTS_AT_ONCE = 1000;

/** The tables and sources a session of this process is writing, by `path`, table and source. */
const writing = new Set<string>();

/** The item's key: `--key`'s path as JSON pointer parameter `$n`, else `id`, else `@id`. */
function keySql(key: readonly string[] | undefined, param: number): string {
  return key === undefined
    ? `coalesce(json_extract_string(item, '$.id'), json_extract_string(item, '$."@id"'))`
    : `json_extract_string(item, $${param})`;
}

/**
 * The item's `updatedAt` as a time (NULL for an odd value, never an error): with a zone as written;
 * without one (what the real service writes, `2025-04-29 19:41:06`) as UTC, whatever the session's zone.
 */
const UPDATED_AT =
  "CASE WHEN regexp_matches(json_extract_string(item, '$.updatedAt'), '\\d:\\d\\d(\\.\\d+)?(Z|[+-]\\d\\d(:?\\d\\d)?)$') " +
  "THEN try_cast(json_extract_string(item, '$.updatedAt') AS TIMESTAMPTZ) " +
  "ELSE timezone('UTC', try_cast(json_extract_string(item, '$.updatedAt') AS TIMESTAMP)) END";

/** A key path as a JSON pointer (RFC 6901). */
function pointer(key: readonly string[]): string {
  return key.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** Opens a connection on the shared instance of `path`, times in UTC. */
async function connectTo(path: string, shown: string): Promise<{ shared: SharedInstance; connection: DuckDBConnection }> {
  const shared = await instanceOf(path, shown);
  try {
    const connection = await serial(shared, () => connect(shared));
    await serial(shared, () => connection.run("SET TimeZone = 'UTC'"));
    return { shared, connection };
  } catch (err) {
    await leave(path, shared);
    throw databaseError(`cannot open the DuckDB file ${shown}`, err);
  }
}

/** Checks the tables that exist and creates those missing, in one transaction: a table of another shape leaves everything as it was. */
async function prepare(connection: DuckDBConnection, target: StoreTarget, names: TableNames): Promise<void> {
  for (const sql of addedColumns(names, await existing(connection, target.table, RUNS_TABLE), 'duckdb')) await connection.run(sql);
  checkShapes(target.table, 'duckdb', {
    mirror: await existing(connection, target.table, target.table.name),
    runs: await existing(connection, target.table, RUNS_TABLE),
    rejects: await existing(connection, target.table, REJECTS_TABLE),
    seen: await existing(connection, target.table, SEEN_TABLE),
    members: await existing(connection, target.table, MEMBERS_TABLE),
  });
  for (const sql of createStatements(names, 'duckdb')) await connection.run(sql);
  await connection.run(adoptMembersSql(names), [tableText(target.table)]);
}

/** Opens a DuckDB session for `target`. @throws {CollectionsError} (exit 7; exit 2 when `@duckdb/node-api` is not installed) */
export async function openDuckDbStore(target: StoreTarget): Promise<TableStore> {
  if (target.address.kind !== 'duckdb') throw new Error('not a DuckDB address');
  const { path, shown } = target.address;
  const { shared, connection } = await connectTo(path, shown);
  const names = tableNames(target.table);
  // DuckDB reads each group as NDJSON from this file: its own parallel JSON reader, no row-by-row appends.
  const scratch = await mkdtemp(join(tmpdir(), 'collections-duckdb-'));
  const groupFile = join(scratch, 'group.ndjson');
  const lockKey = `${path}\n${tableText(target.table)}\n${target.source}`;
  // DuckDB's JSON reader refuses a lone surrogate (`Invalid Input Error: Malformed JSON`) on every run: such items go apart.
  const apart = { dialect: 'duckdb' as const, key: target.key, refused: (err: unknown) => /^Invalid Input Error/.test((err as Error).message) };
  let locked = false;
  let fresh = true;
  const fail = (what: string, hint?: string) => (err: unknown) => {
    throw databaseError(`DuckDB ${what} (${tableText(target.table)} in ${shown})`, err, hint);
  };
  const transaction = <T>(work: () => Promise<T>): Promise<T> => inTransaction(shared, connection, work);
  const q: Query = (sql, values = []) => rows(connection, sql, values);
  const once: Query = (sql, values = []) => serial(shared, () => rows(connection, sql, values));
  return {
    prepare: () => transaction(() => prepare(connection, target, names)).then(() => undefined, fail('could not prepare the tables')),
    lock: () => {
      if (writing.has(lockKey)) {
        const where = `${tableText(target.table)} for ${target.source} in ${shown}`;
        return Promise.reject(new CollectionsError(`another export of this run is writing ${where}`, 'E_LOCKED'));
      }
      writing.add(lockKey);
      locked = true;
      return Promise.resolve();
    },
    latestRun: () => latestRun(once, target, names).catch(fail('could not read the run log')),
    startRun: async (mode, checkpoint, resumed) => {
      await once(killedRunsSql(names), [tableText(target.table), target.source, resumed ?? '0']).catch(fail('could not mark a killed run'));
      const start = resumed
        ? once(`UPDATE ${names.runs} SET status = 'running', ended_at = NULL WHERE run_id = $1::BIGINT RETURNING run_id::VARCHAR AS id`, [resumed])
        : once(
            `INSERT INTO ${names.runs} (table_name, source, mode, status, started_at, checkpoint) VALUES ($1, $2, $3, 'running', now(), $4) RETURNING run_id::VARCHAR AS id`,
            [tableText(target.table), target.source, mode, JSON.stringify(checkpoint)],
          );
      return start.then((r) => r[0]!.id!, fail('could not start the run'));
    },
    commitGroup: async (runId, ndjson, mark, seen) => {
      const bytes = ndjson.reduce((n, b) => n + b.length, 0);
      const attempt = (upsert: boolean, rejected: readonly Rejected[] = []): Promise<RowCounts> =>
        transaction(async () => {
          await fitMemoryLimit(shared, connection, bytes);
          return commitGroup(connection, q, target, names, runId, { file: groupFile, upsert, rejected }, mark, seen);
        });
      try {
        await writeFile(groupFile, ndjson);
        // A plain INSERT until one fails (a key the table has; rolled back), then upserts.
        const inserted = fresh ? await attempt(false).catch(() => undefined) : undefined;
        fresh = inserted !== undefined;
        if (inserted !== undefined) return inserted;
        return await keepingApart(ndjson, apart, async (lines, rejected) => {
          if (lines !== ndjson) await writeFile(groupFile, lines);
          return attempt(true, rejected);
        });
      } catch (err) {
        return fail(commitFailure(err), failsAgain(err) ? FAILS_AGAIN_HINT : undefined)(err);
      }
    },
    finishRun: (runId, final) => transaction(() => finishRun(q, target, names, runId, final)).catch(fail('could not finish the run')),
    endRun: async (runId, status, stats) => {
      const sql = `UPDATE ${names.runs} SET status = $2, ended_at = now(), ${ADD_STATS} WHERE run_id = $1::BIGINT AND status = 'running'`;
      await transaction(() => q(sql, [runId, status, ...statParams(stats)])).catch(() => undefined);
    },
    close: async () => {
      if (locked) writing.delete(lockKey);
      locked = false;
      const disconnect = (): Promise<void> => {
        connection.closeSync();
        return Promise.resolve();
      };
      await serial(shared, disconnect).catch(() => undefined);
      await rm(scratch, { recursive: true, force: true });
      await leave(path, shared).catch(() => undefined);
    },
  };
}

/** The newest run of the table and source. */
export async function latestRun(q: Query, target: StoreTarget, names: TableNames): Promise<StoredRun | undefined> {
  const result = await q(
    `SELECT run_id::VARCHAR AS id, status, next, items::VARCHAR AS items, pages::VARCHAR AS pages, checkpoint FROM ${names.runs} ` +
      'WHERE table_name = $1 AND source = $2 ORDER BY run_id DESC LIMIT 1',
    [tableText(target.table), target.source],
  );
  const row = result[0];
  if (row === undefined) return undefined;
  return {
    runId: row.id!,
    status: row.status!,
    next: row.next ?? null,
    items: Number(row.items),
    pages: Number(row.pages),
    checkpoint: parseCheckpoint(row.checkpoint ?? null),
  };
}

/** A query on the session's connection: rows with every value as text. */
export type Query = (sql: string, values?: Array<string | null>) => Promise<Array<Record<string, string | null>>>;

/**
 * One group: its items read by DuckDB from the session's group file, the last item of each key kept,
 * upserted (or, not `upsert`, inserted: a third less CPU, and it fails on a key the table has); the checkpoint recorded.
 */
async function commitGroup(
  connection: DuckDBConnection,
  q: Query,
  target: StoreTarget,
  names: TableNames,
  runId: string,
  group: { file: string; upsert: boolean; rejected: readonly Rejected[] },
  mark: GroupMark,
  seen: boolean,
): Promise<RowCounts> {
  // The last line of each key by `arg_max`: a hash aggregate, where a window sorted every item (5 times the CPU).
  const keyed =
    `SELECT k, arg_max(item, n) AS item FROM (SELECT ${keySql(target.key, 2)} AS k, item, n FROM ` +
    '(SELECT json AS item, row_number() OVER () AS n FROM read_ndjson_objects($1))) GROUP BY k';
  const keyParam = target.key === undefined ? [] : [pointer(target.key)];
  const count = async (): Promise<number> => Number((await q(`SELECT count(*)::VARCHAR AS n FROM ${names.mirror}`))[0]!.n);
  const insert =
    `INSERT INTO ${names.mirror} AS t (id, item, taxpayer, source, updated_at, synced_at) ` +
    `SELECT k, item, $${keyParam.length + 2}, $${keyParam.length + 3}, ${UPDATED_AT}, ` +
    `coalesce($${keyParam.length + 4}::TIMESTAMPTZ, now()) FROM (${keyed})`;
  const params = [group.file, ...keyParam, target.taxpayer ?? null, target.source, mark.serverTime ?? null];
  const before = group.upsert ? await count() : 0;
  // The rows inserted or changed come back (one `1` each); the table's growth tells the inserted from them.
  const changed = group.upsert
    ? (await connection.runAndReadAll(`${insert} ON CONFLICT (id) DO UPDATE SET ${SAME_ITEM} RETURNING 1`, params)).currentRowCount
    : (await connection.run(insert, params)).rowsChanged;
  const inserted = group.upsert ? (await count()) - before : changed;
  const counts = { inserted, updated: changed - inserted, rejected: group.rejected.length };
  for (let at = 0; at < group.rejected.length; at += REJECTS_AT_ONCE) {
    const some = group.rejected.slice(at, at + REJECTS_AT_ONCE);
    await q(rejectSql(names, some.length), [tableText(target.table), target.source, runId, ...rejectParams(some)]);
  }
  const last = keyParam.length + 2;
  await q(`INSERT INTO ${names.members} (tbl, id, source) SELECT DISTINCT $${last}, k, $${last + 1} FROM (${keyed}) ON CONFLICT DO NOTHING`, [
    group.file,
    ...keyParam,
    tableText(target.table),
    target.source,
  ]);
  if (seen) {
    await q(`INSERT INTO ${names.seen} (run_id, id) SELECT DISTINCT $${last}::BIGINT, k FROM (${keyed}) ON CONFLICT DO NOTHING`, [
      group.file,
      ...keyParam,
      runId,
    ]);
  }
  await q(
    `UPDATE ${names.runs} SET next = $2, items = $3::BIGINT, pages = $4::BIGINT, last_request_id = coalesce($5, last_request_id), ` +
      'server_time = coalesce(server_time, $6::TIMESTAMPTZ), rows_inserted = rows_inserted + $7::BIGINT, rows_updated = rows_updated + $8::BIGINT, ' +
      'checkpoint = $9, requests = requests + $10::BIGINT, retries = retries + $11::BIGINT, waits = waits + $12::BIGINT, wait_ms = wait_ms + $13::BIGINT, ' +
      'rows_rejected = rows_rejected + $14::BIGINT ' +
      'WHERE run_id = $1::BIGINT',
    [
      runId,
      mark.next,
      String(mark.items),
      String(mark.pages),
      mark.requestId ?? null,
      mark.serverTime ?? null,
      String(counts.inserted),
      String(counts.updated),
      JSON.stringify(mark.checkpoint),
      ...statParams(mark.spent),
      String(counts.rejected),
    ],
  );
  return counts;
}

/** The counters a session adds to its run's row ($3 to $6). */
const ADD_STATS = 'requests = requests + $3::BIGINT, retries = retries + $4::BIGINT, waits = waits + $5::BIGINT, wait_ms = wait_ms + $6::BIGINT';

const statParams = (stats: RunStats): string[] => [stats.requests, stats.retries, stats.waits, Math.round(stats.waitMs)].map(String);

/**
 * Deletes the rows of the records the service deleted (see {@link FinalRun.deletions}), whichever
 * source wrote them; the latest deletion of a key counts. @returns the rows deleted
 */
async function deleteRows(q: Query, names: TableNames, final: FinalRun): Promise<number> {
  const doomed =
    `FROM ${names.mirror} t WHERE EXISTS (SELECT 1 FROM (SELECT id, max(try_cast("at" AS TIMESTAMPTZ)) AS deleted_at FROM ` +
    `(SELECT unnest(from_json($1, '[{"id":"VARCHAR","at":"VARCHAR"}]'), recursive := true)) GROUP BY id) d WHERE d.id = t.id ` +
    'AND NOT (t.updated_at IS NOT NULL AND d.deleted_at IS NOT NULL AND t.updated_at > d.deleted_at)) ' +
    'AND NOT ($2::TIMESTAMPTZ IS NOT NULL AND t.synced_at >= $2::TIMESTAMPTZ)';
  const params = [JSON.stringify(final.deletions), final.serverTime ?? null];
  const count = Number((await q(`SELECT count(*)::VARCHAR AS n ${doomed}`, params))[0]!.n);
  if (count > 0) await q(`DELETE ${doomed}`, params);
  return count;
}

/** The final transaction of a complete run (see {@link TableStore.finishRun}). */
async function finishRun(
  q: Query,
  target: StoreTarget,
  names: TableNames,
  runId: string,
  final: FinalRun,
): Promise<{ deleted: number; rows: number }> {
  let deleted = 0;
  const tbl = tableText(target.table);
  if (final.prune) {
    const [rows, members] = pruneSql(names);
    deleted = (await q(`${rows} RETURNING 1`, [tbl, target.source, runId])).length;
    await q(members, [tbl, target.source, runId]);
  }
  if (final.deletions !== undefined && final.deletions.length > 0) {
    deleted += await deleteRows(q, names, final);
    // The record is gone at the service: no source holds it any more (a row kept as re-created keeps its own).
    await q(
      `DELETE FROM ${names.members} m WHERE m.tbl = $1 AND m.id IN (SELECT unnest(from_json($2, '[{"id":"VARCHAR"}]'), recursive := true)) ` +
        `AND NOT EXISTS (SELECT 1 FROM ${names.mirror} t WHERE t.id = m.id)`,
      [tbl, JSON.stringify(final.deletions)],
    );
  }
  await q(`DELETE FROM ${names.seen} WHERE run_id IN (SELECT run_id FROM ${names.runs} WHERE table_name = $1 AND source = $2)`, [
    tableText(target.table),
    target.source,
  ]);
  const count = await q(`SELECT count(*)::VARCHAR AS n ${sourceRowsSql(names)}`, [tbl, target.source]);
  const total = Number(count[0]!.n);
  await q(
    `UPDATE ${names.runs} SET status = 'complete', ended_at = now(), next = NULL, items = $7::BIGINT, pages = $8::BIGINT, ${ADD_STATS}, ` +
      'rows_deleted = $9::BIGINT, rows_total = $10::BIGINT, watermark = $2 WHERE run_id = $1::BIGINT',
    [
      runId,
      final.watermark ?? null,
      ...statParams(final.stats),
      String(final.stats.items),
      String(final.stats.pages),
      String(deleted),
      String(total),
    ],
  );
  return { deleted, rows: total };
}
