/**
 * The password file of libpq (PostgreSQL documentation, "The Password File"): `PGPASSFILE`, else
 * `~/.pgpass`; lines `hostname:port:database:username:password`, `*` matching anything, `\:` and
 * `\\` escaped, the first matching line winning; a file readable by group or others is ignored, as
 * libpq does. Read here rather than by `pg`, whose own lookup is deprecated and reads `process`.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** What a line is matched against. */
export interface PgpassQuery {
  readonly host: string;
  readonly port: number | string;
  readonly database: string;
  readonly user: string;
}

/** The fields of one line, unescaped; undefined for a comment, a blank or a short line. */
function fields(line: string): string[] | undefined {
  if (line.trim() === '' || line.startsWith('#')) return undefined;
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) current += line[++i]!;
    else if (c === ':' && out.length < 4) {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out.length === 5 ? out : undefined;
}

/** The password for `query` in the text of a password file, if a line matches. */
export function findPassword(text: string, query: PgpassQuery): string | undefined {
  const wanted = [query.host, String(query.port), query.database, query.user];
  for (const line of text.split(/\r?\n/)) {
    const f = fields(line);
    if (f !== undefined && wanted.every((value, i) => f[i] === '*' || f[i] === value || (i === 0 && f[i] === 'localhost' && value.startsWith('/')))) {
      return f[4];
    }
  }
  return undefined;
}

/** What the password file gave: a password, or why a file that is there was not read. */
export interface PgpassLookup {
  readonly password?: string;
  /** libpq's own warning, e.g. `password file "/home/etl/.pgpass" has group or world access; permissions should be u=rw (0600) or less`. */
  readonly ignored?: string;
}

/**
 * The password of the password file for `query`; none without a file or without a match, and none
 * with the reason when the file is open to group or others (which libpq ignores, with this warning).
 */
export async function pgpassLookup(query: PgpassQuery, env: Readonly<Record<string, string | undefined>>): Promise<PgpassLookup> {
  const path = env.PGPASSFILE ?? (env.HOME === undefined ? undefined : join(env.HOME, '.pgpass'));
  if (path === undefined) return {};
  try {
    if (process.platform !== 'win32' && ((await stat(path)).mode & 0o077) !== 0) {
      return { ignored: `password file "${path}" has group or world access; permissions should be u=rw (0600) or less` };
    }
    const password = findPassword(await readFile(path, 'utf8'), query);
    return password === undefined ? {} : { password };
  } catch {
    return {};
  }
}
