/**
 * The config store: named profiles in one JSON file kept with `conf`, and the last rate-limit
 * headers seen per endpoint in a second file in the cache folder (never holding the key). Both
 * files are read afresh on every call and replaced atomically (0600 whatever the umask). The cache
 * stays off conf: it must never stall an export, and conf's writer (`atomically`) retries a refused
 * write (EACCES, EPERM, EBUSY) in a busy loop for up to 1 s.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { platform as osPlatform, homedir as osHomedir } from 'node:os';
import type Conf from 'conf';
import writeFileAtomic from 'write-file-atomic';
import { UsageError } from '../errors.js';
import { fileError } from '../io/files.js';
import { isObject } from '../json/object.js';
import { cacheDirOf, defaultConfigDir, DIR_MODE, FILE_MODE, secureFiles } from './folder.js';
import { CONFIG_KEYS, type ConfigKey } from './flags.js';
import { checkStoredValue, parseConfigValue, parseProfileName, storedHeaderName, type ProfileValues } from './values.js';

/** Its top-level fields are read and written one at a time. */
export interface JsonStore {
  readonly path: string;
  /**
   * Undefined when the file is missing, has no such own field, or holds no object.
   * @throws what {@link readJsonFile} throws
   */
  get(key: string): unknown;
  /**
   * Keeps the other fields; recreates a missing folder.
   * @throws what {@link readJsonFile} throws; the file system's error (a string `code`) when the
   *   file cannot be saved, which is then left as it was
   */
  set(key: string, value: unknown): void;
}

/**
 * @returns undefined when the file does not exist
 * @throws the file system's error; a `SyntaxError` whose message may quote the file, so callers must not show it
 */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return JSON.parse(text) as unknown;
}

/** As conf took them: without a prototype, so a `__proto__` field stays an ordinary field. */
function fieldsOf(data: unknown): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, data);
}

/** Touches nothing until used. */
export function createJsonStore(path: string): JsonStore {
  return {
    path,
    get(key) {
      const fields = fieldsOf(readJsonFile(path));
      return Object.hasOwn(fields, key) ? fields[key] : undefined;
    },
    set(key, value) {
      // Pretty-printed with one tab per level, no trailing newline: byte for byte what conf wrote.
      const text = JSON.stringify({ ...fieldsOf(readJsonFile(path)), [key]: value }, undefined, '\t');
      mkdirSync(dirname(path), { recursive: true, mode: DIR_MODE });
      try {
        // A cache: the rename keeps it whole, and one lost in a crash is refilled by the next response
        // (as the rate budget's file); the fsync would hold the end of every export 1–2 ms for nothing.
        writeFileAtomic.sync(path, text, { mode: FILE_MODE, fsync: false });
      } catch (err) {
        // Some Windows file systems refuse the rename within one folder (EXDEV): write in place.
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        writeFileSync(path, text, { mode: FILE_MODE });
      }
    },
  };
}

/**
 * conf loads ajv and its formats, a tenth of a second: only for a settings file that exists or is
 * written, by {@link loadConfFor} ({@link createConfigStore} is synchronous).
 */
let ConfClass: typeof Conf | undefined;

function confNotLoaded(): never {
  throw new Error('conf is not loaded: call loadConfFor() before reading the settings file');
}

export async function loadConfFor(options: ConfigStoreOptions, writing: boolean): Promise<void> {
  if (writing || existsSync(join(configDirOf(options), 'config.json'))) ConfClass ??= (await import('conf')).default;
}

function configDirOf(options: ConfigStoreOptions): string {
  return options.configDir ?? defaultConfigDir(options.env ?? {}, options.platform ?? osPlatform(), options.homedir ?? osHomedir());
}

/**
 * conf makes a missing folder with the umask's mode, on a read too: the folder is made 0700 here
 * first, and a read in a missing folder does not reach conf.
 */
export function createConfStore(path: string): JsonStore {
  let conf: Conf | undefined;
  const open = (): Conf =>
    (conf ??= new (ConfClass ?? confNotLoaded())({
      cwd: dirname(path),
      configName: basename(path, extname(path)),
      fileExtension: extname(path).slice(1),
      configFileMode: FILE_MODE,
      // Keys taken literally (dot-prop would read `a.b` as a path and hide a `__proto__` field).
      accessPropertiesByDotNotation: false,
      // Never empty a file the user can still fix: a damaged one is an error (E_CONFIG).
      clearInvalidConfig: false,
      // The layout of the files already written, byte for byte (conf's default today, pinned).
      serialize: (value) => JSON.stringify(value, undefined, '\t'),
    }));
  return {
    path,
    get(key) {
      // conf reads a missing file as empty, and does nothing else.
      if (!existsSync(path)) return undefined;
      return open().get(key);
    },
    set(key, value) {
      mkdirSync(dirname(path), { recursive: true, mode: DIR_MODE });
      open().set(key, value);
    },
  };
}

