/**
 * The commander program: the global flags and every command's flags and help. Each command's run
 * function is loaded lazily, so `--help` loads no HTTP, output or config-store code.
 */
import { Argument, Command, CommanderError, Option } from 'commander';
import type { Context } from '../context.js';
import { CONFIG_KEYS, EXPORT_FLAGS, exportFlag } from '../config/flags.js';
import {
  exportCommands,
  exportCommandSpecs,
  GET_COMMAND,
  ID_SPECS,
  idSpec,
  PATH_FAMILY,
  type Endpoint,
  type ExportCommandSpec,
} from '../endpoints.js';
import { CollectionsError, ExitCode, UsageError } from '../errors.js';
import { bindToContext, commanderSuggestion, COMPLETION_SHELLS, helpWidth, withCompletion, wrapHelp } from '../commands/commander.js';
import type { CommandWiring, RunCommand } from '../commands/commander.js';
import type { CompletionCommandOptions } from '../commands/completion/completion.js';
import type { ConfigAction, ConfigCommandOptions } from '../commands/config/config.js';
import { exportOption, idOption, taxpayerListOption } from '../commands/flags.js';
import type { ExportCommandOptions, ExportFlags, GetCommandOptions } from '../commands/flags.js';
import type { SettingsFlags } from '../config/settings.js';
import { COMPLETION_EXIT_CODES, CONFIG_EXIT_CODES, EXPORT_EXIT_CODES, exitCodesHelp, exportExamplesHelp } from '../commands/help-text.js';
import { PROGRAM_EXIT_CODES, RATELIMIT_EXIT_CODES, SAMPLE_ENTITY_ID, SAMPLE_IDS, VERIFY_EXIT_CODES } from '../commands/help-text.js';
import type { RatelimitCommandOptions } from '../commands/ratelimit/ratelimit.js';
import { createSandboxCommand, type SandboxCommandOptions } from '../commands/sandbox/sandbox-command.js';
import type { VerifyCommandOptions } from '../commands/verify/verify.js';
import { exportCommandOf, type CommandLine } from './argv.js';

const KEY_HELP = 'API key (prefer COLLECTIONS_API_KEY or `collections config set api-key`: flags are visible in shell history and `ps`)';

const EXAMPLES = `
Examples:
  $ collections config set base-url https://api.example.com
  $ collections config set api-key            # prompts; keeps the key out of shell history
  $ collections invoices --taxpayer PEIC211118IS0 --cursor --out invoices.ndjson
  $ collections invoices --taxpayer PEIC211118IS0 --cursor --out invoices.ndjson --resume
  $ collections entities --format csv --fields id,taxpayer.id,taxpayer.name > entities.csv
  $ collections ratelimit --taxpayer PEIC211118IS0
  $ collections sandbox                         # a local API to try it all
${exitCodesHelp(PROGRAM_EXIT_CODES)}`;

/** Fake run functions for tests, one per command; the defaults load their command module lazily. */
export interface ProgramRunners {
  export?: RunCommand<ExportCommandOptions>;
  get?: RunCommand<GetCommandOptions>;
  ratelimit?: RunCommand<RatelimitCommandOptions>;
  config?: RunCommand<ConfigCommandOptions>;
  completion?: RunCommand<CompletionCommandOptions>;
  verify?: RunCommand<VerifyCommandOptions>;
  sandbox?: RunCommand<SandboxCommandOptions>;
}

const LAZY_RUNNERS: Required<ProgramRunners> = {
  export: async (ctx, o) => {
    ctx.preloadExport?.();
    return (await import('../commands/export/export.js')).runExportCommand(ctx, o);
  },
  get: async (ctx, o) => {
    ctx.preloadExport?.();
    return (await import('../commands/export/export.js')).runGetCommand(ctx, o);
  },
  ratelimit: async (ctx, o) => (await import('../commands/ratelimit/ratelimit.js')).runRatelimit(ctx, o),
  config: async (ctx, o) => (await import('../commands/config/config.js')).runConfig(ctx, o),
  completion: async (ctx, o) => (await import('../commands/completion/completion.js')).runCompletion(ctx, o),
  verify: async (ctx, o) => (await import('../commands/verify/verify.js')).runVerify(ctx, o),
  sandbox: async (ctx, o) => (await import('../commands/sandbox/sandbox.js')).runSandbox(ctx, o),
};

