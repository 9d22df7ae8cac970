/**
 * The config and cache folders, kept private (README, "Configuration": 0600 files in a 0700 folder
 * whatever the umask): conf would create the folder with 0777 minus the umask, so it is made first.
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { homedir as osHomedir, platform as osPlatform } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { errorCode } from '../errors.js';

const PROJECT_NAME = 'collections';
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

type Env = Readonly<Record<string, string | undefined>>;

/** env-paths' folder (suffix `nodejs`): under `mac` in ~/Library, else in the folder of a variable or its default. */
function envPathsDir(home: string, platform: NodeJS.Platform, mac: string, [v, dflt, leaf]: [string | undefined, string, string?]): string {
  const name = `${PROJECT_NAME}-nodejs`;
  if (platform === 'darwin') return join(home, 'Library', mac, name);
  return leaf === undefined ? join(v || join(home, dflt), name) : join(v || join(home, 'AppData', dflt), name, leaf);
}

/**
 * conf's own default (`env-paths`, suffix `nodejs`), computed here: the folder must be made 0700
 * before conf runs, and `env-paths` reads `process.env` when loaded, not the Context's.
 */
export function defaultConfigDir(env: Env, platform: NodeJS.Platform = osPlatform(), home: string = osHomedir()): string {
  return envPathsDir(home, platform, 'Preferences', platform === 'win32' ? [env.APPDATA, 'Roaming', 'Config'] : [env.XDG_CONFIG_HOME, '.config']);
}

/** By env-paths' convention, as {@link defaultConfigDir}: data that can be lost belongs there (XDG Base Directory). */
export function defaultCacheDir(env: Env, platform: NodeJS.Platform = osPlatform(), home: string = osHomedir()): string {
  return envPathsDir(home, platform, 'Caches', platform === 'win32' ? [env.LOCALAPPDATA, 'Local', 'Cache'] : [env.XDG_CACHE_HOME, '.cache']);
}

/**
 * `COLLECTIONS_CACHE_DIR`, else a config folder chosen explicitly (an isolated set-up keeps
 * everything in one place), else {@link defaultCacheDir}. Empty variables count as unset, not as
 * the working directory.
 */
export function cacheDirOf(env: Env, configDir: string | undefined, platform: NodeJS.Platform = osPlatform(), home: string = osHomedir()): string {
  return env.COLLECTIONS_CACHE_DIR || configDir || defaultCacheDir(env, platform, home);
}

const octal = (mode: number): string => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/**
 * Creates the folder and tightens it and the `files` that others can read or write; on Windows
 * (no POSIX modes; its ACLs on `%APPDATA%` are per user) it only creates the folder.
 * @returns the fixes made, e.g. `/home/a/.config/collections-nodejs from 0755 to 0700`
 * @throws {UsageError} (`E_CONFIG`) when the folder cannot be created, or a file cannot be made private
 */
export function secureFiles(dir: string, files: readonly string[], windows: boolean): string[] {
  try {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  } catch (err) {
    throw new UsageError(`cannot create the config folder ${dir} (${errorCode(err) ?? 'error'})`, {
      code: 'E_CONFIG',
      hint: 'set COLLECTIONS_CONFIG_DIR to a writable folder',
    });
  }
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
      if (mustFix) {
        throw new UsageError(`${path} is readable by others (${octal(mode)}) and could not be made private (${errorCode(err) ?? 'error'})`, {
          code: 'E_CONFIG',
          hint: `run \`chmod 600 ${path}\``,
        });
      }
      fixes.push(`${path} is ${octal(mode)} and could not be changed (${errorCode(err) ?? 'error'})`);
    }
  }
  return fixes;
}
