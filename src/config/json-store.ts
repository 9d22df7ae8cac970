/**
 * The two JSON file stores: the settings file, kept with the `conf` package ({@link createConfStore},
 * as the product has always named it), and the rate-limit cache ({@link createJsonStore}). Both hold
 * one JSON object, read afresh on every call and replaced atomically on every write, in the same
 * layout (the object pretty-printed with tabs, no trailing newline), so files written by any
 * version are read as they are, with no migration.
 *
 * Writes go through a temporary file beside the target, opened with mode 0600, written, fsync'd,
 * chmod'ed to exactly 0600 (so no umask can widen it), then renamed over the target (rename(2) is
 * atomic within a folder, so a failed write leaves the old file whole): conf does it through
 * `atomically`, the cache through `write-file-atomic`. A symlinked file is followed and its target
 * replaced, and an existing file's owner is kept. Our own exclusive-temp helpers (io/files.ts) are
 * asynchronous and built for the export's files; the stores are synchronous and their folder is
 * private (0700), so the libraries are enough here.
 *
 * The cache stays off conf: it is a cache, not settings, and best-effort, and `atomically` retries
 * a refused write (EACCES, EPERM, EBUSY) in a busy loop for up to a second before giving up, which
 * would stall every export whose cache folder is read-only.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import Conf from 'conf';
import writeFileAtomic from 'write-file-atomic';
import { DIR_MODE, FILE_MODE } from './folder.js';

/** One JSON object file; its top-level fields are read and written one at a time. */
export interface JsonStore {
  /** Absolute path of the file. */
  readonly path: string;
  /**
   * One top-level field of the file as it is now; undefined when the file is missing, has no such
   * own field, or holds no object.
   * @throws what {@link readJsonFile} throws
   */
  get(key: string): unknown;
  /**
   * Replaces one top-level field, keeping the others, and saves the file (mode 0600; its folder is
   * created with mode 0700 if it went missing).
   * @throws what {@link readJsonFile} throws when the current file cannot be read; the file system's
   *   error (an `Error` with a string `code`, e.g. `ENOSPC`, `EFBIG`, `EACCES`, `EROFS`) when it
   *   cannot be saved, the file then being left as it was
   */
  set(key: string, value: unknown): void;
}

/**
 * Reads and parses a JSON file.
 * @returns the parsed value; undefined when the file does not exist (`ENOENT`)
 * @throws the file system's error for any other read failure (e.g. `EACCES`, `EISDIR`); a
 *   `SyntaxError` when the text is not JSON (its message may quote the file, so callers must not
 *   show it)
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

/**
 * The top-level fields of a parsed file, as conf took them: the own enumerable properties copied
 * onto an object without a prototype (so a `__proto__` field stays an ordinary field); `null`,
 * numbers and booleans give none.
 */
function fieldsOf(data: unknown): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, data);
}

/**
 * The JSON store of the file at `path`. Touches nothing until {@link JsonStore.get} or
 * {@link JsonStore.set} is called.
 */
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
        writeFileAtomic.sync(path, text, { mode: FILE_MODE });
      } catch (err) {
        // Some Windows file systems refuse the rename within one folder (EXDEV): write in place.
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        writeFileSync(path, text, { mode: FILE_MODE });
      }
    },
  };
}

/**
 * The store of the file at `path`, kept with conf; the same contract as {@link createJsonStore}.
 * conf is opened on first use, as its constructor reads the file. It makes a missing folder with
 * the umask's mode (on a read too), so the folder is made here first, 0700, and a read of a file
 * whose folder is missing reads nothing without asking conf.
 */
export function createConfStore(path: string): JsonStore {
  let conf: Conf<Record<string, unknown>> | undefined;
  const open = (): Conf<Record<string, unknown>> =>
    (conf ??= new Conf({
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
      if (!existsSync(dirname(path))) return undefined;
      return open().get(key);
    },
    set(key, value) {
      mkdirSync(dirname(path), { recursive: true, mode: DIR_MODE });
      open().set(key, value);
    },
  };
}
