/**
 * A table of PostgreSQL or DuckDB as the destination of an export (docs/databases.md, "Mirror into
 * a database"). The run loop writes NDJSON (one item a line, as received) and marks the end of each
 * group of pages (`createCheckpointGroups`); here each group becomes one transaction that
 * upserts its items by key and records the run's checkpoint (next link, counts, request id) in the
 * run log. So the table and the checkpoint never disagree: after a kill at any moment, `--resume`
 * continues from the last committed group and re-fetches at most the one after it, whose upsert
 * is then harmless (Kafka Connect's JDBC sink and dlt keep their offsets in the destination for
 * this reason). One group is committed while the next is fetched; a complete run ends with one
 * more transaction: `--prune`, the watermark, the row count and the outcome.
 */
import { CollectionsError, OutputError, UsageError, hint, option } from '../../errors.js';
import { formatCount } from '../../io/format.js';
import { defined } from '../../json/object.js';
import type { Checkpoint } from '../files/checkpoint.js';
import type { DeletedRecord, Destination, PageMark } from '../files/destination.js';
import { REJECTS_TABLE } from './schema.js';
import { tableText } from './table-name.js';
import type { GroupMark, RowCounts, RowDeletion, RunStats, StoreInspection, StoreTarget, StoredCheckpoint, StoredRun, TableStore } from './store.js';

/** The plan of a database destination (commands/ builds it with the rest of the export plan). */
export interface DatabasePlan extends StoreTarget {
  /** `incremental` (`--incremental`) or `full`, as the run log records it. */
  readonly mode: 'full' | 'incremental';
  /** `--prune`. */
  readonly prune: boolean;
  /** Whether a complete run stores its watermark: `--incremental`, or a full run without `--since`. */
  readonly storeWatermark: boolean;
}

/** What opening a database destination needs beside its plan. */
export interface DatabaseOpenOptions {
  /** `--resume`: continue the table and source's unfinished run, if any. */
  readonly resume: boolean;
  /** The options that shape the run; stored with its checkpoint and compared on `--resume`. */
  readonly fingerprint: Record<string, unknown>;
  /** What a stored next link must be on: the configured origin and the command's path. */
  readonly expectedLink: { readonly origin: string; readonly path: string };
  /** A line for stderr (resuming, starting afresh). */
  readonly note: (line: string) => void;
  /** The run's counters so far, for the run log. */
  readonly stats: () => RunStats;
  /** Aborted on SIGINT / SIGTERM: the run log then says `interrupted`. */
  readonly signal: AbortSignal;
  /** Epoch ms now, for the resumed checkpoint's `updatedAt`. */
  readonly now: () => number;
  /** Opens the driver's session (export/destinations/open-store.ts `openStore`). */
  readonly openStore: (target: StoreTarget) => Promise<TableStore>;
}

/** A database destination: a {@link Destination} whose session ends with {@link close}. */
export interface DatabaseDestination extends Destination {
  /** Ends the session, releasing the lock; the run calls it last. */
  close(): Promise<void>;
}

/**
 * The unfinished run `--resume` continues: the newest run of the table and source unless it is
 * complete, with the same options and a next link on this export's path.
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) for other options or a foreign link
 */
function resumable(
  latest: StoredRun | undefined,
  plan: DatabasePlan,
  options: Pick<DatabaseOpenOptions, 'fingerprint' | 'expectedLink'>,
): StoredRun | undefined {
  if (latest === undefined || latest.status === 'complete' || latest.checkpoint === undefined) return undefined;
  const where = `the checkpoint of ${tableText(plan.table)} for ${plan.source}`;
  const theirs = latest.checkpoint.fingerprint;
  const ours = options.fingerprint;
  const differ = Object.keys({ ...ours, ...theirs }).filter((k) => JSON.stringify(ours[k]) !== JSON.stringify(theirs[k]));
  if (differ.length > 0) {
    throw new UsageError(`--resume with different options than the interrupted export (${differ.join(', ')})`, {
      code: 'E_CHECKPOINT',
      hint: hint`repeat the original options, or run without ${option('resume', true)} to start ${where} over`,
    });
  }
  if (latest.next !== null) {
    let url: URL | undefined;
    try {
      url = new URL(latest.next);
    } catch {
      url = undefined;
    }
    if (url?.origin !== options.expectedLink.origin || url.pathname !== options.expectedLink.path || url.username !== '' || url.password !== '') {
      throw new UsageError(
        `${where} does not match this export: its next link is not on ${options.expectedLink.origin}${options.expectedLink.path}`,
        {
          code: 'E_CHECKPOINT',
          hint: hint`run without ${option('resume', true)} to start over`,
        },
      );
    }
  }
  return latest;
}

