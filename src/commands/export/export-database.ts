/**
 * The database side of an export plan (docs/databases.md, "Mirror into a database"): which
 * destination `--out` names, the flags that go with it (`--table`, `--key`, `--incremental`,
 * `--prune`) and those that do not, the table's source, and the watermark stored with the table.
 * Everything but {@link storedDatabaseSince} is pure: a bad URL or table name is exit 2 before any
 * request.
 */
import type { Context } from '../../context.js';
import type { Endpoint, Ids } from '../../endpoints.js';
import { UsageError } from '../../errors.js';
import { databaseAddress, isPostgresUrl, type DatabaseAddress } from '../../export/destinations/address.js';
import type { DatabasePlan } from '../../export/destinations/database.js';
import { defaultTableName, parseTableName, tableText } from '../../export/destinations/table-name.js';
import type { ExportPlan } from '../../export/run/plan.js';
import { parseSince } from '../../export/state/since.js';
import type { ExportFlags } from '../flags.js';

/**
 * The source of a table's rows: the collection path and the `--param`s (the API's filters) as a
 * query, e.g. `/taxpayers/X/invoices?status=VIGENTE`. The lock, the watermark and `--prune` belong
 * to it, so a filtered export never prunes or advances what an unfiltered one saw.
 */
export function sourceOf(path: string, params: ReadonlyArray<readonly [string, string]>): string {
  return params.length === 0 ? path : `${path}?${new URLSearchParams(params.map(([k, v]): [string, string] => [k, v])).toString()}`;
}

/** Whether `out` names a database table (PostgreSQL or DuckDB), where every taxpayer of a run is a source of one table. */
export function isDatabaseTable(out: string, cwd: string): boolean {
  const address = databaseAddress(out, cwd);
  return address !== undefined && address.kind !== 'parquet';
}

/** The flags that make no sense with each kind of destination, and why. */
function refuse(flag: string, why: string): never {
  throw new UsageError(`${flag} ${why}`);
}

/**
 * Checks the flags that depend on the destination.
 * @throws {UsageError} (exit 2): `--format`, `--compress`, `--manifest` or `--csv-safe` with a
 *   database or Parquet `--out`; `--fields`, `--state` with a database; `--table`, `--key`,
 *   `--incremental`, `--prune` without one; `--prune` with `--incremental`, `--since`,
 *   `--max-items` or `--page`
 */
function checkDestinationFlags(flags: ExportFlags, address: DatabaseAddress | undefined): void {
  const table = address !== undefined && address.kind !== 'parquet';
  if (!table) {
    const needs = address === undefined ? 'needs a database --out (postgres://…, F.duckdb)' : 'is for a database table, not a Parquet file';
    if (flags.table !== undefined) refuse('--table', needs);
    if (flags.key !== undefined) refuse('--key', needs);
    if (flags.incremental === true) refuse('--incremental', `${needs}; incremental file exports use --state FILE`);
    if (flags.prune === true) refuse('--prune', needs);
  }
  if (address === undefined) return;
  const kind = address.kind === 'parquet' ? 'a Parquet --out' : 'a database --out';
  if (flags.format !== undefined) refuse('--format', `goes with a file --out; ${kind} has its own format`);
  if (flags.compress !== undefined) refuse('--compress', `goes with a file --out, not ${kind}`);
  if (flags.manifest !== undefined) refuse('--manifest', `goes with a file --out, not ${kind}`);
  if (flags.csvSafe === true) refuse('--csv-safe', `is for CSV read by spreadsheets, not ${kind}`);
  if (!table) return;
  if (flags.fields !== undefined) refuse('--fields', 'projects items, and a database stores each item as received; query its item column instead');
  if (flags.state !== undefined) refuse('--state', 'is the watermark file of file exports; a database keeps its own: use --incremental');
  if (flags.prune === true) {
    const partial = flags.incremental
      ? '--incremental'
      : flags.since !== undefined
        ? '--since'
        : flags.maxItems !== undefined
          ? '--max-items'
          : flags.page !== undefined
            ? '--page'
            : undefined;
    if (partial !== undefined)
      refuse('--prune', `needs a complete, full run: with ${partial} the run does not see every item, so it cannot tell which rows were deleted`);
  }
}

