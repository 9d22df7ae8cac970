/**
 * The checks a file sink (file-sink.ts) makes as it opens, before it writes: the paths, and the
 * sidecar a resumed export continues. The dry run makes them alone (`checkFileSink`), touching no file.
 */
import type { FileHandle } from 'node:fs/promises';
import { lstat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { OutputError, UsageError } from '../../errors.js';
import { checkFolder, fileError, nodeFileSystem, openOwnedFile, statOrUndefined, type FileInfo, type FileSystem } from '../../io/files.js';

/** Where a file sink writes, and what it continues on resume. */
export interface SinkPaths {
  /** Absolute path of the final file (`--out`). */
  target: string;
  /** Absolute path of the sidecar the export writes first. */
  sidecar: string;
  /** On resume: truncate the existing sidecar to this many bytes and append; otherwise a new sidecar. */
  resumeAtBytes?: number;
  /**
   * On resume: checks, reading the sidecar before it is truncated, that `resumeAtBytes` is a record
   * boundary (of a gzip sidecar: the end of a member) and throws ({@link UsageError}, exit 2) when
   * not (export/files/checkpoint-check.ts `boundaryCheck`).
   */
  checkBoundary?: (sidecar: FileHandle) => Promise<void>;
  /** The file system (default the real one; tests inject write errors). */
  fs?: FileSystem;
}

/**
 * Validates the paths before any file is touched, so an unusable `--out` fails (exit 7, README
 * "Exit codes") before a request is sent: the target's folder exists and is writable, the target
 * and the sidecar are not folders, and the sidecar's folder is writable.
 * @returns what `stat` says about the sidecar, undefined when there is none
 * @throws {OutputError} (exit 7) naming the path
 */
export async function checkPaths(target: string, sidecar: string): Promise<FileInfo | undefined> {
  const folder = dirname(target);
  await checkFolder(folder, target);
  const targetInfo = await statOrUndefined(target);
  if (targetInfo?.isDirectory()) throw new OutputError(`cannot write ${target}: it is a folder`);
  if (dirname(sidecar) !== folder) await checkFolder(dirname(sidecar), sidecar);
  const sidecarInfo = await statOrUndefined(sidecar);
  if (sidecarInfo?.isDirectory()) throw new OutputError(`cannot write ${sidecar}: it is a folder`);
  return sidecarInfo;
}

/**
 * Opens the sidecar of a resumed export (never through a symlink, only a regular file of this
 * user: io/files.ts `openOwnedFile`) and checks `resumeAtBytes` is a record boundary
 * (`checkBoundary`); changes nothing.
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) when the length is not a byte count, the sidecar is
 *   missing or shorter than `resumeAtBytes`, or the offset is not a record boundary: "checkpoint
 *   does not match the partial file"
 * @throws {OutputError} (exit 7) when it cannot be opened, or is a symlink
 */
export async function openResumable(
  sidecar: string,
  info: FileInfo | undefined,
  options: SinkPaths & { resumeAtBytes: number },
): Promise<FileHandle> {
  const { resumeAtBytes } = options;
  if (!Number.isSafeInteger(resumeAtBytes) || resumeAtBytes < 0) {
    throw new UsageError(`checkpoint does not match the partial file ${basename(sidecar)} (bad length ${resumeAtBytes})`, { code: 'E_CHECKPOINT' });
  }
  if (info === undefined) {
    throw new UsageError(`checkpoint does not match the partial file: ${sidecar} is missing`, {
      code: 'E_CHECKPOINT',
      hint: 'start over with --restart',
    });
  }
  if (info.size < resumeAtBytes) {
    throw new UsageError(`checkpoint does not match the partial file: ${sidecar} has ${info.size} bytes, the checkpoint expects ${resumeAtBytes}`, {
      code: 'E_CHECKPOINT',
      hint: 'start over with --restart',
    });
  }
  const handle = await openOwnedFile(options.fs ?? nodeFileSystem, sidecar, { create: false });
  try {
    if (options.checkBoundary) await options.checkBoundary(handle);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error instanceof UsageError ? error : fileError('read', sidecar, error);
  }
  return handle;
}

/**
 * The checks file-sink.ts `createFileSink` makes as it opens, touching no file (the dry run's): the paths,
 * and the sidecar it would open: one left over from another export must be a regular file of this
 * user (it would be emptied), a resumed one must match the checkpoint.
 * @throws what file-sink.ts `createFileSink` throws before it writes: {@link OutputError} (exit 7),
 *   {@link UsageError} (exit 2, `E_CHECKPOINT`)
 */
export async function checkFileSink(options: SinkPaths): Promise<void> {
  const { target, sidecar, resumeAtBytes } = options;
  const info = await checkPaths(target, sidecar);
  // A dangling symlink stats as missing, but `openOwnedFile` would still refuse it.
  const present =
    info !== undefined ||
    (await lstat(sidecar).then(
      () => true,
      () => false,
    ));
  if (resumeAtBytes === undefined && !present) return;
  const fs = options.fs ?? nodeFileSystem;
  const handle =
    resumeAtBytes === undefined
      ? await openOwnedFile(fs, sidecar, { create: false })
      : await openResumable(sidecar, info, { ...options, resumeAtBytes });
  await handle.close().catch(() => undefined);
}