export const DEFAULT_PROFILE = 'default';

/** Synchronous; files are re-read on every call. */
export interface ConfigStore {
  /** `config.json`, printed by `config path`. */
  readonly path: string;
  readonly dir: string;
  readonly rateLimitPath: string;
  /**
   * Each value validated; `{}` for an unknown profile.
   * @throws {UsageError} for an invalid profile name or an invalid stored value
   */
  getProfile(profile: string): ProfileValues;
  /**
   * A `header` is added to the profile's list, replacing the one of the same name (in any case).
   * @returns the value as stored
   * @throws {UsageError} for an invalid profile name or value; {@link OutputError} (exit 7) when the
   *   file cannot be saved, which is then left as it was
   */
  set(profile: string, key: ConfigKey, raw: string): string | number;
  /**
   * Removes the profile too when it becomes empty.
   * @param headerName with `header`: only the header of this name (in any case)
   * @returns whether there was a value
   * @throws {OutputError} (exit 7) as {@link ConfigStore.set}
   */
  unset(profile: string, key: ConfigKey, headerName?: string): boolean;
  /** Sorted. */
  profiles(): string[];
  /**
   * Unless a newer observation of the same origin and endpoint is stored. Never throws: the cache
   * must not break an export; only its first failure to write is warned about.
   * @returns false when the cache could not be written
   */
  recordRateLimit(origin: string, endpointKey: string, snapshot: RateLimitObservation): boolean;
  /** In no particular order; an unreadable cache reads as empty. */
  rateLimits(origin?: string): RateLimitCacheEntry[];
}

export interface ConfigStoreOptions {
  /** Default {@link defaultConfigDir}. */
  configDir?: string;
  /** For the default folders and `COLLECTIONS_CACHE_DIR`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** One line, without a prefix or newline. */
  warn?: (message: string) => void;
  platform?: NodeJS.Platform;
  homedir?: string;
}

/** @throws what mkdir throws (the cache turns it into an empty read or a skipped write) */
function openCache(configDir: string, cacheDir: string): JsonStore {
  if (cacheDir !== configDir) {
    mkdirSync(cacheDir, { recursive: true, mode: DIR_MODE });
    migrateRateLimitCache(join(configDir, 'ratelimit.json'), join(cacheDir, 'ratelimit.json'));
  }
  return createJsonStore(join(cacheDir, 'ratelimit.json'));
}

/** @throws {UsageError} (`E_CONFIG`) when the file cannot be read or is not valid JSON */
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

/** @throws {OutputError} (exit 7) for a file-system error (a string `code`); anything else (a bug) as it is */
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
 * @throws {UsageError} (`E_CONFIG`) when the folder cannot be created, the settings file is not
 *   valid JSON, or it is readable by others and cannot be tightened
 */
export function createConfigStore(options: ConfigStoreOptions = {}): ConfigStore {
  const platform = options.platform ?? osPlatform();
  const home = options.homedir ?? osHomedir();
  const env = options.env ?? {};
  const dir = configDirOf(options);
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

/** The `X-RateLimit-*` headers of one response (the API documentation, rate limiting); times in epoch ms. */
export interface RateLimitObservation {
  limit?: number;
  remaining?: number;
  /** By the server's clock. */
  resetAt?: number;
  /** By the local clock, corrected by the server's `Date`. */
  resetLocalAt?: number;
  /** By the local clock. */
  observedAt: number;
}

export interface RateLimitCacheEntry extends RateLimitObservation {
  origin: string;
  /** Of the endpoint table, e.g. `invoices`. */
  endpoint: string;
}

interface RateLimitCache {
  record(origin: string, endpointKey: string, snapshot: RateLimitObservation): boolean;
  list(origin?: string): RateLimitCacheEntry[];
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

const OPTIONAL_FIELDS = ['limit', 'remaining', 'resetAt', 'resetLocalAt'] as const;

/** In a fixed order; `finiteOnly` for values read back from the file. */
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
 * The file holds `{ "entries": { "<origin> <endpoint>": RateLimitCacheEntry } }`. Never throws.
 * @param open may throw: then recording returns false and listing is empty
 * @param onWriteError told why recording failed, so the store can warn; it must not throw
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
 * Moves an older version's cache file out of the config folder, once (when `newPath` is missing).
 * Best effort: a failure is ignored, the cache being only a cache.
 * @param newPath in an existing folder
 * @returns whether the file was moved
 */
export function migrateRateLimitCache(oldPath: string, newPath: string): boolean {
  if (oldPath === newPath) return false;
  try {
    if (!existsSync(oldPath) || existsSync(newPath)) return false;
    try {
      renameSync(oldPath, newPath);
    } catch {
      // Another file system (EXDEV).
      copyFileSync(oldPath, newPath);
      unlinkSync(oldPath);
    }
    return true;
  } catch {
    return false;
  }
}
