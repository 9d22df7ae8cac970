/**
 * The driver of a database address, loaded on first use: PostgreSQL (export/destinations/postgres-store.ts)
 * or DuckDB (export/destinations/duckdb-store.ts). Nothing else imports them, so `--help` and file
 * exports load neither.
 */
import type { StoreInspection, StoreTarget, TableStore } from './store.js';

/** The environment a store reads (`PGPASSWORD`). */
type Env = Readonly<Record<string, string | undefined>>;

/** Opens a session of the driver of `target`'s address. */
export async function openStore(target: StoreTarget, env: Env): Promise<TableStore> {
  if (target.address.kind === 'postgres') return (await import('./postgres-store.js')).openPostgresStore(target, { env });
  return (await import('./duckdb-store.js')).openDuckDbStore(target);
}

/** A read-only look at what a run on `target` would find (`--dry-run`); creates nothing. */
export async function inspectStore(target: StoreTarget, env: Env): Promise<StoreInspection> {
  if (target.address.kind === 'postgres') return (await import('./postgres-read.js')).inspectPostgres(target, { env });
  return (await import('./duckdb-read.js')).inspectDuckDb(target);
}

/**
 * The stored watermark of each source of a table ,
 * read before an incremental export is planned.
 */
export async function readWatermarks(target: Pick<StoreTarget, 'address' | 'table'>, env: Env): Promise<Map<string, string>> {
  if (target.address.kind === 'postgres') return (await import('./postgres-read.js')).readPostgresWatermarks(target, { env });
  return (await import('./duckdb-read.js')).readDuckDbWatermarks(target);
}
