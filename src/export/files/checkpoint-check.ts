/**
 * What a checkpoint must satisfy beyond its schema before `--resume` trusts it (checkpoint.ts
 * checks the schema and the fingerprint): its next link stays on the configured origin and the
 * command's path, and its byte offset falls on a record boundary of the partial file (for gzip, at
 * the end of a member, RFC 1952).
 */
import type { FileHandle } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import { findFormat } from '../../output/writer.js';
import type { Checkpoint } from './checkpoint.js';

/** What the command expects of a checkpoint's next link. */
export interface ExpectedLink {
  /** The configured base URL's origin, e.g. `https://api.example.com`. */
  origin: string;
  /** The path of the command's first page, e.g. `/api/taxpayers/X/invoices`. */
  path: string;
}

/**
 * Checks the next link of a checkpoint: an absolute URL (http or https) on the configured origin
 * and the command's path (the query may differ: it holds the cursor or page number). A tampered
 * link could otherwise send the key elsewhere or export another collection into this file.
 * @throws {UsageError} (exit 2, `E_CHECKPOINT`) naming what did not match
 */
export function checkNextLink(checkpointPath: string, next: string | null, expected: ExpectedLink): void {
  if (next === null) return;
  const refuse = (what: string): never => {
    throw new UsageError(
      `the checkpoint ${checkpointPath} does not match this export: ${what}; run with --restart instead of --resume to discard it and the .part file and start afresh`,
      {
        code: 'E_CHECKPOINT',
      },
    );
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

/**
 * Whether `bytes` bytes of the partial file end on a record boundary (`lastByte`: the byte just
 * before the offset, undefined when `bytes` is 0): offset 0 always; else the format's own rule (its
 * definition's `resume.isRecordBoundary` in output/formats/, e.g. a `\n` before the offset for
 * NDJSON and CSV). A format that is never resumed (`table`: `--resume` with it is a usage error)
 * has no boundary to keep, and neither has a name no format has (the fingerprint, compared before
 * this check, already refuses it): any offset.
 */
export function isRecordBoundary(format: string, bytes: number, items: number, lastByte: number | undefined): boolean {
  if (bytes === 0) return true;
  const rule = findFormat(format)?.resume;
  return rule?.resumable !== true || rule.isRecordBoundary(bytes, items, lastByte);
}

/** The byte before `bytes` in `file`; undefined when `bytes` is 0 or the file is shorter. */
async function byteBefore(file: FileHandle, bytes: number): Promise<number | undefined> {
  if (bytes === 0) return undefined;
  const byte = Buffer.alloc(1);
  return (await file.read(byte, 0, 1, bytes - 1)).bytesRead === 1 ? byte[0] : undefined;
}

/**
 * The boundary check of a checkpoint for the file sink (file-sink.ts calls it on the partial file
 * before truncating it). Plain text: the byte before the offset ({@link isRecordBoundary}). Gzip
 * (`fingerprint.compress`): the first `bytes` bytes must decompress as whole gzip members
 * (export/files/gzip-check.ts), and the last decompressed byte must end a record.
 * @returns a check that throws {@link UsageError} (exit 2, `E_CHECKPOINT`) when the offset is not on
 *   a record boundary of the partial file (of a gzip file: not the end of a member)
 */
export function boundaryCheck(checkpoint: Checkpoint, sidecar: string): (file: FileHandle) => Promise<void> {
  const format = String(checkpoint.fingerprint.format);
  const refuse = (what: string): never => {
    throw new UsageError(
      `checkpoint does not match the partial file: byte ${checkpoint.bytes} of ${sidecar} is not ${what}; start over with --restart`,
      {
        code: 'E_CHECKPOINT',
      },
    );
  };
  return async (file) => {
    if (checkpoint.fingerprint.compress === 'gzip') {
      const { readGzipEnd } = await import('./gzip-check.js');
      const end = await readGzipEnd(file, checkpoint.bytes);
      if (end === undefined) refuse('the end of a gzip member');
      else if (!isRecordBoundary(format, end.length, checkpoint.items, end.lastByte)) refuse(`the end of a ${format} record`);
      return;
    }
    if (!isRecordBoundary(format, checkpoint.bytes, checkpoint.items, await byteBefore(file, checkpoint.bytes)))
      refuse(`the end of a ${format} record`);
  };
}
