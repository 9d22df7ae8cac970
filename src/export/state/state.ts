/** The state file of incremental exports: read before anything is sent, replaced only once an export completed. */
import { constants as fsConstants, closeSync, openSync, readFileSync } from 'node:fs';
import { ID_SPECS, type Endpoint, type Ids } from '../../endpoints.js';
import { OutputError, UsageError } from '../../errors.js';
import { isObject } from '../../json/object.js';
import { fileError, nodeFileSystem, parseJsonText, replaceFile, type FileSystem } from '../../io/files.js';
import { parseSince } from './since.js';

const { O_RDONLY, O_NOFOLLOW } = fsConstants;

export const STATE_VERSION = 1;

export interface WatermarkEntry {
  /** Where the next export starts, with an explicit UTC offset, e.g. `2024-05-01T05:59:59+00:00`. */
  since: string;
  updatedAt: string;
}

export interface StateFile {
  version: typeof STATE_VERSION;
  watermarks: Record<string, WatermarkEntry>;
}

/** e.g. `invoices PEIC211118IS0`: the endpoint key, then each id in {@link ID_SPECS} order (ids hold no white space). */
export function stateKey(endpoint: Endpoint, ids: Ids): string {
  const parts = [endpoint.key];
  for (const spec of ID_SPECS) if (endpoint.ids.includes(spec.name) && ids[spec.name] !== undefined) parts.push(ids[spec.name]!);
  return parts.join(' ');
}

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
 * Reads a state file, never through a symlink, synchronously (once, while planning); an empty one when there is none.
 * @throws {UsageError} (exit 2) when it is a symlink, not JSON or not of this layout: a state that cannot be
 *   trusted must not silently turn into a full export; {@link OutputError} (exit 7) when it cannot be read
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
  const value = parseJsonText(text);
  const wrong = value === undefined ? 'not JSON' : stateSchemaError(value);
  if (wrong !== undefined)
    throw new UsageError(`the state file ${path} is corrupt (${wrong}); fix or delete it (a missing file means a full export)`);
  return value as StateFile;
}

/** Epoch ms. @throws {UsageError} (exit 2) when the stored value is not an ISO 8601 time */
export function storedWatermark(state: StateFile, key: string, path: string): number | undefined {
  const entry = state.watermarks[key];
  return entry === undefined ? undefined : parseSince(entry.since, `the watermark of '${key}' in ${path}`);
}

/** Per state file, chained so two exports of one run never interleave their saves. */
const saving = new Map<string, Promise<unknown>>();

/**
 * In this process a chain per path; across processes `proper-lockfile`'s `F.lock`, retried for about 10 s, taken over when stale.
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
 * Re-reads the file under its lock, so the exports of many taxpayers, or two processes, never lose
 * each other's entries. @param nowMs local epoch ms
 * @throws {UsageError} (exit 2) when the current file is corrupt; {@link OutputError} (exit 7) naming the path
 */
export function saveWatermark(path: string, key: string, since: string, nowMs: number, fs: FileSystem = nodeFileSystem): Promise<void> {
  return withStateLock(path, async () => {
    const state = readState(path);
    state.watermarks[key] = { since, updatedAt: new Date(nowMs).toISOString() };
    await replaceFile(fs, path, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, action: 'write the state file', syncFolder: true });
  });
}
