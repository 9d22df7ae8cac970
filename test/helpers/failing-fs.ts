/**
 * A file-system facade (src/io/files.ts `FileSystem`) over the real one that makes chosen calls
 * fail with an errno code (ENOSPC, EDQUOT, EFBIG, EIO, EACCES, EROFS…), for the write-error tests.
 */
import { open, rename } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { FileSystem } from '../../src/io/files.js';

/** Which call fails. */
export type FailingCall = 'open' | 'write' | 'sync' | 'rename';

/** Options of {@link failingFs}. */
export interface FailingFsOptions {
  /** The errno code thrown, e.g. `ENOSPC`. */
  code: string;
  /** The call that fails (default `write`). */
  on?: FailingCall;
  /** Only for paths this accepts (default every path). */
  paths?: (path: string) => boolean;
  /** `write`: bytes each matching file accepts before writes fail (default 0). */
  afterBytes?: number;
  /** How many matching opens behave normally before the failures start (default 0). */
  afterOpens?: number;
}

/** An errno-style error, as Node's fs rejects with. */
function errnoError(code: string, syscall: string, path?: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected failure, ${syscall}${path ? ` '${path}'` : ''}`), { code, syscall, ...(path ? { path } : {}) });
}

/** A handle whose writes, syncs or `writeFile` fail as `options` say; everything else is the real handle's. */
function wrapHandle(handle: FileHandle, path: string, options: FailingFsOptions): FileHandle {
  const on = options.on ?? 'write';
  let written = 0;
  const limit = options.afterBytes ?? 0;
  return new Proxy(handle, {
    get(target, prop) {
      if (on === 'write' && prop === 'write') {
        return async (buffer: Buffer, offset: number, length: number, position: number | null) => {
          if (written + length > limit) throw errnoError(options.code, 'write', path);
          const result = await target.write(buffer, offset, length, position);
          written += result.bytesWritten;
          return result;
        };
      }
      if (on === 'write' && prop === 'writeFile') {
        return () => Promise.reject(errnoError(options.code, 'write', path));
      }
      if (on === 'sync' && (prop === 'sync' || prop === 'datasync')) {
        return () => Promise.reject(errnoError(options.code, 'fsync', path));
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * The real file system, with the calls `options` name failing for the paths it names.
 * @returns a {@link FileSystem} for `createFileSink`, `saveCheckpoint` or the `fs` of a run's `ExportServices`
 */
export function failingFs(options: FailingFsOptions): FileSystem {
  const accepts = options.paths ?? (() => true);
  let opens = 0;
  const failing = (path: string): boolean => accepts(path) && ++opens > (options.afterOpens ?? 0);
  return {
    async open(path, flags, mode) {
      const fails = failing(path);
      if (options.on === 'open' && fails) throw errnoError(options.code, 'open', path);
      const handle = await open(path, flags, mode);
      return fails ? wrapHandle(handle, path, options) : handle;
    },
    async rename(from, to) {
      if (options.on === 'rename' && (accepts(from) || accepts(to))) throw errnoError(options.code, 'rename', from);
      await rename(from, to);
    },
  };
}
