/** Errors that name the path and say why; opens that never follow a symlink nor truncate a file the tool did not create. */
import { constants as fsConstants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { access, open, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import { errorCode, OutputError } from '../errors.js';

export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EISDIR: 'is a folder',
  ENOTDIR: 'a part of the path is not a folder',
  ENOENT: 'no such file or folder',
  EIO: 'input/output error',
  EFBIG: 'file too large',
  ENAMETOOLONG: 'name too long',
};

/**
 * `cannot write /data/x.part: no space left on the device (ENOSPC)` (exit 7).
 * @param action e.g. `write`, `sync`, `rename the finished export onto`
 */
export function fileError(action: string, path: string, error: unknown): OutputError {
  return new OutputError(`cannot ${action} ${path}: ${errorWords(error)}`, { cause: error });
}

/** `permission denied (EACCES)`; the error's own message for other codes. */
export function errorWords(error: unknown): string {
  const code = errorCode(error);
  const reason = code === undefined ? undefined : REASONS[code];
  return reason === undefined ? errorMessage(error) : `${reason} (${code})`;
}

export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export type FileInfo = Awaited<ReturnType<typeof stat>>;

/** Undefined for ENOENT. @throws {OutputError} (exit 7) on any other error */
export async function statOrUndefined(path: string): Promise<FileInfo | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw fileError('check', path, error);
  }
}

/**
 * Before any file in `folder` is touched: it exists, is a folder, is writable.
 * @throws {OutputError} (exit 7) naming `forPath`, the file to be written there
 */
export async function checkFolder(folder: string, forPath: string): Promise<void> {
  const info = await statOrUndefined(folder);
  if (info === undefined) throw new OutputError(`cannot write ${forPath}: folder ${folder} does not exist`);
  if (!info.isDirectory()) throw new OutputError(`cannot write ${forPath}: ${folder} is not a folder`);
  try {
    await access(folder, fsConstants.W_OK | fsConstants.X_OK);
  } catch (error) {
    throw new OutputError(`cannot write ${forPath}: folder ${folder} is not writable`, { cause: error });
  }
}

/** "This platform or file system does not fsync folders" (Windows: EISDIR, EPERM; some file systems: EINVAL, ENOTSUP). */
const FOLDER_SYNC_UNSUPPORTED = new Set(['EINVAL', 'EISDIR', 'EPERM', 'ENOTSUP', 'EBADF', 'EACCES']);

/** Fsynced so a rename in `folder` survives a crash (POSIX). @throws {OutputError} (exit 7) on any error but those */
export async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch (error) {
    if (!FOLDER_SYNC_UNSUPPORTED.has(errorCode(error) ?? '')) throw fileError('sync folder', folder, error);
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** `node:fs/promises`, or in tests a facade that makes a write fail with ENOSPC, EIO… */
export interface FileSystem {
  open(path: string, flags: string | number, mode?: number): Promise<FileHandle>;
  rename(from: string, to: string): Promise<void>;
}

export const nodeFileSystem: FileSystem = { open, rename };

const { O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fsConstants;

/**
 * A file that must not exist yet, never through a symlink (open(2): EEXIST for anything at the path).
 * @throws {OutputError} (exit 7) naming the path
 */
export async function createExclusive(fs: FileSystem, path: string, mode = 0o666): Promise<FileHandle> {
  try {
    return await fs.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  } catch (error) {
    throw fileError('create', path, error);
  }
}

/**
 * A sidecar, opened without following a symlink, then checked by `fstat` on the descriptor: only a
 * regular file of this user with one link can be one this tool left; emptied only after. @throws {OutputError} (exit 7)
 */
export async function openOwnedFile(fs: FileSystem, path: string, options: { create: boolean }): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await fs.open(path, O_RDWR | O_NOFOLLOW | (options.create ? O_CREAT : 0), 0o666);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw new OutputError(`refusing to write ${path}: it is a symbolic link`, { cause: error });
    throw fileError('open', path, error);
  }
  try {
    const info = await handle.stat();
    const uid = userInfo().uid;
    let refusal: string | undefined;
    if (!info.isFile()) refusal = 'it is not a regular file';
    else if (uid >= 0 && info.uid !== uid) refusal = 'it belongs to another user';
    else if (info.nlink > 1) refusal = 'it has other hard links';
    if (refusal) throw new OutputError(`refusing to write ${path}: ${refusal}`);
    if (options.create) await handle.truncate(0);
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error instanceof OutputError ? error : fileError('truncate', path, error);
  }
}

export interface ReplaceFileOptions {
  mode: number;
  /** Names the write in errors, e.g. `write the checkpoint`. */
  action: string;
  /** So the rename itself survives a crash. */
  syncFolder?: boolean;
}

/** Atomic, durable: exclusive temp beside `path` (not write-file-atomic: no symlinks, takes {@link FileSystem}). @throws {OutputError} (exit 7) */
export async function replaceFile(fs: FileSystem, path: string, text: string, options: ReplaceFileOptions): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  let created = false;
  try {
    const handle = await fs.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, options.mode);
    created = true;
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, path);
  } catch (err) {
    if (created) await rm(tmp, { force: true }).catch(() => undefined);
    throw fileError(options.action, path, err);
  }
  if (options.syncFolder === true) await syncFolder(dirname(path));
}
