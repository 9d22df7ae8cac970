/**
 * A PostgreSQL session (export/destinations/postgres-store.ts, postgres-read.ts): the connection,
 * with the password from the URL, `PGPASSWORD` or the password file, and what the catalog says of
 * a table.
 */
import type { Client, ClientConfig } from 'pg';
import type { PostgresAddress } from './address.js';
import { OutputError } from '../../errors.js';
import { databaseError } from './database.js';
import { loadDriver } from './driver.js';
import { pgpassLookup, type PgpassQuery } from './pgpass.js';
import type { ExistingTable } from './schema.js';

/** What a PostgreSQL store needs beside its target. */
export interface PostgresStoreOptions {
  /** The environment the password may come from (`PGPASSWORD`, else the file of `PGPASSFILE` or `HOME`). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** How long a connection attempt may take without `connect_timeout`, ms: an unreachable host fails instead of hanging a nightly job. */
const CONNECT_TIMEOUT_MS = 30_000;

/** Reads what the catalog says of `name` (quoted, maybe qualified); undefined when there is no such table. */
export async function existing(client: Client, name: string): Promise<ExistingTable | undefined> {
  const columns = await client.query<{ name: string; type: string; required: boolean }>(
    'SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, ' +
      "(a.attnotnull AND NOT a.atthasdef AND a.attidentity = '' AND a.attgenerated = '') AS required FROM pg_attribute a " +
      'WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped',
    [name],
  );
  if (columns.rows.length === 0) return undefined;
  const key = await client.query<{ name: string }>(
    'SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) ' +
      'WHERE i.indrelid = to_regclass($1) AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)',
    [name],
  );
  return {
    columns: new Map(columns.rows.map((r) => [r.name, r.type])),
    primaryKey: key.rows.map((r) => r.name),
    required: columns.rows.filter((r) => r.required).map((r) => r.name),
  };
}

/**
 * What `pg` is given for `url`, so that it reads the parameters as libpq does: `sslmode` (else
 * `PGSSLMODE`) with libpq's meaning (`require` encrypts without checking the certificate, unless
 * `sslrootcert` names a CA), which `pg` applies only with `uselibpqcompat=true` (otherwise it
 * verifies as `verify-full` and prints a security warning on stderr); `connect_timeout` in seconds
 * (0: none; libpq waits at least 2). The rest (`application_name`, `sslrootcert`, `options`…) `pg` reads itself.
 */
function libpqConfig(url: string, env: Readonly<Record<string, string | undefined>>): { connectionString: string; connectionTimeoutMillis: number } {
  const parsed = new URL(url);
  const params = parsed.searchParams;
  const sslmode = params.get('sslmode') ?? env.PGSSLMODE;
  if (!params.has('sslmode') && sslmode !== undefined && sslmode !== '') params.set('sslmode', sslmode);
  if (!params.has('uselibpqcompat')) params.set('uselibpqcompat', 'true');
  const timeout = Number(params.get('connect_timeout') ?? env.PGCONNECT_TIMEOUT ?? Number.NaN);
  const connectionTimeoutMillis = Number.isInteger(timeout) && timeout >= 0 ? (timeout === 0 ? 0 : Math.max(timeout, 2) * 1000) : CONNECT_TIMEOUT_MS;
  return { connectionString: parsed.href, connectionTimeoutMillis };
}

/**
 * Connects to the server of `address`: the password from the URL, else `PGPASSWORD`, else what `pg`
 * finds in `~/.pgpass`; every other parameter as libpq reads it. Times without an offset are UTC.
 * @throws {CollectionsError} (exit 7) with the server's reason: unreachable, login refused, no such database
 */
export async function connect(address: PostgresAddress, options: PostgresStoreOptions): Promise<Client> {
  const pg = await loadDriver<typeof import('pg')>('pg', address.shown);
  let client: Client;
  try {
    const config: ClientConfig = { ...libpqConfig(address.url, options.env), application_name: 'collections', keepAlive: true };
    client = new pg.default.Client(config);
  } catch (err) {
    // `pg` refuses some parameters as it reads them (`sslmode=verify-ca` without `sslrootcert`, a `sslrootcert` it cannot read).
    throw databaseError(`cannot connect to PostgreSQL at ${address.shown}`, err);
  }
  // Why the password file gave nothing, said with the refusal ("empty password returned by client" alone hides it).
  let ignored: string | undefined;
  if (address.password === undefined) {
    // Set on the client: `pg` lets the URL's empty password win over a `password` option.
    const fromEnv = options.env.PGPASSWORD;
    (client as unknown as { password: unknown }).password =
      fromEnv ??
      (async (params: PgpassQuery) => {
        const found = await pgpassLookup(params, options.env);
        ignored = found.ignored;
        return found.password ?? '';
      });
  }
  // A connection lost between queries is reported on the next one; without a listener it would end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query("SET TIME ZONE 'UTC'");
  } catch (err) {
    await client.end().catch(() => undefined);
    const error = databaseError(`cannot connect to PostgreSQL at ${address.shown}`, err);
    throw ignored === undefined ? error : new OutputError(`${error.message}; ${ignored}`, { cause: err });
  }
  return client;
}
