/**
 * The DuckDB instances of this process (export/destinations/duckdb-store.ts, duckdb-read.ts):
 * DuckDB locks its file for one process, so the sessions of this process on one file share one
 * instance (opened by the first, closed by the last), and its transactions run one at a time on
 * its chain (DuckDB would refuse two that touch one table).
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { CollectionsError } from '../../errors.js';
import { databaseError } from './database.js';
import { loadDriver } from './driver.js';
import type { ExistingTable } from './schema.js';
import type { TableName } from './table-name.js';

/** An instance shared by the sessions of this process on one file, and the chain its transactions run on. */
export interface SharedInstance {
  readonly instance: Promise<DuckDBInstance>;
  users: number;
  chain: Promise<unknown>;
  /** bytes; raised by {@link fitMemoryLimit}, never lowered */
  memoryLimit: number;
}

/** The file's catalog in its instance; every connection of {@link connect} uses it. */
const CATALOG = 'collections_file';

const instances = new Map<string, SharedInstance>();

/**
 * Memory of an export, bounded whatever the table's size. DuckDB holds committed rows in memory
 * until a checkpoint writes them into the file, and a checkpoint rewrites the row group it appends
 * to, so DuckDB's own 122,880-row groups made each checkpoint cost more than the last
 * (test/bench/results.md, «DuckDB row groups and memory»). Row groups of {@link ROW_GROUP_SIZE}
 * rows keep each checkpoint small, so one can run every 64 MB of WAL; past `memory_limit` DuckDB
 * evicts written blocks and spills the rest to `<file>.tmp` (DuckDB's own default folder for a
 * file, which it empties on close). One thread: the fetching and parsing of the next pages keep the
 * other core, and a second DuckDB thread cost CPU that shortened no commit. Per instance, not stored
 * in the file; a crash replays the WAL.
 */
const INSTANCE_OPTIONS: Record<string, string> = { checkpoint_threshold: '64MB', memory_limit: '256MB', threads: '1' };
const ROW_GROUP_SIZE = 16_384;
const MiB = 1024 * 1024;
/**
 * DuckDB's JSON reader and the upsert's hash tables hold a group several times over, in memory
 * that does not spill (measured: «DuckDB row groups and memory»).
 */
const MEMORY_PER_GROUP_BYTE = 8;

/** Raises the instance's `memory_limit` to hold a group of `groupBytes` (a page may be far larger than a usual group). */
export async function fitMemoryLimit(shared: SharedInstance, connection: DuckDBConnection, groupBytes: number): Promise<void> {
  const needed = Math.ceil((groupBytes * MEMORY_PER_GROUP_BYTE) / MiB) * MiB;
  if (needed <= shared.memoryLimit) return;
  await connection.run(`SET memory_limit = '${needed / MiB}MiB'`);
  shared.memoryLimit = needed;
}

/** The instance of `path`: an in-memory one with the file attached as {@link CATALOG} (a row group size is an option of ATTACH). */
async function create(duckdb: typeof import('@duckdb/node-api'), path: string): Promise<DuckDBInstance> {
  const instance = await duckdb.DuckDBInstance.create(':memory:', { ...INSTANCE_OPTIONS, temp_directory: `${path}.tmp` });
  try {
    const connection = await instance.connect();
    try {
      await connection.run(`ATTACH '${path.replace(/'/g, "''")}' AS ${CATALOG} (ROW_GROUP_SIZE ${ROW_GROUP_SIZE})`);
    } finally {
      connection.closeSync();
    }
    return instance;
  } catch (err) {
    instance.closeSync();
    throw err;
  }
}

/** A connection on the shared instance, on the file's catalog. */
export async function connect(shared: SharedInstance): Promise<DuckDBConnection> {
  const connection = await (await shared.instance).connect();
  await connection.run(`USE ${CATALOG}`);
  return connection;
}

/** Opens (or joins) the instance of `path`. @throws {CollectionsError} (exit 7, `E_LOCKED`) when another process holds the file */
export async function instanceOf(path: string, shown: string): Promise<SharedInstance> {
  let shared = instances.get(path);
  if (shared === undefined) {
    // In the map before the first await: two sessions starting at once must share one instance
    // (two instances of one file in one process corrupt it; DuckDB's file lock is per process).
    const instance = loadDriver<typeof import('@duckdb/node-api')>('@duckdb/node-api', shown).then((duckdb) => create(duckdb, path));
    shared = { instance, users: 0, chain: Promise.resolve(), memoryLimit: 256 * MiB };
    instances.set(path, shared);
    instance.catch(() => instances.delete(path));
  }
  shared.users += 1;
  try {
    await shared.instance;
  } catch (err) {
    shared.users -= 1;
    throw openError(err, shown);
  }
  return shared;
}

