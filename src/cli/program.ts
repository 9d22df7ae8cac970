/**
 * The commander program: the global flags, and each command from its folder's `createXCommand`.
 * Each command's run function is loaded lazily, so `--help` loads no HTTP, output or config-store code.
 */
import { Command, CommanderError } from 'commander';
import type { Context } from '../context.js';
import { exportCommandSpecs, GET_COMMAND } from '../endpoints.js';
import { CollectionsError, ExitCode, UsageError } from '../errors.js';
import { bindToContext, type CommandWiring } from '../commands/commander.js';
import { createCompletionCommand } from '../commands/completion/completion-command.js';
import { createConfigCommand } from '../commands/config/config-command.js';
import { createExportCommand, createGetCommand } from '../commands/export/export-command.js';
import { helpWidth, overviewText, PROGRAM_EXAMPLES, wrapHelp } from '../commands/help-text.js';
import { createRatelimitCommand } from '../commands/ratelimit/ratelimit-command.js';
import { createSandboxCommand } from '../commands/sandbox/sandbox-command.js';
import { createVerifyCommand } from '../commands/verify/verify-command.js';
import type { SettingsFlags } from '../config/settings.js';
import { defined } from '../json/object.js';
import type { CommandLine } from './argv.js';

const KEY_HELP = 'API key (prefer COLLECTIONS_API_KEY or `collections config set api-key`: flags are visible in shell history and `ps`)';

/** Fake run functions for tests, one per command; by default each command loads its own lazily. */
export interface ProgramRunners {
  export?: Parameters<typeof createExportCommand>[2];
  get?: Parameters<typeof createGetCommand>[1];
  ratelimit?: Parameters<typeof createRatelimitCommand>[1];
  config?: Parameters<typeof createConfigCommand>[1];
  completion?: Parameters<typeof createCompletionCommand>[1];
  verify?: Parameters<typeof createVerifyCommand>[1];
  sandbox?: Parameters<typeof createSandboxCommand>[1];
}

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
    .addHelpText('after', PROGRAM_EXAMPLES)
    .hook('preAction', async (_program, command) => {
      const flags = command.optsWithGlobals<SettingsFlags & { header?: unknown }>();
      ctx.secrets.add(flags.apiKey);
      if (Array.isArray(flags.header)) for (const [name, value] of flags.header as Array<[string, string]>) ctx.secrets.addHeader(name, value);
      if (NO_SETTINGS.has(command.name())) return;
      await (await import('../config/settings.js')).prepareConfigStore(ctx, command.name() === 'config');
    });

  const wiring: CommandWiring = { ctx, setCode, resumeArgv: options.resumeArgv ?? [] };
  const run = options.runners ?? {};
  const commands: Array<[string, () => Command]> = [
    ...exportCommandSpecs().map((spec): [string, () => Command] => [spec.name, () => createExportCommand(spec, wiring, run.export)]),
    [GET_COMMAND, () => createGetCommand(wiring, run.get)],
    ['ratelimit', () => createRatelimitCommand(wiring, run.ratelimit)],
    ['config', () => createConfigCommand(wiring, run.config)],
    ['completion', () => createCompletionCommand(wiring, run.completion)],
    ['verify', () => createVerifyCommand(wiring, run.verify)],
    ['sandbox', () => createSandboxCommand(wiring, run.sandbox)],
  ];
  for (const [name, make] of commands) if (options.only === undefined || name === options.only) program.addCommand(make());
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
  // An export builds its command alone: building the others delays its first request
  // (test/bench/results.md, «Modules loaded when first needed»).
  const program = createProgram(ctx, (c) => (code = c), { resumeArgv: line.resumeWords, runners, ...defined({ only: line.exportCommand }) });
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
