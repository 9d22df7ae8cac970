/**
 * The checkpoint of a file export: after each group of pages is written and flushed, a small JSON file beside
 * the sidecar records what `--resume` needs (docs/files.md, "Files, checkpoints and `--resume`"). It holds
 * no secret: links, counts, byte length, the options that shape the output and the formatter's state.
 */
import { constants as fsConstants } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import type { FormatterState } from '../../output/formatter.js';
import { UsageError } from '../../errors.js';
import { isObject } from '../../json/object.js';
import { nodeFileSystem, replaceFile, type FileSystem } from '../../io/files.js';

const { O_RDONLY, O_NOFOLLOW } = fsConstants;

/** Version of the checkpoint layout; another version is refused. */
export const CHECKPOINT_VERSION = 1;

/** What a checkpoint records. */
export interface Checkpoint {
  version: typeof CHECKPOINT_VERSION;
  /** The options that shape the output (endpoint, ids, params, format, fields…); must match on resume. */
  fingerprint: Record<string, unknown>;
  /** Absolute URL of the next page to fetch; null when the last page was already written. */
  next: string | null;
  /** Pages written. */
  pages: number;
  /** Items written. */
  items: number;
  /**
   * Bytes of the sidecar that hold those pages (the sidecar is truncated to this on resume); of a
   * gzip export, compressed bytes ending a member (export/files/gzip-destination.ts).
   */
  bytes: number;
  /** The formatter's state after those pages (e.g. the CSV columns). */
  formatter: FormatterState;
  /** `hydra:totalItems` if the API sent it, for progress. */
  totalItems?: number;
  /**
   * The mode the API paged in, which `--resume` continues in (docs/choices.md, "Cursor-only endpoints and
   * honest mode"); absent from checkpoints of versions that always paged in the mode asked for.
   */
  mode?: 'cursor' | 'offset';
  /**
   * The watermark an incremental export (`--state`) stores when it completes: the server's time of
   * its first response, less a second (docs/nightly-sync.md, "Nightly sync"); a resume keeps it. ISO 8601.
   */
  watermark?: string;
  /** When it was written, ISO 8601. */
  updatedAt: string;
}

/**
 * Writes a checkpoint durably: a temp file with a random name in the same folder
 * (`P.<random>.tmp`, created `O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600, so a symlink or a file
 * planted there is never written through), fsync, rename over the old one (so a crash leaves either
 * the old or the new checkpoint, never half of one). On failure the temp file is removed.
 * @param fs the file system (tests inject failures)
 * @throws {OutputError} (exit 7) naming the path and the cause, e.g. `cannot write the checkpoint
 *   P: no space left on the device (ENOSPC)`
 */
export async function saveCheckpoint(path: string, checkpoint: Checkpoint, fs: FileSystem = nodeFileSystem): Promise<void> {
  await replaceFile(fs, path, JSON.stringify(checkpoint), { mode: 0o600, action: 'write the checkpoint' });
}

/**
 * Reads a checkpoint, never through a symlink (`O_NOFOLLOW`), and checks its schema and that it
 * was written by the same command (`fingerprint`); checkpoint-check.ts checks the rest.
 * @returns undefined when there is none
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) when it is unreadable, a symlink, corrupt, of
 *   another version, of another schema (naming the field), or from other options (naming them):
 *   resuming it would mix two exports in one file
 */
export async function loadCheckpoint(path: string, fingerprint: Record<string, unknown>): Promise<Checkpoint | undefined> {
  const text = await readCheckpointText(path);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(
      `the checkpoint ${path} is corrupt; run with --restart instead of --resume to discard it and the .part file and start afresh`,
      { code: 'E_CHECKPOINT' },
    );
  }
  const wrong = checkpointSchemaError(value);
  if (wrong !== undefined) {
    throw new UsageError(
      `the checkpoint ${path} is corrupt or from another version (${wrong}); run with --restart instead of --resume to discard it and the .part file and start afresh`,
      {
        code: 'E_CHECKPOINT',
      },
    );
  }
  const checkpoint = value as Checkpoint;
  const theirs = JSON.stringify(checkpoint.fingerprint);
  const ours = JSON.stringify(fingerprint);
  if (theirs !== ours) {
    const diff = fingerprintDifferences(checkpoint.fingerprint, fingerprint).join(', ');
    throw new UsageError(`--resume with different options than the interrupted export (its ≠ this run's): ${diff}`, {
      code: 'E_CHECKPOINT',
      hint: `repeat its options, or run with --restart instead of --resume to discard ${path} and the .part file and start afresh`,
    });
  }
  return checkpoint;
}

/** The flag behind each field of a fingerprint (commands/export-plan.ts `fingerprintOf`); `request` is read by {@link requestDifferences}. */
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

/** The flag behind a query parameter of the first request: the paging ones, the incremental filter, else `--param`. */
function queryFlag(key: string): string {
  if (key === 'itemsPerPage') return '--items-per-page';
  if (key === 'page') return '--page';
  if (key === 'updatedAt[after]' || key === 'createdAt[after]') return `--since (${key})`;
  return `--param ${key}`;
}

/** A fingerprint value as a person reads it: a flag given or not, a list, a value. */
function shownValue(value: unknown): string {
  if (value === undefined || value === null || value === false || value === '') return 'not given';
  if (value === true) return 'given';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return Array.isArray(value) ? value.map((v) => shownValue(v)).join(',') : JSON.stringify(value);
}

/** What differs between two first requests (`path?query`): the path (the ids), then each query parameter by its flag. */
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

/**
 * The options that differ between a checkpoint's fingerprint and this run's, named by their flags:
 * `--items-per-page 100 ≠ 1000`, the checkpoint's value first.
 */
export function fingerprintDifferences(theirs: Record<string, unknown>, ours: Record<string, unknown>): string[] {
  return Object.keys({ ...ours, ...theirs })
    .filter((k) => JSON.stringify(ours[k]) !== JSON.stringify(theirs[k]))
    .flatMap((k) =>
      k === 'request' ? requestDifferences(theirs[k], ours[k]) : [`${FINGERPRINT_FLAGS[k] ?? k} ${shownValue(theirs[k])} ≠ ${shownValue(ours[k])}`],
    );
}

/** The text of a checkpoint, read with `O_NOFOLLOW`; undefined when there is none. @throws {UsageError} (exit 2) */
async function readCheckpointText(path: string): Promise<string | undefined> {
  try {
    const handle = await open(path, O_RDONLY | O_NOFOLLOW);
    try {
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new UsageError(`the checkpoint ${path} is a symbolic link; refusing to read it`, { code: 'E_CHECKPOINT' });
    throw new UsageError(`cannot read the checkpoint ${path}: ${code ?? String(err)}`, { code: 'E_CHECKPOINT' });
  }
}

/** Whether `x` is a whole number ≥ 0 that a double holds exactly. */
function isCount(x: unknown): boolean {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
}

/**
 * Checks the type of every field of a parsed checkpoint.
 * @returns what is wrong, e.g. `pages is not a non-negative integer`; undefined when it is a {@link Checkpoint}
 */
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

/**
 * Removes a checkpoint (a symlink there is removed, never followed); a missing one is fine. The
 * temp files of {@link saveCheckpoint} are removed by it when a save fails.
 */
export async function removeCheckpoint(path: string): Promise<void> {
  await rm(path, { force: true });
}
