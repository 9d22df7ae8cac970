/**
 * The rate budget kept in PostgreSQL (`--budget postgres://…`): one row per API (origin and key,
 * named by a SHA-256 only), shared by every process on every host that names the database. Each
 * operation is one transaction on that row (`SELECT … FOR UPDATE`, then the same pure rules as
 * `rate-budget.json`: `reserveIn`, `observeIn`, `cancelIn`), so two hosts never spend the same
 * remaining request. A host's requests in flight are kept per holder (host name and pid) with an
 * expiry, so one that died holding them stalls the others no longer than that.
 *
 * It never breaks an export: a database that cannot be reached, at the start or later, is dropped
 * for the rest of the run (the governors pace by the server's headers alone, as one host) and
 * `onTrouble` is told once. The driver is not imported here: the caller hands a {@link BudgetSession}.
 */
import { createHash } from 'node:crypto';
import { defined, isObject } from '../json/object.js';
import { addPathScope, cancelIn, observeIn, recordOf, reserveIn, windowIn, type ApiRecord } from './budget.js';
import type { QuotaStore, SharedQuota, SharedReservation, SharedSeen, SharedTicket } from './budget.js';

/** The one table; its name is fixed so every host finds it. */
const BUDGET_TABLE = 'collections_rate_budget';

/**
 * A reservation made before its window's reset is known lives this long at most, server ms: the
 * others wait for the request that learns a window, so a host that died sending it holds them no
 * longer than this (shorter than a window, or they would lose one). A live request slower than
 * this lets each of the others send one of its own to learn the window: a handful of requests in
 * a window just begun.
 */
export const RESERVATION_TTL_MS = 1_000;
/** While another host's request learns a new window, a reservation is tried again this much later, ms. */
const PROBE_RETRY_MS = 25;
/** Longest wait for one operation, ms: past it the database counts as gone (a stuck host holding the row lock is freed by the server's `idle_in_transaction_session_timeout`). */
const OPERATION_TIMEOUT_MS = 5_000;

/** What the store needs of a `pg` client. */
export interface BudgetSession {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}

/** One holder's requests in flight in a window. */
export interface HeldRequests {
  n: number;
  /** server epoch ms */
  expiresAt: number;
}

/** Per scope, per holder (`host pid`). */
export type Holders = Record<string, Record<string, HeldRequests>>;

export interface PostgresStoreOptions {
  /** Opens the session; its errors name the database without its password. */
  connect: () => Promise<BudgetSession>;
  /** `host pid`: how `ratelimit --budget` names this process's reservations. */
  holder: string;
  /** Told once, the first time the database fails; must not throw. */
  onTrouble: (message: string) => void;
}

/** How the rows name an API: the SHA-256 of its origin and the key's SHA-256, never the key. */
function budgetRowName(origin: string, keyHash: string): string {
  return createHash('sha256').update(`${origin} ${keyHash}`, 'utf8').digest('hex');
}

const CREATE_TABLE =
  `CREATE TABLE IF NOT EXISTS ${BUDGET_TABLE} (` +
  "api text PRIMARY KEY, record jsonb NOT NULL, holders jsonb NOT NULL DEFAULT '{}'::jsonb, updated_at timestamptz NOT NULL DEFAULT now())";

/** Serialises the CREATE of two hosts starting together (CREATE TABLE IF NOT EXISTS alone can fail with a duplicate type). */
const CREATE_LOCK = 0x636f6c6c; // "coll"

