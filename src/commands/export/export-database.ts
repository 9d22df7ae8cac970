/**
 * The database side of an export plan (docs/databases.md). All but {@link storedDatabaseSince} is
 * pure: a bad URL or table name is exit 2 before any request.
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
 * The path and the `--param`s as a query: the lock, the watermark and `--prune` belong to it, so a
 * filtered export never prunes or advances what an unfiltered one saw.
 */
export function sourceOf(path: string, params: ReadonlyArray<readonly [string, string]>): string {
  return params.length === 0 ? path : `${path}?${new URLSearchParams(params.map(([k, v]): [string, string] => [k, v])).toString()}`;
}

/** PostgreSQL or DuckDB: every taxpayer of a run is a source of one table. */
export function isDatabaseTable(out: string, cwd: string): boolean {
  const address = databaseAddress(out, cwd);
  return address !== undefined && address.kind !== 'parquet';
}

function refuse(flag: string, why: string): never {
  throw new UsageError(`${flag} ${why}`);
}

/**
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

/** @throws {UsageError} (exit 2) as {@link checkDestinationFlags} */
export function planDestination(flags: ExportFlags, cwd: string): DatabaseAddress | undefined {
  const address = databaseAddress(flags.out, cwd);
  checkDestinationFlags(flags, address);
  return address;
}

/**
 * A full run without `--since` stores its watermark too (it saw everything, so the next
 * `--incremental` may start there); never under `--max-items`, nor where the API has no date filter.
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

export function databaseFingerprint(database: DatabasePlan | undefined): Record<string, unknown> {
  if (database === undefined) return {};
  return { table: tableText(database.table), key: database.key ?? null, prune: database.prune };
}

/**
 * `--since` wins, as with `--state`; one connection, before any request.
 * @returns epoch ms by source; undefined when there is nothing to read
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

/** From its URL or `PGPASSWORD`: no output shows it. */
export function addDatabaseSecrets(plan: ExportPlan, ctx: Pick<Context, 'env' | 'secrets'>): void {
  const address = plan.output.database?.address;
  if (address?.kind !== 'postgres') return;
  ctx.secrets.add(address.password);
  ctx.secrets.add(ctx.env.PGPASSWORD);
}

/** The "resume with" hint is printed. */
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
