/** Output folders, made (as `gh` and `rclone` do) and checked before the first request: no run fails after downloading a whole export. */
import { constants as fsConstants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { access, mkdir, open, rm, rmdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errorCode, OutputError } from '../../errors.js';
import type { ExportPlan } from '../../export/run/plan.js';
import { checkReplace } from '../../export/state/state.js';
import { errorWords, fileError } from '../../io/files.js';
import { isWrittenThrough } from '../../export/files/destination.js';

/** Tests inject a read-only or forbidden file system. */
export interface FolderFileSystem {
  /** Without `recursive`: EEXIST when something is there. */
  mkdir(path: string): Promise<unknown>;
  stat(path: string): Promise<{ isDirectory(): boolean; isFile(): boolean }>;
  /** With `W_OK | X_OK`. */
  access(path: string): Promise<void>;
  /** Creates `path` (`O_CREAT | O_EXCL | O_NOFOLLOW`) and removes it again. */
  probe(path: string): Promise<void>;
}

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fsConstants;

const nodeFolders: FolderFileSystem = {
  mkdir: (path) => mkdir(path),
  stat: (path) => stat(path),
  access: (path) => access(path, fsConstants.W_OK | fsConstants.X_OK),
  async probe(path) {
    await (await open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)).close();
    await rm(path, { force: true });
  },
};

export interface FolderProblem {
  file: string;
  /** The file itself, or a folder on its way. */
  path: string;
  /** e.g. `folder /ro is not writable: read-only file system (EROFS)`. */
  cause: string;
}

export interface FolderPlan {
  /** Absolute, each after its parent; empty with a `problem`. */
  create: string[];
  problem?: FolderProblem;
  /** Where {@link makeFolders} creates a file to be sure. */
  folders: string[];
}

type Stat = Awaited<ReturnType<FolderFileSystem['stat']>>;

async function statOf(fs: FolderFileSystem, path: string): Promise<Stat | { code: string; error: unknown }> {
  try {
    return await fs.stat(path);
  } catch (error) {
    return { code: errorCode(error) ?? '', error };
  }
}

/** Parents first; undefined for a FIFO or device. */
async function planFile(file: string, fs: FolderFileSystem): Promise<{ missing: string[]; folder: string } | FolderProblem | undefined> {
  const self = await statOf(fs, file);
  if ('isDirectory' in self) {
    if (self.isDirectory()) return { file, path: file, cause: 'it is a folder' };
    if (!self.isFile()) return undefined;
  } else if (self.code !== 'ENOENT' && self.code !== 'ENOTDIR') return { file, path: file, cause: errorWords(self.error) };
  const missing: string[] = [];
  let at = dirname(file);
  for (;;) {
    const info = await statOf(fs, at);
    if ('isDirectory' in info) {
      if (!info.isDirectory()) return { file, path: at, cause: `${at} is a file, not a folder` };
      break;
    }
    if (info.code !== 'ENOENT' && info.code !== 'ENOTDIR') return { file, path: at, cause: `cannot check ${at}: ${errorWords(info.error)}` };
    missing.unshift(at);
    // The root always exists; callers give absolute paths.
    if (dirname(at) === at) break;
    at = dirname(at);
  }
  try {
    await fs.access(at);
  } catch (error) {
    return { file, path: at, cause: `folder ${at} is not writable: ${errorWords(error)}` };
  }
  return { missing, folder: dirname(file) };
}

/** Creates nothing: the deepest existing folder above each file must be one `access(2)` lets us write into. */
export async function planFolders(files: readonly string[], fs: FolderFileSystem = nodeFolders): Promise<FolderPlan> {
  const create: string[] = [];
  const folders: string[] = [];
  for (const file of files) {
    const planned = await planFile(file, fs);
    if (planned === undefined) continue;
    if ('cause' in planned) return { create: [], folders: [], problem: planned };
    for (const level of planned.missing) if (!create.includes(level)) create.push(level);
    if (!folders.includes(planned.folder)) folders.push(planned.folder);
  }
  return { create, folders };
}

/**
 * One level at a time: Node's recursive mkdir reports a read-only mount as ENOENT. Then a file is
 * created and removed in each folder: `access(2)` says yes to root on a pseudo file system (`/proc`)
 * that takes no file. A dry run makes none: it finds the same problem, and lists what it would make.
 * @returns the folders made, each after its parent
 * @throws {OutputError} (exit 7) naming the path and the cause in words
 */
export async function makeFolders(files: readonly string[], fs: FolderFileSystem = nodeFolders, dryRun = false): Promise<string[]> {
  const plan = await planFolders(files, fs);
  if (plan.problem) throw new OutputError(`cannot write ${plan.problem.file}: ${plan.problem.cause}`);
  if (dryRun) return plan.create;
  const made: string[] = [];
  for (const level of plan.create) {
    try {
      await fs.mkdir(level);
      made.push(level);
    } catch (err) {
      // Made meanwhile by another run: fine when it is a folder (a file there fails the probe).
      if (errorCode(err) !== 'EEXIST') throw fileError('create the folder', level, err);
    }
  }
  for (const folder of plan.folders) {
    const file = files.find((f) => dirname(f) === folder)!;
    try {
      await fs.probe(`${file}.${randomBytes(6).toString('hex')}.tmp`);
    } catch (err) {
      throw new OutputError(`cannot write ${file}: creating a file in ${folder} failed: ${errorWords(err)}`, { cause: err });
    }
  }
  return made;
}

/**
 * So a run that fails before writing anything leaves no empty folders; `rmdir` removes only an empty one.
 * @param made each listed after its parents
 */
export async function removeEmptyFolders(made: readonly string[]): Promise<void> {
  for (const folder of [...made].reverse()) await rmdir(folder).catch(() => undefined);
}

type WritingPlan = Pick<ExportPlan, 'output' | 'state' | 'manifest'>;

/**
 * Output (a DuckDB file too), `--state` file and manifest, absolute; none for a FIFO or device (`/dev/stdout`):
 * `/dev` is no folder to check (only root can write it).
 */
async function filesToWrite(plans: readonly WritingPlan[], fs: FolderFileSystem): Promise<string[]> {
  const files: Array<string | undefined> = [];
  for (const { output, state, manifest } of plans) {
    const target = output.files?.target;
    const info = target === undefined ? undefined : await statOf(fs, target);
    const through = target !== undefined && info !== undefined && 'isDirectory' in info && isWrittenThrough(target, info);
    const address = output.database?.address;
    files.push(address?.kind === 'duckdb' ? address.path : through ? undefined : target, state?.path, through ? undefined : manifest?.path);
  }
  return files.filter((f): f is string => f !== undefined);
}

/**
 * Before the first request: none may replace an output it would narrow, then every folder is made
 * ({@link makeFolders}, which a dry run asks to make none).
 * @throws {UsageError} (exit 2) before anything is written; {@link OutputError} (exit 7) from {@link makeFolders}
 */
export async function prepareOutputs(plans: readonly WritingPlan[], { dryRun = false, fs = nodeFolders } = {}): Promise<string[]> {
  for (const { output, manifest } of plans) {
    if (output.files && manifest) {
      await checkReplace({ target: output.files.target, manifest: manifest.path, since: manifest.output.watermark.before ?? undefined });
    }
  }
  return makeFolders(await filesToWrite(plans, fs), fs, dryRun);
}
