/**
 * The JSON object files, read afresh on every call and replaced atomically (0600 whatever the umask).
 * The rate-limit cache stays off conf: it must never stall an export, and conf's writer
 * (`atomically`) retries a refused write (EACCES, EPERM, EBUSY) in a busy loop for up to 1 s.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import Conf from 'conf';
import writeFileAtomic from 'write-file-atomic';
import { DIR_MODE, FILE_MODE } from './folder.js';

/** Its top-level fields are read and written one at a time. */
export interface JsonStore {
  readonly path: string;
  /**
   * Undefined when the file is missing, has no such own field, or holds no object.
   * @throws what {@link readJsonFile} throws
   */
  get(key: string): unknown;
  /**
   * Keeps the other fields; recreates a missing folder.
   * @throws what {@link readJsonFile} throws; the file system's error (a string `code`) when the
   *   file cannot be saved, which is then left as it was
   */
  set(key: string, value: unknown): void;
}

/**
 * @returns undefined when the file does not exist
 * @throws the file system's error; a `SyntaxError` whose message may quote the file, so callers must not show it
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

/** As conf took them: without a prototype, so a `__proto__` field stays an ordinary field. */
function fieldsOf(data: unknown): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, data);
}

/** Touches nothing until used. */
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
 * conf makes a missing folder with the umask's mode, on a read too: the folder is made 0700 here
 * first, and a read in a missing folder does not reach conf.
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