/** Commands that read no settings file. */
const NO_SETTINGS = new Set(['completion', 'verify', 'sandbox']);

/**
 * Before any command runs, its `--api-key` and the values of its credential-like `--header`s join
 * `ctx.secrets`, so every text shown can scrub them.
 */
export function createProgram(
  ctx: Context,
  setCode: (code: number) => void,
  options: { resumeArgv?: readonly string[]; runners?: ProgramRunners; only?: string } = {},
): Command {
  const program = bindToContext(new Command('collections'), ctx)
    .description('Export the collections of a rate-limited, paginated JSON-LD/Hydra API to JSON, NDJSON, CSV or a table.')
    .version(ctx.version, '-V, --version', 'print the version')
    .option('--api-key <key>', KEY_HELP)
    .option('--base-url <url>', 'API base URL (or COLLECTIONS_BASE_URL, or `collections config set base-url`)')
    .option('--profile <name>', 'stored profile to use (or COLLECTIONS_PROFILE; default "default")')
    .addHelpText('after', EXAMPLES)
    .hook('preAction', async (_program, command) => {
      const flags = command.optsWithGlobals<SettingsFlags & { header?: unknown }>();
      ctx.secrets.add(flags.apiKey);
      if (Array.isArray(flags.header)) for (const [name, value] of flags.header as Array<[string, string]>) ctx.secrets.addHeader(name, value);
      if (NO_SETTINGS.has(command.name())) return;
      await (await import('../config/settings.js')).prepareConfigStore(ctx, command.name() === 'config');
    });

  const wiring: CommandWiring = { ctx, setCode, resumeArgv: options.resumeArgv ?? [] };
  const run = { ...LAZY_RUNNERS, ...options.runners };
  const commands: Array<[string, () => Command]> = [
    ...exportCommandSpecs().map((spec): [string, () => Command] => [spec.name, () => createExportCommand(spec, wiring, run.export)]),
    [GET_COMMAND, () => getCommand(wiring, run.get)],
    ['ratelimit', () => ratelimitCommand(wiring, run.ratelimit)],
    ['config', () => configCommand(wiring, run.config)],
    ['completion', () => completionCommand(wiring, run.completion)],
    ['verify', () => verifyCommand(wiring, run.verify)],
    ['sandbox', () => createSandboxCommand(wiring, run.sandbox)],
  ];
  for (const [name, make] of commands) if (options.only === undefined || name === options.only) program.addCommand(make());
  return program;
}

const PATH_COLUMN = 56;

export function endpointsHelp(endpoints: readonly Endpoint[]): string {
  const lines = endpoints.map((e) => {
    const flags = e.ids.map((id) => idSpec(id).flag).join(' ');
    return `  ${e.path.padEnd(PATH_COLUMN)} ${flags}${e.cursor ? '  (--cursor supported)' : ''}`;
  });
  return `\nEndpoints:\n${lines.join('\n')}\n`;
}

/**
 * The one generic export command, built per export command of the endpoint table. A flag for an id
 * (`--parallel`) only where the command takes that id; those of cursor mode hidden from the help of
 * a command without it; none of `get`'s own (`--since-field`).
 */
export function createExportCommand(spec: ExportCommandSpec, wiring: CommandWiring, run: RunCommand<ExportCommandOptions>): Command {
  const cmd = bindToContext(new Command(spec.name), wiring.ctx).description(spec.description);
  for (const id of spec.ids) cmd.addOption(id.name === 'taxpayerId' ? taxpayerListOption(id) : idOption(id));
  const cursor = spec.endpoints.some((e) => e.cursor);
  for (const flag of EXPORT_FLAGS) {
    if (flag.forCommand !== undefined) continue;
    if (flag.forId !== undefined && !spec.ids.some((id) => id.name === flag.forId)) continue;
    const option = exportOption(flag);
    cmd.addOption(flag.cursorOnly && !cursor ? option.hideHelp() : option);
  }
  cmd.addHelpText('after', `${endpointsHelp(spec.endpoints)}${exportExamplesHelp(spec)}\n${exitCodesHelp(EXPORT_EXIT_CODES)}`);
  cmd.action(async (_opts: unknown, self: Command) => {
    wiring.setCode(await run(wiring.ctx, { command: spec.name, flags: self.optsWithGlobals<ExportFlags>(), argv: wiring.resumeArgv }));
  });
  return cmd;
}

