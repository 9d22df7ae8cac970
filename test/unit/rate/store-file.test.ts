/**
 * The file through which processes share the quota (rate/store-file.ts): reservations
 * fill a window until its reset, the headers seen lower it, and a corrupt, locked or unwritable
 * file is skipped (the caller works alone) without ever holding the key.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  SHARED_QUOTA_FILE,
  createFileStore,
  createLastSeenCache,
  type FileStoreOptions,
  type SharedQuotaFile,
} from '../../../src/rate/store-file.js';

const createSharedQuotaFile = ({ origin, keyHash, ...options }: FileStoreOptions & { origin: string; keyHash: string }): SharedQuotaFile =>
  createFileStore(options).open(origin, keyHash) as SharedQuotaFile;
import { keyHashOf } from '../../../src/rate/pool.js';
import { CANARY, tempDir, useTempDir } from '../../helpers/world.js';

const T = Date.UTC(2024, 3, 16, 18, 0, 0);
const RESET = T + 60_000;
const ROUTE = '/taxpayers/{taxpayerId}/invoices';

const dir = useTempDir();

function open(troubles: string[] = []) {
  return createSharedQuotaFile({ cacheDir: dir.path, origin: 'https://api.test', keyHash: keyHashOf(CANARY), onTrouble: (m) => troubles.push(m) });
}

describe('shared quota file', () => {
  it('refuses a request once the processes together reserved the whole window, until its reset', () => {
    const one = open();
    const two = open();
    expect(one.reserve(ROUTE, T)).toMatchObject({ granted: true });
    one.observe(ROUTE, { limit: 3, remaining: 2, resetAt: RESET });
    expect(two.reserve(ROUTE, T + 1)).toMatchObject({ granted: true });
    expect(one.reserve(ROUTE, T + 2)).toMatchObject({ granted: true });
    expect(two.reserve(ROUTE, T + 3)).toEqual({ granted: false, resetAt: RESET });
    // Another scope (a path of its own) is another window.
    expect(two.reserve('/taxpayers/B/invoices', T + 3)).toMatchObject({ granted: true });
    // After the reset the window starts again.
    expect(two.reserve(ROUTE, RESET)).toMatchObject({ granted: true });
  });

  it('gives back a reservation never sent, in its own window only, and never below the server’s count', () => {
    const one = open();
    const two = open();
    type File = { apis: Record<string, { windows: Record<string, { reserved: number }> }> };
    const reserved = (): number =>
      (JSON.parse(readFileSync(dir.file(SHARED_QUOTA_FILE), 'utf8')) as File).apis[`https://api.test ${keyHashOf(CANARY)}`]!.windows[ROUTE]!.reserved;
    // Reset not known yet: given back without a ticket.
    expect(one.reserve(ROUTE, T)).toEqual({ granted: true });
    expect(two.reserve(ROUTE, T)).toEqual({ granted: true });
    two.cancel(ROUTE);
    expect(reserved()).toBe(1);
    one.observe(ROUTE, { limit: 3, remaining: 2, resetAt: RESET });
    const a = one.reserve(ROUTE, T + 1);
    const b = two.reserve(ROUTE, T + 2);
    expect(one.reserve(ROUTE, T + 3)).toEqual({ granted: false, resetAt: RESET });
    // b was never sent: the window has room again for one.
    two.cancel(ROUTE, b?.granted === true ? b.ticket : undefined);
    expect(reserved()).toBe(2);
    expect(one.reserve(ROUTE, T + 4)).toMatchObject({ granted: true });
    // The server counted 3 (remaining 0): a cancel cannot go below that.
    one.observe(ROUTE, { limit: 3, remaining: 0, resetAt: RESET });
    one.cancel(ROUTE, a?.granted === true ? a.ticket : undefined);
    expect(reserved()).toBe(3);
    // A ticket of a window that has ended gives nothing back in the next one.
    expect(two.reserve(ROUTE, RESET)).toEqual({ granted: true });
    two.cancel(ROUTE, a?.granted === true ? a.ticket : undefined);
    expect(reserved()).toBe(1);
  });

  it('counts what the server reports spent, by others too, and ignores a late answer of an older window', () => {
    const q = open();
    q.reserve(ROUTE, T);
    q.observe(ROUTE, { limit: 10, remaining: 1, resetAt: RESET });
    q.observe(ROUTE, { limit: 10, remaining: 5, resetAt: RESET - 60_000 });
    expect(q.reserve(ROUTE, T + 1)).toMatchObject({ granted: true });
    expect(q.reserve(ROUTE, T + 2)).toEqual({ granted: false, resetAt: RESET });
  });

  it('learns per-path counting when a request reserved after others’ answers reports fewer counted than those', () => {
    const one = open();
    const two = open();
    one.reserve(ROUTE, T);
    expect(one.observe(ROUTE, { limit: 60, remaining: 59, resetAt: RESET })).toBe(false);
    const a = one.reserve(ROUTE, T + 1);
    expect(a).toEqual({ granted: true, ticket: { resetAt: RESET, seen: 1 } });
    // A shared counter: the second answer of the window counts two.
    expect(one.observe(ROUTE, { limit: 60, remaining: 58, resetAt: RESET }, a?.granted ? a.ticket : undefined)).toBe(false);
    const b = two.reserve(ROUTE, T + 2);
    expect(b).toEqual({ granted: true, ticket: { resetAt: RESET, seen: 2 } });
    expect(open().isPathScope(ROUTE)).toBe(false);
    // Another path counted apart: its first request reports 59 left, though two answers came before it.
    expect(two.observe(ROUTE, { limit: 60, remaining: 59, resetAt: RESET }, b?.granted ? b.ticket : undefined)).toBe(true);
    expect(open().isPathScope(ROUTE)).toBe(true);
  });

  it('shares the routes learnt to be counted per path', () => {
    open().learnPathScope(ROUTE);
    expect(open().isPathScope(ROUTE)).toBe(true);
    expect(open().isPathScope('/entities')).toBe(false);
  });

  it('is private (0600) and names the key only by its SHA-256', () => {
    const q = open();
    q.reserve(ROUTE, T);
    q.observe(ROUTE, { limit: 60, remaining: 59, resetAt: RESET });
    const text = readFileSync(dir.file(SHARED_QUOTA_FILE), 'utf8');
    expect(text).not.toContain(CANARY);
    expect(text).toContain(keyHashOf(CANARY));
    expect(JSON.parse(text)).toEqual({
      version: 1,
      apis: {
        [`https://api.test ${keyHashOf(CANARY)}`]: {
          windows: { [ROUTE]: { limit: 60, remaining: 59, resetAt: RESET, reserved: 1, seen: 1 } },
          pathScope: [],
        },
      },
    });
    if (process.platform !== 'win32') expect(statSync(dir.file(SHARED_QUOTA_FILE)).mode & 0o777).toBe(0o600);
  });

  it('replaces a corrupt file and says so once', () => {
    writeFileSync(dir.file(SHARED_QUOTA_FILE), '{"apis": [1, 2');
    const troubles: string[] = [];
    const q = open(troubles);
    expect(q.reserve(ROUTE, T)).toMatchObject({ granted: true });
    expect(q.reserve(ROUTE, T)).toMatchObject({ granted: true });
    expect(troubles).toEqual([expect.stringMatching(/cannot read .*rate-budget\.json \(not JSON\); pacing alone/)]);
    expect(JSON.parse(readFileSync(dir.file(SHARED_QUOTA_FILE), 'utf8'))).toMatchObject({ version: 1 });
  });

  it('skips a file another process holds locked (answers undefined at once) and one it cannot write', () => {
    mkdirSync(dir.file(`${SHARED_QUOTA_FILE}.lock`));
    const troubles: string[] = [];
    const q = open(troubles);
    const started = Date.now();
    expect(q.reserve(ROUTE, T)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(troubles).toEqual([expect.stringMatching(/cannot lock .* \(ELOCKED\); pacing alone/)]);
    if (process.platform !== 'win32' && process.getuid?.() !== 0) {
      const ro = tempDir();
      chmodSync(ro.path, 0o500);
      const blocked = createSharedQuotaFile({
        cacheDir: `${ro.path}/cache`,
        origin: 'https://api.test',
        keyHash: 'x',
        onTrouble: (m) => troubles.push(m),
      });
      expect(blocked.reserve(ROUTE, T)).toBeUndefined();
      expect(() => blocked.observe(ROUTE, { remaining: 1, resetAt: RESET })).not.toThrow();
      chmodSync(ro.path, 0o700);
      ro.remove();
    }
  });
});

describe('the rate-limit headers last seen (`ratelimit --cached`), in the same file', () => {
  const A = 'https://api.example.com';
  const B = 'http://127.0.0.1:9999';

  it('keeps the newest observation per origin and endpoint, and never the key', () => {
    const cache = createLastSeenCache({ cacheDir: dir.path });
    expect(cache.record(A, 'entities', { limit: 60, remaining: 10, resetAt: 5_000, resetLocalAt: 5_100, observedAt: 2_000 })).toBe(true);
    expect(cache.record(A, 'entities', { limit: 60, remaining: 50, resetAt: 4_000, observedAt: 1_000 })).toBe(true);
    cache.record(A, 'events', { limit: 60, observedAt: 3_000 });
    cache.record(B, 'entities', { limit: 5, remaining: 0, resetAt: 9_000, observedAt: 4_000 });
    const ofA = createLastSeenCache({ cacheDir: dir.path })
      .list(A)
      .sort((x, y) => x.endpoint.localeCompare(y.endpoint));
    expect(ofA).toEqual([
      { origin: A, endpoint: 'entities', limit: 60, remaining: 10, resetAt: 5_000, resetLocalAt: 5_100, observedAt: 2_000 },
      { origin: A, endpoint: 'events', limit: 60, observedAt: 3_000 },
    ]);
    expect(cache.list()).toHaveLength(3);
    if (process.platform !== 'win32') expect(statSync(dir.file(SHARED_QUOTA_FILE)).mode & 0o777).toBe(0o600);
  });

  it('lives beside the budget’s records: each writer keeps the other’s', () => {
    const q = open();
    q.reserve(ROUTE, T);
    const cache = createLastSeenCache({ cacheDir: dir.path });
    cache.record(A, 'invoices', { limit: 60, remaining: 59, observedAt: T });
    q.observe(ROUTE, { limit: 60, remaining: 59, resetAt: RESET });
    const file = JSON.parse(readFileSync(dir.file(SHARED_QUOTA_FILE), 'utf8')) as { version: number; apis: object; lastSeen: object };
    expect(Object.keys(file).sort()).toEqual(['apis', 'lastSeen', 'version']);
    expect(file.lastSeen).toEqual({ [`${A} invoices`]: { origin: A, endpoint: 'invoices', limit: 60, remaining: 59, observedAt: T } });
    expect(open().reserve(ROUTE, T + 1)).toEqual({ granted: true, ticket: { resetAt: RESET, seen: 1 } });
    expect(readFileSync(dir.file(SHARED_QUOTA_FILE), 'utf8')).not.toContain(CANARY);
  });

  it('reads what an edited file holds only when it has the shape, and a corrupt file as empty (recording replaces it)', () => {
    const entry = { origin: A, endpoint: 'invoices', limit: 5, remaining: 'two', resetAt: null, observedAt: 7 };
    writeFileSync(dir.file(SHARED_QUOTA_FILE), JSON.stringify({ version: 1, apis: {}, lastSeen: { a: entry, b: { origin: A }, c: 3 } }));
    const errors: unknown[] = [];
    const cache = createLastSeenCache({ cacheDir: dir.path, onWriteError: (err) => errors.push(err) });
    expect(cache.list()).toEqual([{ origin: A, endpoint: 'invoices', limit: 5, observedAt: 7 }]);
    writeFileSync(dir.file(SHARED_QUOTA_FILE), 'not json');
    expect(cache.list()).toEqual([]);
    expect(cache.record(A, 'entities', { observedAt: 1 })).toBe(true);
    expect(cache.list()).toEqual([{ origin: A, endpoint: 'entities', observedAt: 1 }]);
    expect(errors).toEqual([]);
  });

  it('ignores an older version’s ratelimit.json beside it', () => {
    writeFileSync(dir.file('ratelimit.json'), JSON.stringify({ entries: { [`${A} invoices`]: { origin: A, endpoint: 'invoices', observedAt: 7 } } }));
    expect(createLastSeenCache({ cacheDir: dir.path }).list()).toEqual([]);
  });

  it('never throws: a folder that cannot be made is told once, recording answers false and listing is empty', () => {
    writeFileSync(dir.file('blocker'), 'x');
    const errors: Array<[string | undefined, string]> = [];
    const cache = createLastSeenCache({
      cacheDir: dir.file('blocker/cache'),
      onWriteError: (err, path) => errors.push([(err as NodeJS.ErrnoException).code, path]),
    });
    expect(cache.record(A, 'entities', { observedAt: 1 })).toBe(false);
    expect(cache.record(A, 'entities', { observedAt: 2 })).toBe(false);
    expect(cache.list()).toEqual([]);
    expect(errors).toEqual([[expect.stringMatching(/^E/), dir.file(`blocker/cache/${SHARED_QUOTA_FILE}`)]]);
  });

  it('answers false without a warning while another process holds the lock', () => {
    mkdirSync(dir.file(`${SHARED_QUOTA_FILE}.lock`));
    const errors: unknown[] = [];
    expect(createLastSeenCache({ cacheDir: dir.path, onWriteError: (err) => errors.push(err) }).record(A, 'entities', { observedAt: 1 })).toBe(false);
    expect(errors).toEqual([]);
  });
});
