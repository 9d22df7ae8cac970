/** `F.manifest.json` per output, the run manifest of many taxpayers, and `verify`; never the API key nor the base URL's userinfo. */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, relative, resolve as resolvePath } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Clock } from '../../time/clock.js';
import type { Endpoint, Ids } from '../../endpoints.js';
import { errorCode, UsageError } from '../../errors.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../../format-names.js';
import type { ProgressStats } from '../../io/events.js';
import { errorMessage, nodeFileSystem, parseJsonText, replaceFile, type FileSystem } from '../../io/files.js';
import type { ItemCounter } from '../../output/formatter.js';
import { formatDefinition } from '../../output/writer.js';
import { COMPRESSIONS, type Compression, type Destination, type PageMark } from '../files/destination.js';
import { sidecarPaths } from '../files/sidecar.js';
import { isCount } from '../files/checkpoint.js';

/** The schema version of {@link Manifest}; `verify` refuses others. */
export const MANIFEST_VERSION = 1;

export interface ManifestInstant {
  local: string;
  /** By the server's `Date` header (whole seconds); null when no response carried one. */
  server: string | null;
}

export interface ManifestOutput {
  /** Relative to the manifest's folder (e.g. `invoices.ndjson`). */
  file: string;
  /** Origin and path prefix of the API, e.g. `https://api.example.com/v1`: no userinfo, query or key. */
  baseUrl: string;
  endpoint: { key: string; template: string; path: string };
  ids: Ids;
  filters: { params: Array<[string, string]>; since: string | null };
  /** ISO 8601: `before` the filter this export sent, `after` the one it stored in the `--state` file (null when the state was left as it was). */
  watermark: { before: string | null; after: string | null };
  mode: 'cursor' | 'offset';
  format: OutputFormat;
  /** `gzip`: `bytes` and `sha256` are of the compressed file; absent from manifests older than it. */
  compression?: Compression | null;
  /** The user's request headers, a credential-like value masked (`****abcd`); absent when there were none. */
  headers?: Record<string, string>;
  /** The start of the run that completed the export, and the `Date` of its first page. */
  started: ManifestInstant;
  finished: ManifestInstant;
  resumed: boolean;
  pages: number;
  items: number;
  totalItems: number | null;
  bytes: number;
  sha256: string;
  requestIds: { first: string | null; last: string | null };
  /** Rate-limit waits of this run (pacing, 429s, `Retry-After`): how many and their total, ms. */
  rateLimitWaits: { count: number; ms: number };
  /**
   * An incremental export of a collection with delete events: the records deleted at the service
   * since `watermark.before`, one JSON object a line (`id`, `deletedAt`, `event`), in `file`
   * (relative to the manifest's folder, `F.deleted.ndjson`); absent when deletions were not followed.
   */
  deleted?: DeletedFile;
}

/** The file of deleted records beside an incremental export (see {@link ManifestOutput.deleted}). */
export interface DeletedFile {
  file: string;
  bytes: number;
  sha256: string;
  records: number;
}

export interface Manifest {
  manifestVersion: typeof MANIFEST_VERSION;
  tool: 'collections';
  toolVersion: string;
  /** A run manifest only: when the run started and finished, ISO 8601 UTC by the local clock. */
  run?: { started: string; finished: string };
  outputs: ManifestOutput[];
}

export interface ManifestPlan {
  readonly path: string;
  readonly target: string;
  readonly output: Pick<ManifestOutput, 'baseUrl' | 'endpoint' | 'ids' | 'filters' | 'mode' | 'format' | 'compression' | 'watermark' | 'headers'>;
  /** The finished output goes to a run manifest through `onManifest`; `path` is then the run manifest's. */
  readonly collect: boolean;
}

export interface ManifestPlanInput {
  /** `--manifest`, as typed (relative to `cwd`); undefined for `F.manifest.json` beside `F`. */
  flag: string | undefined;
  target: string | undefined;
  cwd: string;
  baseUrl: URL;
  endpoint: Endpoint;
  path: string;
  ids: Ids;
  params: ReadonlyArray<readonly [string, string]>;
  cursor: boolean;
  format: OutputFormat;
  compress?: Compression | undefined;
  since?: string | undefined;
  collect?: boolean;
  headers?: Readonly<Record<string, string>>;
}

