/**
 * The folders an export writes into, made and checked before its first request (docs/many-taxpayers.md, "Many
 * taxpayers in one run" and "Nightly sync"): the folder of an `--out` template and the folder of
 * the `--state` file are created when missing (as `gh` and `rclone` create theirs), and must then
 * be writable, so a run never downloads a whole export only to fail when it stores the result.
 */
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { OutputError } from '../errors.js';
import type { ExportPlan } from '../export/run/plan.js';
import { errorReason, fileError } from '../io/files.js';

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
 * @throws {OutputError} (exit 7): `cannot create the folder D: read-only file system (EROFS)` (also
 *   EACCES, ENOTDIR, ENOSPC…), `cannot write F: D is not a folder`, `cannot write F: folder D is not writable`
 */
export async function makeFolder(folder: string, forPath: string, fs: FolderFileSystem = nodeFolders): Promise<void> {
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
  for (const level of missing) {
    try {
      await fs.mkdir(level);
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
}

/**
 * Makes and checks, before an export's first request, the folder of its output when `--out` was a
 * template (a plain `--out` must name an existing folder: export/files/sidecar.ts checks it) and the
 * folder of its `--state` file.
 * @param templated the output of a template, absolute; undefined when `--out` was no template
 * @param state the `--state` file, absolute; undefined without `--state`
 * @throws {OutputError} (exit 7) as {@link makeFolder}
 */
export async function prepareFolders(templated: string | undefined, state: string | undefined, fs?: FolderFileSystem): Promise<void> {
  if (templated !== undefined) await makeFolder(dirname(templated), templated, fs);
  if (state !== undefined) await makeFolder(dirname(state), state, fs);
}

/** Why a file cannot be written: the file, the path at fault (a folder on its way), and the cause in words. */
export interface FolderProblem {
  file: string;
  path: string;
  cause: string;
}

/** What writing a set of files needs of their folders: what to create, or why it cannot be done. */
export interface FolderPlan {
  /** Folders to create, absolute, each after its parent. */
  create: string[];
  /** The first file that cannot be written; `create` is then empty. */
  problem?: FolderProblem;
}

/** The error of a {@link FolderProblem}: `cannot write F: cause` (exit 7). */
export function folderError(problem: FolderProblem): OutputError {
  return new OutputError(`cannot write ${problem.file}: ${problem.cause}`);
}

/**
 * The missing folders above `file`, from the deepest existing one down, or why they cannot be made.
 * A FIFO or device is written straight through: nothing to make.
 */
async function planFile(file: string, fs: FolderFileSystem): Promise<string[] | FolderProblem> {
  const self = await stat(file).catch(() => undefined);
  if (self !== undefined && !self.isFile() && !self.isDirectory()) return [];
  const missing: string[] = [];
  let at = dirname(file);
  for (;;) {
    try {
      if (!(await fs.stat(at)).isDirectory()) return { file, path: at, cause: `${at} is not a folder` };
      break;
    } catch (err) {
      if (codeOf(err) !== 'ENOENT') return { file, path: at, cause: `cannot check ${at} (${errorReason(err)})` };
      missing.unshift(at);
      if (dirname(at) === at) break;
      at = dirname(at);
    }
  }
  try {
    await fs.access(at);
  } catch (err) {
    return { file, path: at, cause: `folder ${at} is not writable (${codeOf(err) ?? 'access'})` };
  }
  return missing;
}

/**
 * Which folders writing `files` would make, and whether it would fail, creating nothing (the dry
 * run's): for each file, the missing folders above it, made from the deepest existing folder,
 * which must be a folder this process may write into.
 * @param files absolute paths
 */
export async function planFolders(files: readonly string[], fs: FolderFileSystem = nodeFolders): Promise<FolderPlan> {
  const create: string[] = [];
  for (const file of files) {
    const planned = await planFile(file, fs);
    if (!Array.isArray(planned)) return { create: [], problem: planned };
    for (const level of planned) if (!create.includes(level)) create.push(level);
  }
  return { create };
}

/** The files an export plan writes whose folders must exist: its output, `--state` file and manifest (absolute). */
export function writtenFiles(plan: Pick<ExportPlan, 'output' | 'state' | 'manifest'>): string[] {
  return [plan.output.files?.target, plan.state?.path, plan.manifest?.path].filter((f): f is string => f !== undefined);
}
