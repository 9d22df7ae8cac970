/**
 * The config store: named profiles of settings (API key, base URL, export defaults) in one JSON
 * file kept with `conf` (createConfStore), plus a cache of the last rate-limit headers seen per endpoint in a second
 * file in the cache folder (never holding the key; config/rate-limit-cache.ts). The folders and both
 * files are kept private (config/folder.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { platform as osPlatform, homedir as osHomedir } from 'node:os';
import { UsageError } from '../errors.js';
import { fileError } from '../io/files.js';
import { isObject } from '../json/object.js';
import { cacheDirOf, defaultConfigDir, DIR_MODE, secureFiles } from './folder.js';
import { createConfStore, createJsonStore, type JsonStore } from './json-store.js';
import { createRateLimitCache, migrateRateLimitCache, type RateLimitCacheEntry, type RateLimitObservation } from './rate-limit-cache.js';
import { CONFIG_KEYS, checkStoredValue, parseConfigValue, parseProfileName, storedHeaderName } from './values.js';
import type { ConfigKey, ProfileValues } from './values.js';

export type { ConfigKey, ProfileValues } from './values.js';
export type { RateLimitCacheEntry, RateLimitObservation } from './rate-limit-cache.js';
export { defaultConfigDir, DIR_MODE, FILE_MODE } from './folder.js';

/** The profile used when neither `--profile` nor `COLLECTIONS_PROFILE` names one. */
export const DEFAULT_PROFILE = 'default';

/** The store. All methods are synchronous; files are re-read on every call. */
export interface ConfigStore {
  /** Absolute path of the settings file (`config.json`), printed by `config path`. */
  readonly path: string;
  /** Absolute path of the folder holding it. */
  readonly dir: string;
  /** Absolute path of the rate-limit cache file (`ratelimit.json` in the cache folder, config/folder.ts cacheDirOf). */
  readonly rateLimitPath: string;
  /**
   * The stored values of a profile, each validated; `{}` for an unknown profile.
   * @throws {UsageError} for an invalid profile name or an invalid stored value
   */
  getProfile(profile: string): ProfileValues;
  /**
   * Validates and stores one value (see parseConfigValue in values.ts); a `header` is added to the
   * profile's list, replacing the one of the same name (in any case).
   * @returns the value as stored
   * @throws {UsageError} for an invalid profile name or value; {@link OutputError} (`E_OUTPUT_WRITE`,
   *   exit 7) when the file cannot be saved (disk full, quota, size limit, read-only, permission),
   *   naming the path and the cause; the file is then left as it was (conf writes a temp file and
   *   renames it)
   */
  set(profile: string, key: ConfigKey, raw: string): string | number;
  /**
   * Removes one value; removes the profile when it becomes empty.
   * @param headerName with `header`: remove only the header of this name (in any case), not every one
   * @returns whether there was a value
   * @throws {OutputError} (exit 7) when the file cannot be saved, as {@link ConfigStore.set}
   */
  unset(profile: string, key: ConfigKey, headerName?: string): boolean;
  /** Names of the stored profiles, sorted. */
  profiles(): string[];
  /**
   * Remembers the rate-limit headers of a response, unless a newer observation of the same
   * origin and endpoint is already stored. Never throws: the cache is best-effort and must not
   * break an export. The first failure to write it is reported as one warning (`warn` of
   * {@link ConfigStoreOptions}) naming the path and the cause; later ones are silent.
   * @returns false when the cache could not be written
   */
  recordRateLimit(origin: string, endpointKey: string, snapshot: RateLimitObservation): boolean;
  /**
   * Cached observations in no particular order (callers sort), filtered to one origin when given.
   * An unreadable cache reads as empty.
   */
  rateLimits(origin?: string): RateLimitCacheEntry[];
}

/** Options of {@link createConfigStore}. */
export interface ConfigStoreOptions {
  /** Folder of the files; default {@link defaultConfigDir} (conf's own default for the project). */
  configDir?: string;
  /**
   * Environment, for the default folders (`XDG_CONFIG_HOME`, `APPDATA`, `XDG_CACHE_HOME`,
   * `LOCALAPPDATA`) and `COLLECTIONS_CACHE_DIR`.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Receives one-line warnings (without a prefix or newline), e.g. permissions tightened. */
  warn?: (message: string) => void;
  /** For tests: the platform (default `os.platform()`). */
  platform?: NodeJS.Platform;
  /** For tests: the home folder (default `os.homedir()`). */
  homedir?: string;
}

/**
 * Opens the rate-limit cache in `cacheDir`, first creating that folder (0700) and moving the file
 * of an older version out of the config folder `configDir` (config/rate-limit-cache.ts,
 * migrateRateLimitCache; best effort).
 * @throws what mkdir throws (the cache turns it into an empty read or a skipped write)
 */
function openCache(configDir: string, cacheDir: string): JsonStore {
  if (cacheDir !== configDir) {
    mkdirSync(cacheDir, { recursive: true, mode: DIR_MODE });
    migrateRateLimitCache(join(configDir, 'ratelimit.json'), join(cacheDir, 'ratelimit.json'));
  }
  return createJsonStore(join(cacheDir, 'ratelimit.json'));
}

/**
 * Reads the `profiles` field of the settings file (undefined when the file or the field is missing).
 * @throws {UsageError} (`E_CONFIG`) when the file cannot be read or is not valid JSON
 */
function readProfiles(settings: JsonStore): unknown {
  try {
    return settings.get('profiles');
  } catch (err) {
    // Neither the parser's message nor the error as cause: V8's JSON errors quote the file's
    // text, which may contain the key.
    const code = (err as NodeJS.ErrnoException).code;
    const { path } = settings;
    throw new UsageError(`cannot read the config file ${path}${code ? ` (${code})` : ': it is not valid JSON'}`, {
      code: 'E_CONFIG',
      hint: `fix or delete ${path}`,
    });
  }
}

