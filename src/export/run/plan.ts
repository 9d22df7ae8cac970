/** The plan of one export: data, built once by `planExport` and frozen; services and observers come beside it. */
import type { Endpoint } from '../../endpoints.js';
import type { Client, ClientEvent, ClientOptions } from '../../http/client.js';
import type { PageStep, PagingMode } from '../../pagination/paginate.js';
import type { Formatter, FormatterOptions, FormatterState } from '../../output/formatter.js';
import type { OutputFormat } from '../../format-names.js';
import type { LogFormat, ModeNote } from '../../io/events.js';
import type { Compression, Destination } from '../files/destination.js';
import type { sidecarPaths } from '../files/sidecar.js';
import type { WatermarkOptions } from '../state/state.js';
import type { ManifestOutput, ManifestPlan, ManifestRecorder } from '../manifest/manifest.js';
import type { DatabasePlan } from '../destinations/database.js';
import type { RunStats } from '../destinations/store.js';

export interface HttpPlan {
  readonly baseUrl: URL;
  readonly apiKey: string;
  readonly retries: number;
  /** Per attempt, ms. */
  readonly timeoutMs: number;
  /** Longest single rate-limit wait, ms (Infinity = any). */
  readonly maxWaitMs: number;
  /** `--max-body-size`, bytes. */
  readonly maxBodyBytes: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** `--budget`: the PostgreSQL URL of the rate budget shared by hosts (a secret when it holds a password). */
  readonly budget?: string;
}

export interface PagesPlan {
  readonly baseUrl: URL;
  /** First page, absolute, with `itemsPerPage`, `--param`s and `page` when `--page` asks for one. */
  readonly start: URL;
  /** Pagination headers of the mode asked for (`X-Pagination-Style: cursor`, `X-Pagination-Enable-Partial: 0`). */
  readonly headers: Readonly<Record<string, string>>;
  readonly cursorHeaders: Readonly<Record<string, string>>;
  readonly mode: PagingMode;
  /** `--page`; undefined: the API's first page, no `page` sent. */
  readonly firstPage: number | undefined;
  /** Pages in flight in offset mode (always 1 in cursor mode). */
  readonly concurrency: number;
  readonly maxItems: number | undefined;
}

/** Where a file export writes, every path absolute. */
export type ExportFiles = Readonly<{ target: string } & ReturnType<typeof sidecarPaths>>;

export interface OutputPlan {
  readonly format: OutputFormat;
  readonly formatter: Readonly<FormatterOptions>;
  /** Undefined for stdout. */
  readonly files: ExportFiles | undefined;
  readonly compress?: Compression;
  /** A PostgreSQL or DuckDB table: the formatter writes NDJSON, `files` is undefined. */
  readonly database?: DatabasePlan;
  /** `--out F.parquet`: `files` are `F`'s, the sidecar holds CSV, converted to Parquet once complete. */
  readonly parquet?: boolean;
}

export interface ProgressPlan {
  readonly quiet: boolean;
  readonly spinner: boolean;
  readonly verbose: boolean;
  readonly logFormat: LogFormat;
}

export interface ResumePlan {
  /** `--resume` (with many taxpayers: only those that have a checkpoint). */
  readonly resume: boolean;
  readonly restart: boolean;
  readonly fingerprint: Readonly<Record<string, unknown>>;
  /** The command line to repeat with `--resume` (no key), for hints. */
  readonly command: string;
}

/** The delete events an incremental export follows (`followDeletions`); see docs/databases.md, "Deletions". */
export interface DeletionsPlan {
  /** The first request: `/events?type=…&taxpayer.id=…&createdAt[after]=…&order[createdAt]=asc&itemsPerPage=…`. */
  readonly start: URL;
  /** The event type, e.g. `invoice.deleted`. */
  readonly type: string;
  /** `--key`'s path; undefined: `id`. */
  readonly key: readonly string[] | undefined;
}

export interface ExportPlan {
  readonly endpoint: Endpoint;
  readonly http: HttpPlan;
  readonly pages: PagesPlan;
  readonly output: OutputPlan;
  readonly progress: ProgressPlan;
  readonly resume: ResumePlan;
  readonly manifest: ManifestPlan | undefined;
  readonly state: WatermarkOptions['state'];
  /** Deletions to follow: an incremental export of a collection with delete events. */
  readonly deletions?: DeletionsPlan;
  /** Lines the run notes once it starts (why it is not what was asked, e.g. a full refresh). */
  readonly notes?: readonly string[];
}

export interface ClientWiring {
  /** Aborts waits and requests in flight (SIGINT / SIGTERM). */
  readonly signal: AbortSignal;
  readonly onEvent: (event: ClientEvent) => void;
  /** A wait announced but not taken in full (its requests were aborted). */
  readonly onWaitCut: NonNullable<ClientOptions['onWaitCut']>;
}

export interface OutputWiring {
  readonly signal: AbortSignal;
  readonly note: (line: string) => void;
  /** The output lock was lost while the run held it: the run stops at once with `error`. */
  readonly onLost: (error: Error) => void;
  readonly stats: () => RunStats;
}

/** The output of one run: opened before any request, released when the run ends, whatever the ending. */
export interface ExportOutput {
  /** @throws {CollectionsError} subclasses for a held lock, a bad checkpoint or an unwritable target */
  open(): Promise<Destination>;
  /** Whether `open()` found a device or FIFO (nothing to resume); false before. */
  readonly device: boolean;
  /** The run calls it last, so the lock covers every file of the run. */
  release(): Promise<void>;
}

export interface PageSourceHooks {
  /** The items written so far, read as pages arrive (`--max-items`). */
  readonly tally: { readonly items: number };
  readonly resumedMode: PagingMode | undefined;
  readonly onMode: (note: ModeNote) => void;
}

/** Services the run uses beside the plan; `exportServices` makes the real ones, tests may hand in others. */
export interface ExportServices {
  readonly openClient: (wiring: ClientWiring) => Client;
  readonly openPages: (client: Client, start: URL, source: PageSourceHooks) => AsyncGenerator<PageStep, void, void>;
  readonly openFormatter: (resumed: FormatterState | undefined, note: (line: string) => void) => Promise<Formatter>;
  readonly openOutput: (wiring: OutputWiring) => ExportOutput;
  readonly openManifest: (onManifest: ExportHooks['onManifest']) => ManifestRecorder | undefined;
}

/** Observers of a run, all optional; none changes what the run does. */
export interface ExportHooks {
  readonly onPageFetched?: (page: PageStep) => void;
  readonly onClientEvent?: (event: ClientEvent) => void;
  /** The finished output of a plan whose manifest is collected (a run manifest of many taxpayers). */
  readonly onManifest?: (output: ManifestOutput) => void;
}

/** Freezes a plan and the plain objects inside it; URLs and the endpoint row (shared by every plan) are left as they are. */
export function freezePlan(plan: ExportPlan): ExportPlan {
  const freeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || value instanceof URL || Object.isFrozen(value)) return;
    Object.freeze(value);
    for (const inner of Object.values(value)) freeze(inner);
  };
  for (const [key, value] of Object.entries(plan)) if (key !== 'endpoint') freeze(value);
  return Object.freeze(plan);
}
