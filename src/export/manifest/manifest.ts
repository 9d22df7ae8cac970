/**
 * The manifest of a file export (docs/files.md, "Manifests and `verify`"): `F.manifest.json` beside `F`
 * (or `--manifest FILE`), written atomically once `F` is published. It says what was asked (base
 * URL, endpoint, ids, filters, mode, format), when (local and server clocks), what came back
 * (pages, items, `totalItems`, the first and last `X-Request-ID`, rate-limit waits) and what was
 * written (bytes and SHA-256), so `collections verify` can prove the file whole the next morning.
 * It never holds the API key nor the base URL's userinfo.
 */
import { basename, dirname, relative, resolve as resolvePath } from 'node:path';
import type { Clock } from '../../time/clock.js';
import type { Endpoint, Ids } from '../../endpoints.js';
import { UsageError } from '../../errors.js';
import type { OutputFormat } from '../../format-names.js';
import type { ProgressStats } from '../../io/events.js';
import { nodeFileSystem, replaceFile, type FileSystem } from '../../io/files.js';
import type { Destination, PageMark } from '../files/destination.js';
import type { Compression } from '../files/gzip-destination.js';
import { sidecarPaths } from '../files/sidecar.js';

/** The schema version of {@link Manifest}; `verify` refuses others. */
export const MANIFEST_VERSION = 1;

/** An instant by two clocks, ISO 8601 UTC. */
export interface ManifestInstant {
  /** By this machine's clock. */
  local: string;
  /** By the server's `Date` header (whole seconds); null when no response carried one. */
  server: string | null;
}

/** One output described by a manifest. */
export interface ManifestOutput {
  /** The output file, relative to the manifest's folder (e.g. `invoices.ndjson`). */
  file: string;
  /** Origin and path prefix of the API, e.g. `https://api.example.com/v1`: no userinfo, query or key. */
  baseUrl: string;
  /** The endpoint: its key, its path template and the path requested (ids percent-encoded). */
  endpoint: { key: string; template: string; path: string };
  /** The ids of the path, e.g. `{ "taxpayerId": "PEIC211118IS0" }`. */
  ids: Ids;
  /** The API filters sent: the `--param` pairs in order, and `--since` (null without it). */
  filters: { params: Array<[string, string]>; since: string | null };
  /**
   * The incremental watermark (ISO 8601 with its UTC offset): `before` the filter this export sent
   * (`--since`, or the `--state` entry it started at; null for a full export), `after` the one it
   * stored in the `--state` file (null without `--state`, or when the state was left as it was:
   * `--max-items`, no `Date` header).
   */
  watermark: { before: string | null; after: string | null };
  /** The mode the API paged in (docs/choices.md, "Cursor-only endpoints and honest mode"), which may not be the one asked for. */
  mode: 'cursor' | 'offset';
  format: OutputFormat;
  /**
   * `gzip` when the file is compressed (`--compress gzip`, or an `--out` ending in `.gz`): `bytes`
   * and `sha256` are then of the compressed file as written, and `verify` counts the items on its
   * decompressed bytes. Null for plain text. Absent from manifests written before it existed.
   */
  compression?: Compression | null;
  /**
   * The user's request headers (the profile's `header`s and `--header`s) by name, a credential-like
   * value masked (`****abcd`); absent when there were none.
   */
  headers?: Record<string, string>;
  /** When the run that completed the export started: its start, and the `Date` of its first page. */
  started: ManifestInstant;
  /** When it finished: after the rename, and the `Date` of the last page. */
  finished: ManifestInstant;
  /** Whether that run continued an interrupted export (`--resume`); counts and hash cover the whole file. */
  resumed: boolean;
  /** Pages written, in total. */
  pages: number;
  /** Items written, in total. */
  items: number;
  /** `hydra:totalItems` as the API last reported it; null when unknown. */
  totalItems: number | null;
  /** Length of the file, bytes. */
  bytes: number;
  /** SHA-256 of the file's bytes (as stored, e.g. compressed), lowercase hex. */
  sha256: string;
  /** `X-Request-ID` of the first and last page this run wrote; null when none was sent. */
  requestIds: { first: string | null; last: string | null };
  /** Rate-limit waits of this run (pacing, 429s, `Retry-After`): how many and their total, ms. */
  rateLimitWaits: { count: number; ms: number };
}