/** A stored run as the file checkpoint the run loop resumes from. */
function asCheckpoint(run: StoredRun, checkpoint: StoredCheckpoint, nowMs: number): Checkpoint {
  return {
    version: 1,
    fingerprint: checkpoint.fingerprint,
    next: run.next,
    pages: run.pages,
    items: run.items,
    bytes: 0,
    formatter: checkpoint.formatter,
    ...(checkpoint.totalItems !== undefined ? { totalItems: checkpoint.totalItems } : {}),
    ...(checkpoint.watermark !== undefined ? { watermark: checkpoint.watermark } : {}),
    updatedAt: new Date(nowMs).toISOString(),
  };
}

/** The server time of a pending watermark (which is the first response's `Date` less one second). */
function serverTimeOf(watermark: string | undefined): string | undefined {
  if (watermark === undefined) return undefined;
  const ms = Date.parse(watermark);
  return Number.isNaN(ms) ? undefined : new Date(ms + 1000).toISOString();
}

/** A zone-less time (`2025-04-29 19:41:06`, as the service writes its dates) is UTC, as its filters read it. */
const NAIVE_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** A deletion as the final transaction applies it: its time as ISO 8601 UTC, null when unreadable (then it is not compared). */
function rowDeletion(deleted: DeletedRecord): RowDeletion {
  const text = deleted.deletedAt.trim();
  const ms = Date.parse(NAIVE_TIME.test(text) ? `${text.replace(' ', 'T')}Z` : text);
  return { id: deleted.id, at: Number.isNaN(ms) ? null : new Date(ms).toISOString() };
}

/**
 * Opens a database destination before any request: connects, creates or checks the tables, takes
 * the lock of the table and source, then continues the unfinished run (`--resume`) or starts one.
 * @throws {UsageError} (exit 2) for a table of another shape or a checkpoint of other options;
 *   {@link CollectionsError} (exit 7) for a database that cannot be reached, refuses the login, or
 *   whose table and source another export holds
 */
