/**
 * Public shapes of the sandbox: its options, the request and reply any transport exchanges with
 * it, its request log and counters, and the {@link Sandbox} itself. `app.ts` re-exports them all.
 */
import type { Clock } from '../time/clock.js';
import type { FaultConfig, FaultKind, FaultRule, NetworkFault } from './faults.js';
import type { LimitedWindow } from './limiter.js';
import type { CursorEnd } from './cursor.js';
import type { WireEncoding } from './wire.js';
import type { ErrorStyle } from './responses.js';
import type { SinglePage } from './pages.js';
import type { DateStyle } from './records/values.js';

/** What one rate-limit window of the sandbox counts: each concrete path, or each path template (route). */
export type LimitScope = 'path' | 'route';

/** An automatic change of a collection while clients page through it. */
export interface AutoMutation {
  /** Collection path, e.g. `/taxpayers/DMO140312KT5/invoices` (ids raw or percent-encoded). */
  path: string;
  /** After every `every`-th request to that path (any query), mutate. */
  every: number;
  /** Items inserted at the front each time (default 1). */
  insert?: number;
  /** Existing items deleted each time, at seeded random positions (default 0). */
  remove?: number;
}

/** Options of `createSandbox` (app.ts); every field is optional. */
export interface SandboxOptions {
  /** Accepted `X-Api-Key` (default `sandbox-key`). */
  apiKey?: string;
  /** Requests per window per key and endpoint (default 60; 0 or Infinity = no limit). */
  limit?: number;
  /** Window length, seconds (default 60). Windows are fixed and end on whole seconds. */
  windowSeconds?: number;
  /**
   * What one window counts, per key: `route` (default) one window per endpoint (path template), so
   * `/taxpayers/A/invoices` and `/taxpayers/B/invoices` share it; `path` one per concrete path.
   */
  limitScope?: LimitScope;
  /** Seed of the generated records (default 1). */
  seed?: number;
  /** Collection sizes. */
  sizes?: {
    entities?: number;
    events?: number;
    /** Taxpayers generated (their RFCs are listed by {@link Sandbox.taxpayers}). */
    taxpayers?: number;
    /** Invoices per taxpayer. */
    invoicesPerTaxpayer?: number;
    /** Line items per invoice (average). */
    lineItemsPerInvoice?: number;
    /** Payments per taxpayer. */
    paymentsPerTaxpayer?: number;
  };
  /** Server clock (default the system clock). */
  clock?: Clock;
  /** Latency added to each response, ms, slept on `clock`. */
  latencyMs?: number;
  /** Faults to inject from the start: a config, a list of rules, or a spec string (see `parseFaultSpec`). */
  faults?: FaultConfig | FaultRule[] | string;
  /** Name of the previous link in cursor mode: `previous` (the guide, default) or `last` (the OpenAPI example). */
  cursorPrevious?: 'previous' | 'last';
  /**
   * How a cursor chain ends (sandbox/cursor.ts): `endless` (default, API Platform ≥ 4.3.5: every
   * non-empty page links next, the last one too, and an empty page links on), `empty-page` (API
   * Platform before 4.3.5: an empty page links nothing) or `last-page` (no next on the last page).
   */
  cursorEnd?: CursorEnd;
  /**
   * How bodies are written (sandbox/wire.ts): `apiplatform` (default, the real service: PHP's
   * json_encode escapes, `\/` and `\u0022`…), `compact` (JSON.stringify's bytes) or `pretty` (API
   * Platform's debug mode). Number literals (`satFolio`, `1.0`) are exact in each.
   */
  wire?: WireEncoding;
  /**
   * How the errors API Platform answers itself (400, 404, 405) are written: `message` (default, the
   * service's documented `{"message": …}`) or `problem` (`application/problem+json` with `title`,
   * `detail`, `description`, `status`, `type`; an unknown route's 404 is `{"type": …rfc2616…,
   * "title": …, "detail": "Not Found"}`). A 401 and a 429 are the deployment's `{"message": …}` in
   * both; a 422 is always problem+json.
   */
  errors?: ErrorStyle;
  /**
   * The endpoints that can page by cursor (`cursor` of src/endpoints.ts) page by cursor only, as
   * the real service's current invoice endpoints: cursor pages whatever `X-Pagination-Style`
   * says, and any request carrying `page` is a 400 `{"message":"Only cursor pagination is
   * available for this endpoint."}` (default false).
   */
  cursorOnly?: boolean;
  /**
   * `X-Pagination-Style` is ignored, as plain API Platform does (the header is the deployment's
   * own): offset pages whatever the client asks (default false). Not with {@link cursorOnly}.
   */
  ignorePaginationStyle?: boolean;
  /**
   * A page that links nowhere (a collection that fits one page, an empty one): `view` (default)
   * keeps its `view`; `no-view` leaves it out and writes a `hydra:search` IRI template instead, as
   * a recorded page of the real service.
   */
  singlePage?: SinglePage;
  /** How item dates are written: `iso` (default, `2024-03-28T16:45:09.000Z`) or `naive` (`2024-03-28 16:45:09`, UTC, as the real service). */
  dates?: DateStyle;
  /** A payment's `batchPayment`: `iri` (default, as the API documentation) or `object` (embedded, as the real service sends it). */
  batchPayment?: 'iri' | 'object';
  /** One invoice of each taxpayer (its third) carries a NUL (`\u0000`) and a lone surrogate (`\ud800`) in `reference`: an item a database cannot hold as written. Default false. */
  oddText?: boolean;
  /**
   * Items a minute of the clock (default 0: none) inserted or updated in each collection with date
   * filters (invoices, entities, events), stamped with a fresh `updatedAt` (inserts also a fresh
   * `createdAt`; events are only inserted), so an incremental export has something to find. Applied
   * when a collection is read, at the times they fell due (sandbox/churn.ts).
   */
  churn?: number;
  /**
   * The churn deletes too (default false): one in three changes of invoices and entities deletes a
   * seeded random item, and records its `invoice.deleted` or `link.deleted` event (with `resource`
   * and `data.object`, its last state) in `/events` and the taxpayer's `/entities/{id}/events`;
   * events older than {@link eventRetentionDays} disappear (sandbox/deletions.ts).
   */
  deletions?: boolean;
  /** With {@link deletions}: days of the clock an event is kept (default 7, the service's guarantee). */
  eventRetentionDays?: number;
  /** Automatic inserts/deletes while clients page. */
  mutations?: AutoMutation[];
  /** Bytes of item JSON kept in memory (default 2 GiB); past it, items are rebuilt on each read. */
  cacheBytes?: number;
  /**
   * After answering a page, build the next page's items in idle time (setImmediate batches), so a
   * client reading page k in another process finds page k+1 cached (default false; the
   * `collections sandbox` command turns it on).
   */
  warmAhead?: boolean;
  /** Entries kept in the request log (default 100 000; older ones are dropped). */
  logLimit?: number;
}