/** Origin and path prefix, without userinfo (a key could hide there), query, fragment or trailing slash: `https://u:p@h/v1/?x` → `https://h/v1`. */
export function publicBaseUrl(url: URL): string {
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** Undefined for stdout. @throws {UsageError} (exit 2) for `--manifest` without `--out FILE`, or naming a file of the export itself */
export function planManifest(input: ManifestPlanInput): ManifestPlan | undefined {
  const { target, flag } = input;
  if (target === undefined) {
    if (flag !== undefined) throw new UsageError('--manifest needs --out FILE (a manifest describes a file)');
    return undefined;
  }
  const path = flag === undefined ? `${target}.manifest.json` : resolvePath(input.cwd, flag);
  const { sidecar, checkpoint } = sidecarPaths(target);
  if ([target, sidecar, checkpoint, `${target}.lock`].includes(path))
    throw new UsageError(`--manifest ${flag ?? path} would overwrite a file of the export itself`);
  const since = input.since ?? null;
  return {
    path,
    target,
    collect: input.collect === true,
    output: {
      baseUrl: publicBaseUrl(input.baseUrl),
      endpoint: { key: input.endpoint.key, template: input.endpoint.path, path: input.path },
      ids: { ...input.ids },
      filters: { params: input.params.map(([k, v]): [string, string] => [k, v]), since },
      watermark: { before: since, after: null },
      mode: input.cursor ? 'cursor' : 'offset',
      format: input.format,
      compression: input.compress ?? null,
      ...(input.headers && Object.keys(input.headers).length > 0 ? { headers: { ...input.headers } } : {}),
    },
  };
}

/** A crash leaves the old manifest or the new one. @throws {OutputError} (exit 7) naming the path */
async function writeManifest(path: string, content: Omit<Manifest, 'manifestVersion' | 'tool'>, fs: FileSystem = nodeFileSystem): Promise<void> {
  const manifest: Manifest = { manifestVersion: MANIFEST_VERSION, tool: 'collections', ...content };
  await replaceFile(fs, path, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o666, action: 'write the manifest', syncFolder: true });
}

/** A page written, as the manifest sees it: where the export stands after it, and its response's `Date` (server epoch ms). */
export type ManifestPage = Omit<PageMark, 'formatterState'> & { date?: number | undefined };

export interface ManifestRecorder {
  /** Keeps the first and last page's request id and `Date`, and the last one's counts: never their items. */
  onPage(page: ManifestPage): void;
  setWatermark(watermark: Partial<ManifestOutput['watermark']>): void;
  /** The file of deleted records written beside the output (`file` absolute). */
  setDeleted(deleted: DeletedFile): void;
  /**
   * After `finish()` published the file: writes the manifest, or hands it to `onManifest`; nothing for
   * a destination without `digest` (stdout, a FIFO). @throws {OutputError} (exit 7) naming the path
   */
  write(out: Destination, stats: Readonly<ProgressStats>): Promise<void>;
}

export interface ManifestRecorderOptions {
  clock: Clock;
  version: string;
  fs?: FileSystem | undefined;
  onManifest?: ((output: ManifestOutput) => void) | undefined;
}

const serverIso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** Starts recording a manifest now (the local start time); nothing is written before `write()`. */
export function createManifestRecorder(plan: ManifestPlan, options: ManifestRecorderOptions): ManifestRecorder {
  const { clock } = options;
  const startedLocal = new Date(clock.now()).toISOString();
  let first: ManifestPage | undefined;
  let last: ManifestPage | undefined;
  const watermark: ManifestOutput['watermark'] = { ...plan.output.watermark };
  let deleted: DeletedFile | undefined;
  const build = (out: Destination, stats: Readonly<ProgressStats>): ManifestOutput => {
    const digest = out.digest!();
    const counts = last ?? out.resumed ?? { pages: 0, items: 0, totalItems: undefined };
    return {
      file: relative(dirname(plan.path), plan.target) || basename(plan.target),
      ...plan.output,
      mode: last?.mode ?? out.resumed?.mode ?? plan.output.mode,
      watermark: { ...watermark },
      started: { local: startedLocal, server: serverIso(first?.date) },
      finished: { local: new Date(clock.now()).toISOString(), server: serverIso(last?.date) },
      resumed: out.resumed !== undefined,
      pages: counts.pages,
      items: counts.items,
      totalItems: counts.totalItems ?? null,
      bytes: digest.bytes,
      sha256: digest.sha256,
      requestIds: { first: first?.requestId ?? null, last: last?.requestId ?? null },
      rateLimitWaits: { count: stats.waits, ms: Math.round(stats.waitMs) },
      ...(deleted ? { deleted: { ...deleted, file: relative(dirname(plan.path), deleted.file) || basename(deleted.file) } } : {}),
    };
  };
  return {
    onPage(page) {
      first ??= page;
      last = page;
    },
    setWatermark(w) {
      Object.assign(watermark, w);
    },
    setDeleted(d) {
      deleted = d;
    },
    async write(out, stats) {
      if (!out.digest) return;
      const output = build(out, stats);
      if (plan.collect) options.onManifest?.(output);
      else await writeManifest(plan.path, { toolVersion: options.version, outputs: [output] }, options.fs);
    },
  };
}

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

