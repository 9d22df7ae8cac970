/**
 * The config folder: where it is by default, and keeping it and its files private.
 *
 * Permissions (README, "Configuration": mode 0600 in a 0700 folder whatever the umask): conf and
 * the cache's store would create the folder with mode 0777 minus the umask, so the store creates it
 * with mode 0700 first; each file is written through a temporary file chmod'ed to 0600 before it is
 * renamed into place (createConfStore, createJsonStore), and an existing looser folder or file is
 * tightened with one warning line ({@link secureFiles}).
 */
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { homedir as osHomedir, platform as osPlatform } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { errorCode } from '../io/files.js';

/** The project name; the default folder is `<user config folder>/collections-nodejs`. */
const PROJECT_NAME = 'collections';
/** Mode of the config and cache folders: owner only. */
export const DIR_MODE = 0o700;
/** Mode of the config and cache files: owner read/write only. */
export const FILE_MODE = 0o600;

/**
 * The default config folder: conf's own default for project `collections` (`env-paths` with
 * conf's `projectSuffix`, `nodejs`):
 * Linux `$XDG_CONFIG_HOME/collections-nodejs` (else `~/.config/…`), macOS
 * `~/Library/Preferences/collections-nodejs`, Windows `%APPDATA%\collections-nodejs\Config`.
 *
 * Passed to conf as `cwd` rather than left to it: the folder must be made 0700 before conf runs,
 * and `env-paths` reads `process.env`, `os.homedir()` and `process.platform` when loaded, so the
 * environment of the Context (and the platform and home of tests) could not be passed in; these
 * three lines follow its convention and are tested against it.
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

/**
 * The user's cache folder for the project, by env-paths' convention (suffix `nodejs`): Linux
 * `$XDG_CACHE_HOME/collections-nodejs` (else `~/.cache/…`), macOS `~/Library/Caches/collections-nodejs`,
 * Windows `%LOCALAPPDATA%\collections-nodejs\Cache`. The rate-limit cache lives there (XDG Base
 * Directory Specification: data that can be lost belongs in the cache folder, not the config one).
 * Computed from the given environment for the same reason as {@link defaultConfigDir}.
 */
export function defaultCacheDir(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = osPlatform(),
  home: string = osHomedir(),
): string {
  const name = `${PROJECT_NAME}-nodejs`;
  if (platform === 'darwin') return join(home, 'Library', 'Caches', name);
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), name, 'Cache');
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), name);
}

/**
 * The folder of the rate-limit cache: `COLLECTIONS_CACHE_DIR` when set (not empty); else, when the
 * config folder was chosen explicitly (`COLLECTIONS_CONFIG_DIR`, or a store opened on a given
 * folder), that same folder, so an isolated set-up keeps everything in one place; else
 * {@link defaultCacheDir}.
 * @param configDir the config folder when it was chosen explicitly, else undefined
 */
export function cacheDirOf(
  env: Readonly<Record<string, string | undefined>>,
  configDir: string | undefined,
  platform: NodeJS.Platform = osPlatform(),
  home: string = osHomedir(),
): string {
  const override = env.COLLECTIONS_CACHE_DIR;
  if (override !== undefined && override !== '') return override;
  return configDir ?? defaultCacheDir(env, platform, home);
}

const octal = (mode: number): string => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

/**
 * Creates the folder (0700) if needed and tightens the folder and any existing files that others
 * can read or write. On Windows, which has no POSIX modes (its ACLs on `%APPDATA%` are already per
 * user), it only creates the folder.
 * @param files files that hold settings: they must end up private, or this throws
 * @returns the fixes made, e.g. `/home/a/.config/collections-nodejs from 0755 to 0700`
 * @throws {UsageError} (`E_CONFIG`) when the folder cannot be created, or a file holding settings
 *   cannot be made private
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
