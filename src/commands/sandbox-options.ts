/**
 * What the definition of `sandbox` (commands/sandbox-command.ts) needs to declare it: its options
 * (one table, which the definition and, through commander, completion read), their type and help
 * text, kept apart from commands/sandbox.ts so that `--help` loads none of the sandbox.
 */
import { DEFAULT_SANDBOX_KEY, DEFAULT_SIZES } from '../sandbox/defaults.js';
import { exitCodesHelp, SANDBOX_EXIT_CODES } from './help-text.js';

/** Options of `runSandbox` (commands/sandbox.ts); each has a flag in {@link SANDBOX_OPTION_HELP}. */
export interface SandboxCommandOptions {
  /** `--port` (default 8787; 0 picks a free port). */
  port?: number;
  /** `--host` (default 127.0.0.1). */
  host?: string;
  /** `--key`: the accepted API key (default `sandbox-key`). */
  key?: string;
  /** `--limit`: requests per window per endpoint (default 60; 0 = unlimited). */
  limit?: number;
  /** `--window`: window length, seconds (default 60). */
  window?: number;
  /** `--limit-scope`: `route` (default, one window per path template) or `path` (one per concrete path); the word as typed. */
  limitScope?: string;
  /** `--latency`: added to each response, ms (default 0). */
  latency?: number;
  /** `--churn`: items a minute inserted or updated in each dated collection (default 0). */
  churn?: number;
  /** `--seed` of the generated records (default 1). */
  seed?: number;
  /** `--entities` (default 25). */
  entities?: number;
  /** `--events` (default 40). */
  events?: number;
  /** `--taxpayers` (default 4). */
  taxpayers?: number;
  /** `--invoices`: invoices per taxpayer (default 250). */
  invoices?: number;
  /** `--line-items`: average line items per invoice (default 3). */
  lineItems?: number;
  /** `--payments`: payments per taxpayer (default 120). */
  payments?: number;
  /** `--faults`: a fault spec, compact (`status status=503 p=0.1; drip`) or JSON. */
  faults?: string;
  /**
   * `--cursor-previous`: name of the previous cursor link, `previous` (default) or `last`; the word
   * as typed (commander does not check it), so `runSandbox` rejects any other.
   */
  cursorPrevious?: string;
  /** `--cursor-end`: `endless` (default), `empty-page` or `last-page` (sandbox/cursor.ts); the word as typed. */
  cursorEnd?: string;
  /** `--wire`: `apiplatform` (default), `compact` or `pretty` (sandbox/wire.ts); the word as typed. */
  wire?: string;
  /** `--errors`: `message` (default) or `problem` (sandbox/responses.ts `ErrorStyle`); the word as typed. */
  errors?: string;
  /** `--cursor-only`: the cursor-capable endpoints page by cursor only; `page` is a 400. */
  cursorOnly?: boolean;
  /** `--ignore-pagination-style`: offset pages whatever `X-Pagination-Style` asks (plain API Platform). */
  ignorePaginationStyle?: boolean;
  /** `--single-page`: `view` (default) or `no-view` (sandbox/pages.ts `SinglePage`); the word as typed. */
  singlePage?: string;
  /** `--dates`: `iso` (default) or `naive` (sandbox/records/values.ts `DateStyle`); the word as typed. */
  dates?: string;
  /** `--batch-payment`: `iri` (default) or `object`; the word as typed. */
  batchPayment?: string;
}

/** One flag of the `sandbox` command, for its definition (commands/sandbox-command.ts). */
export interface SandboxOptionHelp {
  /** Commander flags, e.g. `--port <n>`. */
  flags: string;
  /** The {@link SandboxCommandOptions} field it fills. */
  option: keyof SandboxCommandOptions;
  description: string;
  /** Kind of value, so the wiring can parse it: integer, number or string; boolean for a switch without a value. */
  type: 'integer' | 'number' | 'string' | 'boolean';
  /** Default shown in help (the runner applies it when the option is undefined). */
  defaultValue?: string;
  /** Words completion offers for the value (the runner checks them, with its own message). */
  words?: readonly string[];
}

