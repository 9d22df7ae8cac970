/**
 * What `collections` alone prints: a short overview for someone who has just installed it (what it
 * is, the commands, where to start, one example), instead of commander's full help on stderr.
 */
import type { Command } from 'commander';
import { exportCommands } from '../endpoints.js';
import { SAMPLE_IDS } from '../commands/help-text.js';

/** One short line per command that is not an export command (its `--help` has the rest). */
const SUMMARIES: Readonly<Record<string, string>> = {
  get: 'export any collection path (/entities/<entityId>/invoices, …)',
  ratelimit: 'show the rate-limit quota of each endpoint',
  config: 'show or change stored settings (base URL, key, defaults)',
  completion: 'print a shell completion script (bash, zsh, fish)',
  verify: 'check exported files against their manifests (size, hash, items)',
  sandbox: 'run a local copy of the API to try everything on',
};

/** Width the overview keeps within, in columns. */
const WIDTH = 80;

/** Width of the command column of the overview. */
const COMMAND_COLUMN = 12;

/**
 * The overview: the program's description, its commands (the export commands on one line, then
 * each other command of `program` with its summary, or its description when it has none), the
 * first commands to run, one export example and where the full help is. Lines stay within 80
 * columns.
 * @param program the program built by cli/program.ts `createProgram`
 * @param version the package version, e.g. `0.1.0`
 */
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
