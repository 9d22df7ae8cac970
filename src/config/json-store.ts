/**
 * The JSON object files: the settings, kept with `conf` ({@link createConfStore}), and the
 * rate-limit cache ({@link createJsonStore}). Both are read afresh on every call and replaced
 * atomically (temp file opened 0600, fsync, chmod 0600 whatever the umask, rename; a symlink's
 * target is replaced, the owner kept), in the layout conf writes: tabs, no trailing newline.
 *
 * The cache stays off conf: it is not settings, it must never stall an export, and conf's writer
 * (`atomically`) retries a refused write (EACCES, EPERM, EBUSY) in a busy loop for up to 1 s.
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
 * The store of the file at `path`, kept with conf; the contract of {@link createJsonStore}. conf
 * makes a missing folder with the umask's mode, on a read too: the folder is made 0700 here first,
 * and a read in a missing folder does not reach conf. Opened on first use (the constructor reads).
 */
export function createConfStore(path: string): JsonStore {
  let conf: Conf | undefined;
  const open = (): Conf =>
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