async function ensureBudgetTable(session: BudgetSession): Promise<void> {
  await session.query('BEGIN');
  try {
    await session.query('SELECT pg_advisory_xact_lock($1)', [CREATE_LOCK]);
    await session.query(CREATE_TABLE);
    await session.query('COMMIT');
  } catch (err) {
    await session.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

const holdersOf = (v: unknown): Holders => (isObject(v) ? (v as Holders) : {});

/**
 * Without the holders whose reservations expired, and without the scopes whose windows were
 * dropped. Their requests stay counted: a known window's reservations end with it anyway, an
 * expired entry may hold requests of the window before (which the current one never counted),
 * and a request that reached the server counts whether its sender lived or not.
 */
function expireHolders(record: ApiRecord, holders: Holders, now: number): Holders {
  const kept: Holders = {};
  for (const [scope, byHolder] of Object.entries(holders)) {
    const live = Object.entries(byHolder).filter(([, held]) => held.expiresAt > now);
    if (Object.hasOwn(record.windows, scope) && live.length > 0) kept[scope] = Object.fromEntries(live);
  }
  return kept;
}

class SharedQuotaPostgres implements SharedQuota {
  readonly holdsUntilTold = true;
  /** Every operation goes after the previous one, on the one session. */
  private queue: Promise<unknown> = Promise.resolve();
  /** This process's requests in flight per scope, as written to its holder entry. */
  private readonly mine = new Map<string, number>();
  private lastNow = 0;
  private broken = false;

  constructor(
    private readonly session: BudgetSession,
    private readonly api: string,
    private readonly pathScope: Set<string>,
    private readonly options: PostgresStoreOptions,
  ) {}

  reserve(scope: string, nowServerMs: number, latestServerMs = nowServerMs): Promise<SharedReservation | undefined> {
    this.lastNow = Math.max(this.lastNow, nowServerMs);
    return this.update((record, holders) => {
      const w = windowIn(record, scope);
      // A window whose reset no answer has told yet is being learnt by another host's request: this
      // one waits for its answer, as one process's requests do (the hosts' requests in flight could
      // otherwise fill a new window before anyone knows it). Its own requests go on: an answer
      // without the headers, or none, must not stall the host that sent it.
      const learning = Object.entries(holders[scope] ?? {}).some(([holder, held]) => holder !== this.options.holder && held.n > 0);
      if (w !== undefined && w.resetAt === undefined && w.reserved > 0 && learning)
        return { granted: false, resetAt: nowServerMs + PROBE_RETRY_MS, retryMs: PROBE_RETRY_MS } as const;
      const answer = reserveIn(record, scope, nowServerMs, latestServerMs);
      if (answer.granted) this.hold(holders, scope, 1, answer.ticket?.resetAt ?? nowServerMs + RESERVATION_TTL_MS);
      return answer;
    });
  }

  observe(scope: string, seen: SharedSeen, ticket?: SharedTicket): Promise<boolean> {
    return this.update((record, holders) => {
      this.hold(holders, scope, -1);
      const perPath = observeIn(record, scope, seen, ticket);
      if (perPath) this.pathScope.add(scope);
      return perPath;
    }).then((answer) => answer ?? false);
  }

  cancel(scope: string, ticket?: SharedTicket): void {
    void this.update((record, holders) => {
      this.hold(holders, scope, -1);
      cancelIn(record, scope, ticket);
    });
  }

  learnPathScope(route: string): void {
    this.pathScope.add(route);
    void this.update((record) => addPathScope(record, route));
  }

  /** From the record read when the store opened, and what this process learnt since. */
  isPathScope(route: string): boolean {
    return this.pathScope.has(route);
  }

  settle(): Promise<void> {
    return this.queue.then(() => undefined);
  }

  /** This process's holder entry in `scope`, after `delta`; `expiresAt` server ms, of a new reservation only. */
  private hold(holders: Holders, scope: string, delta: number, expiresAt?: number): void {
    const n = Math.max(0, (this.mine.get(scope) ?? 0) + delta);
    this.mine.set(scope, n);
    const me = this.options.holder;
    const others = Object.entries(holders[scope] ?? {}).filter(([holder]) => holder !== me);
    const before = holders[scope]?.[me]?.expiresAt;
    const until = Math.max(expiresAt ?? -Infinity, before ?? -Infinity);
    // An answer or a cancel ends one request: the entry left keeps its expiry (or, when it had expired, lives as long as a new reservation).
    holders[scope] = Object.fromEntries(
      n === 0 ? others : [...others, [me, { n, expiresAt: Number.isFinite(until) ? until : this.lastNow + RESERVATION_TTL_MS }]],
    );
  }

  /** undefined when the database could not be used (then never again in this process). */
  private update<T>(change: (record: ApiRecord, holders: Holders) => T): Promise<T | undefined> {
    const run = this.queue.then(async (): Promise<T | undefined> => {
      if (this.broken) return undefined;
      try {
        return await withTimeout(this.transaction(change), OPERATION_TIMEOUT_MS);
      } catch (err) {
        this.fail(err);
        return undefined;
      }
    });
    this.queue = run;
    return run;
  }

  private async transaction<T>(change: (record: ApiRecord, holders: Holders) => T): Promise<T> {
    const { session, api } = this;
    await session.query('BEGIN');
    try {
      const found = await session.query(`SELECT record, holders FROM ${BUDGET_TABLE} WHERE api = $1 FOR UPDATE`, [api]);
      const row = found.rows[0];
      const record = recordOf(row?.record);
      const holders = expireHolders(record, holdersOf(row?.holders), this.lastNow);
      const answer = change(record, holders);
      const stored = Object.fromEntries(Object.entries(holders).filter(([, byHolder]) => Object.keys(byHolder).length > 0));
      await session.query(
        `INSERT INTO ${BUDGET_TABLE} (api, record, holders) VALUES ($1, $2, $3) ` +
          'ON CONFLICT (api) DO UPDATE SET record = EXCLUDED.record, holders = EXCLUDED.holders, updated_at = now()',
        [api, JSON.stringify(record), JSON.stringify(stored)],
      );
      await session.query('COMMIT');
      return answer;
    } catch (err) {
      await session.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  private fail(err: unknown): void {
    if (this.broken) return;
    this.broken = true;
    this.options.onTrouble(`the rate budget database failed (${reasonOf(err)}); pacing by the server's headers alone, as one host`);
    void this.session.end().catch(() => undefined);
  }
}

/** A code or a short reason, never the URL (the caller's connect names it without its password). */
function reasonOf(err: unknown): string {
  const cause = (err as { cause?: unknown } | null)?.cause;
  const code = (err as { code?: unknown } | null)?.code ?? (cause as { code?: unknown } | null | undefined)?.code;
  if (typeof code === 'string' && /^[A-Z0-9_]{2,20}$/.test(code) && !code.startsWith('E_')) return code;
  return err instanceof Error ? err.message.replace(/[\r\n]+/g, ' ').slice(0, 200) : 'error';
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms / 1000} s`), { code: 'ETIMEDOUT' })), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function openQuota(options: PostgresStoreOptions, origin: string, keyHash: string): Promise<SharedQuotaPostgres> {
  const session = await options.connect();
  try {
    await ensureBudgetTable(session);
    const api = budgetRowName(origin, keyHash);
    await session.query(`INSERT INTO ${BUDGET_TABLE} (api, record) VALUES ($1, $2) ON CONFLICT (api) DO NOTHING`, [
      api,
      JSON.stringify({ windows: {}, pathScope: [] }),
    ]);
    const found = await session.query(`SELECT record FROM ${BUDGET_TABLE} WHERE api = $1`, [api]);
    const known = recordOf(found.rows[0]?.record).pathScope;
    return new SharedQuotaPostgres(session, api, new Set(known), options);
  } catch (err) {
    await session.end().catch(() => undefined);
    throw err;
  }
}

/** Connects when the first client of an API opens it; a database that cannot be used means pacing alone, said once. */
export function createPostgresStore(options: PostgresStoreOptions): QuotaStore {
  let told = false;
  const onTrouble = (message: string): void => {
    if (told) return;
    told = true;
    options.onTrouble(message);
  };
  const shared = { ...options, onTrouble };
  const opened: Array<Promise<SharedQuotaPostgres | undefined>> = [];
  return {
    open: (origin, keyHash) => {
      const quota = withTimeout(openQuota(shared, origin, keyHash), OPERATION_TIMEOUT_MS).catch((err: unknown) => {
        onTrouble(`the rate budget database cannot be used (${reasonOf(err)}); pacing by the server's headers alone, as one host`);
        return undefined;
      });
      opened.push(quota);
      return quota;
    },
    settle: async () => {
      await Promise.all(opened.map(async (quota) => (await quota)?.settle()));
    },
  };
}

