/**
 * The file store (store.ts `QuotaStore`): what `collections` processes on one host share about
 * the quota (docs/rate-limits.md, "Rate limits, retries and safety"): a small JSON file, `rate-budget.json` in
 * the cache folder (config/folder.ts `cacheDirOf`, which cli/main.ts passes in), mode 0600, locked
 * with proper-lockfile around each read-modify-write (the lock is held for one read and one write,
 * never across a wait) and replaced atomically with write-file-atomic.
 *
 * It holds, per API (`<origin> <SHA-256 of the key>`, never the key) and per scope (a route
 * template, or a path once the API is known to count per path): the window's limit, the lowest
 * remaining seen, its reset (server epoch ms), the requests every process reserved in it and the
 * 2xx answers they recorded (`seen`, from which processes learn per-path counting together); and
 * the routes known to be counted per path (store-record.ts). A process reserves each request
 * before sending it, so two processes starting in the same window do not both spend all of it.
 *
 * It never breaks an export: a file that cannot be read, parsed, locked or written is skipped (the
 * caller works alone) and `onTrouble` is told why, once; a corrupt file is replaced.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Lockfile from 'proper-lockfile';
import type * as WriteFileAtomic from 'write-file-atomic';
import type { QuotaStore, SharedQuota, SharedReservation, SharedSeen, SharedTicket } from './store.js';
import { apisOf, cancelIn, observeIn, recordOf, reserveIn, type ApiRecord } from './store-record.js';

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
/** Mode of the cache folder when this store creates it: owner only (as config/folder.ts `DIR_MODE`). */
const DIR_MODE = 0o700;
/** Mode of the file: owner read/write only (as config/folder.ts `FILE_MODE`). */
const FILE_MODE = 0o600;

const load = createRequire(import.meta.url);
let libraries: { lockfile: typeof Lockfile; writeFileAtomic: typeof WriteFileAtomic } | undefined;
/** proper-lockfile and write-file-atomic, loaded on first use (neither is needed by `--help`). */
function libs(): NonNullable<typeof libraries> {
  libraries ??= { lockfile: load('proper-lockfile') as typeof Lockfile, writeFileAtomic: load('write-file-atomic') as typeof WriteFileAtomic };
  return libraries;
}

/** Sleeps `ms` without giving up the thread (the lock attempts are a few ms at most). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Options of {@link createSharedQuotaFile}. */
export interface SharedQuotaFileOptions {
  /** The cache folder (config/folder.ts `cacheDirOf`); the file is {@link SHARED_QUOTA_FILE} in it. */
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

  reserve(scope: string, nowServerMs: number): SharedReservation | undefined {
    this.lastNow = nowServerMs;
    return this.update((record) => reserveIn(record, scope, nowServerMs));
  }

  observe(scope: string, seen: SharedSeen, ticket?: SharedTicket): boolean {
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
      const apis = apisOf(file);
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

/** Options of {@link createFileStore}. */
export type FileStoreOptions = Omit<SharedQuotaFileOptions, 'origin' | 'keyHash'>;

/**
 * The file store of the cache folder `options.cacheDir`: each API opened is a {@link createSharedQuotaFile}
 * of it (cli/main.ts makes one per process; processes with the same folder, origin and key share).
 */
export function createFileStore(options: FileStoreOptions): QuotaStore {
  return { open: (origin, keyHash) => createSharedQuotaFile({ ...options, origin, keyHash }) };
}