/** The manifest, or a one-line reason it cannot be used (`not JSON`, the field that is wrong). */
export function parseManifest(text: string): Manifest | string {
  const value = parseJsonText(text);
  if (value === undefined) return 'not JSON';
  const m: Partial<Record<keyof Manifest, unknown>> | null = value;
  if (typeof m !== 'object' || m === null) return 'not an object';
  if (m.manifestVersion !== MANIFEST_VERSION) return `manifestVersion is not ${MANIFEST_VERSION}`;
  if (!Array.isArray(m.outputs)) return 'no outputs';
  const wrong = m.outputs.map(outputSchemaError).find((e) => e !== undefined);
  return wrong === undefined ? (value as Manifest) : `bad ${wrong}`;
}

/** Undefined when it cannot be read or used. */
export async function readManifest(path: string): Promise<Manifest | undefined> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  const manifest = text === undefined ? 'unreadable' : parseManifest(text);
  return typeof manifest === 'string' ? undefined : manifest;
}

/** The entries of an earlier run manifest whose file is one of `targets` (absolute), carried over by a `--resume` that skips the taxpayers finished earlier. */
export async function earlierOutputs(path: string, targets: readonly string[]): Promise<Map<string, ManifestOutput>> {
  const found = new Map<string, ManifestOutput>();
  for (const output of (await readManifest(path))?.outputs ?? []) {
    const target = resolvePath(dirname(path), output.file);
    if (targets.includes(target)) found.set(target, output);
  }
  return found;
}

/** @throws {OutputError} (exit 7) naming the path when it cannot be written */
export async function writeRunManifest(
  path: string,
  outputs: readonly ManifestOutput[],
  info: { version: string; startedMs: number; finishedMs: number },
): Promise<void> {
  const run = { started: new Date(info.startedMs).toISOString(), finished: new Date(info.finishedMs).toISOString() };
  await writeManifest(path, { toolVersion: info.version, run, outputs: [...outputs] });
}

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

/** The file of deleted records against its manifest entry: its size, SHA-256 and lines. */
async function verifyDeleted(deleted: DeletedFile, folder: string): Promise<string[]> {
  const path = resolvePath(folder, deleted.file);
  const text = await readFile(path).catch(() => undefined);
  if (text === undefined) return [`its deleted records ${deleted.file} are missing`];
  const mismatches: string[] = [];
  const sha256 = createHash('sha256').update(text).digest('hex');
  if (text.length !== deleted.bytes) mismatches.push(`${deleted.file} is ${text.length} bytes, the manifest says ${deleted.bytes}`);
  if (sha256 !== deleted.sha256) mismatches.push(`${deleted.file} has SHA-256 ${sha256}, the manifest says ${deleted.sha256}`);
  const records = text
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '').length;
  if (records !== deleted.records) mismatches.push(`${deleted.file} holds ${records} records, the manifest says ${deleted.records}`);
  return mismatches;
}

/**
 * An output against its manifest: one mismatch per line, so a cron job's log says what is wrong.
 * Never throws (an unreadable file is a mismatch). @param folder the manifest's folder: `file` is relative to it
 */
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
    if (output.deleted) mismatches.push(...(await verifyDeleted(output.deleted, folder)));
  } catch (error) {
    const reason = errorCode(error) ?? errorMessage(error);
    mismatches.push(reason === 'ENOENT' ? 'missing' : `cannot be read: ${reason}`);
  }
  return { path, mismatches };
}