/** One scope of an API's row, as `ratelimit --budget` shows it. */
export interface BudgetWindowView {
  scope: string;
  limit?: number;
  remaining?: number;
  /** server epoch ms */
  resetAt?: number;
  reserved: number;
  /** Requests in flight per holder (`host pid`), expired ones left out. */
  holders: Record<string, number>;
}

/** The windows of the API of `origin` and `keyHash`; empty when the table or its row is missing. */
export async function readBudget(session: BudgetSession, origin: string, keyHash: string, nowServerMs: number): Promise<BudgetWindowView[]> {
  const exists = await session.query('SELECT to_regclass($1)::text AS t', [BUDGET_TABLE]);
  if (typeof exists.rows[0]?.t !== 'string') return [];
  const api = budgetRowName(origin, keyHash);
  const found = await session.query(`SELECT record, holders FROM ${BUDGET_TABLE} WHERE api = $1`, [api]);
  const row = found.rows[0];
  if (row === undefined) return [];
  const record = recordOf(row.record);
  const holders = expireHolders(record, holdersOf(row.holders), nowServerMs);
  return Object.entries(record.windows).map(([scope, w]) => ({
    scope,
    ...defined({ limit: w.limit, remaining: w.remaining, resetAt: w.resetAt }),
    reserved: w.reserved,
    holders: Object.fromEntries(Object.entries(holders[scope] ?? {}).map(([h, held]) => [h, held.n])),
  }));
}
