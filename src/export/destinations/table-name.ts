/**
 * Table names of database destinations: the default one of a command or a path, `--table` checked,
 * and identifiers quoted. A name is never spliced into SQL unquoted, and only names of this shape
 * are quoted at all, so no text from a flag, the server or an item ever becomes SQL.
 */
import { UsageError, hint, option } from '../../errors.js';

/** A table, optionally in a schema; both parts as typed (quoted, so case matters). */
export interface TableName {
  readonly schema: string | undefined;
  readonly name: string;
}

/** One identifier part: a letter or `_`, then letters, digits or `_`; at most 63 bytes (PostgreSQL's NAMEDATALEN − 1). */
const PART = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The default tables of the endpoint keys whose name is not their last path segment. */
const BY_ENDPOINT_KEY: Readonly<Record<string, string>> = {
  'taxpayer-line-items': 'line_items',
  'taxpayer-invoice-line-items': 'line_items',
  'invoice-line-items': 'line_items',
};

/**
 * The default table of an endpoint key (`invoices`, `invoice-line-items` → `line_items`) or of a
 * path as `get` takes it: its last segment without the query, lowercased, with every character
 * other than a letter, digit or `_` as `_` (`/entities/E1/invoices?x=1` → `invoices`,
 * `/invoices/payments` → `payments`, `/invoices/A1/line-items` → `line_items`). A segment that
 * cannot be a name (empty, or starting with a digit) gives `items`.
 */
export function defaultTableName(endpointKeyOrPath: string): string {
  const known = BY_ENDPOINT_KEY[endpointKeyOrPath];
  if (known !== undefined) return known;
  const path = endpointKeyOrPath.split(/[?#]/, 1)[0]!;
  const last =
    path
      .split('/')
      .filter((s) => s !== '')
      .pop() ?? '';
  let segment = last;
  try {
    segment = decodeURIComponent(last);
  } catch {
    // A malformed escape is kept as typed; its `%` becomes `_` below.
  }
  const name = segment
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 63);
  return PART.test(name) ? name : 'items';
}

/**
 * Parses `--table`: `name` or `schema.name`, each part a plain identifier.
 * @throws {UsageError} (exit 2) for anything else, and for a system schema, before any request
 */
export function parseTableName(text: string): TableName {
  const parts = text.split('.');
  if (parts.length > 2 || !parts.every((p) => PART.test(p))) {
    throw new UsageError(`--table '${text.slice(0, 100)}' is not a table name`, {
      hint: 'use letters, digits and _ (not first), at most 63 of them, optionally schema.table',
    });
  }
  if (parts.length === 2 && SYSTEM_SCHEMA.test(parts[0]!)) {
    throw new UsageError(`--table ${text}: ${parts[0]!} is a system schema of the database, not one collections writes into`, {
      hint: hint`give a table of your own schema, e.g. ${option('table', 'public.invoices')} or ${option('table', 'analytics.invoices')}`,
    });
  }
  return parts.length === 2 ? { schema: parts[0], name: parts[1]! } : { schema: undefined, name: parts[0]! };
}

/** PostgreSQL's own schemas (`pg_catalog`, `pg_toast`, and every `pg_` name, which users cannot create) and the SQL standard's; DuckDB has the two as well. */
const SYSTEM_SCHEMA = /^(?:pg_\w*|information_schema)$/i;

/** Quotes one identifier part for SQL (PostgreSQL and DuckDB alike). Parts are checked by {@link parseTableName}, so none holds `"`. */
function quoteIdent(part: string): string {
  if (!PART.test(part)) throw new Error(`not an identifier: ${part}`);
  return `"${part}"`;
}

/** The quoted, schema-qualified name of `name` in the schema of `table` (the run log sits beside the table). */
export function besideTable(table: TableName, name: string): string {
  return table.schema === undefined ? quoteIdent(name) : `${quoteIdent(table.schema)}.${quoteIdent(name)}`;
}

/** The quoted name of `table`. */
export function quoteTable(table: TableName): string {
  return besideTable(table, table.name);
}

/** The table as shown in lines and stored in the run log: `name` or `schema.name`. */
export function tableText(table: TableName): string {
  return table.schema === undefined ? table.name : `${table.schema}.${table.name}`;
}
