/**
 * Which destination an `--out` names (docs/databases.md, "Mirror into a database"): a PostgreSQL
 * URL, an embedded DuckDB file, a Parquet file, or else a file export as before. Pure: nothing is
 * opened here, so a bad URL is a usage error before any request.
 */
import { resolve as resolvePath } from 'node:path';
import { UsageError } from '../../errors.js';
import { redact } from '../../http/redact.js';

/** A PostgreSQL server, as libpq's connection URI names it. */
export interface PostgresAddress {
  readonly kind: 'postgres';
  /** The URL as given, password included: handed to the driver only. */
  readonly url: string;
  /** The password of the URL, percent-decoded; undefined when the URL has none. */
  readonly password: string | undefined;
  /** The URL without its password (`postgres://user@host:5432/db`), for every line shown. */
  readonly shown: string;
}

/** An embedded DuckDB database file. */
export interface DuckDbAddress {
  readonly kind: 'duckdb';
  /** Absolute path of the database file. */
  readonly path: string;
  readonly shown: string;
}

/** A Parquet file, written through DuckDB once the export is complete. */
export interface ParquetAddress {
  readonly kind: 'parquet';
  readonly path: string;
  readonly shown: string;
}

/** Where rows go: a table of PostgreSQL or DuckDB, or one Parquet file. */
export type DatabaseAddress = PostgresAddress | DuckDbAddress | ParquetAddress;

/** Whether `out` is a PostgreSQL connection URI (`postgres://` or `postgresql://`, any case). */
export function isPostgresUrl(out: string): boolean {
  return /^postgres(ql)?:\/\//i.test(out);
}

/**
 * The destination `out` names, or undefined for a file export (and stdout).
 * @param out `--out` as given
 * @param cwd the folder relative paths resolve against
 * @param flag what the refusal of another URL names (`verify` takes databases too)
 * @throws {UsageError} (exit 2) for a PostgreSQL URL that does not parse, and for any other URL
 *   (`scheme:/…`): written as a path, it would make a folder named after it, password included
 */
export function databaseAddress(out: string | undefined, cwd: string, flag = '--out'): DatabaseAddress | undefined {
  if (out === undefined || out === '-') return undefined;
  if (isPostgresUrl(out)) return postgresAddress(out);
  refuseOtherUrl(out, flag);
  const lower = out.toLowerCase();
  if (lower.endsWith('.duckdb')) return { kind: 'duckdb', path: resolvePath(cwd, out), shown: out };
  if (lower.endsWith('.parquet')) return { kind: 'parquet', path: resolvePath(cwd, out), shown: out };
  return undefined;
}

/**
 * RFC 3986 §3.1's scheme, then a slash: `s3://b/k`, `pg://…`, `postgres:/…` (one slash), `file:///x`.
 * Two characters at least, so a Windows drive (`C:/x`) stays a path.
 */
const URL_LIKE = /^([A-Za-z][A-Za-z0-9+.-]+):\//;

/** Schemes a user means PostgreSQL by (libpq takes only the two of {@link isPostgresUrl}). */
const POSTGRES_TYPOS = /^(?:postgres|postgresql|postgress|postgre|postgresq|pg|pgsql|psql)$/i;

/**
 * `out` with the password of its userinfo replaced, whatever the URL's shape: everything between the
 * first `:` after the scheme's slashes and the last `@` (a password may hold `/`, `?` or `@` unencoded).
 */
export function maskUrlPassword(out: string): string {
  const scheme = URL_LIKE.exec(out)?.[0] ?? '';
  const rest = out.slice(scheme.length).replace(/^\/+/, '');
  const start = out.length - rest.length;
  const at = out.lastIndexOf('@');
  const colon = out.indexOf(':', start);
  if (at < start || colon < 0 || colon > at) return out;
  const password = out.slice(colon + 1, at);
  return `${out.slice(0, colon + 1)}${redact(password, [password], 1)}${out.slice(at)}`;
}

/** @throws {UsageError} (exit 2) naming the scheme, the URL shown without its password */
function refuseOtherUrl(out: string, flag: string): void {
  const scheme = URL_LIKE.exec(out)?.[1];
  if (scheme === undefined) return;
  const shown = maskUrlPassword(out);
  const lower = scheme.toLowerCase();
  let hint = 'collections writes a file path, - (stdout), postgres://user@host:5432/database, F.duckdb or F.parquet';
  if (lower === 'file') hint = 'give the path itself, without file:';
  else if (POSTGRES_TYPOS.test(lower)) hint = 'a PostgreSQL URL is written postgres://user@host:5432/database (or postgresql://), with two slashes';
  throw new UsageError(`${flag} ${shown} is a URL of scheme ${scheme}:, not a destination collections writes`, { hint });
}

/** `url` without its password, for lines shown; the rest as given. */
function withoutPassword(url: URL): string {
  const copy = new URL(url.href);
  copy.password = '';
  return copy.href;
}

/**
 * Parses a PostgreSQL URL. libpq's own syntax is accepted (a host list, a Unix socket folder in
 * `host=`); only what WHATWG URL parsing refuses is refused here, the rest is the server's to answer.
 * @throws {UsageError} (exit 2) naming the URL without its password
 */
function postgresAddress(out: string): PostgresAddress {
  let url: URL;
  try {
    url = new URL(out);
  } catch {
    // The text is not shown: it may hold a password that did not parse.
    throw new UsageError('--out is not a valid PostgreSQL URL', { hint: 'write it as postgres://user@host:5432/database' });
  }
  const shown = withoutPassword(url);
  let password: string | undefined;
  try {
    password = url.password === '' ? undefined : decodeURIComponent(url.password);
  } catch {
    throw new UsageError(`--out ${shown}: the password is not valid percent-encoding`);
  }
  return { kind: 'postgres', url: out, password, shown };
}
