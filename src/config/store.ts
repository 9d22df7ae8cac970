/**
 * The config store: named profiles of settings (API key, base URL, export defaults) in one JSON
 * file kept with `conf`, plus a cache of the last rate-limit headers seen per endpoint in a second
 * file beside it (never holding the key).
 *
 * Permissions (reliability.md rule 9): conf creates its folder with mode 0777 and its file with
 * 0666, both minus the umask, so with a umask of 0 the key would be world-readable. We create the
 * folder ourselves with 0700 before conf touches it, pass `configFileMode: 0o600` (conf writes via
 * `atomically`, which chmods the temporary file to that mode, so the umask cannot widen it), and
 * tighten an existing looser folder or file with one warning line.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { homedir as osHomedir, platform as osPlatform } from 'node:os';
import { join } from 'node:path';
import Conf from 'conf';
import { UsageError } from '../errors.js';
import { CONFIG_KEYS, checkStoredValue, parseConfigValue, parseProfileName } from './values.js';
import type { ConfigKey, ProfileValues } from './values.js';

export type { ConfigKey, ProfileValues } from './values.js';

/** conf's project name; the default folder is `<user config folder>/collections-nodejs`. */
export const PROJECT_NAME = 'collections';
/** The profile used when neither `--profile` nor `COLLECTIONS_PROFILE` names one. */
export const DEFAULT_PROFILE = 'default';
/** Mode of the config folder: owner only. */
export const DIR_MODE = 0o700;
/** Mode of the config and cache files: owner read/write only. */
export const FILE_MODE = 0o600;

/** One cached rate-limit observation (api-contract.md §8 headers of one response). */
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

/** What {@link ConfigStore.recordRateLimit} takes (the shape of `RateLimitSnapshot` of http/client.ts). */
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

/** The store. All methods are synchronous (conf is); files are re-read on every call. */
export interface ConfigStore {
  /** Absolute path of the settings file (`config.json`), printed by `config path`. */
  readonly path: string;
  /** Absolute path of the folder holding it. */
  readonly dir: string;
  /** Absolute path of the rate-limit cache file (`ratelimit.json`). */
  readonly rateLimitPath: string;
  /**
   * The stored values of a profile, each validated; `{}` for an unknown profile.
   * @throws {UsageError} for an invalid profile name or an invalid stored value
   */
  getProfile(profile: string): ProfileValues;
  /**
   * Validates and stores one value (see parseConfigValue in values.ts).
   * @returns the value as stored
   * @throws {UsageError} for an invalid profile name or value
   */
  set(profile: string, key: ConfigKey, raw: string): string | number;
  /**
   * Removes one value; removes the profile when it becomes empty.
   * @returns whether there was a value
   */
  unset(profile: string, key: ConfigKey): boolean;
  /** Names of the stored profiles, sorted. */
  profiles(): string[];
  /**
   * Remembers the rate-limit headers of a response, unless a newer observation of the same
   * origin and endpoint is already stored. Never throws: the cache must not break an export.
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
  /** Folder of the files; default {@link defaultConfigDir} (conf's own default). */
  configDir?: string;
  /** Environment, for the default folder (`XDG_CONFIG_HOME`, `APPDATA`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Receives one-line warnings (without a prefix or newline), e.g. permissions tightened. */
  warn?: (message: string) => void;
  /** For tests: the platform (default `os.platform()`). */
  platform?: NodeJS.Platform;
  /** For tests: the home folder (default `os.homedir()`). */
  homedir?: string;
}

/**
 * The folder conf uses by default for project `collections` (env-paths with suffix `nodejs`):
 * Linux `$XDG_CONFIG_HOME/collections-nodejs` (else `~/.config/…`), macOS
 * `~/Library/Preferences/collections-nodejs`, Windows `%APPDATA%\collections-nodejs\Config`.
 * Computed here rather than by conf so the folder can be created with mode 0700 before conf runs.
 */
export function defaultConfigDir(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = osPlatform(),
  home: string = osHomedir(),
): string {
  const name = `${PROJECT_NAME}-nodejs`;
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', name);
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), name, 'Config');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), name);
}

type SettingsShape = { profiles: Record<string, ProfileValues> };
type CacheShape = { entries: Record<string, RateLimitCacheEntry> };

const octal = (mode: number): string => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Creates the folder (0700) if needed and tightens the folder and any existing files that others
 * can read or write.
 * @returns the fixes made, e.g. `/home/a/.config/collections-nodejs from 0755 to 0700`
 * @throws {UsageError} when the folder cannot be created, or a file holding settings cannot be made private
 */