/**
 * Saves the profiles into the settings file.
 * @throws {OutputError} (exit 7) for a file-system error (an error with a string `code`), naming
 *   `path` and the cause; anything else (a bug) as it is
 */
function saveProfiles(settings: JsonStore, path: string, profiles: Record<string, ProfileValues>): void {
  try {
    settings.set('profiles', profiles);
  } catch (err) {
    if (typeof (err as NodeJS.ErrnoException).code === 'string') throw fileError('save the config file', path, err);
    throw err;
  }
}

function withHeader(list: unknown, header: string): string[] {
  const name = storedHeaderName(header).toLowerCase();
  const current = Array.isArray(list) ? list.filter((h): h is string => typeof h === 'string') : [];
  const at = current.findIndex((h) => storedHeaderName(h).toLowerCase() === name);
  return at < 0 ? [...current, header] : current.map((h, i) => (i === at ? header : h));
}

/** undefined when the list has no header named `name`. */
function withoutHeader(list: unknown, name: string): string[] | undefined {
  const current = Array.isArray(list) ? list.filter((h): h is string => typeof h === 'string') : [];
  const kept = current.filter((h) => storedHeaderName(h).toLowerCase() !== name.toLowerCase());
  return kept.length === current.length ? undefined : kept;
}

/** The profile operations of {@link ConfigStore} over the settings file at `path`. */
function profileOperations(settings: JsonStore, path: string): Pick<ConfigStore, 'getProfile' | 'set' | 'unset' | 'profiles'> {
  const allProfiles = (): Record<string, ProfileValues> => {
    const raw = readProfiles(settings);
    if (raw === undefined) return {};
    if (!isObject(raw)) throw new UsageError(`invalid 'profiles' in ${path}`, { code: 'E_CONFIG', hint: `fix or delete ${path}` });
    return raw as Record<string, ProfileValues>;
  };
  return {
    getProfile(profile) {
      parseProfileName(profile);
      const all = allProfiles();
      if (!Object.hasOwn(all, profile)) return {};
      const stored: unknown = all[profile];
      if (!isObject(stored)) throw new UsageError(`invalid profile '${profile}' in ${path}`, { code: 'E_CONFIG', hint: `fix or delete ${path}` });
      const out: Record<string, string | number | string[]> = {};
      for (const key of CONFIG_KEYS) {
        if (Object.hasOwn(stored, key) && stored[key] !== undefined) {
          out[key] = checkStoredValue(key, stored[key], profile, path);
        }
      }
      return out;
    },
    set(profile, key, raw) {
      parseProfileName(profile);
      const value = parseConfigValue(key, raw);
      const all = allProfiles();
      const current = Object.hasOwn(all, profile) && isObject(all[profile]) ? all[profile] : {};
      const stored = key === 'header' ? withHeader(current.header, String(value)) : value;
      saveProfiles(settings, path, { ...all, [profile]: { ...current, [key]: stored } });
      return value;
    },
    unset(profile, key, headerName) {
      parseProfileName(profile);
      const all = allProfiles();
      if (!Object.hasOwn(all, profile) || !isObject(all[profile])) return false;
      const stored: Record<string, unknown> = { ...all[profile] };
      if (!Object.hasOwn(stored, key)) return false;
      if (key === 'header' && headerName !== undefined) {
        const kept = withoutHeader(stored.header, headerName);
        if (kept === undefined) return false;
        if (kept.length > 0) {
          saveProfiles(settings, path, { ...all, [profile]: { ...stored, header: kept } });
          return true;
        }
      }
      const { [key]: _removed, ...current } = stored;
      const { [profile]: _emptied, ...others } = all;
      saveProfiles(settings, path, Object.keys(current).length === 0 ? others : { ...all, [profile]: current });
      return true;
    },
    profiles() {
      return Object.keys(allProfiles()).sort();
    },
  };
}

/**
 * Opens (creating if needed) the config store.
 * @throws {UsageError} (`E_CONFIG`) when the folder cannot be created, the settings file is not
 *   valid JSON, or it is readable by others and cannot be tightened
 */
export function createConfigStore(options: ConfigStoreOptions = {}): ConfigStore {
  const platform = options.platform ?? osPlatform();
  const home = options.homedir ?? osHomedir();
  const env = options.env ?? {};
  const dir = options.configDir ?? defaultConfigDir(env, platform, home);
  const path = join(dir, 'config.json');
  const cacheDir = cacheDirOf(env, options.configDir, platform, home);
  const rateLimitPath = join(cacheDir, 'ratelimit.json');
  const fixes = secureFiles(dir, cacheDir === dir ? [path, rateLimitPath] : [path], platform === 'win32');
  if (fixes.length > 0) {
    options.warn?.(`config permissions were too open; changed ${fixes.join('; ')}`);
  }
  const settings = createConfStore(path);
  readProfiles(settings);
  let cacheFile: JsonStore | undefined;
  let warned = false;
  const cache = createRateLimitCache(
    () => (cacheFile ??= openCache(dir, cacheDir)),
    (err) => {
      // Only file-system errors (a string `code`); an unreadable cache stays silent as before.
      if (warned || typeof (err as NodeJS.ErrnoException).code !== 'string') return;
      warned = true;
      options.warn?.(`${fileError('save the rate-limit cache', rateLimitPath, err).message}; \`ratelimit --cached\` may show older values`);
    },
  );
  return {
    path,
    dir,
    rateLimitPath,
    ...profileOperations(settings, path),
    recordRateLimit: (origin, endpointKey, snapshot) => cache.record(origin, endpointKey, snapshot),
    rateLimits: (origin) => cache.list(origin),
  };
}
