/** The checkpoint of a file export and its checks. It holds no secret. */
import { constants as fsConstants } from 'node:fs';
import { readFile, type FileHandle } from 'node:fs/promises';
import type { FormatterState } from '../../output/formatter.js';
import { findFormat } from '../../output/writer.js';
import { UsageError, type Hint } from '../../errors.js';
import { isObject } from '../../json/object.js';
import { nodeFileSystem, parseJsonText, replaceFile, type FileSystem } from '../../io/files.js';

const { O_RDONLY, O_NOFOLLOW } = fsConstants;

export const CHECKPOINT_VERSION = 1;

const RESTART = 'run with --restart instead of --resume to discard it and the .part file and start afresh';
export const checkpointError = (message: string, advice?: string | Hint): UsageError =>
  new UsageError(message, advice === undefined ? { code: 'E_CHECKPOINT' } : { code: 'E_CHECKPOINT', hint: advice });

export interface Checkpoint {
  version: typeof CHECKPOINT_VERSION;
  /** The options that shape the output (endpoint, ids, params, format, fields…); must match on resume. */
  fingerprint: Record<string, unknown>;
  /** Null when the last page was already written. */
  next: string | null;
  pages: number;
  items: number;
  /** Of the sidecar (truncated to this on resume); of a gzip export, compressed bytes ending a member. */
  bytes: number;
  formatter: FormatterState;
  totalItems?: number;
  /** Absent from checkpoints of versions that always paged in the mode asked for. */
  mode?: 'cursor' | 'offset';
  /** What `--state` stores when the export completes (ISO 8601); a resume keeps it. */
  watermark?: string;
  updatedAt: string;
}

/** Atomic (temp file `O_EXCL | O_NOFOLLOW`, mode 0600, fsync, rename). @throws {OutputError} (exit 7) naming the path and the cause */
export async function saveCheckpoint(path: string, checkpoint: Checkpoint, fs: FileSystem = nodeFileSystem): Promise<void> {
  await replaceFile(fs, path, JSON.stringify(checkpoint), { mode: 0o600, action: 'write the checkpoint' });
}

/**
 * Reads a checkpoint, never through a symlink, and checks its schema and fingerprint; undefined when there is none.
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) when it is unreadable, a symlink, corrupt, of
 *   another version, or from other options (naming them): resuming it would mix two exports in one file
 */
export async function loadCheckpoint(path: string, fingerprint: Record<string, unknown>): Promise<Checkpoint | undefined> {
  const text = await readCheckpointText(path);
  if (text === undefined) return undefined;
  const value = parseJsonText(text);
  if (value === undefined) throw checkpointError(`the checkpoint ${path} is corrupt; ${RESTART}`);
  const wrong = checkpointSchemaError(value);
  if (wrong !== undefined) throw checkpointError(`the checkpoint ${path} is corrupt or from another version (${wrong}); ${RESTART}`);
  const checkpoint = value as Checkpoint;
  if (JSON.stringify(checkpoint.fingerprint) !== JSON.stringify(fingerprint)) {
    const diff = fingerprintDifferences(checkpoint.fingerprint, fingerprint).join(', ');
    throw checkpointError(
      `--resume with different options than the interrupted export (its ≠ this run's): ${diff}`,
      `repeat its options, or run with --restart instead of --resume to discard ${path} and the .part file and start afresh`,
    );
  }
  return checkpoint;
}

/** The flag behind each field of a fingerprint (`fingerprintOf`); `request` is read by {@link requestDifferences}. */
const FINGERPRINT_FLAGS: Readonly<Record<string, string>> = {
  origin: '--base-url',
  cursor: '--cursor',
  total: '--total',
  format: '--format',
  fields: '--fields',
  csvSafe: '--csv-safe',
  maxItems: '--max-items',
  state: '--state',
  compress: '--compress',
};

function queryFlag(key: string): string {
  if (key === 'itemsPerPage') return '--items-per-page';
  if (key === 'page') return '--page';
  if (key === 'updatedAt[after]' || key === 'createdAt[after]') return `--since (${key})`;
  return `--param ${key}`;
}

function shownValue(value: unknown): string {
  if (value === undefined || value === null || value === false || value === '') return 'not given';
  if (value === true) return 'given';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return Array.isArray(value) ? value.map((v) => shownValue(v)).join(',') : JSON.stringify(value);
}

function requestDifferences(theirs: unknown, ours: unknown): string[] {
  const a = new URL(String(theirs), 'http://checkpoint.invalid');
  const b = new URL(String(ours), 'http://checkpoint.invalid');
  const out = a.pathname === b.pathname ? [] : [`the path ${a.pathname} ≠ ${b.pathname} (the ids)`];
  for (const key of new Set([...a.searchParams.keys(), ...b.searchParams.keys()])) {
    const [x, y] = [a.searchParams.getAll(key), b.searchParams.getAll(key)];
    if (x.join('\n') !== y.join('\n')) out.push(`${queryFlag(key)} ${shownValue(x.join(','))} ≠ ${shownValue(y.join(','))}`);
  }
  return out;
}