/** A manifest file: the tool and its outputs (one per output file, or every output of a run). */
export interface Manifest {
  manifestVersion: typeof MANIFEST_VERSION;
  tool: 'collections';
  /** The tool's version (package.json). */
  toolVersion: string;
  /**
   * A run manifest (`--manifest FILE` with several taxpayers; export/manifest/batch-manifest.ts) only: when
   * the run started and finished, ISO 8601 UTC by the local clock. Absent from per-output manifests.
   */
  run?: { started: string; finished: string };
  outputs: ManifestOutput[];
}

/** What the plan of an export fixes about its manifest (commands/export.ts `planExport`). */
export interface ManifestPlan {
  /** Where the manifest goes, absolute. */
  readonly path: string;
  /** The output it describes, absolute. */
  readonly target: string;
  /** The fields known before any request (`watermark.after` is set when the export completes). */
  readonly output: Pick<ManifestOutput, 'baseUrl' | 'endpoint' | 'ids' | 'filters' | 'mode' | 'format' | 'compression' | 'watermark' | 'headers'>;
  /**
   * The finished output goes to a run manifest (commands/batch.ts, through the recorder's
   * `onManifest`) instead of a manifest file of its own; `path` is then the run manifest's (so
   * `file` is relative to its folder).
   */
  readonly collect: boolean;
}

/** Input of {@link planManifest}. */
export interface ManifestPlanInput {
  /** `--manifest`, as typed (relative to `cwd`); undefined for `F.manifest.json` beside `F`. */
  flag: string | undefined;
  /** The absolute `--out`; undefined for stdout. */
  target: string | undefined;
  /** Where a relative `--manifest` is resolved from. */
  cwd: string;
  baseUrl: URL;
  endpoint: Endpoint;
  /** The endpoint path with the ids filled in (endpoints.ts `buildPath`), or the path given to `get` (with its query). */
  path: string;
  ids: Ids;
  params: ReadonlyArray<readonly [string, string]>;
  /** `--cursor` (else offset mode). */
  cursor: boolean;
  format: OutputFormat;
  /** The output's compression (`--compress`, or `--out F.gz`); undefined for plain text. */
  compress?: Compression | undefined;
  /** The `--since` / `--state` filter sent (ISO 8601 with its UTC offset); undefined for a full export. */
  since?: string | undefined;
  /** The output goes to a run manifest of many taxpayers (see {@link ManifestPlan.collect}); default false. */
  collect?: boolean;
  /** The user's request headers as shown (credential-like values masked); none or empty: not in the manifest. */
  headers?: Readonly<Record<string, string>>;
}

/**
 * The base URL as a manifest shows it: origin and path prefix, without userinfo (a key could hide
 * there), query or fragment, and without a trailing slash: `https://u:p@h/v1/?x` → `https://h/v1`.
 */
export function publicBaseUrl(url: URL): string {
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/**
 * Plans the manifest of an export: `F.manifest.json` beside `--out F`, or `--manifest FILE`.
 * @returns undefined for stdout (no file to describe)
 * @throws {UsageError} (exit 2) for `--manifest` without `--out FILE`, or naming the output, its
 *   sidecar, its checkpoint or its lock
 */
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
  const endpoint = { key: input.endpoint.key, template: input.endpoint.path, path: input.path };
  const since = input.since ?? null;
  const filters = { params: input.params.map(([k, v]): [string, string] => [k, v]), since };
  return {
    path,
    target,
    collect: input.collect === true,
    output: {
      baseUrl: publicBaseUrl(input.baseUrl),
      endpoint,
      ids: { ...input.ids },
      filters,
      watermark: { before: since, after: null },
      mode: input.cursor ? 'cursor' : 'offset',
      format: input.format,
      compression: input.compress ?? null,
      ...(input.headers && Object.keys(input.headers).length > 0 ? { headers: { ...input.headers } } : {}),
    },
  };
}

