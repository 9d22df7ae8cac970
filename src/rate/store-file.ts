/**
 * `rate-budget.json`, locked with proper-lockfile for one read and one write (never across a wait)
 * and replaced atomically. Its document: `{ "version": 1, "apis": { "<origin> <key hash>":
 * ApiRecord }, "lastSeen": { "<origin> <endpoint>": LastSeen } }`. It never breaks an export: a
 * file that cannot be used is skipped (the caller works alone) and told about once; a corrupt file
 * is replaced.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { lockSync } from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import { isObject } from '../json/object.js';
import { addPathScope, apisOf, cancelIn, finiteFields, observeIn, recordOf, reserveIn, type ApiRecord } from './budget.js';
import type { QuotaStore, SharedQuota, SharedReservation, SharedSeen, SharedTicket } from './budget.js';
import type { RateLimitSnapshot } from './headers.js';

export const SHARED_QUOTA_FILE = 'rate-budget.json';

/** proper-lockfile's shortest staleness, ms: an older lock folder is taken over (a crashed holder). */
const STALE_MS = 2000;
/** Pauses before each new attempt at a held lock, ms: about 100 ms in all (a holder descheduled on a loaded machine). */
const LOCK_PAUSES_MS = [1, 2, 4, 8, 16, 32, 37];
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Blocks the thread: the store's calls are synchronous, and a pause is a few ms. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** What the file keeps; anything else in it is dropped on the next write. */
interface BudgetDoc {
  apis: Record<string, unknown>;
  lastSeen: Record<string, unknown>;
}

/** Told what failed (`read`, `lock`, `update`, `create the folder of`) and why. */
type Trouble = (what: string, err: unknown) => void;

class BudgetFile {
  constructor(
    readonly path: string,
    private readonly trouble: Trouble,
  ) {}

  /** undefined when the file is missing or not JSON. @throws the file system's error otherwise */
  read(): unknown {
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
  update<T>(change: (doc: BudgetDoc) => T): T | undefined {
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
      const doc: BudgetDoc = { apis: apisOf(file), lastSeen: isObject(file) && isObject(file.lastSeen) ? { ...file.lastSeen } : {} };
      const answer = change(doc);
      const { apis, lastSeen } = doc;
      const text = JSON.stringify(Object.keys(lastSeen).length === 0 ? { version: 1, apis } : { version: 1, apis, lastSeen });
      writeFileAtomic.sync(this.path, text, { mode: FILE_MODE, fsync: false });
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

export interface FileStoreOptions {
  cacheDir: string;
  /** Must not throw. */
  onTrouble?: (message: string) => void;
}

export class SharedQuotaFile implements SharedQuota {
  private readonly file: BudgetFile;
  private readonly told = new Set<string>();

  /** `api`: `<origin> <key hash>`, never the key. */
  constructor(
    private readonly options: FileStoreOptions,
    private readonly api: string,
  ) {
    this.file = new BudgetFile(join(options.cacheDir, SHARED_QUOTA_FILE), (what, err) => this.trouble(what, err));
  }

  reserve(scope: string, nowServerMs: number): SharedReservation | undefined {
    return this.update((record) => reserveIn(record, scope, nowServerMs));
  }

  observe(scope: string, seen: SharedSeen, ticket?: SharedTicket): boolean {
    return this.update((record) => observeIn(record, scope, seen, ticket)) ?? false;
  }

  cancel(scope: string, ticket?: SharedTicket): void {
    this.update((record) => cancelIn(record, scope, ticket));
  }

  learnPathScope(route: string): void {
    this.update((record) => addPathScope(record, route));
  }

  isPathScope(route: string): boolean {
    try {
      return this.recordIn(apisOf(this.file.read())).pathScope.includes(route);
    } catch (err) {
      this.trouble('read', err);
      return false;
    }
  }

  private trouble(what: string, err: unknown): void {
    const code = (err as NodeJS.ErrnoException | null)?.code ?? (err instanceof SyntaxError ? 'not JSON' : 'error');
    const message = `cannot ${what} ${this.file.path} (${code}); pacing alone`;
    if (this.told.has(message)) return;
    this.told.add(message);
    this.options.onTrouble?.(message);
  }

  private recordIn(apis: Record<string, unknown>): ApiRecord {
    return recordOf(Object.hasOwn(apis, this.api) ? apis[this.api] : undefined);
  }

  private update<T>(change: (record: ApiRecord) => T): T | undefined {
    return this.file.update((doc) => {
      const record = this.recordIn(doc.apis);
      const answer = change(record);
      doc.apis[this.api] = record;
      return answer;
    });
  }
}

/** Its quotas touch nothing until used. */
export function createFileStore(options: FileStoreOptions): QuotaStore {
  return { open: (origin, keyHash) => new SharedQuotaFile(options, `${origin} ${keyHash}`) };
}

/** The rate-limit headers last seen on an endpoint of an origin, for `ratelimit --cached`; never the key. */
export interface LastSeen extends RateLimitSnapshot {
  origin: string;
  /** Of the endpoint table (e.g. `invoices`), or the path `get` exported. */
  endpoint: string;
}

export interface LastSeenCache {
  /**
   * Unless a newer observation of the same origin and endpoint is stored. Never throws.
   * @returns false when the file could not be written
   */
  record(origin: string, endpoint: string, snapshot: RateLimitSnapshot): boolean;
  /** In no particular order; a file that cannot be read reads as empty. */
  list(origin?: string): LastSeen[];
}

export interface LastSeenCacheOptions {
  cacheDir: string;
  /** Told the first failure to write (not a lock held by others too long, nor a corrupt file, which is replaced); must not throw. */
  onWriteError?: (err: unknown, path: string) => void;
}

function lastSeenOf(value: unknown): LastSeen | undefined {
  if (!isObject(value) || typeof value.origin !== 'string' || typeof value.endpoint !== 'string' || typeof value.observedAt !== 'number')
    return undefined;
  const fields = finiteFields(value, ['limit', 'remaining', 'resetAt', 'resetLocalAt']);
  return { origin: value.origin, endpoint: value.endpoint, observedAt: value.observedAt, ...fields };
}

/** Kept in the budget's file, under `lastSeen`, keyed `<origin> <endpoint>`; touches nothing until used. */
export function createLastSeenCache(options: LastSeenCacheOptions): LastSeenCache {
  let failed = false;
  const file = new BudgetFile(join(options.cacheDir, SHARED_QUOTA_FILE), (what, err) => {
    if (failed || what === 'read' || (err as NodeJS.ErrnoException | null)?.code === 'ELOCKED') return;
    failed = true;
    options.onWriteError?.(err, file.path);
  });
  return {
    record(origin, endpoint, snapshot) {
      const written = file.update((doc) => {
        const id = `${origin} ${endpoint}`;
        const previous = Object.hasOwn(doc.lastSeen, id) ? lastSeenOf(doc.lastSeen[id]) : undefined;
        if (previous === undefined || previous.observedAt <= snapshot.observedAt) doc.lastSeen[id] = lastSeenOf({ ...snapshot, origin, endpoint });
        return true;
      });
      return written ?? false;
    },
    list(origin) {
      let doc: unknown;
      try {
        doc = file.read();
      } catch {
        return [];
      }
      if (!isObject(doc) || !isObject(doc.lastSeen)) return [];
      return Object.values(doc.lastSeen)
        .map(lastSeenOf)
        .filter((e): e is LastSeen => e !== undefined && (origin === undefined || e.origin === origin));
    },
  };
}