/** The options that differ, named by their flags: `--items-per-page 100 ≠ 1000`, the checkpoint's value first. */
export function fingerprintDifferences(theirs: Record<string, unknown>, ours: Record<string, unknown>): string[] {
  return Object.keys({ ...ours, ...theirs })
    .filter((k) => JSON.stringify(ours[k]) !== JSON.stringify(theirs[k]))
    .flatMap((k) =>
      k === 'request' ? requestDifferences(theirs[k], ours[k]) : [`${FINGERPRINT_FLAGS[k] ?? k} ${shownValue(theirs[k])} ≠ ${shownValue(ours[k])}`],
    );
}

async function readCheckpointText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, { encoding: 'utf8', flag: O_RDONLY | O_NOFOLLOW });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw checkpointError(`the checkpoint ${path} is a symbolic link; refusing to read it`);
    throw checkpointError(`cannot read the checkpoint ${path}: ${code ?? String(err)}`);
  }
}

export const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function checkpointSchemaError(v: unknown): string | undefined {
  if (!isObject(v)) return 'not an object';
  if (v.version !== CHECKPOINT_VERSION) return `version is not ${CHECKPOINT_VERSION}`;
  if (!isObject(v.fingerprint)) return 'fingerprint is not an object';
  if (!(v.next === null || typeof v.next === 'string')) return 'next is neither null nor a string';
  for (const field of ['pages', 'items', 'bytes'] as const) {
    if (!isCount(v[field])) return `${field} is not a non-negative integer`;
  }
  if (!isObject(v.formatter)) return 'formatter is not an object';
  if (v.totalItems !== undefined && !isCount(v.totalItems)) return 'totalItems is not a non-negative integer';
  if (v.mode !== undefined && v.mode !== 'cursor' && v.mode !== 'offset') return 'mode is neither cursor nor offset';
  if (v.watermark !== undefined && (typeof v.watermark !== 'string' || Number.isNaN(Date.parse(v.watermark)))) return 'watermark is not a date';
  if (typeof v.updatedAt !== 'string' || Number.isNaN(Date.parse(v.updatedAt))) return 'updatedAt is not a date';
  return undefined;
}

export interface ExpectedLink {
  origin: string;
  path: string;
}

/** A tampered link could leak the key or mix collections. @throws {UsageError} (exit 2, `E_CHECKPOINT`) naming mismatches */
export function checkNextLink(checkpointPath: string, next: string | null, expected: ExpectedLink): void {
  if (next === null) return;
  const refuse = (what: string): never => {
    throw checkpointError(`the checkpoint ${checkpointPath} does not match this export: ${what}; ${RESTART}`);
  };
  let url: URL;
  try {
    url = new URL(next);
  } catch {
    return refuse('its next link is not a URL');
  }
  if (url.origin !== expected.origin) refuse(`its next link is not on ${expected.origin}`);
  if (url.pathname !== expected.path) refuse(`its next link is not on the path ${expected.path}`);
  if (url.username !== '' || url.password !== '' || url.hash !== '') refuse('its next link carries credentials or a fragment');
}

/** Whether the first `bytes` end a record (`lastByte`: the one before); `table` or an unknown format (fingerprint-refused) takes any. */
export function isRecordBoundary(format: string, bytes: number, items: number, lastByte: number | undefined): boolean {
  if (bytes === 0) return true;
  const rule = findFormat(format)?.resume;
  return rule?.resumable !== true || rule.isRecordBoundary(bytes, items, lastByte);
}

async function byteBefore(file: FileHandle, bytes: number): Promise<number | undefined> {
  if (bytes === 0) return undefined;
  const byte = Buffer.alloc(1);
  return (await file.read(byte, 0, 1, bytes - 1)).bytesRead === 1 ? byte[0] : undefined;
}

/** Decompressed length, last byte of a gzip file's first `bytes`; undefined unless whole members (RFC 1952 §2.2). zlib loaded lazily. */
async function readGzipEnd(file: FileHandle, bytes: number): Promise<{ length: number; lastByte: number | undefined } | undefined> {
  const end = { length: 0, lastByte: undefined as number | undefined };
  if (bytes === 0) return end;
  const [{ Writable }, { pipeline }, { createGunzip }] = await Promise.all([
    import('node:stream'),
    import('node:stream/promises'),
    import('node:zlib'),
  ]);
  const counter = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (chunk.length > 0) {
        end.length += chunk.length;
        end.lastByte = chunk[chunk.length - 1];
      }
      done();
    },
  });
  try {
    await pipeline(file.createReadStream({ start: 0, end: bytes - 1, autoClose: false }), createGunzip(), counter);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('Z_')) return undefined;
    throw error;
  }
  return end;
}

/** The file sink's check of the partial file before truncating it; it throws {@link UsageError} (exit 2, `E_CHECKPOINT`). */
export function boundaryCheck(checkpoint: Checkpoint, sidecar: string): (file: FileHandle) => Promise<void> {
  const format = String(checkpoint.fingerprint.format);
  const refuse = (what: string): never => {
    throw checkpointError(
      `checkpoint does not match the partial file: byte ${checkpoint.bytes} of ${sidecar} is not ${what}; start over with --restart`,
    );
  };
  return async (file) => {
    const end =
      checkpoint.fingerprint.compress === 'gzip'
        ? await readGzipEnd(file, checkpoint.bytes)
        : { length: checkpoint.bytes, lastByte: await byteBefore(file, checkpoint.bytes) };
    if (end === undefined) refuse('the end of a gzip member');
    else if (!isRecordBoundary(format, end.length, checkpoint.items, end.lastByte)) refuse(`the end of a ${format} record`);
  };
}
