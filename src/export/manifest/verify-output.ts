/** An output against its manifest: one mismatch per line, so a cron job's log says what is wrong. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { errorReason } from '../../io/files.js';
import type { ItemCounter } from '../../output/formatter.js';
import { formatDefinition } from '../../output/writer.js';
import type { ManifestOutput } from './manifest.js';

export interface OutputCheck {
  /** Absolute */
  path: string;
  /** Empty when the file is whole. */
  mismatches: string[];
}

/** Reads the file once: its SHA-256 (of the bytes as stored), and its items when not compressed. */
async function hashAndCount(path: string, counter: ItemCounter | undefined): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    counter?.update(chunk);
  }
  return hash.digest('hex');
}

/** Counts the items of a gzip file on its decompressed bytes (`createGunzip` reads every member, RFC 1952 §2.2). */
async function countGzip(path: string, counter: ItemCounter): Promise<void> {
  await pipeline(createReadStream(path), createGunzip(), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) counter.update(chunk);
  });
}

/** Never throws (an unreadable file is a mismatch). @param folder the manifest's folder: `file` is relative to it */
export async function verifyOutput(output: ManifestOutput, folder: string): Promise<OutputCheck> {
  const path = resolvePath(folder, output.file);
  const mismatches: string[] = [];
  try {
    const info = await stat(path);
    if (!info.isFile()) return { path, mismatches: ['not a regular file'] };
    if (info.size !== output.bytes) mismatches.push(`size is ${info.size} bytes, the manifest says ${output.bytes}`);
    // Compressed by its manifest, or by its name (manifests older than `compression`).
    const gzip = output.compression === 'gzip' || path.endsWith('.gz');
    // Counts, does not validate (the SHA-256 already proves every byte); none for `table`.
    const counter = formatDefinition(output.format).countItems?.();
    const sha256 = await hashAndCount(path, gzip ? undefined : counter);
    if (sha256 !== output.sha256) mismatches.push(`SHA-256 is ${sha256}, the manifest says ${output.sha256}`);
    if (counter && gzip) await countGzip(path, counter);
    const items = counter?.count();
    if (items !== undefined && items !== output.items) mismatches.push(`holds ${items} items, the manifest says ${output.items}`);
  } catch (error) {
    const reason = errorReason(error);
    mismatches.push(reason === 'ENOENT' ? 'missing' : `cannot be read: ${reason}`);
  }
  return { path, mismatches };
}