/** A request as the sandbox needs it: any transport can build one cheaply. */
export interface SandboxRequest {
  method: string;
  /** Absolute URL (its origin is used for absolute-link faults). */
  url: string;
  /** A request header by lower-case name, or null. */
  header(name: string): string | null;
}

/** The sandbox's answer before it becomes a `Response` or bytes on a socket. */
export interface SandboxReply {
  status: number;
  /** Response headers (names as sent). */
  headers: Record<string, string>;
  /** The whole body. */
  body: Buffer;
  /** A network fault the transport must act out instead of (or while) sending this reply. */
  network?: NetworkFault;
}

/** One request as the sandbox saw it. */
export interface RequestLogEntry {
  /** 1-based request number. */
  number: number;
  /** Server clock time (without any clock-offset fault), epoch ms. */
  timeMs: number;
  method: string;
  /** Path and query as received. */
  url: string;
  /** Status answered; 0 when a network fault replaced the answer. */
  status: number;
  /** Whether an `X-Api-Key` header was present (its value is never logged). */
  hasApiKey: boolean;
  /** Endpoint key, when the path matched one. */
  endpoint: string | undefined;
  /** Kinds of the faults that fired. */
  faults: FaultKind[];
}

/** Counters of a sandbox. */
export interface SandboxStats {
  requests: number;
  /** Answers per status (0 = network fault). */
  byStatus: Record<number, number>;
  /** 429s per endpoint and window (from the limiter; permanent-429 faults are counted in byStatus only). */
  limitedWindows: LimitedWindow[];
}

/** A running in-process sandbox. */
export interface Sandbox {
  /**
   * Answers one request as the Collection API would; a network fault becomes a bodiless 502 (the
   * socket server and the fetch adapter act network faults out from {@link reply} instead).
   */
  handle(request: Request): Promise<Response>;
  /** Answers one request without building a `Response` (used by the socket server and the fetch adapter). */
  reply(request: SandboxRequest, signal?: AbortSignal): Promise<SandboxReply>;
  /** RFCs of the generated taxpayers. */
  taxpayers(): string[];
  /** Current invoice ids of a taxpayer, in API order (newest first); [] for an unknown taxpayer. */
  invoiceIds(taxpayerId: string): string[];
  /** The full current item list of a collection path (e.g. `/taxpayers/X/invoices`), in the API's order. */
  items(path: string): unknown[];
  /**
   * Inserts `count` (default 1) new items at the front of a collection.
   * @returns their ids, newest last
   * @throws {Error} when the path is not a collection of the sandbox
   */
  insert(path: string, count?: number): string[];
  /** Deletes an item of a collection by id; false when it is not there. @throws {Error} for an unknown collection path */
  remove(path: string, id: string): boolean;
  /** Replaces the fault rules (a config, a list, or a spec string); `[]` clears them. */
  setFaults(faults: FaultConfig | FaultRule[] | string): void;
  /** The request log, oldest first. */
  requests(): RequestLogEntry[];
  /** Counters. */
  stats(): SandboxStats;
  /** The accepted API key. */
  readonly apiKey: string;
  /** The server clock. */
  readonly clock: Clock;
}