const GET_PATH_COLUMN = 44;

function getHelp(): string {
  const family = PATH_FAMILY.map((e) => {
    const since = e.watermark === undefined ? '' : `, --since on ${e.watermark}`;
    return `  ${e.path.padEnd(GET_PATH_COLUMN)} ${e.description} (--cursor${since})`;
  });
  // The path last and without its `/`, so it fits a 60-column help on its own line.
  const entity = `entities/${SAMPLE_ENTITY_ID}`;
  return [
    '',
    'The current path family ({entityId} is a UUID, written in the path):',
    ...family,
    '',
    'Any other collection path of the API works too (/entities, /taxpayers/<rfc>/invoices, …). The path is',
    'relative to the base URL, ids percent-encoded, a query allowed (not page or itemsPerPage: --page and',
    "--items-per-page set them); --cursor is sent on any path (the server decides). A path's quota is",
    'counted per path until its headers show the API counts the route as one.',
    '',
    'Examples:',
    `  $ collections get --cursor --out invoices.ndjson ${entity}/invoices`,
    `  $ collections get --state state.json --out events.ndjson ${entity}/events`,
    `  $ collections get /invoices/payments --cursor --out payments.ndjson --resume`,
    `  $ collections get '/entities?updatedAt[after]=2024-01-01' --format table --max-items 20`,
    `  $ collections get /entities -H 'Accept-Version: 2020-06-28' --format csv --out entities.csv`,
    exitCodesHelp(EXPORT_EXIT_CODES),
  ].join('\n');
}

/** `get <path>`: every export flag but those for an id (ids are in the path). */
function getCommand(wiring: CommandWiring, run: RunCommand<GetCommandOptions>): Command {
  const cmd = bindToContext(new Command(GET_COMMAND), wiring.ctx)
    .description('Export any collection path of the API (e.g. /entities/{entityId}/invoices), with every export option')
    .addArgument(withCompletion(new Argument('<path>', 'collection path under the base URL, ids written in, a query allowed'), { words: [] }));
  for (const flag of EXPORT_FLAGS) if (flag.forId === undefined) cmd.addOption(exportOption(flag));
  cmd.addHelpText('after', getHelp());
  cmd.action(async (path: string, _opts: unknown, self: Command) => {
    wiring.setCode(await run(wiring.ctx, { path, flags: self.optsWithGlobals<ExportFlags>(), argv: wiring.resumeArgv }));
  });
  return cmd;
}

export const RATELIMIT_HELP = `
Each check sends one request (itemsPerPage=1) to every endpoint the ids allow, and so spends one
request of that endpoint's quota. entities and events are always checked; --taxpayer adds invoices,
taxpayer line items and payments; --invoice adds the invoice's line items; both add the line items
of that taxpayer's invoice. A 429 is shown, not waited on. --cached sends nothing: it shows the
last values any command saw, with their age.

Examples:
  $ collections ratelimit
  $ collections ratelimit --taxpayer PEIC211118IS0 --invoice ${SAMPLE_IDS.invoiceId}
  $ collections ratelimit --cached
  $ collections ratelimit --json | jq '.[] | select(.remaining == 0)'
${exitCodesHelp(RATELIMIT_EXIT_CODES)}`;

