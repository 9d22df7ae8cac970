/**
 * What `collections` processes on one host share about the quota (docs/rate-limits.md, "Rate limits, retries
 * and safety"): a small JSON file, `rate-budget.json` in the cache folder (folder.ts, cacheDirOf),
 * mode 0600, locked with proper-lockfile around each read-modify-write (the lock is held for one
 * read and one write, never across a wait) and replaced atomically with write-file-atomic.
 *
 * It holds, per API (`<origin> <SHA-256 of the key>`, never the key) and per scope (a route
 * template, or a path once the API is known to count per path): the window's limit, the lowest
 * remaining seen, its reset (server epoch ms), the requests every process reserved in it and the
 * 2xx answers they recorded (`seen`, from which processes learn per-path counting together); and
 * the routes known to be counted per path. A process reserves each request before sending it, so
 * two processes starting in the same window do not both spend all of it.
 *
 * It never breaks an export: a file that cannot be read, parsed, locked or written is skipped (the
 * caller works alone) and `onTrouble` is told why, once; a corrupt file is replaced.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Lockfile from 'proper-lockfile';
import type * as WriteFileAtomic from 'write-file-atomic';
import type { SharedQuota, SharedTicket, SharedWindow } from '../context.js';
import { cacheDirOf, DIR_MODE, FILE_MODE } from './folder.js';

/** The file's name in the cache folder. */
export const SHARED_QUOTA_FILE = 'rate-budget.json';

/** proper-lockfile's shortest staleness, ms: a lock folder older than this is taken over (a crashed holder). */
const STALE_MS = 2000;
/**
 * Pauses between attempts to take a lock another process holds, ms (about 100 ms in all: a holder
 * descheduled on a loaded machine), before working alone for this request.
 */
const LOCK_PAUSES_MS = [1, 2, 4, 8, 16, 32, 37];
/** Windows whose reset is older than this, ms, are dropped, so the file stays small. */
const KEEP_MS = 3_600_000;

/** One API's record in the file. */
interface ApiRecord {
  windows: Record<string, SharedWindow>;
  /** Routes known to be counted per concrete path. */
  pathScope: string[];
}

const load = createRequire(import.meta.url);
let libraries: { lockfile: typeof Lockfile; writeFileAtomic: typeof WriteFileAtomic } | undefined;
/** proper-lockfile and write-file-atomic, loaded on first use (neither is needed by `--help`). */
function libs(): NonNullable<typeof libraries> {
  libraries ??= { lockfile: load('proper-lockfile') as typeof Lockfile, writeFileAtomic: load('write-file-atomic') as typeof WriteFileAtomic };
  return libraries;
}

const finite = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A window read from the file: its numbers if they are numbers, else nothing. */
function windowOf(v: unknown): SharedWindow | undefined {
  if (!isObject(v)) return undefined;
  const w: SharedWindow = { reserved: Math.max(0, finite(v.reserved) ?? 0) };
  for (const field of ['limit', 'remaining', 'resetAt', 'seen'] as const) {
    const n = finite(v[field]);
    if (n !== undefined) w[field] = n;
  }
  return w;
}

/** The record of `api` in the parsed file (empty when absent or malformed). */
function recordOf(file: unknown, api: string): ApiRecord {
  const raw = isObject(file) && isObject(file.apis) && Object.hasOwn(file.apis, api) ? file.apis[api] : undefined;
  const record: ApiRecord = { windows: Object.create(null) as Record<string, SharedWindow>, pathScope: [] };
  if (!isObject(raw)) return record;
  if (isObject(raw.windows)) {
    for (const [scope, value] of Object.entries(raw.windows)) {
      const w = windowOf(value);
      if (w !== undefined) record.windows[scope] = w;
    }
  }
  if (Array.isArray(raw.pathScope)) record.pathScope = raw.pathScope.filter((r): r is string => typeof r === 'string');
  return record;
}

/** Sleeps `ms` without giving up the thread (the lock attempts are a few ms at most). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The shared quota of one API in the user's cache folder ({@link cacheDirOf}: `COLLECTIONS_CACHE_DIR`,
 * else an explicit config folder, else `$XDG_CACHE_HOME/collections-nodejs`…), for cli/main.ts.
 * @param configDir the config folder when chosen explicitly (`COLLECTIONS_CONFIG_DIR`), else undefined
 */
