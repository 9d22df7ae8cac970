/**
 * File-system helpers of the export's files: errors that name the path and say why in words, a
 * folder check done before anything is written, the folder fsync that makes a rename durable, and
 * the opens that never follow a symlink nor truncate a file the tool did not create.
 */
import { constants as fsConstants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { access, open, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import { OutputError } from '../errors.js';

/**
 * The `code` of a Node.js system error (`'ENOSPC'`, `'EPIPE'`…).
 * @returns the code, or undefined when `error` carries no string `code`
 */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The message of anything thrown: an Error's `message`, else the value as a string. */
function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The reason of a file-system error in a word or a line: its `code` (`ENOENT`), else its message. */
export function errorReason(error: unknown): string {
  return errorCode(error) ?? errorMessage(error);
}

/** One-line reasons for the usual file-system error codes. */
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
 * An {@link OutputError} (exit 7) naming the path and the reason, from a file-system error:
 * `cannot write /data/x.part: no space left on the device (ENOSPC)`. Codes without a reason above
 * give the error's own message and no code.
 * @param action the verb phrase, e.g. `write`, `sync`, `rename the finished export onto`
 */
export function fileError(action: string, path: string, error: unknown): OutputError {
  return new OutputError(`cannot ${action} ${path}: ${errorWords(error)}`, { cause: error });
}

/** The cause of a file-system error in words: `permission denied (EACCES)`; the error's own message for other codes. */
export function errorWords(error: unknown): string {
  const code = errorCode(error);
  const reason = code === undefined ? undefined : REASONS[code];
  return reason === undefined ? errorMessage(error) : `${reason} (${code})`;
}

/** What `fs.stat` tells about a path. */
export type FileInfo = Awaited<ReturnType<typeof stat>>;

/**
 * Stats a path.
 * @returns undefined when it does not exist (ENOENT)
 * @throws {OutputError} (exit 7) on any other error, e.g. `cannot check /p: permission denied (EACCES)`
 */
export async function statOrUndefined(path: string): Promise<FileInfo | undefined> {
  try {
    return await stat(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw fileError('check', path, error);
  }
}

/**
 * Checks that `folder` exists, is a folder and is writable (W_OK and X_OK), before any file in it
 * is touched.
 * @param forPath the file that will be written there, named in the message
 * @throws {OutputError} (exit 7): `cannot write F: folder D does not exist`, `… D is not a folder`,
 *   `… folder D is not writable`
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

/** Errors of a folder fsync that mean "this platform or file system does not do that". */
const FOLDER_SYNC_UNSUPPORTED = new Set(['EINVAL', 'EISDIR', 'EPERM', 'ENOTSUP', 'EBADF', 'EACCES']);

/**
 * fsyncs a folder so a rename in it survives a crash (as write-file-atomic does; POSIX leaves the
 * durability of a directory entry to an fsync of the directory). Some platforms refuse to open or
 * fsync a folder (Windows: EISDIR/EPERM; some file systems: EINVAL, ENOTSUP); durability there
 * rests on the file system, so those errors are ignored.
 * @throws {OutputError} (exit 7) on any other error (EIO…)
 */
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

/**
 * The file-system calls the export's files go through: `node:fs/promises` in production, a facade
 * in tests that makes a write fail with ENOSPC, EIO… (the tests of write errors).
 */
export interface FileSystem {
  /** As `fs.promises.open`; `flags` a string or the `O_*` bits of `fs.constants`, `mode` e.g. `0o600`. */
  open(path: string, flags: string | number, mode?: number): Promise<FileHandle>;
  /** As `fs.promises.rename`. */
  rename(from: string, to: string): Promise<void>;
}

/** The real file system. */
export const nodeFileSystem: FileSystem = {
  open: (path, flags, mode) => open(path, flags, mode),
  rename: (from, to) => rename(from, to),
};

const { O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fsConstants;

/**
 * Creates a file that must not exist yet, never through a symlink: `O_CREAT | O_EXCL | O_NOFOLLOW`
 * (open(2): EEXIST when anything, a symlink included, is at the path).
 * @param mode permission bits, e.g. `0o600`
 * @throws {OutputError} (exit 7) naming the path: EEXIST, EACCES, ENOSPC…
 */
export async function createExclusive(fs: FileSystem, path: string, mode = 0o666): Promise<FileHandle> {
  try {
    return await fs.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  } catch (error) {
    throw fileError('create', path, error);
  }
}

/**
 * Opens the sidecar of an export read-write without following a symlink (`O_NOFOLLOW`), and checks
 * with `fstat` on the open descriptor (so nothing can be swapped in between) that it is a regular
 * file of this user with one link: only such a file can be a sidecar this tool left. Fresh
 * (`truncate`), it is created when missing and emptied only after those checks; on resume it must
 * exist.
 * @throws {OutputError} (exit 7): `refusing to write P: it is a symbolic link` (ELOOP), `… it is not
 *   a regular file`, `… it belongs to another user`, `… it has other hard links`; other open errors
 *   as {@link fileError}
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

/** Options of {@link replaceFile}. */
export interface ReplaceFileOptions {
  /** Permission bits of the new file, e.g. `0o600`. */
  mode: number;
  /** Names the write in errors, e.g. `write the checkpoint`. */
  action: string;
  /** Fsync the folder after the rename, so the rename itself survives a crash (default false). */
  syncFolder?: boolean;
}

/**
 * Replaces `path` with `text` atomically and durably: a temp file with a random name beside it
 * (`path.<random>.tmp`, created `O_CREAT | O_EXCL | O_NOFOLLOW`, so a symlink or a file planted
 * there is never written through), written, fsynced, renamed onto `path`; a crash leaves the old
 * file or the new one, never half of one. The temp file is removed on failure. Our own rather than
 * write-file-atomic's because it must refuse symlinks (`O_NOFOLLOW`) and take the injected
 * {@link FileSystem} of the fault tests.
 * @throws {OutputError} (exit 7) naming `path` and the cause, e.g. `cannot write the checkpoint P:
 *   no space left on the device (ENOSPC)`
 */
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
