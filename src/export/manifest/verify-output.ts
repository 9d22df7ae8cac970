/**
 * Checking an output against its manifest (docs/files.md, "Manifests and `verify`"): the file is there,
 * its size and SHA-256 are the manifest's, and it holds the manifest's number of items (counted on
 * the decompressed bytes of a `.gz`). One mismatch per line, so a cron job's log says what is wrong.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { errorReason } from '../../io/files.js';
import { OUTPUT_FORMATS } from '../../format-names.js';
import { COMPRESSIONS } from '../files/gzip-destination.js';
import { createItemCounter, type ItemCounter } from './item-count.js';
import { MANIFEST_VERSION, type Manifest, type ManifestOutput } from './manifest.js';

/** What `verify` found for one output. */
export interface OutputCheck {
  /** The output's absolute path. */
  path: string;
  /** One line per mismatch (`missing`, size, SHA-256, item count); empty when the file is whole. */
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

/**
 * Checks one output of a manifest.
 * @param folder the manifest's folder: `file` is relative to it
 * @returns the path and its mismatches; never throws (an unreadable file is a mismatch)
 */
export async function verifyOutput(output: ManifestOutput, folder: string): Promise<OutputCheck> {
  const path = resolvePath(folder, output.file);
  const mismatches: string[] = [];
  try {
    const info = await stat(path);
    if (!info.isFile()) return { path, mismatches: ['not a regular file'] };
    if (info.size !== output.bytes) mismatches.push(`size is ${info.size} bytes, the manifest says ${output.bytes}`);
    // A compressed output: said by its manifest, or by its name (manifests older than `compression`).
    const gzip = output.compression === 'gzip' || path.endsWith('.gz');
    const counter = createItemCounter(output.format);
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

/** Whether a value is a whole number ≥ 0. */
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** What is wrong with one output entry, or undefined. */
function outputSchemaError(value: unknown, i: number): string | undefined {
  const o = value as Partial<Record<keyof ManifestOutput, unknown>> | null;
  if (typeof o !== 'object' || o === null) return `outputs[${i}] is not an object`;
  if (typeof o.file !== 'string' || o.file === '') return `outputs[${i}].file`;
  if (!isCount(o.bytes)) return `outputs[${i}].bytes`;
  if (!isCount(o.items)) return `outputs[${i}].items`;
  if (typeof o.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(o.sha256)) return `outputs[${i}].sha256`;
  if (!(OUTPUT_FORMATS as readonly unknown[]).includes(o.format)) return `outputs[${i}].format`;
  if (o.compression !== undefined && o.compression !== null && !(COMPRESSIONS as readonly unknown[]).includes(o.compression))
    return `outputs[${i}].compression`;
  return undefined;
}

/**
 * Parses a manifest's text and checks the fields `verify` relies on (version, and each output's
 * `file`, `bytes`, `items`, `sha256`, `format`, and `compression` when present).
 * @returns the manifest, or a one-line reason it cannot be used (`not JSON`, the field that is wrong)
 */
export function parseManifest(text: string): Manifest | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const m = value as Partial<Record<keyof Manifest, unknown>> | null;
  if (typeof m !== 'object' || m === null) return 'not an object';
  if (m.manifestVersion !== MANIFEST_VERSION) return `manifestVersion is not ${MANIFEST_VERSION}`;
  if (!Array.isArray(m.outputs)) return 'no outputs';
  const wrong = m.outputs.map(outputSchemaError).find((e) => e !== undefined);
  return wrong === undefined ? (value as Manifest) : `bad ${wrong}`;
}