/** DuckDB's refusal to open a file: exit 7, `E_LOCKED` when another process holds it. */
function openError(err: unknown, shown: string): CollectionsError {
  const message = (err as Error).message;
  const pid = /PID (\d+)/.exec(message)?.[1];
  if (/lock/i.test(message)) {
    return new CollectionsError(`another process${pid === undefined ? '' : ` (PID ${pid})`} holds the DuckDB file ${shown}`, 'E_LOCKED', {
      hint: 'wait for it to end; DuckDB lets one process write a file at a time',
    });
  }
  return databaseError(`cannot open the DuckDB file ${shown}`, err);
}

/** A connection that only reads, and how to end it. */
export interface ReadOnlyFile {
  readonly connection: DuckDBConnection;
  close(): void;
}

/**
 * Opens the existing file `path` read-only, in an instance of its own (never the shared writable
 * one): nothing is written, not even a checkpoint of its write-ahead log, a file the user may only
 * read opens, and DuckDB's lock still refuses it while another process writes it. DuckDB refuses
 * a missing file in this mode rather than create it.
 * @throws {CollectionsError} (exit 7; `E_LOCKED` when another process holds the file)
 */
export async function openReadOnly(path: string, shown: string): Promise<ReadOnlyFile> {
  const duckdb = await loadDriver<typeof import('@duckdb/node-api')>('@duckdb/node-api', shown);
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    await connection.run(`ATTACH '${path.replace(/'/g, "''")}' AS ${CATALOG} (READ_ONLY)`);
    await connection.run(`USE ${CATALOG}`);
    await connection.run("SET TimeZone = 'UTC'");
  } catch (err) {
    connection?.closeSync();
    instance.closeSync();
    throw openError(err, shown);
  }
  const open = connection;
  return {
    connection: open,
    close: () => {
      open.closeSync();
      instance.closeSync();
    },
  };
}

/** Leaves the instance of `path`, closing it with its last session. */
export async function leave(path: string, shared: SharedInstance): Promise<void> {
  shared.users -= 1;
  if (shared.users > 0) return;
  instances.delete(path);
  await shared.chain.catch(() => undefined);
  (await shared.instance).closeSync();
}

/** Rows of a query, every value as text (numbers as DuckDB prints them, lists as JSON) or null. */
export async function rows(
  connection: DuckDBConnection,
  sql: string,
  values: Array<string | null> = [],
): Promise<Array<Record<string, string | null>>> {
  const text = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v));
  return (await connection.runAndReadAll(sql, values))
    .getRowObjectsJson()
    .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, text(v)])));
}

/**
 * Runs `work` after everything else queued on the file's instance in this process: its sessions run
 * one statement at a time (DuckDB refuses two transactions that write one table at once).
 */
export function serial<T>(shared: SharedInstance, work: () => Promise<T>): Promise<T> {
  const next = shared.chain.then(work, work);
  shared.chain = next.catch(() => undefined);
  return next;
}

/** Runs `work` in a transaction of `connection`, {@link serial}ly. */
export function inTransaction<T>(shared: SharedInstance, connection: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  return serial(shared, async () => {
    await connection.run('BEGIN TRANSACTION');
    try {
      const result = await work();
      await connection.run('COMMIT');
      return result;
    } catch (err) {
      await connection.run('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}

/** What the catalog says of a table; undefined when it does not exist. */
export async function existing(connection: DuckDBConnection, table: TableName, name: string): Promise<ExistingTable | undefined> {
  const schema = table.schema ?? null;
  const columns = await rows(
    connection,
    "SELECT column_name AS name, data_type AS type, (is_nullable = 'NO' AND column_default IS NULL)::VARCHAR AS required " +
      'FROM information_schema.columns WHERE table_schema = coalesce($1, current_schema()) AND table_name = $2',
    [schema, name],
  );
  if (columns.length === 0) return undefined;
  const key = await rows(
    connection,
    "SELECT array_to_string(constraint_column_names, ',') AS key FROM duckdb_constraints() WHERE schema_name = coalesce($1, current_schema()) AND table_name = $2 AND constraint_type = 'PRIMARY KEY'",
    [schema, name],
  );
  const primaryKey = key[0]?.key;
  return {
    columns: new Map(columns.map((c) => [c.name!, c.type!])),
    primaryKey: primaryKey ? primaryKey.split(',') : [],
    required: columns.filter((c) => c.required === 'true').map((c) => c.name!),
  };
}