export function openSharedQuota(
  env: Readonly<Record<string, string | undefined>>,
  configDir: string | undefined,
  api: Omit<SharedQuotaFileOptions, 'cacheDir'>,
): SharedQuota {
  return createSharedQuotaFile({ cacheDir: cacheDirOf(env, configDir), ...api });
}

/** Options of {@link createSharedQuotaFile}. */
export interface SharedQuotaFileOptions {
  /** The cache folder (folder.ts cacheDirOf); the file is {@link SHARED_QUOTA_FILE} in it. */
  cacheDir: string;
  /** The URL origin of the API, e.g. `https://api.example.com`. */
  origin: string;
  /** SHA-256 of the API key, hex (never the key). */
  keyHash: string;
  /** Told why the file could not be used (once per kind of trouble); must not throw. */
  onTrouble?: (message: string) => void;
}

/** The {@link SharedQuota} of one API kept in the cache folder's {@link SHARED_QUOTA_FILE}. */
class SharedQuotaFile implements SharedQuota {
  private readonly path: string;
  private readonly api: string;
  /** Troubles already reported. */
  private readonly told = new Set<string>();
  /** The latest server time a reservation gave, ms (prunes old windows on other updates). */
  private lastNow = 0;

  constructor(private readonly options: SharedQuotaFileOptions) {
    this.path = join(options.cacheDir, SHARED_QUOTA_FILE);
    this.api = `${options.origin} ${options.keyHash}`;
  }

  reserve(scope: string, nowServerMs: number): ReturnType<SharedQuota['reserve']> {
    this.lastNow = nowServerMs;
    return this.update((record) => reserveIn(record, scope, nowServerMs));
  }

  observe(scope: string, seen: Seen, ticket?: SharedTicket): boolean {
    return this.update((record) => observeIn(record, scope, seen, ticket)) ?? false;
  }

  cancel(scope: string, ticket?: SharedTicket): void {
    this.update((record) => cancelIn(record, scope, ticket));
  }

  learnPathScope(route: string): void {
    this.update((record) => {
      if (!record.pathScope.includes(route)) record.pathScope.push(route);
    });
  }

  isPathScope(route: string): boolean {
    try {
      return recordOf(this.read(), this.api).pathScope.includes(route);
    } catch (err) {
      this.trouble('read', err);
      return false;
    }
  }

  /** Tells `onTrouble` why the file could not be used, once per message. */
  private trouble(what: string, err: unknown): void {
    const code = (err as NodeJS.ErrnoException | null)?.code ?? (err instanceof SyntaxError ? 'not JSON' : 'error');
    const message = `cannot ${what} ${this.path} (${code}); pacing alone`;
    if (this.told.has(message)) return;
    this.told.add(message);
    this.options.onTrouble?.(message);
  }

  /** The parsed file; undefined when it is missing or not JSON. @throws the file system's error otherwise */
  private read(): unknown {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      this.trouble('read', err);
      return undefined;
    }
  }

  /** Takes the lock, pausing while another process holds it; the release, or undefined when it could not be taken. */
  private lock(): (() => void) | undefined {
    const { lockfile } = libs();
    for (let attempt = 1; ; attempt++) {
      try {
        return lockfile.lockSync(this.path, { realpath: false, stale: STALE_MS });
      } catch (err) {
        const ms = LOCK_PAUSES_MS[attempt - 1];
        if ((err as NodeJS.ErrnoException).code !== 'ELOCKED' || ms === undefined) {
          this.trouble('lock', err);
          return undefined;
        }
        pause(ms);
      }
    }
  }

  /** Runs `change` on the API's record under the lock and saves the file; undefined when the file could not be used. */
  private update<T>(change: (record: ApiRecord) => T): T | undefined {
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: DIR_MODE });
    } catch (err) {
      this.trouble('create the folder of', err);
      return undefined;
    }
    const release = this.lock();
    if (release === undefined) return undefined;
    try {
      const file = this.read();
      const record = recordOf(file, this.api);
      const answer = change(record);
      const oldest = this.lastNow - KEEP_MS;
      record.windows = Object.fromEntries(Object.entries(record.windows).filter(([, w]) => w.resetAt === undefined || w.resetAt >= oldest));
      const apis = isObject(file) && isObject(file.apis) ? { ...file.apis } : {};
      apis[this.api] = record;
      libs().writeFileAtomic.sync(this.path, JSON.stringify({ version: 1, apis }), { mode: FILE_MODE, fsync: false });
      return answer;
    } catch (err) {
      this.trouble('update', err);
      return undefined;
    } finally {
      try {
        release();
      } catch {
        // Already released (a compromised lock): nothing to undo.
      }
    }
  }
}

