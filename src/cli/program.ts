/**
 * The commander program: the global flags and the list of commands. Each command's run function is
 * loaded lazily, so `--help` loads no HTTP, output or config-store code.
 */
import { Command, CommanderError } from 'commander';
import type { Context } from '../context.js';
import { exportCommands, exportCommandSpecs } from '../endpoints.js';
import { CollectionsError, ExitCode, UsageError } from '../errors.js';
import { bindToContext, helpWidth, wrapHelp, type CommandWiring, type RunCommand } from '../commands/commander.js';
import { createCompletionCommand } from '../commands/completion/completion-command.js';
import type { CompletionCommandOptions } from '../commands/completion/completion.js';
import { createConfigCommand } from '../commands/config/config-command.js';
import type { ConfigCommandOptions } from '../commands/config/config.js';
import { createExportCommand } from '../commands/export/export-command.js';
import { createGetCommand, type GetCommandOptions } from '../commands/get/get-command.js';
import type { ExportCommandOptions } from '../commands/flags.js';
import type { SettingsFlags } from '../config/settings.js';
import { exitCodesHelp, PROGRAM_EXIT_CODES, SAMPLE_IDS } from '../commands/help-text.js';
import { createRatelimitCommand } from '../commands/ratelimit/ratelimit-command.js';
import type { RatelimitCommandOptions } from '../commands/ratelimit/ratelimit.js';
import { createSandboxCommand, type SandboxCommandOptions } from '../commands/sandbox/sandbox-command.js';
import { createVerifyCommand } from '../commands/verify/verify-command.js';
import type { VerifyCommandOptions } from '../commands/verify/verify.js';
import type { CommandLine } from './argv.js';

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

/** Commands that read no settings file. */
const NO_SETTINGS = new Set(['completion', 'verify', 'sandbox']);

/**
 * Before any command runs, its `--api-key` and the values of its credential-like `--header`s join
 * `ctx.secrets`, so every text shown can scrub them.
 */
export function createProgram(
  ctx: Context,
  setCode: (code: number) => void,
  options: { resumeArgv?: readonly string[]; runners?: ProgramRunners } = {},
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
  const runners = options.runners ?? {};
  const commands = [
    ...exportCommandSpecs().map((spec) => createExportCommand(spec, wiring, runners.export)),
    createGetCommand(wiring, runners.get),
    createRatelimitCommand(wiring, runners.ratelimit),
    createConfigCommand(wiring, runners.config),
    createCompletionCommand(wiring, runners.completion),
    createVerifyCommand(wiring, runners.verify),
    createSandboxCommand(wiring, runners.sandbox ?? (async (c, o) => (await import('../commands/sandbox/sandbox.js')).runSandbox(c, o))),
  ];
  for (const command of commands) program.addCommand(command);
  return program;
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
  const program = createProgram(ctx, (c) => (code = c), { resumeArgv: line.resumeWords, runners });
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
