/**
 * The sandbox's switches, one row each: `collections sandbox` builds its flags and help from the
 * rows, and `startSandbox()` takes them as options by their names ({@link SandboxSwitchValues}).
 * It imports only the defaults, so `sandbox --help` loads none of the sandbox.
 */
import { DEFAULT_SANDBOX_KEY, DEFAULT_SIZES } from './defaults.js';

export interface SandboxSwitch {
  /** Commander flags, e.g. `--port <n>`. */
  readonly flag: string;
  readonly type: 'integer' | 'string' | 'boolean';
  /** Of an integer; its flag's placeholder names it too (`--window <seconds>`). */
  readonly unit?: 'ms' | 'seconds' | 'days';
  readonly help: string;
  /** Applied when the switch is not given, and shown in help. */
  readonly default?: number | string;
  /** The range of an integer (`max` default `Number.MAX_SAFE_INTEGER`). */
  readonly min?: number;
  readonly max?: number;
  /** The only values accepted; completion offers them. */
  readonly words?: readonly string[];
}

/** The TSDoc of each row is what `startSandbox()`'s option of that name shows. */
export const SANDBOX_SWITCHES = {
  /**
   * Port to listen on; 0 = any free port. Default 8787 for `collections sandbox`, 0 for
   * `startSandbox()`, so that tests can run side by side.
   */
  port: { flag: '--port <n>', type: 'integer', min: 0, max: 65_535, help: 'port to listen on (0 = any free port)', default: 8787 },
  /** Interface to listen on (default `127.0.0.1`: loopback only). */
  host: { flag: '--host <host>', type: 'string', help: 'interface to listen on', default: '127.0.0.1' },
  /** The API key it accepts (default `sandbox-key`). */
  key: { flag: '--key <key>', type: 'string', help: 'API key the sandbox accepts', default: DEFAULT_SANDBOX_KEY },
  /** Requests per window, per key and endpoint (default 60; 0 = no limit). */
  limit: { flag: '--limit <n>', type: 'integer', min: 0, help: 'requests per window, per key and endpoint (0 = no limit)', default: 60 },
  /** Rate-limit window length, seconds (default 60). */
  window: { flag: '--window <seconds>', type: 'integer', unit: 'seconds', min: 1, help: 'rate-limit window length', default: 60 },
  /** What one window counts: `route` (default: all taxpayers share `/taxpayers/{id}/invoices`) or `path` (each concrete path). */
  limitScope: {
    flag: '--limit-scope <scope>',
    type: 'string',
    help: 'what one window counts: route (all taxpayers share /taxpayers/{id}/invoices) or path (each concrete path)',
    default: 'route',
    words: ['route', 'path'],
  },
  /** Delay added to every response, ms (default 0). */
  latency: { flag: '--latency <ms>', type: 'integer', unit: 'ms', min: 0, help: 'delay added to every response', default: 0 },
  /** Items a minute inserted or updated (a fresh `updatedAt`) in invoices, entities and events (default 0). */
  churn: {
    flag: '--churn <n>',
    type: 'integer',
    min: 0,
    max: 1_000_000,
    help: 'items a minute inserted or updated (fresh updatedAt) in invoices, entities and events',
    default: 0,
  },
  /**
   * The churn deletes too: one change in three of invoices and entities, each recorded as an
   * `invoice.deleted` or `link.deleted` event; events older than `eventRetention` disappear (default false).
   */
  deletions: {
    flag: '--deletions',
    type: 'boolean',
    help: 'the churn deletes too: one change in three of invoices and entities deletes one, recording its invoice.deleted or link.deleted event; events older than --event-retention disappear',
  },
  /** With `deletions`: days an event is kept, on the sandbox's clock (default 7). */
  eventRetention: {
    flag: '--event-retention <days>',
    type: 'integer',
    unit: 'days',
    min: 1,
    max: 3650,
    help: 'with --deletions: days of the sandbox clock an event is kept',
    default: 7,
  },
  /** Seed of the generated records (default 1): the same options give the same data. */
  seed: { flag: '--seed <n>', type: 'integer', min: 0, max: 2 ** 32 - 1, help: 'seed of the generated records', default: 1 },
  /** Entities (default 25). */
  entities: { flag: '--entities <n>', type: 'integer', min: 0, help: 'entities', default: DEFAULT_SIZES.entities },
  /** Events (default 40). */
  events: { flag: '--events <n>', type: 'integer', min: 0, help: 'events', default: DEFAULT_SIZES.events },
  /** Taxpayers, at most 10 000 (default 4). */
  taxpayers: { flag: '--taxpayers <n>', type: 'integer', min: 1, max: 10_000, help: 'taxpayers', default: DEFAULT_SIZES.taxpayers },
  /** Invoices per taxpayer (default 250). */
  invoices: {
    flag: '--invoices <n>',
    type: 'integer',
    min: 0,
    max: 100_000_000,
    help: 'invoices per taxpayer',
    default: DEFAULT_SIZES.invoicesPerTaxpayer,
  },
  /** Average line items per invoice, at most 200 (default 3). */
  lineItems: {
    flag: '--line-items <n>',
    type: 'integer',
    min: 0,
    max: 200,
    help: 'average line items per invoice (max 200)',
    default: DEFAULT_SIZES.lineItemsPerInvoice,
  },
  /** Payments per taxpayer (default 120). */
  payments: {
    flag: '--payments <n>',
    type: 'integer',
    min: 0,
    max: 100_000_000,
    help: 'payments per taxpayer',
    default: DEFAULT_SIZES.paymentsPerTaxpayer,
  },
  /** Faults to inject, e.g. `'status status=503 p=0.1; drip pages=3'` or JSON (docs/sandbox.md); `setFaults()` replaces them. */
  faults: { flag: '--faults <spec>', type: 'string', help: "faults to inject, e.g. 'status status=503 p=0.1; drip pages=3' or JSON" },
  /** Name of the previous cursor link: `previous` (default) or `last`. */
  cursorPrevious: {
    flag: '--cursor-previous <name>',
    type: 'string',
    help: 'name of the previous cursor link: previous or last',
    default: 'previous',
    words: ['previous', 'last'],
  },
  /** How a cursor chain ends: `endless` (default, API Platform 4.3.5+), `empty-page` or `last-page`. */
  cursorEnd: {
    flag: '--cursor-end <end>',
    type: 'string',
    help: 'how a cursor chain ends: endless (API Platform >= 4.3.5: the last page and every empty page link next), empty-page (an empty page links nothing) or last-page (no next on the last page)',
    default: 'endless',
    words: ['endless', 'empty-page', 'last-page'],
  },
  /** Bytes of the bodies: `apiplatform` (default: the real service's PHP escapes, `\/`), `compact` or `pretty`. */
  wire: {
    flag: '--wire <encoding>',
    type: 'string',
    help: "bytes of the bodies: apiplatform (the real service's json_encode escapes, \\/ and \\u0022), compact (JSON.stringify's) or pretty (debug mode)",
    default: 'apiplatform',
    words: ['apiplatform', 'compact', 'pretty'],
  },
  /**
   * How the 400, 404 and 405 API Platform answers itself are written: `message` (default,
   * `{"message": …}`, as the service documents) or `problem` (`application/problem+json`).
   */
  errors: {
    flag: '--errors <style>',
    type: 'string',
    help: 'how the 400, 404 and 405 API Platform answers itself are written: message ({"message": …}, as the service documents) or problem (application/problem+json with title, detail, description)',
    default: 'message',
    words: ['message', 'problem'],
  },
  /**
   * The endpoints that page by cursor page by cursor only, as the real invoice endpoints: a request
   * with `page` is a 400 (default false). Not with `ignorePaginationStyle`.
   */
  cursorOnly: {
    flag: '--cursor-only',
    type: 'boolean',
    help: 'the endpoints that page by cursor page by cursor only, as the real invoice endpoints: a request with page is a 400 "Only cursor pagination is available for this endpoint."',
  },
  /** Offset pages whatever `X-Pagination-Style` asks, as plain API Platform (default false). */
  ignorePaginationStyle: {
    flag: '--ignore-pagination-style',
    type: 'boolean',
    help: "offset pages whatever X-Pagination-Style asks, as plain API Platform (the header is the deployment's own)",
  },
  /** A page that links nowhere: `view` (default), or `no-view` (a `hydra:search` template instead, as the real service). */
  singlePage: {
    flag: '--single-page <shape>',
    type: 'string',
    help: 'a page that links nowhere (one page holds the collection, or it is empty): view, or no-view (a hydra:search template instead, as the real service)',
    default: 'view',
    words: ['view', 'no-view'],
  },
  /** Item dates: `iso` (default, `2024-03-28T16:45:09.000Z`) or `naive` (`2024-03-28 16:45:09`, UTC, as the real service). */
  dates: {
    flag: '--dates <style>',
    type: 'string',
    help: 'item dates: iso (2024-03-28T16:45:09.000Z) or naive (2024-03-28 16:45:09, UTC, as the real service)',
    default: 'iso',
    words: ['iso', 'naive'],
  },
  /** A payment's `batchPayment`: `iri` (default) or `object` (embedded: `payerBank`, `operationNumber`…, as the real service). */
  batchPayment: {
    flag: '--batch-payment <shape>',
    type: 'string',
    help: "a payment's batchPayment: iri, or object (embedded: payerBank, operationNumber…, as the real service)",
    default: 'iri',
    words: ['iri', 'object'],
  },
  /**
   * One invoice of each taxpayer (its third) has `reference` `"odd\u0000text\ud800"`: a NUL and a
   * lone surrogate, valid JSON escapes that PostgreSQL's `jsonb` cannot hold (default false).
   */
  oddText: {
    flag: '--odd-text',
    type: 'boolean',
    help: "one invoice of each taxpayer (its third) has a NUL (\\u0000) and a lone surrogate (\\ud800) in its reference: an item PostgreSQL's jsonb cannot hold",
  },
} as const satisfies Readonly<Record<string, SandboxSwitch>>;

export type SandboxSwitchName = keyof typeof SANDBOX_SWITCHES;

type ValueOf<S extends SandboxSwitch> = S['type'] extends 'integer' ? number : S['type'] extends 'boolean' ? boolean : string;

/** One optional field per switch, by its name; units as its row says. */
export type SandboxSwitchValues = {
  -readonly [K in keyof typeof SANDBOX_SWITCHES]?: (typeof SANDBOX_SWITCHES)[K] extends { words: readonly (infer W)[] }
    ? W
    : ValueOf<(typeof SANDBOX_SWITCHES)[K]>;
};

/** As commander hands them over: a word as typed, since commander does not check words (`serveSandbox` does). */
export type SandboxCommandOptions = { -readonly [K in keyof typeof SANDBOX_SWITCHES]?: ValueOf<(typeof SANDBOX_SWITCHES)[K]> };
