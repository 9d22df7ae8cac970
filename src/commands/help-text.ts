/** The program's help (its examples and exit codes, the overview) and what the commands' helps share; pure text, so `--help` stays cheap. */
import type { Command } from 'commander';
import { exportCommands, type IdName } from '../endpoints.js';
import { ExitCode } from '../errors.js';

/** The code may be several, e.g. `130/143`. */
export type ExitCodeRow = readonly [code: string, meaning: string];

const INTERRUPTED = `${ExitCode.Sigint}/${ExitCode.Sigterm}`;

/** README, "Exit codes". */
export const EXPORT_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'complete'],
  [String(ExitCode.Usage), 'usage or configuration error, or the API rejected the parameters (400)'],
  [String(ExitCode.Auth), 'the API key was rejected (401 or 403)'],
  [String(ExitCode.NotFound), 'not found (404): unknown taxpayer or invoice'],
  [String(ExitCode.RateLimited), 'a rate-limit wait longer than --max-wait; checkpoint kept'],
  [String(ExitCode.Unavailable), 'the API could not be read (network, 5xx after retries, unsafe response)'],
  [String(ExitCode.Output), 'the output could not be written'],
  [String(ExitCode.Verify), 'a database kept items it cannot hold as written apart, in collections_rejects; complete otherwise'],
  [INTERRUPTED, 'interrupted by SIGINT / SIGTERM; checkpoint kept'],
];

/** Shared by `verify --help` and the program's. */
export const VERIFY_FAILED: ExitCodeRow = [String(ExitCode.Verify), 'verify: an output is missing or its size, SHA-256 or item count differs'];

const PROGRAM_EXIT_CODES: readonly ExitCodeRow[] = [
  ...EXPORT_EXIT_CODES.slice(0, 1),
  [String(ExitCode.Internal), 'internal error (a bug: please report it)'],
  ...EXPORT_EXIT_CODES.slice(1, -2),
  [String(ExitCode.Verify), `${VERIFY_FAILED[1]}; an export into a database kept items apart (collections_rejects)`],
  ...EXPORT_EXIT_CODES.slice(-1),
];

export function exitCodesHelp(rows: readonly ExitCodeRow[]): string {
  const width = Math.max(...rows.map(([code]) => code.length));
  return `\nExit codes:\n${rows.map(([code, meaning]) => `  ${code.padEnd(width)}  ${meaning}`).join('\n')}`;
}

/** The sandbox serves both (its first taxpayer and that taxpayer's newest invoice), so every example runs as written. */
export const SAMPLE_IDS: Readonly<Record<IdName, string>> = {
  taxpayerId: 'PEIC211118IS0',
  invoiceId: '018e96f4-a418-7d2e-9f3a-4b5c6d7e8f90',
};

/** The first taxpayer's entity in the sandbox. */
export const SAMPLE_ENTITY_ID = '01869a77-fc00-7a1e-8c3b-5d6e7f8091a2';

export const PROGRAM_EXAMPLES = `
Examples:
  $ collections config set base-url https://api.example.com
  $ collections config set api-key            # prompts; keeps the key out of shell history
  $ collections invoices --taxpayer PEIC211118IS0 --cursor --out invoices.ndjson
  $ collections invoices --taxpayer PEIC211118IS0 --cursor --out invoices.ndjson --resume
  $ collections entities --format csv --fields id,taxpayer.id,taxpayer.name > entities.csv
  $ collections ratelimit --taxpayer PEIC211118IS0
  $ collections sandbox                         # a local API to try it all
${exitCodesHelp(PROGRAM_EXIT_CODES)}`;

/** Of the commands that are not export commands, for the overview. */
const SUMMARIES: Readonly<Record<string, string>> = {
  get: 'export any collection path (/entities/<entityId>/invoices, …)',
  ratelimit: 'show the rate-limit quota of each endpoint',
  config: 'show or change stored settings (base URL, key, defaults)',
  completion: 'print a shell completion script (bash, zsh, fish)',
  verify: 'check exported files against their manifests (size, hash, items)',
  sandbox: 'run a local copy of the API to try everything on',
};

const WIDTH = 80;
const COMMAND_COLUMN = 12;

/** What `collections` alone prints, for someone who has just installed it, instead of commander's full help on stderr. */
export function overviewText(program: Command, version: string): string {
  const exports = new Set(exportCommands());
  const others = program.commands
    .filter((cmd) => !exports.has(cmd.name()))
    .map((cmd) => `  ${cmd.name().padEnd(COMMAND_COLUMN)} ${SUMMARIES[cmd.name()] ?? cmd.description()}`);
  return [
    program.createHelp().boxWrap(`collections ${version}: ${program.description()}`, WIDTH),
    '',
    'Commands:',
    `  ${[...exports].join(', ')}`,
    `  ${''.padEnd(COMMAND_COLUMN)} export that collection (to a file, or stdout)`,
    ...others,
    '',
    'Start here:',
    '  $ collections config set base-url https://api.example.com',
    '  $ collections config set api-key   # prompts; keeps the key out of history',
    '  $ collections sandbox              # or first try it all on a local API',
    '',
    'Example:',
    `  $ collections invoices --taxpayer ${SAMPLE_IDS.taxpayerId} --out invoices.ndjson`,
    '',
    'More: collections --help, collections <command> --help',
    '',
  ].join('\n');
}
