/**
 * `collections sandbox`: one option per row of {@link SANDBOX_OPTIONS} (integers parsed here,
 * the rest checked by `runSandbox`, loaded lazily so `--help` loads none of the sandbox).
 */
import { Command, Option } from 'commander';
import { parseIntegerOption } from '../../config/flags.js';
import { DEFAULT_SANDBOX_KEY, DEFAULT_SIZES } from '../../sandbox/defaults.js';
import { bindToContext, commanderParser, withCompletion, type CommandWiring, type RunCommand } from '../commander.js';
import { exitCodesHelp, SANDBOX_EXIT_CODES } from '../help-text.js';

export interface SandboxOptionHelp {
  /** Commander flags, e.g. `--port <n>`. */
  flags: string;
  description: string;
  type: 'integer' | 'string' | 'boolean';
  /** Shown in help; the runner applies it when the option is undefined. */
  defaultValue?: string;
  /** The range `runSandbox` and `startSandbox` accept. */
  min?: number;
  max?: number;
  /** The only values accepted; completion offers them. */
  words?: readonly string[];
}

export const SANDBOX_OPTIONS = {
  port: {
    flags: '--port <n>',
    type: 'integer',
    min: 0,
    max: 65_535,
    description: 'port to listen on (0 = any free port)',
    defaultValue: '8787',
  },
  host: { flags: '--host <host>', type: 'string', description: 'interface to listen on', defaultValue: '127.0.0.1' },
  key: { flags: '--key <key>', type: 'string', description: 'API key the sandbox accepts', defaultValue: DEFAULT_SANDBOX_KEY },
  limit: {
    flags: '--limit <n>',
    type: 'integer',
    min: 0,
    description: 'requests per window, per key and endpoint (0 = no limit)',
    defaultValue: '60',
  },
  window: { flags: '--window <seconds>', type: 'integer', min: 1, description: 'rate-limit window length', defaultValue: '60' },
  limitScope: {
    flags: '--limit-scope <scope>',
    type: 'string',
    description: 'what one window counts: route (all taxpayers share /taxpayers/{id}/invoices) or path (each concrete path)',
    defaultValue: 'route',
    words: ['route', 'path'],
  },
  latency: { flags: '--latency <ms>', type: 'integer', min: 0, description: 'delay added to every response', defaultValue: '0' },
  churn: {
    flags: '--churn <n>',
    type: 'integer',
    min: 0,
    max: 1_000_000,
    description: 'items a minute inserted or updated (fresh updatedAt) in invoices, entities and events',
    defaultValue: '0',
  },
  deletions: {
    flags: '--deletions',
    type: 'boolean',
    description:
      'the churn deletes too: one change in three of invoices and entities deletes one, recording its invoice.deleted or link.deleted event; events older than --event-retention disappear',
  },
  eventRetention: {
    flags: '--event-retention <days>',
    type: 'integer',
    min: 1,
    max: 3650,
    description: 'with --deletions: days of the sandbox clock an event is kept',
    defaultValue: '7',
  },
  seed: { flags: '--seed <n>', type: 'integer', min: 0, max: 2 ** 32 - 1, description: 'seed of the generated records', defaultValue: '1' },
  entities: { flags: '--entities <n>', type: 'integer', min: 0, description: 'entities', defaultValue: String(DEFAULT_SIZES.entities) },
  events: { flags: '--events <n>', type: 'integer', min: 0, description: 'events', defaultValue: String(DEFAULT_SIZES.events) },
  taxpayers: {
    flags: '--taxpayers <n>',
    type: 'integer',
    min: 1,
    max: 10_000,
    description: 'taxpayers',
    defaultValue: String(DEFAULT_SIZES.taxpayers),
  },
  invoices: {
    flags: '--invoices <n>',
    type: 'integer',
    min: 0,
    max: 100_000_000,
    description: 'invoices per taxpayer',
    defaultValue: String(DEFAULT_SIZES.invoicesPerTaxpayer),
  },
  lineItems: {
    flags: '--line-items <n>',
    type: 'integer',
    min: 0,
    max: 200,
    description: 'average line items per invoice (max 200)',
    defaultValue: String(DEFAULT_SIZES.lineItemsPerInvoice),
  },
  payments: {
    flags: '--payments <n>',
    type: 'integer',
    min: 0,
    max: 100_000_000,
    description: 'payments per taxpayer',
    defaultValue: String(DEFAULT_SIZES.paymentsPerTaxpayer),
  },
  faults: {
    flags: '--faults <spec>',
    type: 'string',
    description: "faults to inject, e.g. 'status status=503 p=0.1; drip pages=3' or JSON",
  },
  cursorPrevious: {
    flags: '--cursor-previous <name>',
    type: 'string',
    description: 'name of the previous cursor link: previous or last',
    defaultValue: 'previous',
    words: ['previous', 'last'],
  },
  cursorEnd: {
    flags: '--cursor-end <end>',
    type: 'string',
    description:
      'how a cursor chain ends: endless (API Platform >= 4.3.5: the last page and every empty page link next), empty-page (an empty page links nothing) or last-page (no next on the last page)',
    defaultValue: 'endless',
    words: ['endless', 'empty-page', 'last-page'],
  },
  wire: {
    flags: '--wire <encoding>',
    type: 'string',
    description:
      "bytes of the bodies: apiplatform (the real service's json_encode escapes, \\/ and \\u0022), compact (JSON.stringify's) or pretty (debug mode)",
    defaultValue: 'apiplatform',
    words: ['apiplatform', 'compact', 'pretty'],
  },
  errors: {
    flags: '--errors <style>',
    type: 'string',
    description:
      'how the 400, 404 and 405 API Platform answers itself are written: message ({"message": …}, as the service documents) or problem (application/problem+json with title, detail, description)',
    defaultValue: 'message',
    words: ['message', 'problem'],
  },
  cursorOnly: {
    flags: '--cursor-only',
    type: 'boolean',
    description:
      'the endpoints that page by cursor page by cursor only, as the real invoice endpoints: a request with page is a 400 "Only cursor pagination is available for this endpoint."',
  },
  ignorePaginationStyle: {
    flags: '--ignore-pagination-style',
    type: 'boolean',
    description: "offset pages whatever X-Pagination-Style asks, as plain API Platform (the header is the deployment's own)",
  },
  singlePage: {
    flags: '--single-page <shape>',
    type: 'string',
    description:
      'a page that links nowhere (one page holds the collection, or it is empty): view, or no-view (a hydra:search template instead, as the real service)',
    defaultValue: 'view',
    words: ['view', 'no-view'],
  },
  dates: {
    flags: '--dates <style>',
    type: 'string',
    description: 'item dates: iso (2024-03-28T16:45:09.000Z) or naive (2024-03-28 16:45:09, UTC, as the real service)',
    defaultValue: 'iso',
    words: ['iso', 'naive'],
  },
  batchPayment: {
    flags: '--batch-payment <shape>',
    type: 'string',
    description: "a payment's batchPayment: iri, or object (embedded: payerBank, operationNumber…, as the real service)",
    defaultValue: 'iri',
    words: ['iri', 'object'],
  },
  oddText: {
    flags: '--odd-text',
    type: 'boolean',
    description:
      "one invoice of each taxpayer (its third) has a NUL (\\u0000) and a lone surrogate (\\ud800) in its reference: an item PostgreSQL's jsonb cannot hold",
  },
} as const satisfies Readonly<Record<string, SandboxOptionHelp>>;