/**
 * Writes a manifest (per output, or a run's) atomically: a temp file with a random name in the same folder, created
 * `O_CREAT | O_EXCL | O_NOFOLLOW` (io/files.ts `replaceFile`: never through a symlink or onto a
 * planted file), written, fsynced, renamed onto `path`, and the folder fsynced, so a crash leaves
 * the old manifest or the new one, never half of one. The temp file is removed on failure.
 * @throws {OutputError} (exit 7) naming the path and the cause
 */
export async function writeManifest(path: string, manifest: Manifest, fs: FileSystem = nodeFileSystem): Promise<void> {
  await replaceFile(fs, path, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o666, action: 'write the manifest', syncFolder: true });
}

/** A page as the manifest sees it: its response's `X-Request-ID` and `Date` (server epoch ms). */
export interface ManifestPage {
  requestId?: string;
  date?: number;
}

/** Collects what a manifest says while an export runs; see {@link createManifestRecorder}. */
export interface ManifestRecorder {
  /** Notes a page written (in order): the first and last request id and `Date`. */
  onPage(page: ManifestPage): void;
  /**
   * Sets the watermark before and after the export (ISO 8601), for incremental exports; `after`
   * is set (export/state/watermark.ts) just before the output is published, when the state file will take it.
   */
  setWatermark(watermark: Partial<ManifestOutput['watermark']>): void;
  /**
   * Wraps a destination: its page marks are counted and, after its `finish()` published the file,
   * the manifest is written. A destination without `digest` (stdout, a FIFO) is returned as it is.
   * @param stats the export's live counters (the waits are read from them at the end)
   */
  observe(out: Destination, stats: Readonly<ProgressStats>): Destination;
}

/** Options of {@link createManifestRecorder}. */
export interface ManifestRecorderOptions {
  clock: Clock;
  /** The tool's version. */
  version: string;
  /** The file system of the manifest (default the real one). */
  fs?: FileSystem | undefined;
  /** Takes the finished output of a plan whose manifest is collected ({@link ManifestPlan.collect}). */
  onManifest?: ((output: ManifestOutput) => void) | undefined;
}

/** ISO 8601 of a server epoch ms, or null. */
const serverIso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/**
 * Starts recording a manifest now (the local start time). Nothing is written unless the
 * destination it observes finishes.
 */
export function createManifestRecorder(plan: ManifestPlan, options: ManifestRecorderOptions): ManifestRecorder {
  const { clock } = options;
  const startedLocal = new Date(clock.now()).toISOString();
  let first: ManifestPage | undefined;
  let last: ManifestPage | undefined;
  const watermark: ManifestOutput['watermark'] = { ...plan.output.watermark };
  const build = (out: Destination, mark: Omit<PageMark, 'formatterState'> | undefined, stats: Readonly<ProgressStats>): Manifest => {
    const digest = out.digest!();
    const counts = mark ?? out.resumed ?? { pages: 0, items: 0, totalItems: undefined };
    const output: ManifestOutput = {
      file: relative(dirname(plan.path), plan.target) || basename(plan.target),
      ...plan.output,
      mode: mark?.mode ?? out.resumed?.mode ?? plan.output.mode,
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
    };
    return { manifestVersion: MANIFEST_VERSION, tool: 'collections', toolVersion: options.version, outputs: [output] };
  };
  return {
    onPage(page) {
      first ??= page;
      last = page;
    },
    setWatermark(w) {
      Object.assign(watermark, w);
    },
    observe(out, stats) {
      if (!out.digest) return out;
      let mark: PageMark | undefined;
      // Object.create rather than a spread: `out` may itself be a wrapper whose members live on its
      // prototype (export/state/watermark.ts), and a spread copies own properties only.
      const wrapped = Object.create(out) as Destination;
      wrapped.pageWritten = (m) => {
        mark = m;
        return out.pageWritten(m);
      };
      wrapped.finish = async (text) => {
        await out.finish(text);
        const manifest = build(out, mark, stats);
        if (plan.collect) options.onManifest?.(manifest.outputs[0]!);
        else await writeManifest(plan.path, manifest, options.fs);
      };
      return wrapped;
    },
  };
}
