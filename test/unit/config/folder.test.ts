import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheDirOf, defaultCacheDir } from '../../../src/config/folder.js';

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
  it('an empty config folder (COLLECTIONS_CONFIG_DIR=) is unset, not the working directory', () => {
    expect(cacheDirOf({}, '', 'linux', '/home/u')).toBe('/home/u/.cache/collections-nodejs');
  });
});
