/**
 * The two database destinations as the tests see them: an `--out` for a fresh database (a new
 * PostgreSQL database on the file's test server, or a new DuckDB file) and a way to query it. The
 * DuckDB instance of a query is closed before it returns, so the export under test can open the
 * file again.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import type { TestPostgres } from './postgres.js';
import type { TempDir } from './world.js';

/** A fresh database of one kind. */
export interface TestDatabase {
  readonly kind: 'postgres' | 'duckdb';
  /** The `--out` that names it (a PostgreSQL URL with the test password). */
  readonly out: string;
  /** Rows of `sql` (parameters `$1`…), every value as text or null. */
  rows(sql: string, params?: string[]): Promise<Array<Record<string, string | null>>>;
  /** Runs a statement. */
  run(sql: string): Promise<void>;
  /** The item column as text in a form both dialects compare: DuckDB's as stored, PostgreSQL's jsonb as PostgreSQL prints it. */
  readonly itemText: string;
}

/** Rows with every value as text (numbers and times as the database prints them). */
function asText(rows: Array<Record<string, unknown>>): Array<Record<string, string | null>> {
  return rows.map((r) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v)])),
  );
}

/** A fresh PostgreSQL database on `server`. */
export async function postgresDatabase(server: TestPostgres): Promise<TestDatabase> {
  const db = await server.createDatabase();
  return {
    kind: 'postgres',
    out: server.url(db),
    rows: async (sql, params = []) => asText(await server.query(db, sql, params)),
    run: async (sql) => {
      await server.query(db, sql);
    },
    itemText: 'item::text',
  };
}

/** A fresh DuckDB file in `dir`. */
export function duckdbDatabase(dir: TempDir, name = 'mirror.duckdb'): TestDatabase {
  const path = dir.file(name);
  const withConnection = async <T>(
    work: (run: (sql: string, params?: string[]) => Promise<Array<Record<string, unknown>>>) => Promise<T>,
  ): Promise<T> => {
    const instance = await DuckDBInstance.create(path);
    try {
      const connection = await instance.connect();
      try {
        return await work(async (sql, params = []) => (await connection.runAndReadAll(sql, params)).getRowObjectsJson());
      } finally {
        connection.closeSync();
      }
    } finally {
      instance.closeSync();
    }
  };
  return {
    kind: 'duckdb',
    out: path,
    rows: (sql, params) => withConnection(async (run) => asText(await run(sql, params))),
    run: (sql) =>
      withConnection(async (run) => {
        await run(sql);
      }),
    itemText: 'item::VARCHAR',
  };
}
