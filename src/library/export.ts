/**
 * `exportCollection()`: what an export command does, for a Node program. Its options are the
 * export's own (`exportOptionsOf`), planned, given services and run as the command line's
 * (`planLoneExport`, `runLonePlan`), so every destination, resume, manifest and state file behaves
 * as there; only the streams, the signal and the printing come from the options.
 */
import type { OutputFormat } from '../format-names.js';
import type { ExportOptions } from '../export/plan/options.js';
import { optionNamer, type LibraryOptionValues } from '../config/flags.js';
import { addSettingsSecrets } from '../config/values.js';
import { AbortError, InterruptedError, UsageError } from '../errors.js';
import type { RateLimitSnapshot } from '../http/client.js';
import type { OutputStream } from '../context.js';
import type { ExportPlan } from '../export/run/plan.js';
import type { ExportResult } from '../export/run/run.js';
import { exportContext, listenToBudget } from './context.js';
import { createStopper, pageEvent, type CollectionEvent, type Stopper } from './events.js';
import { exportOptionsOf, requestOf, settingsOf, type ConnectionOptions, type PagingOptions } from './options.js';
import { tableText } from '../export/destinations/table-name.js';

/** Options of {@link exportCollection}. */
export interface ExportCollectionOptions
  extends ConnectionOptions, PagingOptions, Omit<LibraryOptionValues, 'headers' | 'params' | 'fields' | 'since'> {
  /**
   * The collection's path, with its ids and, optionally, a query: any path `collections get`
   * takes, e.g. `/taxpayers/PEIC211118IS0/invoices` or `/entities/0190a6e4-…/invoices`.
   */
  path: string;
  /**
   * Extra request headers, e.g. a pinned `{ 'Accept-Version': '2024-01' }`: each name once in any
   * case; not `X-Api-Key`, `Accept` or the pagination headers. A credential-like value (by its
   * name: `Authorization`, `*-Token`, …) is masked in the manifest and kept out of the checkpoint.
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * A file (written to `F.part` beside it, made durable page by page with a checkpoint, renamed
   * onto `F` when complete, with `F.manifest.json` beside it), or a stream, which is written to and
   * never ended (e.g. `process.stdout`). Relative paths resolve against `cwd`. A `postgres://` URL
   * or an `F.duckdb` file is a database table, `F.parquet` a Parquet file (docs/databases.md,
   * "Mirror into a database"): `pg`/`@duckdb/node-api` must be installed, else a `UsageError`
   * names the package.
   */
  out: string | OutputStream;
  /** A database `out`: the table, `name` or `schema.name` (default from the path: `invoices`, `line_items`, …). */
  table?: string;
  /** A database `out`: the member field that is the row's key, a dot path (default `id`, else `@id`). */
  key?: string;
  /** A database `out`: start at the watermark stored with the table for this path, and store the new one when complete. */
  incremental?: boolean;
  /** A database `out`, complete and not incremental: delete the rows of this path that the run did not see. */
  prune?: boolean;
  /**
   * With `incremental`, on invoices and entities: the days the API keeps its delete events, 1 to
   * 365 (default 7); a stored watermark older than that makes the run a full refresh with `prune`.
   */
  eventsRetentionDays?: number;
  /**
   * With `incremental` or `state`: start this many ms before the stored watermark, 0 to 86 400 000
   * (default 0), to read again what the API committed late; a database upserts it, a file holds it again.
   */
  lookbackMs?: number;
  /** `json`, `ndjson`, `csv` or `table` (default: from the file's suffix, else `ndjson`). */
  format?: OutputFormat;
  /** `gzip` (also implied by an `out` ending in `.gz`). */
  compress?: 'gzip';
  /** Only these fields, as dot paths (`['id', 'issuer.rfc']` or `'id,issuer.rfc'`). */
  fields?: string | readonly string[];
  /** CSV: prefix cells that a spreadsheet would run as formulas. */
  csvSafe?: boolean;
  /** Where the manifest goes (default `F.manifest.json` beside the file). */
  manifest?: string;
  /** Continue the checkpoint an interrupted export of the same options left. */
  resume?: boolean;
  /** Discard such a checkpoint and start afresh. */
  restart?: boolean;
  /** The state file of incremental exports: its watermark is `since`, and a complete export moves it on. */
  state?: string;
  /** Folder relative paths resolve against (default the current folder). */
  cwd?: string;
  /** Where the command line's progress lines, notes and summary go (default nowhere: the library prints nothing). */
  log?: OutputStream;
  /** The format of `log`: `text` (default) or `json` lines. */
  logFormat?: 'text' | 'json';
  /** With `log`: a line per request. */
  verbose?: boolean;
}