/** The {@link SharedQuota} of one API kept in the cache folder's {@link SHARED_QUOTA_FILE}; touches nothing until used. */
export function createSharedQuotaFile(options: SharedQuotaFileOptions): SharedQuota {
  return new SharedQuotaFile(options);
}

/**
 * Reserves one request of `scope` in `record` at `now` (server ms): a window whose reset has passed
 * starts again from zero; one whose count (the larger of the reservations and the server's own
 * count, limit − remaining) has reached the limit is refused until its reset. A granted request
 * gets a ticket once the window's reset is known.
 */
function reserveIn(record: ApiRecord, scope: string, now: number): ReturnType<SharedQuota['reserve']> {
  let w = Object.hasOwn(record.windows, scope) ? record.windows[scope] : undefined;
  if (w !== undefined && w.resetAt !== undefined && now >= w.resetAt) w = { reserved: 0, ...(w.limit === undefined ? {} : { limit: w.limit }) };
  w ??= { reserved: 0 };
  record.windows[scope] = w;
  const counted = w.limit !== undefined && w.remaining !== undefined ? w.limit - w.remaining : 0;
  if (w.limit !== undefined && w.resetAt !== undefined && Math.max(w.reserved, counted) >= w.limit) return { granted: false, resetAt: w.resetAt };
  w.reserved++;
  return w.resetAt === undefined ? { granted: true } : { granted: true, ticket: { resetAt: w.resetAt, seen: w.seen ?? 0 } };
}

/** A response as {@link SharedQuota.observe} records it. */
type Seen = Parameters<SharedQuota['observe']>[1];

/**
 * Records a response's window: a later reset starts a new window (keeping the reservations made
 * since the old one ended, or else the server's count); the same reset lowers `remaining` and
 * counts a 2xx; an earlier one (a late answer) changes nothing.
 * @returns true when the response shows per-path counting: with a shared counter, the server would
 *   have counted every 2xx recorded in this window before the request was reserved, and the request
 *   itself (`limit − remaining ≥ ticket.seen + 1`); fewer means the others were counted elsewhere
 */
function observeIn(record: ApiRecord, scope: string, seen: Seen, ticket: SharedTicket | undefined): boolean {
  const w = Object.hasOwn(record.windows, scope) ? record.windows[scope] : undefined;
  const limit = seen.limit ?? w?.limit;
  const counted = limit === undefined ? 0 : Math.max(0, limit - seen.remaining);
  const ok = seen.status === undefined || (seen.status >= 200 && seen.status < 300);
  if (w === undefined || w.resetAt === undefined || seen.resetAt > w.resetAt) {
    const since = w !== undefined && w.resetAt === undefined ? w.reserved : 0;
    record.windows[scope] = {
      remaining: seen.remaining,
      resetAt: seen.resetAt,
      reserved: Math.max(since, counted),
      seen: ok ? 1 : 0,
      ...(limit === undefined ? {} : { limit }),
    };
    return false;
  }
  if (seen.resetAt !== w.resetAt) return false;
  w.remaining = Math.min(w.remaining ?? seen.remaining, seen.remaining);
  if (limit !== undefined) w.limit = limit;
  if (!ok) return false;
  w.seen = (w.seen ?? 0) + 1;
  const perPath = ticket !== undefined && limit !== undefined && ticket.resetAt === seen.resetAt && counted < ticket.seen + 1;
  if (perPath && !record.pathScope.includes(scope)) record.pathScope.push(scope);
  return perPath;
}

/** Gives back one reservation of `scope` made under `ticket` (see {@link SharedQuota.cancel}). */
function cancelIn(record: ApiRecord, scope: string, ticket: SharedTicket | undefined): void {
  const w = Object.hasOwn(record.windows, scope) ? record.windows[scope] : undefined;
  if (w === undefined || (ticket !== undefined && w.resetAt !== ticket.resetAt)) return;
  const counted = w.limit !== undefined && w.remaining !== undefined ? w.limit - w.remaining : 0;
  if (w.reserved > counted) w.reserved--;
}
