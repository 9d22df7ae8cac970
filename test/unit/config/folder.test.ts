import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheDirOf, defaultCacheDir, DIR_MODE, FILE_MODE } from '../../../src/config/folder.js';
import { createConfigStore, migrateRateLimitCache } from '../../../src/config/store.js';

const posix = process.platform !== 'win32';
const ORIGIN = 'https://api.example.com';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'collections-cache-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('defaultCacheDir (env-paths conventions)', () => {
  it.each([
    ['linux', {}, '/home/u/.cache/collections-nodejs'],
    ['linux', { XDG_CACHE_HOME: '/xdg-cache' }, '/xdg-cache/collections-nodejs'],
    ['darwin', {}, '/home/u/Library/Caches/collections-nodejs'],
  ] as const)('%s %j → %s', (platform, env, expected) => {
    expect(defaultCacheDir(env, platform, '/home/u')).toBe(expected);
  });

  it('win32 uses LOCALAPPDATA', () => {
    expect(defaultCacheDir({ LOCALAPPDATA: 'C:\\L' }, 'win32', 'C:\\U')).toContain(join('collections-nodejs', 'Cache'));
  });
});

describe('cacheDirOf', () => {
  it('COLLECTIONS_CACHE_DIR wins, an empty one counts as unset', () => {
    expect(cacheDirOf({ COLLECTIONS_CACHE_DIR: '/c' }, '/cfg', 'linux', '/home/u')).toBe('/c');
    expect(cacheDirOf({ COLLECTIONS_CACHE_DIR: '' }, undefined, 'linux', '/home/u')).toBe('/home/u/.cache/collections-nodejs');
  });
  it('an explicit config folder keeps the cache beside it', () => {
    expect(cacheDirOf({}, '/cfg', 'linux', '/home/u')).toBe('/cfg');
  });
});

describe('the rate-limit cache in the cache folder', () => {
  it('lives in XDG_CACHE_HOME by default, 0700/0600, and the config folder holds no cache', () => {
    const home = join(root, 'home');
    const env = { XDG_CONFIG_HOME: join(root, 'xdg-config'), XDG_CACHE_HOME: join(root, 'xdg-cache') };
    const store = createConfigStore({ env, platform: 'linux', homedir: home });
    expect(store.rateLimitPath).toBe(join(root, 'xdg-cache', 'collections-nodejs', 'ratelimit.json'));
    expect(store.recordRateLimit(ORIGIN, 'entities', { limit: 10, remaining: 9, observedAt: 1 })).toBe(true);
    expect(existsSync(store.rateLimitPath)).toBe(true);
    expect(existsSync(join(store.dir, 'ratelimit.json'))).toBe(false);
    if (posix) {
      expect(statSync(join(root, 'xdg-cache', 'collections-nodejs')).mode & 0o777).toBe(DIR_MODE);
      expect(statSync(store.rateLimitPath).mode & 0o777).toBe(FILE_MODE);
    }
    expect(store.rateLimits(ORIGIN)).toEqual([{ origin: ORIGIN, endpoint: 'entities', limit: 10, remaining: 9, observedAt: 1 }]);
  });

  it('moves the cache of an older version out of the config folder once', () => {
    const configDir = join(root, 'cfg');
    const cacheDir = join(root, 'cache');
    mkdirSync(configDir, { recursive: true });
    const entry = { origin: ORIGIN, endpoint: 'invoices', limit: 5, remaining: 2, observedAt: 7 };
    writeFileSync(join(configDir, 'ratelimit.json'), JSON.stringify({ entries: { [`${ORIGIN} invoices`]: entry } }), { mode: 0o600 });
    const store = createConfigStore({ configDir, env: { COLLECTIONS_CACHE_DIR: cacheDir } });
    expect(store.rateLimits()).toEqual([entry]);
    expect(existsSync(join(configDir, 'ratelimit.json'))).toBe(false);
    expect(JSON.parse(readFileSync(join(cacheDir, 'ratelimit.json'), 'utf8'))).toEqual({ entries: { [`${ORIGIN} invoices`]: entry } });
  });

  it('does not overwrite a cache already in the cache folder', () => {
    const oldPath = join(root, 'old.json');
    const newPath = join(root, 'new.json');
    writeFileSync(oldPath, 'old');
    writeFileSync(newPath, 'new');
    expect(migrateRateLimitCache(oldPath, newPath)).toBe(false);
    expect(readFileSync(newPath, 'utf8')).toBe('new');
    expect(readFileSync(oldPath, 'utf8')).toBe('old');
  });

  it('never throws: a folder that cannot be made leaves the export alone', () => {
    const blocker = join(root, 'file');
    writeFileSync(blocker, 'x');
    expect(migrateRateLimitCache(join(root, 'missing.json'), join(blocker, 'ratelimit.json'))).toBe(false);
    writeFileSync(join(root, 'old.json'), 'old');
    expect(migrateRateLimitCache(join(root, 'old.json'), join(blocker, 'ratelimit.json'))).toBe(false);
    const warnings: string[] = [];
    const store = createConfigStore({
      configDir: join(root, 'cfg'),
      env: { COLLECTIONS_CACHE_DIR: join(blocker, 'cache') },
      warn: (m) => warnings.push(m),
    });
    expect(store.recordRateLimit(ORIGIN, 'entities', { observedAt: 1 })).toBe(false);
    expect(store.rateLimits()).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('rate-limit cache');
  });
});