function secureFiles(dir: string, files: readonly string[], windows: boolean): string[] {
  try {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`cannot create the config folder ${dir} (${code})`, {
      hint: 'set COLLECTIONS_CONFIG_DIR to a writable folder',
    });
  }
  // Windows has no POSIX modes; its ACLs on %APPDATA% are already per user.
  if (windows) return [];
  const fixes: string[] = [];
  const targets: Array<[string, number, boolean]> = [[dir, DIR_MODE, false], ...files.map((f): [string, number, boolean] => [f, FILE_MODE, true])];
  for (const [path, wanted, mustFix] of targets) {
    let mode: number;
    try {
      mode = statSync(path).mode;
    } catch {
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    try {
      chmodSync(path, wanted);
      fixes.push(`${path} from ${octal(mode)} to ${octal(wanted)}`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      if (mustFix) {
        throw new UsageError(`${path} is readable by others (${octal(mode)}) and could not be made private (${code})`, {
          hint: `run \`chmod 600 ${path}\``,
        });
      }
      fixes.push(`${path} is ${octal(mode)} and could not be changed (${code})`);
    }
  }
  return fixes;
}

/**
 * Opens (creating if needed) the config store.
 * @throws {UsageError} when the folder cannot be created, the settings file is not valid JSON, or
 *   it is readable by others and cannot be tightened
 */
export function createConfigStore(options: ConfigStoreOptions = {}): ConfigStore {
  const platform = options.platform ?? osPlatform();
  const dir = options.configDir ?? defaultConfigDir(options.env ?? {}, platform, options.homedir ?? osHomedir());
  const path = join(dir, 'config.json');
  const rateLimitPath = join(dir, 'ratelimit.json');
  const fixes = secureFiles(dir, [path, rateLimitPath], platform === 'win32');
  if (fixes.length > 0) {
    options.warn?.(`config permissions were too open; changed ${fixes.join('; ')}`);
  }

  const openConf = <T extends Record<string, unknown>>(configName: string): Conf<T> =>
    new Conf<T>({
      projectName: PROJECT_NAME,
      cwd: dir,
      configName,
      configFileMode: FILE_MODE,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
    });

  let settings: Conf<SettingsShape>;
  try {
    settings = openConf<SettingsShape>('config');
  } catch (err) {
    // Neither the parser's message nor the error as cause: V8's JSON errors quote the file's
    // text, which may contain the key.
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read the config file ${path}${code ? ` (${code})` : ': it is not valid JSON'}`, {
      hint: `fix or delete ${path}`,
    });
  }

  let cache: Conf<CacheShape> | undefined;
  const openCache = (): Conf<CacheShape> => (cache ??= openConf<CacheShape>('ratelimit'));

  const allProfiles = (): Record<string, ProfileValues> => {
    const raw: unknown = settings.get('profiles');
    if (raw === undefined) return {};
    if (!isObject(raw)) throw new UsageError(`invalid 'profiles' in ${path}`, { code: 'E_CONFIG', hint: `fix or delete ${path}` });
    return raw as Record<string, ProfileValues>;
  };

  const getProfile = (profile: string): ProfileValues => {
    parseProfileName(profile);
    const all = allProfiles();
    if (!Object.hasOwn(all, profile)) return {};
    const stored: unknown = all[profile];
    if (!isObject(stored)) throw new UsageError(`invalid profile '${profile}' in ${path}`, { code: 'E_CONFIG', hint: `fix or delete ${path}` });
    const out: Record<string, string | number> = {};
    for (const key of CONFIG_KEYS) {
      if (Object.hasOwn(stored, key) && stored[key] !== undefined) {
        out[key] = checkStoredValue(key, stored[key], profile, path);
      }
    }
    return out as ProfileValues;
  };

  return {
    path,
    dir,
    rateLimitPath,
    getProfile,
    set(profile, key, raw) {
      parseProfileName(profile);
      const value = parseConfigValue(key, raw);
      const all = allProfiles();
      const current = Object.hasOwn(all, profile) && isObject(all[profile]) ? all[profile] : {};
      settings.set('profiles', { ...all, [profile]: { ...current, [key]: value } });
      return value;
    },
    unset(profile, key) {
      parseProfileName(profile);
      const all = allProfiles();
      if (!Object.hasOwn(all, profile) || !isObject(all[profile])) return false;
      const current: Record<string, unknown> = { ...all[profile] };
      if (!Object.hasOwn(current, key)) return false;
      delete current[key];
      const next = { ...all };
      if (Object.keys(current).length === 0) delete next[profile];
      else next[profile] = current as ProfileValues;
      settings.set('profiles', next);
      return true;
    },
    profiles() {
      return Object.keys(allProfiles()).sort();
    },
    recordRateLimit(origin, endpointKey, snapshot) {
      try {
        const c = openCache();
        const entries: Record<string, RateLimitCacheEntry> = { ...(c.get('entries') ?? {}) };
        const id = `${origin} ${endpointKey}`;
        const previous = Object.hasOwn(entries, id) ? entries[id] : undefined;
        if (previous && previous.observedAt > snapshot.observedAt) return true;
        const entry: RateLimitCacheEntry = { origin, endpoint: endpointKey, observedAt: snapshot.observedAt };
        if (snapshot.limit !== undefined) entry.limit = snapshot.limit;
        if (snapshot.remaining !== undefined) entry.remaining = snapshot.remaining;
        if (snapshot.resetAt !== undefined) entry.resetAt = snapshot.resetAt;
        if (snapshot.resetLocalAt !== undefined) entry.resetLocalAt = snapshot.resetLocalAt;
        entries[id] = entry;
        c.set('entries', entries);
        return true;
      } catch {
        return false;
      }
    },
    rateLimits(origin) {
      let entries: unknown;
      try {
        entries = openCache().get('entries');
      } catch {
        return [];
      }
      if (!isObject(entries)) return [];
      const out: RateLimitCacheEntry[] = [];
      for (const value of Object.values(entries)) {
        if (!isObject(value) || typeof value.origin !== 'string' || typeof value.endpoint !== 'string') continue;
        if (typeof value.observedAt !== 'number') continue;
        if (origin !== undefined && value.origin !== origin) continue;
        const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
        const entry: RateLimitCacheEntry = { origin: value.origin, endpoint: value.endpoint, observedAt: value.observedAt };
        const limit = num(value.limit);
        const remaining = num(value.remaining);
        const resetAt = num(value.resetAt);
        const resetLocalAt = num(value.resetLocalAt);
        if (limit !== undefined) entry.limit = limit;
        if (remaining !== undefined) entry.remaining = remaining;
        if (resetAt !== undefined) entry.resetAt = resetAt;
        if (resetLocalAt !== undefined) entry.resetLocalAt = resetLocalAt;
        out.push(entry);
      }
      return out;
    },
  };
}