/** The flags of `collections sandbox`. */
export const SANDBOX_OPTION_HELP: readonly SandboxOptionHelp[] = [
  { flags: '--port <n>', option: 'port', type: 'integer', description: 'port to listen on (0 = any free port)', defaultValue: '8787' },
  { flags: '--host <host>', option: 'host', type: 'string', description: 'interface to listen on', defaultValue: '127.0.0.1' },
  { flags: '--key <key>', option: 'key', type: 'string', description: 'API key the sandbox accepts', defaultValue: DEFAULT_SANDBOX_KEY },
  {
    flags: '--limit <n>',
    option: 'limit',
    type: 'integer',
    description: 'requests per window, per key and endpoint (0 = no limit)',
    defaultValue: '60',
  },
  { flags: '--window <seconds>', option: 'window', type: 'integer', description: 'rate-limit window length', defaultValue: '60' },
  {
    flags: '--limit-scope <scope>',
    option: 'limitScope',
    type: 'string',
    description: 'what one window counts: route (all taxpayers share /taxpayers/{id}/invoices) or path (each concrete path)',
    defaultValue: 'route',
    words: ['route', 'path'],
  },
  { flags: '--latency <ms>', option: 'latency', type: 'integer', description: 'delay added to every response', defaultValue: '0' },
  {
    flags: '--churn <n>',
    option: 'churn',
    type: 'integer',
    description: 'items a minute inserted or updated (fresh updatedAt) in invoices, entities and events',
    defaultValue: '0',
  },
  { flags: '--seed <n>', option: 'seed', type: 'integer', description: 'seed of the generated records', defaultValue: '1' },
  { flags: '--entities <n>', option: 'entities', type: 'integer', description: 'entities', defaultValue: String(DEFAULT_SIZES.entities) },
  { flags: '--events <n>', option: 'events', type: 'integer', description: 'events', defaultValue: String(DEFAULT_SIZES.events) },
  { flags: '--taxpayers <n>', option: 'taxpayers', type: 'integer', description: 'taxpayers', defaultValue: String(DEFAULT_SIZES.taxpayers) },
  {
    flags: '--invoices <n>',
    option: 'invoices',
    type: 'integer',
    description: 'invoices per taxpayer',
    defaultValue: String(DEFAULT_SIZES.invoicesPerTaxpayer),
  },
  {
    flags: '--line-items <n>',
    option: 'lineItems',
    type: 'integer',
    description: 'average line items per invoice (max 200)',
    defaultValue: String(DEFAULT_SIZES.lineItemsPerInvoice),
  },
  {
    flags: '--payments <n>',
    option: 'payments',
    type: 'integer',
    description: 'payments per taxpayer',
    defaultValue: String(DEFAULT_SIZES.paymentsPerTaxpayer),
  },
  {
    flags: '--faults <spec>',
    option: 'faults',
    type: 'string',
    description: "faults to inject, e.g. 'status status=503 p=0.1; drip pages=3' or JSON",
  },
  {
    flags: '--cursor-previous <name>',
    option: 'cursorPrevious',
    type: 'string',
    description: 'name of the previous cursor link: previous or last',
    defaultValue: 'previous',
    words: ['previous', 'last'],
  },
  {
    flags: '--cursor-end <end>',
    option: 'cursorEnd',
    type: 'string',
    description:
      'how a cursor chain ends: endless (API Platform >= 4.3.5: the last page and every empty page link next), empty-page (an empty page links nothing) or last-page (no next on the last page)',
    defaultValue: 'endless',
    words: ['endless', 'empty-page', 'last-page'],
  },
  {
    flags: '--wire <encoding>',
    option: 'wire',
    type: 'string',
    description:
      "bytes of the bodies: apiplatform (the real service's json_encode escapes, \\/ and \\u0022), compact (JSON.stringify's) or pretty (debug mode)",
    defaultValue: 'apiplatform',
    words: ['apiplatform', 'compact', 'pretty'],
  },
  {
    flags: '--errors <style>',
    option: 'errors',
    type: 'string',
    description:
      'how the 400, 404 and 405 API Platform answers itself are written: message ({"message": …}, as the service documents) or problem (application/problem+json with title, detail, description)',
    defaultValue: 'message',
    words: ['message', 'problem'],
  },
  {
    flags: '--cursor-only',
    option: 'cursorOnly',
    type: 'boolean',
    description:
      'the endpoints that page by cursor page by cursor only, as the real invoice endpoints: a request with page is a 400 "Only cursor pagination is available for this endpoint."',
  },
  {
    flags: '--ignore-pagination-style',
    option: 'ignorePaginationStyle',
    type: 'boolean',
    description: "offset pages whatever X-Pagination-Style asks, as plain API Platform (the header is the deployment's own)",
  },
  {
    flags: '--single-page <shape>',
    option: 'singlePage',
    type: 'string',
    description:
      'a page that links nowhere (one page holds the collection, or it is empty): view, or no-view (a hydra:search template instead, as the real service)',
    defaultValue: 'view',
    words: ['view', 'no-view'],
  },
  {
    flags: '--dates <style>',
    option: 'dates',
    type: 'string',
    description: 'item dates: iso (2024-03-28T16:45:09.000Z) or naive (2024-03-28 16:45:09, UTC, as the real service)',
    defaultValue: 'iso',
    words: ['iso', 'naive'],
  },
  {
    flags: '--batch-payment <shape>',
    option: 'batchPayment',
    type: 'string',
    description: "a payment's batchPayment: iri, or object (embedded: payerBank, operationNumber…, as the real service)",
    defaultValue: 'iri',
    words: ['iri', 'object'],
  },
];

/** Help text of `sandbox` (commander `addHelpText('after', …)`). */
export const SANDBOX_HELP = `
The sandbox implements the whole contract on loopback: offset and cursor pagination, totals,
per-key and per-endpoint rate limits (X-RateLimit-* on every response, 429 past the limit),
itemsPerPage validation, 401 for a missing or wrong key, 404 for unknown ids. Records are
generated from the seed, so the same flags give the same data.

Fault kinds for --faults: status, refuse, reset-before-headers, reset-mid-body, truncate,
invalid-json, html, hang, drip, clock-offset, reset-format, retry-after, remaining-zero,
permanent-429, unprefixed, absolute-links, foreign-next, redirect, loop-next. Scope each with
p=<0..1>, requests=<n|a-b|a,b>, pages=<n,…>, endpoint=<key>, times=<n>, fromMs/untilMs=<ms>.

Examples:
  $ collections sandbox
  $ collections sandbox --port 0 --limit 10 --window 5 --invoices 100000
  $ collections sandbox --limit 60 --limit-scope path   # each taxpayer's invoices get their own window
  $ collections sandbox --churn 30     # something for an incremental export (--since, --state) to find
  $ collections sandbox --wire pretty --cursor-end last-page
  $ collections sandbox --errors problem   # errors as API Platform writes them (application/problem+json)
  $ collections sandbox --cursor-only --single-page no-view --dates naive --batch-payment object   # as the real service
  $ collections sandbox --faults 'status status=503 p=0.2; reset-mid-body requests=5'
${exitCodesHelp(SANDBOX_EXIT_CODES)}`;
