/**
 * The cache of the last rate-limit headers seen per origin and endpoint (`ratelimit --cached`), kept
 * in a JSON file (config/json-store.ts) in the cache folder (config/folder.ts, cacheDirOf). It never holds the key, and it
 * never throws: a cache that cannot be read reads as empty, one that cannot be written is skipped,
 * so it can never break an export.
 */
import { copyFileSync, existsSync, renameSync, unlinkSync } from 'node:fs';
import { isObject } from '../json/object.js';
import type { JsonStore } from './json-store.js';

/** One cached rate-limit observation (the `X-RateLimit-*` headers of one response; the API documentation, rate limiting). */
export interface RateLimitCacheEntry {
  /** Origin of the API that answered, e.g. `https://api.example.com`. */
  origin: string;
  /** Endpoint key of endpoints.ts, e.g. `invoices`. */
  endpoint: string;
  /** `X-RateLimit-Limit`. */
  limit?: number;
  /** `X-RateLimit-Remaining`. */
  remaining?: number;
  /** `X-RateLimit-Reset` by the server's clock, epoch ms. */
  resetAt?: number;
  /** The reset as a local-clock instant, epoch ms (corrected by the server's `Date`), when known. */
  resetLocalAt?: number;
  /** When the response was received, epoch ms by the local clock. */
  observedAt: number;
}

/** What the cache records (the shape of `RateLimitSnapshot` of http/client.ts). */
export interface RateLimitObservation {
  limit?: number;
  remaining?: number;
  /** Reset by the server's clock, epoch ms. */
  resetAt?: number;
  /** Reset by the local clock, epoch ms. */
  resetLocalAt?: number;
  /** When the response was received, epoch ms by the local clock. */
  observedAt: number;
}

/** The cache's operations (see ConfigStore in store.ts, which exposes them). */
export interface RateLimitCache {
  /**
   * Stores the observation under `<origin> <endpointKey>` unless a newer one is stored.
   * @returns false when the cache could not be written (never throws)
   */
  record(origin: string, endpointKey: string, snapshot: RateLimitObservation): boolean;
  /** The valid entries, of one origin when given; an unreadable cache reads as empty. */
  list(origin?: string): RateLimitCacheEntry[];
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

const OPTIONAL_FIELDS = ['limit', 'remaining', 'resetAt', 'resetLocalAt'] as const;

/**
 * Copies the optional numbers of `from` onto `entry`, in a fixed order: those that are defined, or
 * with `finiteOnly` (values read back from the file) those that are finite numbers.
 */
function withNumbers(
  entry: RateLimitCacheEntry,
  from: Partial<Record<(typeof OPTIONAL_FIELDS)[number], unknown>>,
  finiteOnly: boolean,
): RateLimitCacheEntry {
  for (const field of OPTIONAL_FIELDS) {
    const value = finiteOnly ? num(from[field]) : (from[field] as number | undefined);
    if (value !== undefined) entry[field] = value;
  }
  return entry;
}

/**
 * The cache over a JSON file opened on first use. The file holds `{ "entries": { "<origin>
 * <endpoint>": RateLimitCacheEntry } }` (`entries` absent until the first is recorded).
 * @param open opens the file (may throw: then recording returns false and listing is empty)
 * @param onWriteError told why recording failed (e.g. an `ENOSPC` or `EFBIG` error of the write,
 *   or the `SyntaxError` of a file that is not JSON), so the store can warn; it must not throw
 */
export function createRateLimitCache(open: () => JsonStore, onWriteError: (err: unknown) => void = () => undefined): RateLimitCache {
  return {
    record(origin, endpointKey, snapshot) {
      try {
        const c = open();
        const entries: Record<string, RateLimitCacheEntry> = { ...((c.get('entries') ?? {}) as Record<string, RateLimitCacheEntry>) };
        const id = `${origin} ${endpointKey}`;
        const previous = Object.hasOwn(entries, id) ? entries[id] : undefined;
        if (previous && previous.observedAt > snapshot.observedAt) return true;
        entries[id] = withNumbers({ origin, endpoint: endpointKey, observedAt: snapshot.observedAt }, snapshot, false);
        c.set('entries', entries);
        return true;
      } catch (err) {
        onWriteError(err);
        return false;
      }
    },
    list(origin) {
      let entries: unknown;
      try {
        entries = open().get('entries');
      } catch {
        return [];
      }
      if (!isObject(entries)) return [];
      const out: RateLimitCacheEntry[] = [];
      for (const value of Object.values(entries)) {
        if (!isObject(value) || typeof value.origin !== 'string' || typeof value.endpoint !== 'string') continue;
        if (typeof value.observedAt !== 'number') continue;
        if (origin !== undefined && value.origin !== origin) continue;
        out.push(withNumbers({ origin: value.origin, endpoint: value.endpoint, observedAt: value.observedAt }, value, true));
      }
      return out;
    },
  };
}

/**
 * Moves the cache file of an older version (kept in the config folder) to its new place, once:
 * only when `oldPath` exists and `newPath` does not. Best effort: a rename, else (another file
 * system, `EXDEV`) a copy then removal of the old file; any failure leaves things as they are and
 * is ignored, so it never fails a command (the cache is only a cache).
 * @param oldPath e.g. `~/.config/collections-nodejs/ratelimit.json`
 * @param newPath e.g. `~/.cache/collections-nodejs/ratelimit.json`, in an existing folder
 * @returns whether the file was moved
 */
export function migrateRateLimitCache(oldPath: string, newPath: string): boolean {
  if (oldPath === newPath) return false;
  try {
    if (!existsSync(oldPath) || existsSync(newPath)) return false;
    try {
      renameSync(oldPath, newPath);
    } catch {
      copyFileSync(oldPath, newPath);
      unlinkSync(oldPath);
    }
    return true;
  } catch {
    return false;
  }
}
