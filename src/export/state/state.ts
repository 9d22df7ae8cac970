/** Incremental exports: the `--since` filter, the `--state` file, the run's watermark, and what such an export may replace. */
import { constants as fsConstants, closeSync, openSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { ID_SPECS, isPathEndpoint, type Endpoint, type Ids } from '../../endpoints.js';
import { OutputError, UsageError, hint, option } from '../../errors.js';
import { defined, isObject } from '../../json/object.js';
import { fileError, nodeFileSystem, parseJsonText, replaceFile, type FileSystem } from '../../io/files.js';
import type { PageStep } from '../../pagination/paginate.js';
import type { Destination } from '../files/destination.js';
import { readManifest, type ManifestOutput, type ManifestRecorder } from '../manifest/manifest.js';

/** `YYYY-MM-DD`, optionally `THH:MM`, `:SS`, `.fraction` and a zone (`Z`, `±HH:MM`, `±HHMM`). */
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses a `--since` value (ISO 8601): a date alone is 00:00 UTC that day; without a zone, UTC.
 * Fractions of a second are dropped (rounded down, so nothing changed in that second is missed).
 * @returns epoch ms, a whole number of seconds
 * @throws {UsageError} (exit 2) naming the value when it is not such a time or not a real date
 *   (e.g. `2024-02-30`)
 */
export function parseSince(value: string, flag = '--since'): number {
  const m = ISO_TIME.exec(value.trim());
  const refuse = (): never => {
    throw new UsageError(`${flag} '${value}' is not an ISO 8601 date or time`, {
      hint: 'e.g. 2024-05-01 (00:00 UTC) or 2024-05-01T06:30:00+02:00',
    });
  };
  if (!m) return refuse();
  const n = (i: number): number => Number(m[i] ?? '0');
  const [year, month, day, hour, minute, second] = [n(1), n(2), n(3), n(4), n(5), n(6)];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return refuse();
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(local).getUTCDate() !== day) return refuse();
  return local - zoneOffsetMs(m[8]);
}

/** ms: `Z` or none → 0, `+02:00` → 7 200 000. */
function zoneOffsetMs(zone: string | undefined): number {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return (zone.startsWith('-') ? -1 : 1) * minutes * 60_000;
}

/**
 * Epoch ms as the filter value the API is sent, rounded down to the second: `2024-05-01T00:00:00+00:00`
 * (RFC 3339 §5.6), with an explicit UTC offset: the API does not document the zone it reads.
 */
export function formatFilterTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/**
 * `updatedAt[after]` or `createdAt[after]` (inclusive, the API documentation, filters).
 * @throws {UsageError} (exit 2) on an endpoint without a documented date filter (line items,
 *   payments), or a path of `get` whose field is unknown (`--since-field` names it)
 */
export function sinceParameter(endpoint: Endpoint, flag = '--since'): string {
  if (endpoint.watermark === undefined && isPathEndpoint(endpoint)) {
    throw new UsageError(`${flag} on ${endpoint.key} needs the date field to filter on`, {
      hint: hint`name it with ${option('sinceField')} (e.g. ${option('sinceField', 'updatedAt')}, sent as updatedAt[after])`,
    });
  }
  if (endpoint.watermark === undefined) {
    throw new UsageError(`${flag} is not supported by ${endpoint.path}: the API documents no date filter for it`, {
      hint: 'export it in full, or export the invoices incrementally',
    });
  }
  return `${endpoint.watermark}[after]`;
}

/** Whether a `--param` key sets the same lower bound as `--since` would, so the two cannot both be given. */
export function conflictsWithSince(endpoint: Endpoint, key: string): boolean {
  const field = endpoint.watermark;
  return field !== undefined && (key === `${field}[after]` || key === `${field}[strictly_after]`);
}

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

export interface WatermarkOptions {
  /** Undefined: not incremental (a no-op tracker). */
  state: { path: string; key: string } | undefined;
  /** An export `--max-items` stopped leaves the state as it was. */
  maxItems: number | undefined;
  /** Local epoch ms */
  now: () => number;
  note: (line: string) => void;
  manifest?: Pick<ManifestRecorder, 'setWatermark'> | undefined;
  /**
   * A database keeps the watermark: its checkpoints carry it and it is told the one to store before
   * it finishes; `stores`: whether a complete run stores one there (then the notes name `where`).
   */
  inDestination?: { readonly stores: boolean; readonly where: string } | undefined;
}

export interface WatermarkTracker {
  /** The destination, its checkpoints carrying the pending watermark; it continues a resumed one's. */
  wrap(out: Destination): Destination;
  /** The pages, each response's `Date` observed on the way. */
  observe(steps: AsyncGenerator<PageStep, void, void>): AsyncGenerator<PageStep, void, void>;
  /** Just before `out.finish()`: tells the manifest and the destination the watermark a complete run stores. */
  finishing(out: Destination, items: number): void;
  /**
   * After the output is in place: stores the watermark in the state file, unless `--max-items`
   * stopped the export or no response carried a `Date` (then a note says the state is unchanged).
   * @throws {OutputError} (exit 7) when the state file cannot be written; {@link UsageError} (exit 2)
   *   when it became corrupt meanwhile
   */
  commit(items: number): Promise<void>;
}

