/**
 * The commander program: the global flags and the list of commands, each made by its definition in
 * commands/ (commands/command.ts: `create<Name>Command(wiring, run)`, whose action hands the parsed
 * options to `run<Name>(ctx, options)`, loaded lazily so `--help` loads no HTTP, output or
 * config-store code): one export command per export command of the endpoint table
 * (commands/export-command.ts), then `get`, `ratelimit`, `config`, `completion`, `verify` and `sandbox`.
 * The command line is read once (cli/argv.ts) and parsed once, here.
 */
import { Command, CommanderError } from 'commander';
import type { Context } from '../context.js';
import { exportCommandSpecs } from '../endpoints.js';
import { CollectionsError, ExitCode, UsageError } from '../errors.js';
import { bindToContext, helpWidth, wrapHelp, type CommandWiring, type RunCommand } from '../commands/commander.js';
import { createCompletionCommand } from '../commands/completion/completion-command.js';
import type { CompletionCommandOptions } from '../commands/completion/completion.js';
import { createConfigCommand } from '../commands/config/config-command.js';
import type { ConfigCommandOptions } from '../commands/config/config.js';
import { createExportCommand } from '../commands/export/export-command.js';
import { createGetCommand, type GetCommandOptions } from '../commands/get/get-command.js';
import type { ExportCommandOptions, GlobalFlags } from '../commands/flags.js';
import { exitCodesHelp, PROGRAM_EXIT_CODES } from '../commands/help-text.js';
import { createRatelimitCommand } from '../commands/ratelimit/ratelimit-command.js';
import type { RatelimitCommandOptions } from '../commands/ratelimit/ratelimit.js';
import { createSandboxCommand } from '../commands/sandbox/sandbox-command.js';
import type { SandboxCommandOptions } from '../commands/sandbox/sandbox.js';
import { createVerifyCommand } from '../commands/verify/verify-command.js';
import type { VerifyCommandOptions } from '../commands/verify/verify.js';
import type { CommandLine } from './argv.js';
import { overviewText } from './overview.js';

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

/** Replacements of what the commands do (tests: a fake run function per command); each default loads its command module lazily. */
export interface ProgramRunners {
  /** The export commands' (default commands/export.ts `runExportCommand`). */
  export?: RunCommand<ExportCommandOptions>;
  /** `get`'s (default commands/get.ts `runGet`). */
  get?: RunCommand<GetCommandOptions>;
  /** `ratelimit`'s (default commands/ratelimit.ts `runRatelimit`). */
  ratelimit?: RunCommand<RatelimitCommandOptions>;
  /** `config`'s (default commands/config.ts `runConfig`). */
  config?: RunCommand<ConfigCommandOptions>;
  /** `completion`'s (default commands/completion.ts `runCompletion`). */
  completion?: RunCommand<CompletionCommandOptions>;
  /** `verify`'s (default commands/verify.ts `runVerify`). */
  verify?: RunCommand<VerifyCommandOptions>;
  /** `sandbox`'s (default commands/sandbox.ts `runSandbox`). */
  sandbox?: RunCommand<SandboxCommandOptions>;
}

/** Options of {@link createProgram}. */
export interface ProgramOptions {
  /** The command line without the API key and `--resume`, for the resume hint (cli/argv.ts); default none. */
  resumeArgv?: readonly string[];
  /** Replacements of what commands do (tests). */
  runners?: ProgramRunners;
}

/**
 * Builds the program: its global flags and every command, in the order of `--help`. `setCode`
 * receives each command's exit code. Before any command runs, the `--api-key` it was given and the
 * values of its credential-like `--header`s are added to `ctx.secrets`, so every text shown can scrub them.
 */
export function createProgram(ctx: Context, setCode: (code: number) => void, options: ProgramOptions = {}): Command {
  const program = bindToContext(new Command('collections'), ctx)
    .description('Export the collections of a rate-limited, paginated JSON-LD/Hydra API to JSON, NDJSON, CSV or a table.')
    .version(ctx.version, '-V, --version', 'print the version')
    .option('--api-key <key>', KEY_HELP)
    .option('--base-url <url>', 'API base URL (or COLLECTIONS_BASE_URL, or `collections config set base-url`)')
    .option('--profile <name>', 'stored profile to use (or COLLECTIONS_PROFILE; default "default")')
    .addHelpText('after', EXAMPLES)
    .hook('preAction', (_program, command) => {
      const flags = command.optsWithGlobals<GlobalFlags & { header?: unknown }>();
      ctx.secrets.add(flags.apiKey);
      if (Array.isArray(flags.header)) for (const [name, value] of flags.header as Array<[string, string]>) ctx.secrets.addHeader(name, value);
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
    createSandboxCommand(wiring, runners.sandbox),
  ];
  for (const command of commands) program.addCommand(command);
  return program;
}

/** What a commander error of parsing means for the exit code (README, "Exit codes"). */
function commanderExitCode(err: CommanderError): ExitCode {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return ExitCode.Ok;
  if (err.code === 'commander.executeSubCommandAsync') return ExitCode.Internal;
  return ExitCode.Usage;
}

/**
 * What commander would answer too loosely before a command: `help NAME` for an unknown NAME prints
 * the whole help with exit 0 (gh says `unknown command "nope"`), and `-v` in front of any command
 * is a plain unknown option, while the user most likely wanted the version (`node -v`) or
 * `--verbose`, which belongs to an export command.
 * @throws {UsageError} (exit 2, one line) for `help NAME` with an unknown NAME and for a leading `-v`
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
 * Parses and runs the command line (its words, once); with no words at all, prints the overview (cli/overview.ts) on stdout.
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
