/**
 * The plan of one export, and what is handed to `runExport` beside it (export/run/run.ts). The
 * plan is data: built once, whole, by commands/export-plan.ts `planExport` from the flags and
 * settings, frozen there, and read in groups by the parts that need them (the client takes
 * `http` as it is, the page source `pages`, the destination and formatter `output`, progress
 * `progress`, the checkpoint `resume`). Services (the client, the page source, the formatter, the
 * output: made from the plan by export/run/services.ts) and observers (pages fetched, client
 * events, finished manifests) are never assigned into it: they come as {@link ExportServices} and
 * {@link ExportHooks}.
 */
import type { Endpoint } from '../../endpoints.js';
import type { Client, ClientEvent, ClientOptions } from '../../http/client.js';
import type { PageStep, PagingMode } from '../../pagination/paginate.js';
import type { Formatter, FormatterOptions, FormatterState } from '../../output/formatter.js';
import type { OutputFormat } from '../../format-names.js';
import type { LogFormat } from '../../io/events.js';
import type { ModeNote } from '../../io/events.js';
import type { Compression } from '../files/gzip-destination.js';
import type { Destination } from '../files/destination.js';
import type { ManifestOutput, ManifestPlan, ManifestRecorder } from '../manifest/manifest.js';
import type { DatabasePlan } from '../destinations/database.js';
import type { RunStats } from '../destinations/store.js';