/**
 * The watermark: the server's time of the run's first response, less one second (`Date` has a
 * resolution of one second, RFC 9110 §5.6.7); carried in the checkpoint, stored once the output is in place.
 */
export function createWatermarkTracker(options: WatermarkOptions): WatermarkTracker {
  const { state, inDestination } = options;
  const active = state !== undefined || inDestination !== undefined;
  let earliest: number | undefined;
  /** A resumed checkpoint fixed the watermark: nothing observed changes it. */
  let fixed = false;
  const pending = (): string | undefined => (earliest === undefined ? undefined : formatFilterTime(earliest - 1000));
  const limited = (items: number): boolean => options.maxItems !== undefined && items >= options.maxItems;
  return {
    wrap(out) {
      if (!active) return out;
      if (out.resumed) {
        fixed = true;
        const stored = out.resumed.watermark;
        earliest = stored === undefined ? undefined : parseSince(stored, 'the checkpoint watermark') + 1000;
      }
      const wrapped = Object.create(out) as Destination;
      wrapped.pageWritten = (mark) => out.pageWritten({ ...mark, ...defined({ watermark: pending() }) });
      return wrapped;
    },
    async *observe(steps) {
      for await (const step of steps) {
        if (active && !fixed && step.date !== undefined && (earliest === undefined || step.date < earliest)) earliest = step.date;
        yield step;
      }
    },
    finishing(out, items) {
      const after = pending();
      if (!active || after === undefined || limited(items)) return;
      options.manifest?.setWatermark({ after });
      out.keepWatermark?.(after);
    },
    async commit(items) {
      const where = state ? `the state file ${state.path}` : inDestination?.stores ? inDestination.where : undefined;
      if (where === undefined) return;
      const unchanged = `${where} is left as it was`;
      const since = pending();
      if (limited(items)) options.note(`collections: --max-items stopped the export; ${unchanged}`);
      else if (since === undefined) options.note(`collections: the server sent no Date header; ${unchanged}`);
      else if (state) await saveWatermark(state.path, state.key, since, options.now());
    },
  };
}

/** An export about to replace its output (paths absolute). */
export interface ReplaceCheck {
  target: string;
  manifest: string;
  /** The `--since` / `--state` filter the export sends (ISO 8601); undefined for a full export. */
  since: string | undefined;
}

/** The entry of a readable manifest at `path` that describes `target` as it is now (`bytes` long). */
async function entryFor(path: string, target: string, bytes: number): Promise<ManifestOutput | undefined> {
  return (await readManifest(path))?.outputs.find((o) => resolvePath(dirname(path), o.file) === target && o.bytes === bytes);
}

/** Where an output starts by its manifest's `watermark.before`, epoch ms: null for a full export, undefined when unsaid. */
function startOf(entry: ManifestOutput): number | null | undefined {
  const before: unknown = (entry.watermark as Partial<ManifestOutput['watermark']> | undefined)?.before;
  if (before === null) return null;
  if (typeof before !== 'string') return undefined;
  try {
    return parseSince(before);
  } catch {
    return undefined;
  }
}

/**
 * Refuses an incremental export over an output that starts earlier (replacing it would drop the
 * items in between, for good once a `--state` watermark has passed them), or whose manifest is
 * missing; a missing output, a FIFO or device, or a full export passes.
 * @throws {UsageError} (exit 2) naming the output and both starts, with the way out
 */
export async function checkReplace(check: ReplaceCheck): Promise<void> {
  const { target, since } = check;
  if (since === undefined) return;
  const info = await stat(target).catch(() => undefined);
  if (info === undefined || !info.isFile()) return;
  let entry: ManifestOutput | undefined;
  for (const path of new Set([check.manifest, `${target}.manifest.json`])) entry ??= await entryFor(path, target, info.size);
  const start = entry === undefined ? undefined : startOf(entry);
  if (start !== undefined && start !== null && parseSince(since) <= start) return;
  const holds =
    entry === undefined
      ? 'has no manifest that describes it, so what it holds is unknown'
      : start === null
        ? 'holds a full export (its manifest says so)'
        : start === undefined
          ? 'has a manifest that does not say where its items start'
          : `holds what changed since ${formatFilterTime(start)} (its manifest says so)`;
  throw new UsageError(`${target} ${holds}; this export asks only for what changed since ${since}, so replacing it would lose the items before`, {
    hint: 'move it away once it is consumed, or write each run to its own path (e.g. a folder per run)',
  });
}