type ValueOf<T extends SandboxOptionHelp['type']> = T extends 'integer' ? number : T extends 'boolean' ? boolean : string;

/** One field per flag, by commander's attribute name; words arrive as typed (commander does not check them), `runSandbox` does. */
export type SandboxCommandOptions = { -readonly [K in keyof typeof SANDBOX_OPTIONS]?: ValueOf<(typeof SANDBOX_OPTIONS)[K]['type']> };

const SANDBOX_HELP = `
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

/** `run` is given by the program: `runSandbox`'s module reads {@link SANDBOX_OPTIONS}, so this one does not import it. */
export function createSandboxCommand(wiring: CommandWiring, run: RunCommand<SandboxCommandOptions>): Command {
  const sandbox = bindToContext(new Command('sandbox'), wiring.ctx).description(
    'Run the bundled Collection API on loopback (prints its base URL and key)',
  );
  for (const o of Object.values<SandboxOptionHelp>(SANDBOX_OPTIONS)) {
    const desc = o.defaultValue !== undefined ? `${o.description} (default ${o.defaultValue})` : o.description;
    const option = new Option(o.flags, desc);
    if (o.type === 'integer') {
      const name = o.flags.split(' ')[0]!;
      option.argParser(commanderParser((v: string) => parseIntegerOption(name, v, 0, Number.MAX_SAFE_INTEGER)));
    }
    sandbox.addOption(o.words ? withCompletion(option, { words: o.words }) : option);
  }
  return sandbox.addHelpText('after', SANDBOX_HELP).action(async (_opts: unknown, self: Command) => {
    wiring.setCode(await run(wiring.ctx, self.opts<SandboxCommandOptions>()));
  });
}