function ratelimitCommand(wiring: CommandWiring, run: RunCommand<RatelimitCommandOptions>): Command {
  const cmd = bindToContext(new Command('ratelimit'), wiring.ctx).description(
    "Show the rate-limit quota of each endpoint (spends one request of each endpoint's quota)",
  );
  for (const id of ID_SPECS) cmd.addOption(idOption(id, id.probeHelp));
  cmd.addOption(exportOption(exportFlag('header')));
  return cmd
    .option('--json', 'print JSON for scripts')
    .option('--cached', 'show the last values any command saw, with their age; sends nothing')
    .option(
      '--budget <url>',
      'show the rate budget shared through this postgres:// database: per endpoint, and the requests each host holds; sends nothing',
    )
    .addHelpText('after', RATELIMIT_HELP)
    .action(async (_opts: unknown, self: Command) => {
      const flags = self.optsWithGlobals<Omit<RatelimitCommandOptions, 'json' | 'cached'> & { json?: boolean; cached?: boolean }>();
      wiring.setCode(await run(wiring.ctx, { ...flags, json: flags.json === true, cached: flags.cached === true }));
    });
}

const CONFIG_ACTIONS: readonly ConfigAction[] = ['set', 'get', 'unset', 'list', 'profiles', 'path'];

/** Completion offers the keys after these. */
const CONFIG_KEY_ACTIONS: readonly ConfigAction[] = ['set', 'get', 'unset'];

const CONFIG_HELP = `
Keys: ${CONFIG_KEYS.join(', ')}

Settings are stored per profile (--profile NAME or COLLECTIONS_PROFILE; default "default") in a
file only you can read (mode 0600). A key stored in a profile is only sent to that profile's own
base URL. \`config set api-key\` without a value prompts for it without echo (or reads one line
from standard input when it is not a terminal), which keeps the key out of your shell history.

\`config\` alone prints every profile and its settings (the key masked, ****abcd); \`config list\`
prints one profile's; \`config profiles\` prints the profile names, one a line; \`config path\`
prints where the file is.

Examples:
  $ collections config set base-url https://api.example.com
  $ collections config set api-key
  $ printf '%s\\n' "$KEY" | collections config set api-key --profile sandbox
  $ collections config
  $ collections config profiles
${exitCodesHelp(CONFIG_EXIT_CODES)}`;

/**
 * Commander does not check the action word, so completion can offer the words.
 * @throws {UsageError} (from the action, exit 2) for an unknown action, with commander's "did you mean"
 */
function configCommand(wiring: CommandWiring, run: RunCommand<ConfigCommandOptions>): Command {
  const keys = ['api-key', 'base-url', ...CONFIG_KEYS.filter((k) => k !== 'api-key' && k !== 'base-url')];
  return bindToContext(new Command('config'), wiring.ctx)
    .description('Show or change stored settings: config [set|get|unset|list|profiles|path], per --profile')
    .addArgument(withCompletion(new Argument('[action]', 'set, get, unset, list, profiles or path; none: every profile'), { words: CONFIG_ACTIONS }))
    .addArgument(withCompletion(new Argument('[args...]', `key and value (${keys.join(', ')})`), { words: CONFIG_KEYS, after: CONFIG_KEY_ACTIONS }))
    .addHelpText('after', CONFIG_HELP)
    .action(async (action: string | undefined, args: string[], _opts: unknown, self: Command) => {
      const known = CONFIG_ACTIONS as readonly string[];
      if (action !== undefined && !known.includes(action)) {
        const suggestion = commanderSuggestion(action, known);
        throw new UsageError(`unknown config action '${action}'${suggestion ? ` ${suggestion}` : ''}`, { hint: `use ${known.join(', ')}` });
      }
      wiring.setCode(await run(wiring.ctx, { ...self.optsWithGlobals<SettingsFlags>(), action: action as ConfigAction | undefined, args }));
    });
}

const COMPLETION_HELP = `
Examples:
  $ collections completion bash > ~/.local/share/bash-completion/completions/collections
  $ collections completion zsh > "\${fpath[1]}/_collections"
  $ collections completion fish > ~/.config/fish/completions/collections.fish
${exitCodesHelp(COMPLETION_EXIT_CODES)}`;

/** `run` gets the program, whose tree the script completes. @throws {UsageError} (from the action, exit 2) for an unknown shell */
function completionCommand(wiring: CommandWiring, run: RunCommand<CompletionCommandOptions>): Command {
  return bindToContext(new Command('completion'), wiring.ctx)
    .description('Print a shell completion script (bash, zsh or fish)')
    .addArgument(withCompletion(new Argument('<shell>', 'bash, zsh or fish'), { words: COMPLETION_SHELLS }))
    .addHelpText('after', COMPLETION_HELP)
    .action(async (shell: string, _opts: unknown, self: Command) => {
      const known = COMPLETION_SHELLS as readonly string[];
      if (!known.includes(shell)) throw new UsageError(`unknown shell '${shell}' (use ${known.join(', ')})`);
      wiring.setCode(await run(wiring.ctx, { shell, program: self.parent ?? self }));
    });
}