export async function openDatabase(plan: DatabasePlan, options: DatabaseOpenOptions): Promise<DatabaseDestination> {
  const store = await options.openStore(plan);
  try {
    await store.prepare();
    await store.lock();
    const latest = options.resume ? await store.latestRun() : undefined;
    const unfinished = options.resume ? resumable(latest, plan, options) : undefined;
    // A run killed before its first group committed has nothing to continue: it starts again, under its own id.
    const run = unfinished !== undefined && unfinished.pages > 0 ? unfinished : undefined;
    const where = `${tableText(plan.table)} for ${plan.source}`;
    if (options.resume && run === undefined) options.note(`collections: no checkpoint of ${where}; starting afresh`);
    if (run) options.note(`collections: resuming after ${formatCount(run.items)} items (${formatCount(run.pages)} pages)`);
    const first: StoredCheckpoint = { fingerprint: options.fingerprint, formatter: {} };
    const runId = await store.startRun(plan.mode, run?.checkpoint ?? first, unfinished?.runId);
    const resumed = run ? asCheckpoint(run, run.checkpoint!, options.now()) : undefined;
    return databaseDestination(plan, options, store, runId, resumed);
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** What {@link checkDatabase} found: what the run would create, and where `--resume` would continue. */
export interface DatabaseForecast {
  /** What the run would create first: the DuckDB file (and its tables), the table, or nothing. */
  readonly creates: 'file' | 'table' | undefined;
  /** The stored run `--resume` would continue; undefined: the run starts afresh. */
  readonly resumes: { readonly items: number; readonly pages: number } | undefined;
}

/**
 * The checks {@link openDatabase} makes before the first request, with its errors, on a look at the
 * database that writes nothing (the dry run's): the login, the tables' shape, the lock, and with
 * `--resume` the stored checkpoint and its options.
 * @param inspect a read-only look (export/destinations/open-store.ts `inspectStore`)
 * @throws what {@link openDatabase} would throw: {@link UsageError} (exit 2) for another shape or a
 *   checkpoint of other options; {@link CollectionsError} (exit 7) for the login, the file, the lock
 */
export async function checkDatabase(
  plan: DatabasePlan,
  options: Pick<DatabaseOpenOptions, 'resume' | 'fingerprint' | 'expectedLink'>,
  inspect: (target: StoreTarget) => Promise<StoreInspection>,
): Promise<DatabaseForecast> {
  const found = await inspect(plan);
  const creates = !found.database ? 'file' : !found.table ? 'table' : undefined;
  const unfinished = options.resume ? resumable(found.latest, plan, options) : undefined;
  const run = unfinished !== undefined && unfinished.pages > 0 ? unfinished : undefined;
  return { creates, resumes: run && { items: run.items, pages: run.pages } };
}

/**
 * Bytes of groups waiting while commits are under way, shared by those commits (each holds a
 * batch of about this size), past which the page loop waits for the oldest to end: memory stays
 * bounded whatever `atOnce` is.
 */
const MAX_WAITING_BYTES = 16 * 1024 * 1024;

/** The commits of a run; see {@link createCommitChain}. */
interface CommitChain {
  /** Queues a group; waits only when too much is waiting. @throws the failure of an earlier commit */
  add(chunks: Buffer[], mark: GroupMark): Promise<void>;
  /** Waits until everything queued is committed. @throws the failure of a commit */
  settle(): Promise<void>;
}

/**
 * Up to `atOnce` commits under way beside the fetching (the store orders them); groups that end
 * while none can start wait and are committed together with the latest mark, so a database slower
 * than the API gets fewer, larger transactions (as the file durability chain shares one flush
 * among pages), never a checkpoint ahead of its rows. When too much waits, the fetching pauses
 * only until the oldest commit under way ends and the waiting groups start, so the next pages are
 * fetched while those commit.
 */
function createCommitChain(commit: (chunks: Buffer[], mark: GroupMark) => Promise<void>, atOnce: number): CommitChain {
  let waiting: { chunks: Buffer[]; bytes: number; mark: GroupMark } | undefined;
  const underWay: Array<Promise<void>> = [];
  let failure: unknown;
  let failed = false;
  const pump = (): void => {
    while (!failed && waiting !== undefined && underWay.length < atOnce) {
      const next = waiting;
      waiting = undefined;
      const done = commit(next.chunks, next.mark);
      underWay.push(done);
      const ended = (): void => void underWay.splice(underWay.indexOf(done), 1);
      done.then(
        () => {
          ended();
          pump();
        },
        (err: unknown) => {
          ended();
          if (!failed) failure = err;
          failed = true;
          waiting = undefined;
        },
      );
    }
  };
  // Read through a function: `pump()` may have taken the batch already.
  const waitingBytes = (): number => waiting?.bytes ?? 0;
  const maxWaiting = MAX_WAITING_BYTES / atOnce;
  const rethrow = (): void => {
    if (failed) throw failure;
  };
  return {
    async add(chunks, mark) {
      rethrow();
      const bytes = chunks.reduce((n, c) => n + c.length, 0);
      if (waiting === undefined) waiting = { chunks, bytes, mark };
      else waiting = { chunks: [...waiting.chunks, ...chunks], bytes: waiting.bytes + bytes, mark };
      pump();
      // The chain takes the waiting groups as soon as the oldest commit ends (its handler runs first).
      while (waitingBytes() >= maxWaiting && underWay.length > 0) await underWay[0]!.catch(() => undefined);
      rethrow();
    },
    async settle() {
      while (underWay.length > 0) await Promise.allSettled([...underWay]);
      rethrow();
    },
  };
}

const NONE: RunStats = { items: 0, pages: 0, requests: 0, retries: 0, waits: 0, waitMs: 0 };

/** `now` less `then` for the counters a session adds to its run's row; items and pages (the run's totals) as `now`. */
function minus(now: RunStats, then: RunStats): RunStats {
  return {
    ...now,
    requests: now.requests - then.requests,
    retries: now.retries - then.retries,
    waits: now.waits - then.waits,
    waitMs: now.waitMs - then.waitMs,
  };
}

/**
 * What a session's counters have added to its run's row: each group's commit adds what they grew
 * since the mark sent before it, so a run killed after a commit keeps the requests and waits that
 * led to it, and a resumed run's row sums every session's (as `items` does). Commits are sent and
 * end in order; a failed one stops the chain, so the last committed mark is what the row holds.
 */
function spentSince(): {
  send(now: RunStats): { sent: RunStats; delta: RunStats };
  committed(sent: RunStats): void;
  unrecorded(now: RunStats): RunStats;
} {
  let sent = NONE;
  let committed = NONE;
  return {
    send(now) {
      const delta = minus(now, sent);
      sent = now;
      return { sent: now, delta };
    },
    committed(mark) {
      committed = mark;
    },
    unrecorded: (now) => minus(now, committed),
  };
}

/** The failure of a complete run that kept `count` items apart (exit 8): nothing to resume, and a rerun rejects them again. */
function keptApartError(count: number, plan: DatabasePlan): CollectionsError {
  const [items, them] = count === 1 ? ['1 item', 'it'] : [`${formatCount(count)} items`, 'them'];
  return new CollectionsError(
    `${items} could not be stored as written in ${tableText(plan.table)}; kept as received, with the reason, in ${REJECTS_TABLE}`,
    'E_ITEMS_REJECTED',
    { hint: `the run is complete otherwise; every run rejects ${them} again while the server sends ${them} so` },
  );
}

/** The group mark of the page `mark` ends: the checkpoint, and the session's counters so far (the commit sends what they grew since the mark it sent before). */
function groupMarkOf(mark: PageMark, options: DatabaseOpenOptions): GroupMark {
  return {
    next: mark.next,
    items: mark.items,
    pages: mark.pages,
    requestId: mark.requestId,
    serverTime: serverTimeOf(mark.watermark),
    checkpoint: {
      fingerprint: options.fingerprint,
      formatter: mark.formatterState(),
      ...(mark.totalItems !== undefined ? { totalItems: mark.totalItems } : {}),
      ...(mark.watermark !== undefined ? { watermark: mark.watermark } : {}),
    },
    spent: options.stats(),
  };
}

/** `invoices in postgres://… (1 row inserted, 2 updated, 3 deleted)`. */
function summaryName(shown: string, rows: RowCounts & { deleted: number | undefined }): string {
  const deleted = rows.deleted === undefined ? '' : `, ${formatCount(rows.deleted)} deleted`;
  const rejected = rows.rejected === 0 ? '' : `, ${formatCount(rows.rejected)} rejected`;
  return `${shown} (${formatCount(rows.inserted)} ${rows.inserted === 1 ? 'row' : 'rows'} inserted, ${formatCount(rows.updated)} updated${deleted}${rejected})`;
}

/** The destination of one run `runId` on an open, locked `store`. */
function databaseDestination(
  plan: DatabasePlan,
  options: DatabaseOpenOptions,
  store: TableStore,
  runId: string,
  resumed: Checkpoint | undefined,
): DatabaseDestination {
  const shown = `${tableText(plan.table)} in ${plan.address.shown}`;
  let chunks: Buffer[] = [];
  const rows: RowCounts & { deleted: number | undefined } = { inserted: 0, updated: 0, rejected: 0, deleted: undefined };
  const spent = spentSince();
  const commits = createCommitChain(async (group, mark) => {
    const { sent, delta } = spent.send(mark.spent);
    const counts = await store.commitGroup(runId, group, { ...mark, spent: delta }, plan.prune);
    spent.committed(sent);
    rows.inserted += counts.inserted;
    rows.updated += counts.updated;
    rows.rejected += counts.rejected;
  }, store.commitsAtOnce ?? 1);
  let watermark: string | undefined;
  let deletions: RowDeletion[] | undefined;
  // A resumed run whose pages were all committed writes no group: its first response's time is the checkpoint's.
  let serverTime: string | undefined = serverTimeOf(resumed?.watermark);
  let finished = false;
  return {
    get name() {
      return finished ? summaryName(shown, rows) : shown;
    },
    resumed,
    get deleted() {
      return rows.deleted;
    },
    write(text) {
      chunks.push(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
      return Promise.resolve();
    },
    pageWritten(mark) {
      const group = chunks;
      chunks = [];
      const marked = groupMarkOf(mark, options);
      serverTime ??= marked.serverTime;
      return commits.add(group, marked);
    },
    settle: () => commits.settle(),
    keepWatermark(since) {
      if (plan.storeWatermark) watermark = since;
    },
    keepDeletions(deleted) {
      deletions = deleted.map(rowDeletion);
    },
    async finish(text) {
      if (text.length > 0 || chunks.length > 0) throw new Error('a database destination got text after its last group');
      await commits.settle();
      const done = await store.finishRun(runId, {
        stats: spent.unrecorded(options.stats()),
        prune: plan.prune,
        watermark,
        ...defined({ deletions, serverTime }),
      });
      if (plan.prune || deletions !== undefined) rows.deleted = done.deleted;
      finished = true;
    },
    async abort() {
      await commits.settle().catch(() => undefined);
      await store.endRun(runId, options.signal.aborted ? 'interrupted' : 'failed', spent.unrecorded(options.stats()));
    },
    keptApart: () => (rows.rejected === 0 ? undefined : keptApartError(rows.rejected, plan)),
    close: () => store.close(),
  };
}

/**
 * Whether a database's refusal comes back on every run until its cause is fixed, so that resuming
 * cannot help: PostgreSQL's data exceptions (SQLSTATE class 22), integrity constraints (23, a
 * user's `NOT NULL` or `CHECK` included), missing privileges and other access rules (42); DuckDB's
 * errors of the same kinds, which it names instead of coding.
 */
export function failsAgain(err: unknown): boolean {
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && /^(22|23|42)/.test(code)) return true;
  return typeof message === 'string' && /^(Constraint|Conversion|Invalid Input|Permission|Binder|Catalog) Error/.test(message);
}

/** What a failed group's commit says: the checkpoint is kept, unless the failure {@link failsAgain} (then there is nothing to resume into). */
export function commitFailure(err: unknown): string {
  return failsAgain(err) ? 'could not commit a group of pages' : 'could not commit a group of pages; the last committed checkpoint is kept';
}

/** The hint of a group's commit that {@link failsAgain}: it names no `--resume`, which would fail the same way. */
export const FAILS_AGAIN_HINT =
  "every run fails the same way until its cause is fixed: the --key, the table's constraints or the database user's privileges";

/**
 * A driver's failure as exit 7, with the database's own reason and code (drivers never put a
 * password in a message); one of ours is returned as it is.
 * @param hint what to do, when there is more to say than the reason
 */
export function databaseError(what: string, err: unknown, hint?: string): CollectionsError {
  if (err instanceof CollectionsError) return err;
  const e = err as { message?: unknown; code?: unknown };
  const reason = typeof e.message === 'string' && e.message !== '' ? e.message : String(err);
  const code = typeof e.code === 'string' && !reason.includes(e.code) ? ` (${e.code})` : '';
  return new OutputError(`${what}: ${reason}${code}`, hint === undefined ? {} : { hint });
}