/**
 * The destination `--out` names, its flags checked (see {@link checkDestinationFlags}).
 * @throws {UsageError} (exit 2)
 */
export function planDestination(flags: ExportFlags, cwd: string): DatabaseAddress | undefined {
  const address = databaseAddress(flags.out, cwd);
  checkDestinationFlags(flags, address);
  return address;
}

/**
 * The plan of a database destination: the table (`--table`, else from the path), the key, the
 * source, the taxpayer, the mode, and whether a complete run stores its watermark: an incremental
 * run, or a full one without `--since` (a full run saw everything, so the next `--incremental` may
 * start there); never under `--max-items`, nor where the API has no date filter.
 * @throws {UsageError} (exit 2) for a bad `--table` or `--key`
 */
export function planDatabase(
  address: Exclude<DatabaseAddress, { kind: 'parquet' }>,
  flags: ExportFlags,
  target: { readonly endpoint: Endpoint; readonly ids: Ids; readonly path: string },
): DatabasePlan {
  // From the path, so `get <path>` and the named commands name their tables alike (`/taxpayers/X/invoices/payments` → payments).
  const table = parseTableName(flags.table ?? defaultTableName(target.path));
  let key: string[] | undefined;
  if (flags.key !== undefined) {
    key = flags.key.split('.');
    if (key.some((s) => s === ''))
      throw new UsageError(`--key '${flags.key.slice(0, 100)}' has an empty path segment`, { hint: 'e.g. --key uuid or --key timbre.uuid' });
  }
  const incremental = flags.incremental === true;
  return {
    address,
    table,
    key,
    source: sourceOf(target.path, flags.param ?? []),
    taxpayer: target.ids.taxpayerId,
    mode: incremental ? 'incremental' : 'full',
    prune: flags.prune === true,
    storeWatermark: target.endpoint.watermark !== undefined && flags.maxItems === undefined && (incremental || flags.since === undefined),
  };
}

/** What a database destination adds to the checkpoint's fingerprint: the table, the key and `--prune`. */
export function databaseFingerprint(database: DatabasePlan | undefined): Record<string, unknown> {
  if (database === undefined) return {};
  return { table: tableText(database.table), key: database.key ?? null, prune: database.prune };
}

/**
 * Reads the watermarks stored with the table of `plan` when it is an incremental export without
 * `--since` (which wins, as with `--state`); one connection, before any request.
 * @returns the watermark of each source, epoch ms; undefined when there is nothing to read
 * @throws {CollectionsError} (exit 7) when the database cannot be reached; {@link UsageError}
 *   (exit 2) when a stored watermark is not a time
 */
export async function storedDatabaseSince(plan: ExportPlan, flags: ExportFlags, ctx: Pick<Context, 'env'>): Promise<Map<string, number> | undefined> {
  const database = plan.output.database;
  if (database === undefined || database.mode !== 'incremental' || flags.since !== undefined) return undefined;
  const { readWatermarks } = await import('../../export/destinations/open-store.js');
  const stored = await readWatermarks(database, ctx.env);
  const where = `the watermark stored with ${tableText(database.table)}`;
  return new Map([...stored].map(([source, since]) => [source, parseSince(since, `${where} for ${source}`)]));
}

/** The password of a PostgreSQL destination (from its URL, or `PGPASSWORD`) becomes a secret of the run: no output shows it. */
export function addDatabaseSecrets(plan: ExportPlan, ctx: Pick<Context, 'env' | 'secrets'>): void {
  const address = plan.output.database?.address;
  if (address?.kind !== 'postgres') return;
  ctx.secrets.add(address.password);
  ctx.secrets.add(ctx.env.PGPASSWORD);
}

/** A command line word without the password of a PostgreSQL URL (the "resume with" hint is printed). */
export function withoutPassword(word: string): string {
  if (!isPostgresUrl(word)) return word;
  try {
    const url = new URL(word);
    if (url.password === '') return word;
    url.password = '';
    return url.href;
  } catch {
    return word;
  }
}