const VERIFY_HELP = `
Each completed file export writes F.manifest.json beside F (or --manifest FILE). verify re-reads
every output a manifest names (relative to the manifest's folder) and checks its size, its SHA-256
and its items: lines for ndjson, the array's length for json, records after the header for csv
(quoted line breaks included), on the decompressed bytes of a gzip output (.gz, --compress gzip).
Each whole output prints one ok line on stdout; each mismatch (missing, size, SHA-256, items)
prints one line on stderr.

Examples:
  $ collections verify invoices.ndjson.manifest.json
  $ collections verify exports/*.manifest.json && echo "all whole"
${exitCodesHelp(VERIFY_EXIT_CODES)}`;

function verifyCommand(wiring: CommandWiring, run: RunCommand<VerifyCommandOptions>): Command {
  return bindToContext(new Command('verify'), wiring.ctx)
    .description('Check exported files against their manifests (size, SHA-256, item count), or a database table against its run log; sends nothing')
    .addArgument(new Argument('<manifest...>', 'manifest files (F.manifest.json), or a database (postgres://…, F.duckdb)'))
    .addOption(new Option('--table <name>', 'with a database: the table to re-count (default every table of its run log)'))
    .addHelpText('after', VERIFY_HELP)
    .action(async (manifests: string[], options: { table?: string }) => {
      wiring.setCode(await run(wiring.ctx, { manifests, ...(options.table === undefined ? {} : { table: options.table }) }));
    });
}

/** README, "Exit codes". */
function commanderExitCode(err: CommanderError): ExitCode {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return ExitCode.Ok;
  if (err.code === 'commander.executeSubCommandAsync') return ExitCode.Internal;
  return ExitCode.Usage;
}

/**
 * What commander answers too loosely: `help NAME` for an unknown NAME prints the whole help with
 * exit 0 (gh says `unknown command "nope"`), and a leading `-v` most likely meant the version
 * (`node -v`) or `--verbose`, an export command's.
 * @throws {UsageError} (exit 2)
 */
function checkProgramWords(argv: readonly string[], program: Command): void {
  const [first, second] = argv;
  if (first === 'help' && second !== undefined && !second.startsWith('-')) {
    const known = second === 'help' || program.commands.some((c) => c.name() === second || c.aliases().includes(second));
    if (!known) throw new UsageError(`unknown command '${second}'`, { hint: 'run `collections --help` for the list of commands' });
  }
  if (first === '-v') {
    throw new UsageError("unknown option '-v'", {
      hint: '-V (--version) prints the version; -v (--verbose) goes after an export command, e.g. `collections invoices -v …`',
    });
  }
}

/**
 * With no words at all, prints the overview on stdout.
 * @returns the exit code; commander usage errors map to 2, `--help`, `--version` and no arguments to 0
 * @throws whatever a command throws (main() maps it)
 */
export async function runProgram(line: CommandLine, ctx: Context, runners: ProgramRunners = {}): Promise<number> {
  let code: number = ExitCode.Ok;
  // An export builds its command alone: the ten others cost 5–7 ms of its start-up (all 8–10 ms cold, one 3 ms).
  const only = exportCommandOf(line);
  const program = createProgram(ctx, (c) => (code = c), { resumeArgv: line.resumeWords, runners, ...(only === undefined ? {} : { only }) });
  const argv = line.words;
  if (argv.length === 0) {
    ctx.io.stdout.write(wrapHelp(overviewText(program, ctx.version), helpWidth(ctx)));
    return ExitCode.Ok;
  }
  checkProgramWords(argv, program);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && !(err instanceof CollectionsError)) return commanderExitCode(err);
    throw err;
  }
  return code;
}

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
function overviewText(program: Command, version: string): string {
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
