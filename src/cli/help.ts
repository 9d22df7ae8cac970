/**
 * Help texts of the commands, kept apart from the command modules so that building the commander
 * program (and `--help`) loads none of their code: the command modules re-export them.
 */

import { CONFIG_KEYS } from '../config/values.js';
import type { SandboxCommandOptions } from '../commands/sandbox.js';
import { DEFAULT_SANDBOX_KEY, DEFAULT_SIZES } from '../sandbox/defaults.js';
/** Help text of `config` (commander `addHelpText('after', …)`). */
export const CONFIG_HELP = `
Keys: ${CONFIG_KEYS.join(', ')}

Settings are stored per profile (--profile NAME or COLLECTIONS_PROFILE; default "default") in a
file only you can read (mode 0600). A key stored in a profile is only sent to that profile's own
base URL. \`config set api-key\` without a value prompts for it without echo (or reads one line
from standard input when it is not a terminal), which keeps the key out of your shell history.

Examples:
  $ collections config set base-url https://api.example.com
  $ collections config set api-key
  $ printf '%s\\n' "$KEY" | collections config set api-key --profile sandbox
  $ collections config set items-per-page 500
  $ collections config list
  $ collections config path`;

/** Help text of `ratelimit` (commander `addHelpText('after', …)`). */
export const RATELIMIT_HELP = `
Each check sends one request (itemsPerPage=1) to every endpoint the ids allow, and so spends one
request of that endpoint's quota. entities and events are always checked; --taxpayer adds invoices,
taxpayer line items and payments; --invoice adds the invoice's line items; both add the line items
of that taxpayer's invoice. A 429 is shown, not waited on. --cached sends nothing: it shows the
last values any command saw, with their age.

Examples:
  $ collections ratelimit
  $ collections ratelimit --taxpayer PEIC211118IS0 --invoice 0b3e…
  $ collections ratelimit --cached
  $ collections ratelimit --json | jq '.[] | select(.remaining == 0)'`;

/** Help text of `completion` (commander `addHelpText('after', …)`). */
export const COMPLETION_HELP = `
Examples:
  $ collections completion bash > ~/.local/share/bash-completion/completions/collections
  $ collections completion zsh > "\${fpath[1]}/_collections"
  $ collections completion fish > ~/.config/fish/completions/collections.fish`;

/** One flag of the `sandbox` command, for the commander wiring in cli/program.ts. */
export interface SandboxOptionHelp {
  /** Commander flags, e.g. `--port <n>`. */
  flags: string;
  /** The {@link SandboxCommandOptions} field it fills. */
  option: keyof SandboxCommandOptions;
  description: string;
  /** Kind of value, so the wiring can parse it: integer, number or string. */
  type: 'integer' | 'number' | 'string';
  /** Default shown in help (the runner applies it when the option is undefined). */
  defaultValue?: string;
}

/** The flags of `collections sandbox`. */
export const SANDBOX_OPTION_HELP: readonly SandboxOptionHelp[] = [
  { flags: '--port <n>', option: 'port', type: 'integer', description: 'port to listen on (0 = any free port)', defaultValue: '8787' },
  { flags: '--host <host>', option: 'host', type: 'string', description: 'interface to listen on', defaultValue: '127.0.0.1' },
  { flags: '--key <key>', option: 'key', type: 'string', description: 'API key the sandbox accepts', defaultValue: DEFAULT_SANDBOX_KEY },
  { flags: '--limit <n>', option: 'limit', type: 'integer', description: 'requests per window, per key and endpoint (0 = no limit)', defaultValue: '60' },
  { flags: '--window <seconds>', option: 'window', type: 'integer', description: 'rate-limit window length', defaultValue: '60' },
  { flags: '--latency <ms>', option: 'latency', type: 'integer', description: 'delay added to every response', defaultValue: '0' },
  { flags: '--seed <n>', option: 'seed', type: 'integer', description: 'seed of the generated records', defaultValue: '1' },
  { flags: '--entities <n>', option: 'entities', type: 'integer', description: 'entities', defaultValue: String(DEFAULT_SIZES.entities) },
  { flags: '--events <n>', option: 'events', type: 'integer', description: 'events', defaultValue: String(DEFAULT_SIZES.events) },
  { flags: '--taxpayers <n>', option: 'taxpayers', type: 'integer', description: 'taxpayers', defaultValue: String(DEFAULT_SIZES.taxpayers) },
  { flags: '--invoices <n>', option: 'invoices', type: 'integer', description: 'invoices per taxpayer', defaultValue: String(DEFAULT_SIZES.invoicesPerTaxpayer) },
  { flags: '--line-items <n>', option: 'lineItems', type: 'integer', description: 'average line items per invoice (max 200)', defaultValue: String(DEFAULT_SIZES.lineItemsPerInvoice) },
  { flags: '--payments <n>', option: 'payments', type: 'integer', description: 'payments per taxpayer', defaultValue: String(DEFAULT_SIZES.paymentsPerTaxpayer) },
  { flags: '--faults <spec>', option: 'faults', type: 'string', description: "faults to inject, e.g. 'status status=503 p=0.1; drip pages=3' or JSON" },
  { flags: '--cursor-previous <name>', option: 'cursorPrevious', type: 'string', description: 'name of the previous cursor link: previous or last', defaultValue: 'previous' },
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
  $ collections sandbox --faults 'status status=503 p=0.2; reset-mid-body requests=5'`;
