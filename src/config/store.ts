/**
 * The config store: named profiles in one JSON file kept with `conf`, read afresh on every call and
 * replaced atomically (0600 whatever the umask).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { platform as osPlatform } from 'node:os';
import type Conf from 'conf';
import { UsageError } from '../errors.js';
import { fileError } from '../io/files.js';
import { isObject } from '../json/object.js';
import { defaultConfigDir, DIR_MODE, FILE_MODE, secureFiles } from './folder.js';
import { CONFIG_KEYS, type ConfigKey } from './flags.js';
import { checkStoredValue, parseConfigValue, parseProfileName, storedHeaderName, type ProfileValues } from './values.js';

/**
 * conf loads ajv and its formats, slow at start-up: only for a settings file that exists or is
 * written, by {@link loadConfFor} ({@link createConfigStore} is synchronous).
 */
let ConfClass: typeof Conf | undefined;

function confNotLoaded(): never {
  throw new Error('conf is not loaded: call loadConfFor() before reading the settings file');
}

export async function loadConfFor(options: ConfigStoreOptions, writing: boolean): Promise<void> {
  if (writing || existsSync(join(configDirOf(options), 'config.json'))) ConfClass ??= (await import('conf')).default;
}

/** An empty `configDir` (`COLLECTIONS_CONFIG_DIR=`) counts as unset, not as the working directory. */
function configDirOf(options: ConfigStoreOptions): string {
  return options.configDir || defaultConfigDir(options.env ?? {});
}

export const DEFAULT_PROFILE = 'default';

/** Synchronous; files are re-read on every call. */
export interface ConfigStore {
  /** `config.json`, printed by `config path`. */
  readonly path: string;
  readonly dir: string;
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
}

export interface ConfigStoreOptions {
  /** Default (or empty) {@link defaultConfigDir}. */
  configDir?: string;
  /** For the default folder (`XDG_CONFIG_HOME`, `APPDATA`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** One line, without a prefix or newline. */
  warn?: (message: string) => void;
}

const headerList = (list: unknown): string[] => (Array.isArray(list) ? list.filter((h): h is string => typeof h === 'string') : []);
const named = (name: string) => (h: string) => storedHeaderName(h).toLowerCase() === name.toLowerCase();

function withHeader(list: unknown, header: string): string[] {
  const current = headerList(list);
  const at = current.findIndex(named(storedHeaderName(header)));
  return at < 0 ? [...current, header] : current.map((h, i) => (i === at ? header : h));
}

/** undefined when the list has no header named `name`. */
function withoutHeader(list: unknown, name: string): string[] | undefined {
  const current = headerList(list);
  const kept = current.filter((h) => !named(name)(h));
  return kept.length === current.length ? undefined : kept;
}

/** The profiles in the settings file, through conf. */
function profilesFile(dir: string, path: string, fixIt: { code: 'E_CONFIG'; hint: string }) {
  // conf makes a missing folder with the umask's mode, on a read too: the folder is made 0700 here
  // first, and a read in a missing folder does not reach conf.
  let conf: Conf | undefined;
  const open = (): Conf =>
    (conf ??= new (ConfClass ?? confNotLoaded())({
      cwd: dir, // conf's file there is `config.json`
      configFileMode: FILE_MODE,
      // Keys taken literally (dot-prop would read `a.b` as a path and hide a `__proto__` field).
      accessPropertiesByDotNotation: false,
      // Never empty a file the user can still fix: a damaged one is an error (E_CONFIG).
      clearInvalidConfig: false,
      // The layout of the files already written, byte for byte (conf's default today, pinned).
      serialize: (value) => JSON.stringify(value, undefined, '\t'),
    }));
  /** Undefined when the file is missing. @throws {UsageError} (`E_CONFIG`) when it cannot be read or is not valid JSON */
  const readProfiles = (): unknown => {
    try {
      // conf reads a missing file as empty, and does nothing else.
      return existsSync(path) ? open().get('profiles') : undefined;
    } catch (err) {
      // Neither the parser's message nor the error as cause: V8's JSON errors quote the file's
      // text, which may contain the key.
      const code = (err as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot read the config file ${path}${code ? ` (${code})` : ': it is not valid JSON'}`, fixIt);
    }
  };
  /**
   * Keeps the file's other fields; recreates a missing folder.
   * @throws {OutputError} (exit 7) for a file-system error (a string `code`), the file then left as it was; anything else (a bug) as it is
   */
  const saveProfiles = (profiles: Record<string, ProfileValues>): void => {
    try {
      mkdirSync(dir, { recursive: true, mode: DIR_MODE });
      open().set('profiles', profiles);
    } catch (err) {
      if (typeof (err as NodeJS.ErrnoException).code === 'string') throw fileError('save the config file', path, err);
      throw err;
    }
  };
  return { readProfiles, saveProfiles };
}

/**
 * @throws {UsageError} (`E_CONFIG`) when the folder cannot be created, the settings file is not
 *   valid JSON, or it is readable by others and cannot be tightened
 */
export function createConfigStore(options: ConfigStoreOptions = {}): ConfigStore {
  const dir = configDirOf(options);
  const path = join(dir, 'config.json');
  const fixes = secureFiles(dir, [path], osPlatform() === 'win32');
  if (fixes.length > 0) {
    options.warn?.(`config permissions were too open; changed ${fixes.join('; ')}`);
  }
  const fixIt = { code: 'E_CONFIG', hint: `fix or delete ${path}` } as const;
  const { readProfiles, saveProfiles } = profilesFile(dir, path, fixIt);
  readProfiles();
  const allProfiles = (): Record<string, ProfileValues> => {
    const raw = readProfiles();
    if (raw === undefined) return {};
    if (!isObject(raw)) throw new UsageError(`invalid 'profiles' in ${path}`, fixIt);
    return raw as Record<string, ProfileValues>;
  };
  return {
    path,
    dir,
    getProfile(profile) {
      parseProfileName(profile);
      const all = allProfiles();
      if (!Object.hasOwn(all, profile)) return {};
      const stored: unknown = all[profile];
      if (!isObject(stored)) throw new UsageError(`invalid profile '${profile}' in ${path}`, fixIt);
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
      saveProfiles({ ...all, [profile]: { ...current, [key]: stored } });
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
          saveProfiles({ ...all, [profile]: { ...stored, header: kept } });
          return true;
        }
      }
      const { [key]: _removed, ...current } = stored;
      const { [profile]: _emptied, ...others } = all;
      saveProfiles(Object.keys(current).length === 0 ? others : { ...all, [profile]: current });
      return true;
    },
    profiles() {
      return Object.keys(allProfiles()).sort();
    },
  };
}
