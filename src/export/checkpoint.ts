/**
 * The checkpoint of a file export: after each page is written and flushed, a small JSON file beside
 * the sidecar records what `--resume` needs (README, "Files, checkpoints and `--resume`"). It holds
 * no secret: links, counts, byte length, the options that shape the output and the formatter's state.
 */
import { open, readFile, rename, rm } from 'node:fs/promises';
import type { FormatterState } from '../output/writer.js';
import { OutputError, UsageError } from '../errors.js';

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
  /** Bytes of the sidecar that hold those pages (the sidecar is truncated to this on resume). */
  bytes: number;
  /** The formatter's state after those pages (e.g. the CSV columns). */
  formatter: FormatterState;
  /** `hydra:totalItems` if the API sent it, for progress. */
  totalItems?: number;
  /** When it was written, ISO 8601. */
  updatedAt: string;
}

/**
 * Writes a checkpoint durably: temp file, fsync, rename over the old one (so a crash leaves either
 * the old or the new checkpoint, never half of one).
 * @throws {OutputError} (exit 7) when it cannot be written
 */
export async function saveCheckpoint(path: string, checkpoint: Checkpoint): Promise<void> {
  const tmp = `${path}.tmp`;
  try {
    const handle = await open(tmp, 'w', 0o600);
    try {
      await handle.writeFile(JSON.stringify(checkpoint));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    throw new OutputError(`cannot write the checkpoint ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { cause: err });
  }
}

/**
 * Reads a checkpoint.
 * @returns undefined when there is none
 * @throws {UsageError} (exit 2) when it is corrupt, of another version, or from other options
 *   (`fingerprint` differs): resuming it would mix two exports in one file
 */
export async function loadCheckpoint(path: string, fingerprint: Record<string, unknown>): Promise<Checkpoint | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read the checkpoint ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { code: 'E_CHECKPOINT' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`the checkpoint ${path} is corrupt; delete it and the .part file to start afresh`, { code: 'E_CHECKPOINT' });
  }
  if (!isCheckpoint(value)) {
    throw new UsageError(`the checkpoint ${path} is corrupt or from another version; delete it and the .part file to start afresh`, {
      code: 'E_CHECKPOINT',
    });
  }
  const theirs = JSON.stringify(value.fingerprint);
  const ours = JSON.stringify(fingerprint);
  if (theirs !== ours) {
    const diff = Object.keys({ ...fingerprint, ...value.fingerprint })
      .filter((k) => JSON.stringify(fingerprint[k]) !== JSON.stringify(value.fingerprint[k]))
      .join(', ');
    throw new UsageError(`--resume with different options than the interrupted export (${diff}); repeat the original options or delete ${path}`, {
      code: 'E_CHECKPOINT',
    });
  }
  return value;
}

function isCheckpoint(v: unknown): v is Checkpoint {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  const count = (x: unknown): boolean => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  return (
    c.version === CHECKPOINT_VERSION &&
    typeof c.fingerprint === 'object' &&
    c.fingerprint !== null &&
    (c.next === null || typeof c.next === 'string') &&
    count(c.pages) &&
    count(c.items) &&
    count(c.bytes) &&
    typeof c.formatter === 'object' &&
    c.formatter !== null
  );
}

/** Removes a checkpoint and its temp file; missing files are fine. */
export async function removeCheckpoint(path: string): Promise<void> {
  await rm(path, { force: true });
  await rm(`${path}.tmp`, { force: true });
}
