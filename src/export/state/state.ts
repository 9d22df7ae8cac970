/**
 * The state file of incremental exports (`--state <file>`; docs/nightly-sync.md, "Nightly sync"): a small JSON
 * file holding, per endpoint and ids, the watermark the next export starts at:
 * `{"version":1,"watermarks":{"invoices PEIC211118IS0":{"since":"2024-05-01T05:59:59+00:00","updatedAt":"…"}}}`.
 * It is read before anything is sent and replaced atomically only once an export completed.
 */
import { constants as fsConstants, closeSync, openSync, readFileSync } from 'node:fs';
import { ID_SPECS, type Endpoint, type Ids } from '../../endpoints.js';
import { OutputError, UsageError } from '../../errors.js';
import { isObject } from '../../json/object.js';
import { fileError, nodeFileSystem, replaceFile, type FileSystem } from '../../io/files.js';
import { parseSince } from './since.js';

const { O_RDONLY, O_NOFOLLOW } = fsConstants;

/** Version of the state file layout; another version is refused. */
export const STATE_VERSION = 1;

/** The watermark of one endpoint and ids. */
export interface WatermarkEntry {
  /** Where the next export starts, with an explicit UTC offset, e.g. `2024-05-01T05:59:59+00:00`. */
  since: string;
  /** When it was written, ISO 8601 by the local clock (for people reading the file). */
  updatedAt: string;
}

/** The whole state file. */
export interface StateFile {
  version: typeof STATE_VERSION;
  /** By {@link stateKey}. */
  watermarks: Record<string, WatermarkEntry>;
}

/**
 * The key of an endpoint and its ids in the state file: the endpoint key, then each id in
 * {@link ID_SPECS} order, space-separated (ids hold no white space), e.g. `invoices PEIC211118IS0`,
 * `entities`. Each taxpayer has its own key, so many share one file.
 */
export function stateKey(endpoint: Endpoint, ids: Ids): string {
  const parts = [endpoint.key];
  for (const spec of ID_SPECS) if (endpoint.ids.includes(spec.name) && ids[spec.name] !== undefined) parts.push(ids[spec.name]!);
  return parts.join(' ');
}

/** What is wrong with a parsed state file, or undefined when it is a {@link StateFile}. */
function stateSchemaError(v: unknown): string | undefined {
  if (!isObject(v)) return 'not an object';
  if (v.version !== STATE_VERSION) return `version is not ${STATE_VERSION}`;
  if (!isObject(v.watermarks)) return 'watermarks is not an object';
  for (const [key, entry] of Object.entries(v.watermarks)) {
    if (!isObject(entry) || typeof entry.since !== 'string' || typeof entry.updatedAt !== 'string')
      return `the entry '${key}' is not {since, updatedAt}`;
  }
  return undefined;
}

/**
 * Reads a state file, never through a symlink (`O_NOFOLLOW`), synchronously (it is read once,
 * while the export is planned).
 * @returns the file, or an empty one when there is none (a first run exports in full)
 * @throws {UsageError} (exit 2) when it is a symlink, not JSON or not of this layout, naming the
 *   path: a state that cannot be trusted must not silently turn into a full export;
 *   {@link OutputError} (exit 7) when it cannot be read (a folder, a file on its path, EACCES…), the cause in words
 */
export function readState(path: string): StateFile {
  let text: string;
  try {
    const fd = openSync(path, O_RDONLY | O_NOFOLLOW);
    try {
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { version: STATE_VERSION, watermarks: {} };
    if (code === 'ELOOP') throw new UsageError(`the state file ${path} is a symbolic link; refusing to read it`);
    if (code === 'EISDIR') throw new OutputError(`cannot use the state file ${path}: it is a folder`, { cause: err });
    throw fileError('read the state file', path, err);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const wrong = value === undefined ? 'not JSON' : stateSchemaError(value);
  if (wrong !== undefined)
    throw new UsageError(`the state file ${path} is corrupt (${wrong}); fix or delete it (a missing file means a full export)`);
  return value as StateFile;
}

/**
 * The stored watermark of `key`, as epoch ms; undefined when there is none.
 * @throws {UsageError} (exit 2) when the stored value is not an ISO 8601 time
 */
export function storedWatermark(state: StateFile, key: string, path: string): number | undefined {
  const entry = state.watermarks[key];
  return entry === undefined ? undefined : parseSince(entry.since, `the watermark of '${key}' in ${path}`);
}

/** The saves of this process, per state file, chained so two exports of one run never interleave theirs. */
const saving = new Map<string, Promise<unknown>>();

/**
 * Runs `update` holding the state file's lock: in this process a chain per path (parallel
 * taxpayers of one run), across processes `proper-lockfile`'s `F.lock` folder (mkdir is atomic),
 * retried for up to about 10 s, taken over when stale (10 s without its mtime moving).
 * @throws {OutputError} (exit 7) when the lock cannot be taken; what `update` throws
 */
async function withStateLock<T>(path: string, update: () => Promise<T>): Promise<T> {
  const run = async (): Promise<T> => {
    const { lock } = await import('proper-lockfile');
    let release: () => Promise<void>;
    try {
      release = await lock(path, {
        realpath: false,
        lockfilePath: `${path}.lock`,
        retries: { retries: 40, minTimeout: 25, maxTimeout: 500 },
        onCompromised: () => undefined,
      });
    } catch (err) {
      throw fileError('lock the state file', path, err);
    }
    try {
      return await update();
    } finally {
      await release().catch(() => undefined);
    }
  };
  const next = (saving.get(path) ?? Promise.resolve()).then(run, run);
  const settled = next.catch(() => undefined);
  saving.set(path, settled);
  try {
    return await next;
  } finally {
    if (saving.get(path) === settled) saving.delete(path);
  }
}

/**
 * Sets the watermark of `key` and replaces the state file atomically, holding its lock (so the
 * exports of a run with many taxpayers, or two processes, never lose each other's entries): the
 * file is read again under the lock (so entries of other keys written meanwhile are kept), written to a temp file with a random name
 * beside it (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600), fsynced, renamed over the old one, and
 * the folder fsynced (a crash leaves the old or the new file, never half of one).
 * @param since the new watermark, as sent to the API (`2024-05-01T05:59:59+00:00`)
 * @param nowMs local epoch ms, for the entry's `updatedAt`
 * @throws {UsageError} (exit 2) when the current file is corrupt; {@link OutputError} (exit 7)
 *   naming the path when it cannot be locked or written
 */
export function saveWatermark(path: string, key: string, since: string, nowMs: number, fs: FileSystem = nodeFileSystem): Promise<void> {
  return withStateLock(path, () => replaceState(path, key, since, nowMs, fs));
}

/** {@link saveWatermark}'s read, change and atomic replace, under the lock. */
async function replaceState(path: string, key: string, since: string, nowMs: number, fs: FileSystem): Promise<void> {
  const state = readState(path);
  state.watermarks[key] = { since, updatedAt: new Date(nowMs).toISOString() };
  await replaceFile(fs, path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, action: 'write the state file', syncFolder: true });
}
