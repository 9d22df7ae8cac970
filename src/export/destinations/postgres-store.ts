/**
 * The PostgreSQL store of a database destination (export/destinations/store.ts), on `pg` and
 * `pg-copy-streams`, both loaded only here and only when asked for. A group's items reach the
 * server by `COPY` into a staging table (the bulk path), and one `INSERT … ON CONFLICT (id) DO
 * UPDATE … WHERE the row differs` upserts them, so an unchanged item leaves its row, its `xmin`,
 * triggers and logical replication alone. Two sessions share the work (docs/databases.md, "Upserts,
 * exactly once"): a loader copies the next group into one of two unlogged staging tables while the
 * writer upserts the group before it from the other. The lock of a table and source is the
 * writer's session-level advisory lock: a killed run frees it when its connection drops.
 */
import { createHash } from 'node:crypto';
import type { Client } from 'pg';
import { CollectionsError } from '../../errors.js';
import { FAILS_AGAIN_HINT, commitFailure, databaseError, failsAgain } from './database.js';
import { loadDriver } from './driver.js';
import { connect, existing, type PostgresStoreOptions } from './postgres-connect.js';
import { keepingApart, rejectParams, type Rejected } from './unholdable.js';
import {
  addedColumns,
  rejectSql,
  adoptMembersSql,
  checkShapes,
  createStatements,
  killedRunsSql,
  pruneSql,
  SAME_ITEM,
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
import { besideTable, tableText } from './table-name.js';

/** Items kept apart by one statement (three parameters each, far below PostgreSQL's 65,535). */
const REJECTS_AT_ONCE = 1000;

/** Serialises the DDL of all sessions (`CREATE TABLE IF NOT EXISTS` races otherwise): an arbitrary constant. */
const DDL_LOCK = '7262372620363226741';

/**
 * A group's transaction does not wait for its WAL to reach the disk: a server crash can lose the
 * last groups, but each loses its rows and its checkpoint together, so `--resume` fetches them
 * again (a client killed at any moment loses nothing the server acknowledged). The final
 * transaction is synchronous, and its flush makes every earlier group durable. A bigger `work_mem`
 * keeps the sort of a group's staged rows (`DISTINCT ON`) in memory: 64 MB, above a group's
 * rows (about 1.5x its NDJSON bytes, at most 24 MiB of NDJSON).
 */
const BEGIN_GROUP = "BEGIN; SET LOCAL synchronous_commit = off; SET LOCAL work_mem = '64MB'";

/**
 * The item's `updatedAt` when it is an ISO 8601 time, with `T` or a space between date and time
 * (else NULL, never an error for an odd value). A time without a zone (what the real service
 * writes, `2025-04-29 19:41:06`) is UTC, whatever the session's time zone: `AT TIME ZONE 'UTC'`.
 */
const UPDATED_AT =
  "CASE WHEN item->>'updatedAt' ~ '^\\d{4}-[01]\\d-[0-3]\\d[T ][0-2]\\d:[0-5]\\d:[0-6]\\d(\\.\\d{1,9})?(Z|[+-][0-2]\\d(:?[0-5]\\d)?)$' " +
  "THEN (item->>'updatedAt')::timestamptz " +
  "WHEN item->>'updatedAt' ~ '^\\d{4}-[01]\\d-[0-3]\\d[T ][0-2]\\d:[0-5]\\d:[0-6]\\d(\\.\\d{1,9})?$' " +
  "THEN (item->>'updatedAt')::timestamp AT TIME ZONE 'UTC' END";

/** The key of an item in SQL: `--key`'s path as parameter `$n`, else `id`, else `@id`. */
function keySql(key: readonly string[] | undefined, param: number): string {
  return key === undefined ? "coalesce(item->>'id', item->>'@id')" : `item #>> $${param}::text[]`;
}

/** The 64-bit advisory lock key of a table (by oid) and source, as text for a `bigint` parameter. */
function lockKey(oid: string, source: string): bigint {
  return createHash('sha256').update(`${oid}\n${source}`).digest().readBigInt64BE(0);
}

/** Opens a PostgreSQL session for `target`. @throws {CollectionsError} (exit 7; exit 2 when `pg` is not installed) */
export async function openPostgresStore(target: StoreTarget, options: PostgresStoreOptions): Promise<TableStore> {
  if (target.address.kind !== 'postgres') throw new Error('not a PostgreSQL address');
  const client = await connect(target.address, options);
  const loader = await connect(target.address, options).catch(async (err: unknown) => {
    await client.end().catch(() => undefined);
    throw err;
  });
  const { from: copyFrom } = await loadDriver<typeof import('pg-copy-streams')>('pg-copy-streams', target.address.shown);
  const names = tableNames(target.table);
  const fail = (what: string, hint?: string) => (err: unknown) => {
    throw databaseError(`PostgreSQL ${what} (${tableText(target.table)} in ${target.address.shown})`, err, hint);
  };
  const copy = (stage: string, ndjson: readonly Buffer[]): Promise<void> => copyInto(loader, copyFrom, stage, ndjson);
  // Set by lock(): the two staging tables of this table and source, used in turn.
  let stages: readonly [string, string] | undefined;
  const load = (stage: string, ndjson: readonly Buffer[]): Promise<void> =>
    inTransaction(loader, () => copy(stage, ndjson), `BEGIN; TRUNCATE ${stage}`);
  // A data exception (class 22: `\u0000`, a lone surrogate) fails a group's COPY on every run: its items that jsonb cannot hold go apart.
  const apart = {
    dialect: 'postgres' as const,
    key: target.key,
    refused: (err: unknown) => String((err as { code?: unknown }).code).startsWith('22'),
  };
  const pipeline = stagePipeline(
    (stage, ndjson) =>
      keepingApart(ndjson, apart, async (lines, rejected) => {
        await load(stage, lines);
        return rejected;
      }),
    (stage, runId, mark, seen, rejected) =>
      inTransaction(client, () => applyGroup(client, target, names, { stage, runId, mark, seen, rejected }), BEGIN_GROUP),
  );
  return {
    commitsAtOnce: 2,
    prepare: () => prepare(client, target, names).catch(fail('could not prepare the tables')),
    lock: async () => {
      const key = await lock(client, target, names).catch(fail('could not take the lock'));
      const held = stageNames(target, key);
      await createStages(client, loader, held).catch(fail('could not create the staging tables'));
      stages = held;
    },
    latestRun: () => latestRun(client, target, names).catch(fail('could not read the run log')),
    startRun: async (mode, checkpoint, resumed) => {
      const killed = [tableText(target.table), target.source, resumed ?? '0'];
      await client.query(killedRunsSql(names), killed).catch(fail('could not mark a killed run'));
      const start = resumed
        ? client.query(`UPDATE ${names.runs} SET status = 'running', ended_at = NULL WHERE run_id = $1 RETURNING run_id::text AS id`, [resumed])
        : client.query<{ id: string }>(
            `INSERT INTO ${names.runs} (table_name, source, mode, status, started_at, checkpoint) ` +
              `VALUES ($1, $2, $3, 'running', now(), $4) RETURNING run_id::text AS id`,
            [tableText(target.table), target.source, mode, JSON.stringify(checkpoint)],
          );
      return start.then((r) => (r.rows[0] as { id: string }).id, fail('could not start the run'));
    },
    commitGroup: (runId, ndjson, mark, seen) =>
      pipeline(stages!, runId, ndjson, mark, seen).catch((err: unknown) =>
        fail(commitFailure(err), failsAgain(err) ? FAILS_AGAIN_HINT : undefined)(err),
      ),
    finishRun: (runId, final) => inTransaction(client, () => finishRun(client, target, names, runId, final)).catch(fail('could not finish the run')),
    endRun: async (runId, status, stats) => {
      await client
        .query(`UPDATE ${names.runs} SET status = $2, ended_at = now(), ${addStats} WHERE run_id = $1 AND status = 'running'`, [
          runId,
          status,
          ...statParams(stats),
        ])
        .catch(() => undefined);
    },
    close: async () => {
      await loader.end().catch(() => undefined);
      if (stages !== undefined) await client.query(`DROP TABLE IF EXISTS ${stages.join(', ')}`).catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

/** Sends `ndjson` into the staging table `stage` by `COPY`. */
function copyInto(loader: Client, copyFrom: typeof import('pg-copy-streams').from, stage: string, ndjson: readonly Buffer[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // CSV with delimiter and quote characters that compact JSON never holds (it has no byte below 0x20), so no line needs escaping.
    const sql = `COPY ${stage} (item) FROM STDIN WITH (FORMAT csv, DELIMITER E'\\x1f', QUOTE E'\\x1e', FREEZE)`;
    const stream = loader.query(copyFrom(sql));
    stream.on('error', reject);
    stream.on('finish', resolve);
    for (const chunk of ndjson) stream.write(chunk);
    stream.end();
  });
}

/** Runs `work` in a transaction of `client` opened by `begin`; rolls back when it fails. */
async function inTransaction<T>(client: Client, work: () => Promise<T>, begin = 'BEGIN'): Promise<T> {
  await client.query(begin);
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** What the writer's transaction of a group needs. */
interface GroupWork {
  readonly stage: string;
  readonly runId: string;
  readonly mark: GroupMark;
  readonly seen: boolean;
  /** The group's items kept apart (the staging table holds the others). */
  readonly rejected: readonly Rejected[];
}

/**
 * Group n's `load` (into staging table n mod 2) runs beside group n-1's `apply`; `apply`s run one
 * after another, and one whose predecessor failed fails without running, so no checkpoint ever
 * passes a group whose rows were not committed. A staging table is loaded again only once the
 * `apply` that read it has ended.
 */
function stagePipeline<Loaded>(
  load: (stage: string, ndjson: readonly Buffer[]) => Promise<Loaded>,
  apply: (stage: string, runId: string, mark: GroupMark, seen: boolean, loaded: Loaded) => Promise<RowCounts>,
): (stages: readonly [string, string], runId: string, ndjson: readonly Buffer[], mark: GroupMark, seen: boolean) => Promise<RowCounts> {
  let turn = 0;
  let loading: Promise<unknown> = Promise.resolve();
  let applying: Promise<unknown> = Promise.resolve();
  const free: Array<Promise<unknown>> = [Promise.resolve(), Promise.resolve()];
  return (stages, runId, ndjson, mark, seen) => {
    const i = turn;
    turn = 1 - turn;
    const staged = Promise.allSettled([loading, free[i]]).then(() => load(stages[i]!, ndjson));
    const before = applying;
    const done = Promise.allSettled([before, staged]).then(([earlier, own]) => {
      if (earlier.status === 'rejected') throw earlier.reason;
      if (own.status === 'rejected') throw own.reason;
      return apply(stages[i]!, runId, mark, seen, own.value);
    });
    loading = staged;
    applying = done;
    free[i] = done.catch(() => undefined);
    return done;
  };
}

/** The two staging tables of a lock holder, beside the table: one per lock key, so no other run uses them. */
function stageNames(target: StoreTarget, key: bigint): readonly [string, string] {
  const hex = BigInt.asUintN(64, key).toString(16).padStart(16, '0');
  return [besideTable(target.table, `collections_stage_${hex}_0`), besideTable(target.table, `collections_stage_${hex}_1`)];
}

/**
 * Creates the staging tables afresh, dropping those a killed run left. Unlogged (their rows are
 * never the truth: only the writer's transaction is), and never vacuumed (autovacuum would hold
 * the lock each `TRUNCATE` needs). The loader's commits then need not wait for the disk.
 */
async function createStages(client: Client, loader: Client, stages: readonly [string, string]): Promise<void> {
  await client.query(`DROP TABLE IF EXISTS ${stages.join(', ')}`);
  for (const stage of stages) {
    await client.query(
      `CREATE UNLOGGED TABLE ${stage} (n bigserial, item jsonb) WITH (autovacuum_enabled = false, toast.autovacuum_enabled = false)`,
    );
  }
  await loader.query('SET synchronous_commit = off');
}

/** Checks the tables that exist and creates those missing, in one transaction under the DDL lock: a table of another shape leaves everything as it was. */
async function prepare(client: Client, target: StoreTarget, names: TableNames): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${DDL_LOCK})`);
    for (const sql of addedColumns(names, await existing(client, names.runs), 'postgres')) await client.query(sql);
    checkShapes(target.table, 'postgres', {
      mirror: await existing(client, names.mirror),
      runs: await existing(client, names.runs),
      rejects: await existing(client, names.rejects),
      seen: await existing(client, names.seen),
      members: await existing(client, names.members),
    });
    for (const sql of createStatements(names, 'postgres')) await client.query(sql);
    await client.query(adoptMembersSql(names), [tableText(target.table)]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Takes the session's advisory lock of the table and source; its key. @throws {CollectionsError} (exit 7, `E_LOCKED`) naming the holder */
async function lock(client: Client, target: StoreTarget, names: TableNames): Promise<bigint> {
  const oid = (await client.query<{ oid: string }>('SELECT to_regclass($1)::oid::text AS oid', [names.mirror])).rows[0]!.oid;
  const key = lockKey(oid, target.source);
  const taken = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [key.toString()]);
  if (taken.rows[0]!.locked) return key;
  throw lockedError(target, await lockHolder(client, key));
}

/** The backend that holds the advisory lock `key`, if any (`pg_locks` is readable by every role). */
async function lockHolder(client: Client, key: bigint): Promise<{ pid: number | undefined } | undefined> {
  const unsigned = BigInt.asUintN(64, key);
  const holder = await client.query<{ pid: number | null }>(
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::oid AND objid = $2::oid AND objsubid = 1 LIMIT 1",
    [(unsigned >> 32n).toString(), (unsigned & 0xffffffffn).toString()],
  );
  const row = holder.rows[0];
  return row === undefined ? undefined : { pid: row.pid ?? undefined };
}

function lockedError(target: StoreTarget, holder: { pid: number | undefined } | undefined): CollectionsError {
  const pid = holder?.pid;
  return new CollectionsError(
    `another export is writing ${tableText(target.table)} for ${target.source}${pid === undefined ? '' : ` (PostgreSQL backend ${pid} holds its lock)`}`,
    'E_LOCKED',
    { hint: 'wait for it to end; a killed export frees the lock when its connection drops' },
  );
}

/**
 * What {@link lock} would find, taking nothing: free while the table does not exist (a run takes
 * its lock only once the table is there). @throws {CollectionsError} (exit 7, `E_LOCKED`) as {@link lock}
 */
export async function checkLock(client: Client, target: StoreTarget, names: TableNames): Promise<void> {
  const oid = (await client.query<{ oid: string | null }>('SELECT to_regclass($1)::oid::text AS oid', [names.mirror])).rows[0]!.oid;
  if (oid === null) return;
  const holder = await lockHolder(client, lockKey(oid, target.source));
  if (holder !== undefined) throw lockedError(target, holder);
}

/** The newest run of the table and source. */
export async function latestRun(client: Client, target: StoreTarget, names: TableNames): Promise<StoredRun | undefined> {
  const result = await client.query<{ id: string; status: string; next: string | null; items: string; pages: string; checkpoint: string | null }>(
    `SELECT run_id::text AS id, status, next, items::text AS items, pages::text AS pages, checkpoint FROM ${names.runs} ` +
      'WHERE table_name = $1 AND source = $2 ORDER BY run_id DESC LIMIT 1',
    [tableText(target.table), target.source],
  );
  const row = result.rows[0];
  if (row === undefined) return undefined;
  return {
    runId: row.id,
    status: row.status,
    next: row.next,
    items: Number(row.items),
    pages: Number(row.pages),
    checkpoint: parseCheckpoint(row.checkpoint),
  };
}

/** The writer's work of a group, in its transaction: the upsert, the source's memberships, the keys seen (`--prune`), the checkpoint. */
async function applyGroup(client: Client, target: StoreTarget, names: TableNames, work: GroupWork): Promise<RowCounts> {
  const counts = await upsert(client, target, names, work.stage, work.mark);
  const memberParams = [tableText(target.table), target.source, ...(target.key === undefined ? [] : [target.key])];
  await client.query(
    `INSERT INTO ${names.members} (tbl, id, source) SELECT DISTINCT $1::text, ${keySql(target.key, 3)}, $2::text FROM ${work.stage} ON CONFLICT DO NOTHING`,
    memberParams,
  );
  if (work.seen) {
    const params = target.key === undefined ? [work.runId] : [work.runId, target.key];
    await client.query(
      `INSERT INTO ${names.seen} (run_id, id) SELECT DISTINCT $1::bigint, ${keySql(target.key, 2)} FROM ${work.stage} ON CONFLICT DO NOTHING`,
      params,
    );
  }
  for (let at = 0; at < work.rejected.length; at += REJECTS_AT_ONCE) {
    const some = work.rejected.slice(at, at + REJECTS_AT_ONCE);
    await client.query(rejectSql(names, some.length), [tableText(target.table), target.source, work.runId, ...rejectParams(some)]);
  }
  counts.rejected = work.rejected.length;
  await recordGroup(client, names, work.runId, work.mark, counts);
  return counts;
}

/** Upserts the staged items; counts the rows inserted and changed (an unchanged item is neither). */
async function upsert(client: Client, target: StoreTarget, names: TableNames, stage: string, mark: GroupMark): Promise<RowCounts> {
  const params: unknown[] = [target.taxpayer ?? null, target.source, mark.serverTime ?? null];
  if (target.key !== undefined) params.push(target.key);
  const result = await client.query<{ inserted: string; updated: string }>(
    `WITH src AS (SELECT DISTINCT ON (k) k, item FROM (SELECT ${keySql(target.key, 4)} AS k, item, n FROM ${stage}) s ORDER BY k, n DESC), ` +
      `up AS (INSERT INTO ${names.mirror} AS t (id, item, taxpayer, source, updated_at, synced_at) ` +
      `SELECT k, item, $1::text, $2::text, ${UPDATED_AT}, coalesce($3::timestamptz, now()) FROM src ` +
      `ON CONFLICT (id) DO UPDATE SET ${SAME_ITEM} ` +
      'RETURNING (xmax = 0) AS inserted) ' +
      'SELECT count(*) FILTER (WHERE inserted)::text AS inserted, count(*) FILTER (WHERE NOT inserted)::text AS updated FROM up',
    params,
  );
  const row = result.rows[0]!;
  return { inserted: Number(row.inserted), updated: Number(row.updated), rejected: 0 };
}

/** Records a group's checkpoint in the run's row of the run log. */
async function recordGroup(client: Client, names: TableNames, runId: string, mark: GroupMark, counts: RowCounts): Promise<void> {
  await client.query(
    `UPDATE ${names.runs} SET next = $2, items = $3, pages = $4, last_request_id = coalesce($5, last_request_id), ` +
      'server_time = coalesce(server_time, $6::timestamptz), rows_inserted = rows_inserted + $7, rows_updated = rows_updated + $8, ' +
      'checkpoint = $9, requests = requests + $10, retries = retries + $11, waits = waits + $12, wait_ms = wait_ms + $13, ' +
      'rows_rejected = rows_rejected + $14 WHERE run_id = $1',
    [
      runId,
      mark.next,
      mark.items,
      mark.pages,
      mark.requestId ?? null,
      mark.serverTime ?? null,
      counts.inserted,
      counts.updated,
      JSON.stringify(mark.checkpoint),
      ...statParams(mark.spent),
      counts.rejected,
    ],
  );
}

/** The counters a session adds to its run's row ($3 to $6: requests, retries, waits, wait ms). */
const addStats = 'requests = requests + $3, retries = retries + $4, waits = waits + $5, wait_ms = wait_ms + $6';

const statParams = (stats: RunStats): number[] => [stats.requests, stats.retries, stats.waits, Math.round(stats.waitMs)];

/**
 * Deletes the rows of the records the service deleted (see {@link FinalRun.deletions}), whichever
 * source wrote them; the latest deletion of a key counts. @returns the rows deleted
 */
async function deleteRows(client: Client, names: TableNames, final: FinalRun): Promise<number> {
  const result = await client.query(
    `WITH d AS (SELECT id, max(at::timestamptz) AS deleted_at FROM jsonb_to_recordset($1::jsonb) AS x(id text, at text) GROUP BY id) ` +
      `DELETE FROM ${names.mirror} t USING d WHERE t.id = d.id ` +
      'AND NOT (t.updated_at IS NOT NULL AND d.deleted_at IS NOT NULL AND t.updated_at > d.deleted_at) ' +
      'AND NOT ($2::timestamptz IS NOT NULL AND t.synced_at >= $2::timestamptz)',
    [JSON.stringify(final.deletions), final.serverTime ?? null],
  );
  return result.rowCount ?? 0;
}

/** The final transaction of a complete run (see {@link TableStore.finishRun}). */
async function finishRun(
  client: Client,
  target: StoreTarget,
  names: TableNames,
  runId: string,
  final: FinalRun,
): Promise<{ deleted: number; rows: number }> {
  let deleted = 0;
  const tbl = tableText(target.table);
  if (final.prune) {
    const [rows, members] = pruneSql(names);
    deleted = (await client.query(rows, [tbl, target.source, runId])).rowCount ?? 0;
    await client.query(members, [tbl, target.source, runId]);
  }
  if (final.deletions !== undefined && final.deletions.length > 0) {
    deleted += await deleteRows(client, names, final);
    // The record is gone at the service: no source holds it any more (a row kept as re-created keeps its own).
    await client.query(
      `DELETE FROM ${names.members} m WHERE m.tbl = $1 AND m.id IN (SELECT x.id FROM jsonb_to_recordset($2::jsonb) AS x(id text)) ` +
        `AND NOT EXISTS (SELECT 1 FROM ${names.mirror} t WHERE t.id = m.id)`,
      [tbl, JSON.stringify(final.deletions)],
    );
  }
  await client.query(`DELETE FROM ${names.seen} s USING ${names.runs} r WHERE s.run_id = r.run_id AND r.table_name = $1 AND r.source = $2`, [
    tableText(target.table),
    target.source,
  ]);
  const count = await client.query<{ n: string }>(`SELECT count(*)::text AS n ${sourceRowsSql(names)}`, [tbl, target.source]);
  const rows = Number(count.rows[0]!.n);
  await client.query(
    `UPDATE ${names.runs} SET status = 'complete', ended_at = now(), next = NULL, items = $7, pages = $8, ${addStats}, ` +
      'rows_deleted = $9, rows_total = $10, watermark = $2 WHERE run_id = $1',
    [runId, final.watermark ?? null, ...statParams(final.stats), final.stats.items, final.stats.pages, deleted, rows],
  );
  return { deleted, rows };
}