/** What the HTTP client of an export takes, as it is (export/run/export-client.ts). */
export interface HttpPlan {
  /** The configured base URL: its origin bounds every request. */
  readonly baseUrl: URL;
  readonly apiKey: string;
  /** Retries of a failed request (network, 5xx, 429 beyond the wait). */
  readonly retries: number;
  /** Per attempt, ms. */
  readonly timeoutMs: number;
  /** Longest single rate-limit wait, ms (Infinity = any). */
  readonly maxWaitMs: number;
  /** `--max-body-size`: largest response body accepted, bytes (default the client's, 256 MiB). */
  readonly maxBodyBytes?: number;
  /** The user's request headers (the profile's `header`s, then `--header`s), sent with every request; none: `{}`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Which pages the page loop asks for (export/run/page-loop.ts). */
export interface PagesPlan {
  /** The configured base URL (its origin bounds every link followed). */
  readonly baseUrl: URL;
  /** First page, absolute, with `itemsPerPage`, `--param`s and `page` when `--page` asks for one. */
  readonly start: URL;
  /** Pagination headers of the mode asked for (`X-Pagination-Style: cursor`, `X-Pagination-Enable-Partial: 0`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Pagination headers of cursor mode, sent once the API turned out to page by cursor (pagination/modes.ts). */
  readonly cursorHeaders: Readonly<Record<string, string>>;
  /** The mode asked for (`--cursor`, else offset); the API may page in the other (pagination/modes.ts). */
  readonly mode: PagingMode;
  /** `--page`: the offset page asked for; undefined: the API's first page, no `page` sent. */
  readonly firstPage: number | undefined;
  /** Pages in flight in offset mode (1 = sequential, always 1 in cursor mode). */
  readonly concurrency: number;
  /** `--max-items`: stop after exactly this many items. */
  readonly maxItems: number | undefined;
}

/** Where a file export writes, every path absolute. */
export interface ExportFiles {
  /** The final file (`--out`). */
  readonly target: string;
  /** The sidecar the export writes first. */
  readonly sidecar: string;
  /** The checkpoint beside it. */
  readonly checkpoint: string;
}

/** What is written and where: the formatter's input and the destination's. */
export interface OutputPlan {
  readonly format: OutputFormat;
  readonly formatter: Readonly<FormatterOptions>;
  /** Undefined for stdout. */
  readonly files: ExportFiles | undefined;
  /** `--compress gzip` or an `--out` ending in `.gz`; undefined: plain text. */
  readonly compress?: Compression;
  /** A PostgreSQL or DuckDB table (`--out postgres://…`, `F.duckdb`): the formatter writes NDJSON, `files` is undefined. */
  readonly database?: DatabasePlan;
  /** `--out F.parquet`: `files` are `F`'s, the sidecar holds CSV, converted to Parquet once complete. */
  readonly parquet?: boolean;
}

/** How the run reports on stderr (io/progress.ts). */
export interface ProgressPlan {
  readonly quiet: boolean;
  readonly spinner: boolean;
  readonly verbose: boolean;
  /** `--log-format`: `json` writes progress as JSON lines (io/events.ts). */
  readonly logFormat: LogFormat;
}

/** The checkpoint side: continue, discard, and what a checkpoint must match. */
export interface ResumePlan {
  /** `--resume` (with many taxpayers: only those that have a checkpoint). */
  readonly resume: boolean;
  /** `--restart`: discard an existing checkpoint and start afresh. */
  readonly restart: boolean;
  /** Options that shape the output; stored in and compared with the checkpoint. */
  readonly fingerprint: Readonly<Record<string, unknown>>;
  /** The command line to repeat with `--resume` (no key), for hints. */
  readonly command: string;
}

/** `--state`: the state file (absolute) and this export's key in it (export/state/state.ts). */
export interface StatePlan {
  readonly path: string;
  readonly key: string;
}

/** Everything an export needs, validated and frozen (commands/export-plan.ts builds it). */
export interface ExportPlan {
  readonly endpoint: Endpoint;
  readonly http: HttpPlan;
  readonly pages: PagesPlan;
  readonly output: OutputPlan;
  readonly progress: ProgressPlan;
  readonly resume: ResumePlan;
  /** The manifest written when a file export completes (export/manifest/manifest.ts); undefined for stdout. */
  readonly manifest: ManifestPlan | undefined;
  /** `--state`; undefined otherwise. */
  readonly state: StatePlan | undefined;
}

/** What the client of an export is wired to by the run: its abort signal and its listeners. */
export interface ClientWiring {
  /** Aborts waits and requests in flight (SIGINT / SIGTERM). */
  readonly signal: AbortSignal;
  readonly onEvent: (event: ClientEvent) => void;
  /** A wait announced but not taken in full (its requests were aborted). */
  readonly onWaitCut: NonNullable<ClientOptions['onWaitCut']>;
}

/** What the output of an export is wired to by the run. */
export interface OutputWiring {
  /** Aborts a device's writes in flight (SIGINT / SIGTERM). */
  readonly signal: AbortSignal;
  /** A line for stderr (a stale lock taken over, a checkpoint discarded), through progress. */
  readonly note: (line: string) => void;
  /** The output lock was lost while the run held it: the run stops at once with `error`. */
  readonly onLost: (error: Error) => void;
  /** The run's counters so far (a database's run log records them). */
  readonly stats: () => RunStats;
}

/** The output of one run: opened before any request, released when the run ends, whatever the ending. */
export interface ExportOutput {
  /**
   * Opens stdout, a device or FIFO, or the sidecar (the output lock first, then the checkpoint
   * validated and read; `resumed` when it continues one), compressed as planned.
   * @throws {CollectionsError} subclasses for a held lock, a bad checkpoint or an unwritable target
   */
  open(): Promise<Destination>;
  /** Whether `open()` found a device or FIFO (written straight through: nothing to resume); false before. */
  readonly device: boolean;
  /** Releases the output lock when `open()` took it; the run calls it last, so the lock covers every file of the run. */
  release(): Promise<void>;
}

/** What the page source reads from the run and tells it. */
export interface PageSourceHooks {
  /** The items written so far, read as pages arrive (`--max-items`). */
  readonly tally: { readonly items: number };
  /** The mode the checkpoint of a resumed export recorded; undefined for a fresh start. */
  readonly resumedMode: PagingMode | undefined;
  /** The API pages in another mode than the one asked for, and the export goes on in it (a note on stderr). */
  readonly onMode: (note: ModeNote) => void;
}

/** Services the run uses beside the plan; export/run/services.ts `exportServices` makes the real ones, tests may hand in others. */
export interface ExportServices {
  /** Opens the export's HTTP client once the run has its signal and listeners. */
  readonly openClient: (wiring: ClientWiring) => Client;
  /**
   * The pages from `start` (the plan's first page, or a checkpoint's next link), fetched through
   * `client`, in the mode the API pages in (each step's `mode`).
   */
  readonly openPages: (client: Client, start: URL, source: PageSourceHooks) => AsyncGenerator<PageStep, void, void>;
  /**
   * The formatter, continuing `resumed` (a checkpoint's formatter state) when given.
   * @param note a line for stderr (a CSV key first seen after the header)
   */
  readonly openFormatter: (resumed: FormatterState | undefined, note: (line: string) => void) => Promise<Formatter>;
  /** The output of one run; nothing is opened before {@link ExportOutput.open}. */
  readonly openOutput: (wiring: OutputWiring) => ExportOutput;
  /**
   * Starts recording the manifest of a file export (written beside the output when it is published,
   * or handed to `onManifest` when the plan collects it); undefined when the plan has no manifest.
   */
  readonly openManifest: (onManifest: ExportHooks['onManifest']) => ManifestRecorder | undefined;
}

/** Observers of a run, all optional; none changes what the run does. */
export interface ExportHooks {
  /** Every page fetched (e.g. the rate-limit cache of `ratelimit --cached`). */
  readonly onPageFetched?: (page: PageStep) => void;
  /** Every client event, after progress heard it. */
  readonly onClientEvent?: (event: ClientEvent) => void;
  /**
   * The finished output of a plan whose manifest is collected (`manifest.collect`: the run
   * manifest of many taxpayers, commands/batch.ts) instead of written beside the output.
   */
  readonly onManifest?: (output: ManifestOutput) => void;
}

/**
 * Freezes a plan and the plain objects and arrays inside it, so nothing can change it after it is
 * built. URLs and the endpoint row (shared by every plan) are left as they are.
 * @returns the same object, frozen
 */
export function freezePlan(plan: ExportPlan): ExportPlan {
  const freeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || value instanceof URL || Object.isFrozen(value)) return;
    Object.freeze(value);
    for (const inner of Object.values(value)) freeze(inner);
  };
  for (const [key, value] of Object.entries(plan)) if (key !== 'endpoint') freeze(value);
  return Object.freeze(plan);
}
