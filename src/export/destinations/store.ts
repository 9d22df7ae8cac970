/**
 * What a database destination asks of its driver (export/destinations/postgres-store.ts,
 * duckdb-store.ts): one table and one source, written by one session at a time, where the rows of a
 * group of pages and the run's checkpoint are committed in one transaction. The run logic is
 * export/destinations/database.ts's; a store only speaks its database's SQL.
 */
import type { DuckDbAddress, PostgresAddress } from './address.js';
import type { TableName } from './table-name.js';

/** What a database destination writes to: one table of one database, for one source. */
export interface StoreTarget {
  readonly address: PostgresAddress | DuckDbAddress;
  readonly table: TableName;
  /** The member field that is the key, as path segments; undefined: `id`, else `@id`. */
  readonly key: readonly string[] | undefined;
  /** The collection path and its `--param`s, e.g. `/taxpayers/X/invoices?status=VIGENTE`: what the rows, the lock and the watermark belong to. */
  readonly source: string;
  /** The taxpayer of the path, stored in every row; undefined when the path has none. */
  readonly taxpayer: string | undefined;
}

/** The checkpoint a run keeps in its row of the run log (the fields of a file checkpoint that a database needs). */
export interface StoredCheckpoint {
  /** The options that shaped the run; a `--resume` with others is refused. */
  readonly fingerprint: Record<string, unknown>;
  /** The formatter's state (NDJSON keeps none). */
  readonly formatter: Record<string, unknown>;
  readonly totalItems?: number;
  /** The pending watermark of the run (see `saveWatermark`), kept by `--resume`. */
  readonly watermark?: string;
}

/** The latest run of a table and source, as the run log holds it. */
export interface StoredRun {
  readonly runId: string;
  /** `running` (also a run that was killed, until the next run of the table and source), `complete`, `failed`, `interrupted` or `killed`. */
  readonly status: string;
  readonly next: string | null;
  readonly items: number;
  readonly pages: number;
  readonly checkpoint: StoredCheckpoint | undefined;
}

/** The counters of a run, for the run log. */
export interface RunStats {
  readonly items: number;
  readonly pages: number;
  readonly requests: number;
  readonly retries: number;
  readonly waits: number;
  readonly waitMs: number;
}

/** What a group's transaction records with its rows. */
export interface GroupMark {
  readonly next: string | null;
  readonly items: number;
  readonly pages: number;
  /** `X-Request-ID` of the group's last page, when the server sent one. */
  readonly requestId: string | undefined;
  /** The server's time of the run's first response (the rows' `synced_at`), ISO 8601. */
  readonly serverTime: string | undefined;
  readonly checkpoint: StoredCheckpoint;
  /** The counters this session spent since the mark it last sent (requests, retries, waits, wait ms), added to the run's. */
  readonly spent: RunStats;
}

/** Rows a transaction inserted or changed (unchanged items rewrite nothing and count in neither). */
export interface RowCounts {
  inserted: number;
  updated: number;
  /** Items kept apart in `collections_rejects`: the database cannot hold them as written. */
  rejected: number;
}

/** A row to delete because the service deleted its record (docs/databases.md, "Deletions"). */
export interface RowDeletion {
  /** The key. */
  readonly id: string;
  /** When the service deleted it, ISO 8601 UTC; null when the event's time could not be read. */
  readonly at: string | null;
}

/** What the final transaction of a complete run records. */
export interface FinalRun {
  /** Items and pages of the whole run; requests, retries, waits and wait ms this session spent since its last committed group. */
  readonly stats: RunStats;
  /** `--prune`: delete the source's rows this run did not see. */
  readonly prune: boolean;
  /**
   * The deletions followed by an incremental run: each row goes, whichever source wrote it, unless it
   * is newer than its deletion (its `updated_at` later: the record came back) or this run wrote it
   * (its `synced_at` is {@link serverTime}: the run read it after it came back).
   */
  readonly deletions?: readonly RowDeletion[];
  /** The server's time of the run's first response (the `synced_at` of the rows it wrote), ISO 8601. */
  readonly serverTime?: string;
  /** The watermark to store; undefined: none (not incremental, `--max-items`, no `Date`). */
  readonly watermark: string | undefined;
}

/** One session on a database for one {@link StoreTarget}. */
export interface TableStore {
  /**
   * How many {@link commitGroup} calls may be under way at once (1 when undefined). A store that
   * takes more commits them in call order, and fails a call without committing once an earlier one failed.
   */
  readonly commitsAtOnce?: number;
  /**
   * Creates the table, the run log and the seen-ids table when missing, and checks the shape of
   * those that exist. @throws {UsageError} (exit 2) for a table of another shape, naming it
   */
  prepare(): Promise<void>;
  /** Takes the one-writer lock of the table and source, held until {@link close}. @throws {CollectionsError} (exit 7, `E_LOCKED`) */
  lock(): Promise<void>;
  /** The newest run of the table and source in the run log, if any. */
  latestRun(): Promise<StoredRun | undefined>;
  /**
   * Adds a run to the run log (`running`), or marks the resumed one `running` again. Any other run of
   * the table and source still `running` was killed (its lock is free, and this session holds it
   * now): it is marked `killed`. @returns its id
   */
  startRun(mode: string, checkpoint: StoredCheckpoint, resumed: string | undefined): Promise<string>;
  /**
   * Upserts the items of `ndjson` (one JSON text a line) and records `mark` in the run's row, in one transaction.
   * @param seen also record the items' keys for `--prune`
   */
  commitGroup(runId: string, ndjson: readonly Buffer[], mark: GroupMark, seen: boolean): Promise<RowCounts>;
  /** The final transaction: prune, count the source's rows, store the watermark, mark the run complete. */
  finishRun(runId: string, final: FinalRun): Promise<{ deleted: number; rows: number }>;
  /** Marks a run that stopped early (`failed`, `interrupted`), adding what `stats` spent since the last committed group; never throws (the database may be gone). */
  endRun(runId: string, status: 'failed' | 'interrupted', stats: RunStats): Promise<void>;
  /** Ends the session and so releases the lock; never throws. */
  close(): Promise<void>;
}

/** What a run would find before it writes (`--dry-run`), read without creating or locking anything. */
export interface StoreInspection {
  /** Whether the database exists (a DuckDB file may not yet: the run creates it). */
  readonly database: boolean;
  /** Whether the table exists (else the run creates it). */
  readonly table: boolean;
  /** The newest run of the table and source in the run log, if any. */
  readonly latest: StoredRun | undefined;
}

/** A read-only session on a database (`verify`). */
export interface TableReader {
  /** Rows of `sql` (parameters `$1`…), every value as text (cast in the query) or null. */
  rows(sql: string, params?: string[]): Promise<Array<Record<string, string | null>>>;
  /** Whether the table `name` (quoted, maybe qualified) exists. */
  exists(name: string): Promise<boolean>;
  /** The schemas that hold a run log (`collections_runs`), the current one first, then by name. */
  runLogSchemas(): Promise<string[]>;
  close(): Promise<void>;
}

/** A stored checkpoint, or undefined when it is not one (then `--resume` starts afresh). */
export function parseCheckpoint(text: string | null): StoredCheckpoint | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as { fingerprint?: unknown; formatter?: unknown };
    const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
    return isObject(value.fingerprint) && isObject(value.formatter) ? (value as StoredCheckpoint) : undefined;
  } catch {
    return undefined;
  }
}
