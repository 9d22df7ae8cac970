/**
 * The folders an export writes into, made and checked before its first request (docs/many-taxpayers.md, "Many
 * taxpayers in one run" and "Nightly sync"): the folder of an `--out` template and the folder of
 * the `--state` file are created when missing (as `gh` and `rclone` create theirs), and must then
 * be writable, so a run never downloads a whole export only to fail when it stores the result.
 */
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { OutputError } from '../errors.js';
import { fileError } from '../io/files.js';

/** The calls {@link makeFolder} makes; tests inject a read-only or forbidden file system. */
export interface FolderFileSystem {
  /** As `fs.promises.mkdir` without `recursive`: EEXIST when something is there. */
  mkdir(path: string): Promise<unknown>;
  /** As `fs.promises.stat`. */
  stat(path: string): Promise<{ isDirectory(): boolean }>;
  /** As `fs.promises.access` with `W_OK | X_OK`. */
  access(path: string): Promise<void>;
}

const nodeFolders: FolderFileSystem = {
  mkdir: (path) => mkdir(path),
  stat: (path) => stat(path),
  access: (path) => access(path, fsConstants.W_OK | fsConstants.X_OK),
};

/** The code of a system error, or undefined. */
function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Makes `folder` and its missing parents one level at a time, from the deepest one that exists,
 * then checks that it is a folder this process can write into. Node's `mkdir(…, { recursive: true })`
 * reports the ENOENT of the deepest level when a parent cannot be made (a read-only mount gives
 * ENOENT instead of EROFS; some pseudo file systems make it loop), so each level is made on its own
 * and the first failure is reported with its real cause.
 * @param forPath the file that will be written there, named when the folder is not writable
 * @returns the folders it made, outermost first (for {@link removeEmptyFolders})
 * @throws {OutputError} (exit 7): `cannot create the folder D: read-only file system (EROFS)` (also
 *   EACCES, ENOTDIR, ENOSPC…), `cannot write F: D is not a folder`, `cannot write F: folder D is not writable`
 */
export async function makeFolder(folder: string, forPath: string, fs: FolderFileSystem = nodeFolders): Promise<string[]> {
  const missing: string[] = [];
  let at = folder;
  for (;;) {
    try {
      if (!(await fs.stat(at)).isDirectory()) throw new OutputError(`cannot write ${forPath}: ${at} is not a folder`);
      break;
    } catch (err) {
      if (err instanceof OutputError) throw err;
      if (codeOf(err) !== 'ENOENT') throw fileError('check the folder', at, err);
      const parent = dirname(at);
      missing.unshift(at);
      // The root always exists; a relative path never reaches here (callers resolve paths first).
      if (parent === at) break;
      at = parent;
    }
  }
  const made: string[] = [];
  for (const level of missing) {
    try {
      await fs.mkdir(level);
      made.push(level);
    } catch (err) {
      // Made meanwhile by another run (or by a parallel taxpayer): fine when it is a folder.
      if (codeOf(err) !== 'EEXIST') throw fileError('create the folder', level, err);
    }
  }
  try {
    await fs.access(folder);
  } catch (err) {
    throw new OutputError(`cannot write ${forPath}: folder ${folder} is not writable (${codeOf(err) ?? 'access'})`, { cause: err });
  }
  return made;
}

/**
 * Removes the folders a run made that are still empty, innermost first (`rmdir` removes only an
 * empty folder), so a run that fails before writing anything (a rejected key) leaves no empty
 * folders behind. Best effort: a folder that holds a file, or cannot be removed, stays.
 * @param made folders from {@link prepareFolders}, each listed after its parents
 */
export async function removeEmptyFolders(made: readonly string[]): Promise<void> {
  for (const folder of [...made].reverse()) await rmdir(folder).catch(() => undefined);
}

/**
 * Makes and checks, before an export's first request, the folder of its output when `--out` was a
 * template (a plain `--out` must name an existing folder: export/files/sidecar.ts checks it) and the
 * folder of its `--state` file.
 * @param templated the output of a template, absolute; undefined when `--out` was no template
 * @param state the `--state` file, absolute; undefined without `--state`
 * @returns the folders made, each after its parents
 * @throws {OutputError} (exit 7) as {@link makeFolder}
 */
export async function prepareFolders(templated: string | undefined, state: string | undefined, fs?: FolderFileSystem): Promise<string[]> {
  const made: string[] = [];
  if (templated !== undefined) made.push(...(await makeFolder(dirname(templated), templated, fs)));
  if (state !== undefined) made.push(...(await makeFolder(dirname(state), state, fs)));
  return made;
}