/** What an export did. */
export interface ExportSummary {
  /** Items written, those of a resumed checkpoint included. */
  items: number;
  pages: number;
  /** HTTP responses, and requests sent (attempts, retries included). */
  responses: number;
  requests: number;
  retries: number;
  /** Rate-limit waits taken, and their total in ms. */
  waits: number;
  waitMs: number;
  /** The file written, absolute; undefined for a stream. */
  file: string | undefined;
  /** The manifest written beside it, absolute; undefined for a stream or a database. */
  manifest: string | undefined;
  /** A database `out`: the table written, as `name in <out>` (the password left out). */
  table: string | undefined;
  /** True when the reader of the stream went away (EPIPE): the export stopped early, without error. */
  brokenPipe: boolean;
  /** The rate-limit headers of the last page that had them. */
  rateLimit: RateLimitSnapshot | undefined;
}

/** Stands for the command line in the "resume with" line a `log` shows. */
const RESUME_COMMAND = 'exportCollection()';

/**
 * Where the export goes and what it prints.
 * @throws {UsageError} for an `out` that is neither a file path nor a stream
 */
function outputOptions(options: ExportCollectionOptions): ExportOptions {
  const { out } = options;
  if (typeof out === 'string' && (out === '' || out === '-')) {
    throw new UsageError(`out must be a file path or a stream (got '${out}')`, { hint: 'for standard output pass out: process.stdout' });
  }
  if (typeof out !== 'string' && typeof (out as Partial<OutputStream> | undefined)?.write !== 'function') {
    throw new UsageError('out is required: a file path or a writable stream');
  }
  const printed = options.log === undefined ? { quiet: true, verbose: undefined } : { quiet: false, verbose: options.verbose === true };
  return { ...printed, out: typeof out === 'string' ? out : undefined, progress: false, logFormat: options.logFormat ?? 'text' };
}

function summaryOf(result: ExportResult, plan: ExportPlan): ExportSummary {
  const { stats } = result;
  const { files, database } = plan.output;
  return {
    items: stats.items,
    pages: stats.pages,
    responses: stats.requests,
    requests: result.requests,
    retries: stats.retries,
    waits: stats.waits,
    waitMs: stats.waitMs,
    file: files?.target,
    manifest: files && plan.manifest ? plan.manifest.path : undefined,
    table: database ? `${tableText(database.table)} in ${database.address.shown}` : undefined,
    brokenPipe: result.brokenPipe,
    rateLimit: result.rateLimit,
  };
}

/** What the library throws for a failure of the run: an interruption by the caller's signal as an `AbortError`, with its resume hint. */
function libraryError(err: unknown, stopper: Stopper, toFile: boolean): unknown {
  const explained = stopper.explain(err);
  if (explained instanceof AbortError && err instanceof InterruptedError) {
    return new AbortError(`aborted${toFile ? '; checkpoint kept' : ''}`, { cause: explained.cause, ...(err.hint ? { hint: err.hint } : {}) });
  }
  return explained;
}

/**
 * Runs an export as `collections <command> --out …` would, and returns its summary. Nothing is
 * printed unless `log` is given. Bad options fail before any request and before any file is
 * touched. An export that fails or is aborted after writing keeps its checkpoint: the same call
 * with `resume: true` continues it.
 * @throws {UsageError} (`E_USAGE`, `E_CONFIG`, `E_CHECKPOINT`; exit code 2) for bad options or a checkpoint of
 *   other options; {@link AbortError} when `signal` aborts; and the errors of the command line
 *   with their `code` and `exitCode`: `HttpError`, `RateLimitError`, `ApiUnavailableError`,
 *   `UnsafeLinkError`, `HostileResponseError`, `OutputError`, `E_LOCKED` (another export holds the file)
 */
export async function exportCollection(options: ExportCollectionOptions): Promise<ExportSummary> {
  const stopper = createStopper(options);
  stopper.throwIfStopped();
  const output = outputOptions(options);
  const { command, options: planned } = requestOf(options.path, { ...exportOptionsOf(options), ...output });
  const settings = settingsOf(options);
  const ctx = exportContext(options, stopper.signal, typeof options.out === 'string' ? undefined : options.out);
  addSettingsSecrets(ctx, { ...settings, headers: planned.headers ?? [] });
  const { planLoneExport, runLonePlan } = await import('../export/plan/plan.js');
  const plan = await planLoneExport({ command, options: planned, settings, resumeCommand: RESUME_COMMAND, name: optionNamer }, ctx);
  // A failed `budget` database is told to the call's listener and its log, as the command line says it on stderr.
  const unlisten =
    settings.budget === undefined
      ? undefined
      : listenToBudget((message) => {
          ctx.io.stderr.write(`collections: warning: ${message}\n`);
          stopper.emit({ type: 'budget', message });
        });
  try {
    const hooks = {
      onPageFetched: (step: Parameters<typeof pageEvent>[0]) => stopper.emit(pageEvent(step)),
      onClientEvent: (event: CollectionEvent) => stopper.emit(event),
    };
    return summaryOf(await runLonePlan(plan, ctx, hooks), plan);
  } catch (err) {
    throw libraryError(err, stopper, plan.output.files !== undefined);
  } finally {
    unlisten?.();
  }
}
