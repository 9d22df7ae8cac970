/**
 * `rate-budget.json`, locked with proper-lockfile for one read and one write (never across a wait)
 * and replaced atomically. It never breaks an export: a file that cannot be used is skipped (the
 * caller works alone) and `onTrouble` is told why, once; a corrupt file is replaced.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { lockSync } from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import { apisOf, cancelIn, observeIn, recordOf, reserveIn, type ApiRecord } from './budget.js';
import type { QuotaStore, SharedQuotaNow, SharedReservation, SharedSeen, SharedTicket } from './budget.js';

export const SHARED_QUOTA_FILE = 'rate-budget.json';

/** proper-lockfile's shortest staleness, ms: an older lock folder is taken over (a crashed holder). */
const STALE_MS = 2000;
/** Pauses before each new attempt at a held lock, ms: about 100 ms in all (a holder descheduled on a loaded machine). */
const LOCK_PAUSES_MS = [1, 2, 4, 8, 16, 32, 37];
/** Windows whose reset is older than this, ms, are dropped. */
const KEEP_MS = 3_600_000;
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Blocks the thread: the store's calls are synchronous, and a pause is a few ms. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export interface SharedQuotaFileOptions {
  cacheDir: string;
  origin: string;
  /** SHA-256 of the API key, hex: records never hold the key. */
  keyHash: string;
  /** Must not throw. */
  onTrouble?: (message: string) => void;
}

class SharedQuotaFile implements SharedQuotaNow {
  private readonly path: string;
  private readonly api: string;
  private readonly told = new Set<string>();
  /** The latest server time a reservation gave, ms: prunes old windows. */
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

  private trouble(what: string, err: unknown): void {
    const code = (err as NodeJS.ErrnoException | null)?.code ?? (err instanceof SyntaxError ? 'not JSON' : 'error');
    const message = `cannot ${what} ${this.path} (${code}); pacing alone`;
    if (this.told.has(message)) return;
    this.told.add(message);
    this.options.onTrouble?.(message);
  }

  /** undefined when the file is missing or not JSON. @throws the file system's error otherwise */
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

  /** The release, or undefined when the lock could not be taken. */
  private lock(): (() => void) | undefined {
    for (let attempt = 1; ; attempt++) {
      try {
        return lockSync(this.path, { realpath: false, stale: STALE_MS });
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

  /** undefined when the file could not be used. */
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
      writeFileAtomic.sync(this.path, JSON.stringify({ version: 1, apis }), { mode: FILE_MODE, fsync: false });
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

export type FileStoreOptions = Omit<SharedQuotaFileOptions, 'origin' | 'keyHash'>;

/** Its quotas touch nothing until used. */
export function createFileStore(options: FileStoreOptions): QuotaStore {
  return { open: (origin, keyHash) => new SharedQuotaFile({ ...options, origin, keyHash }) };
}
