/**
 * The commander program: global flags, one export command per export command of the endpoint table
 * (commands/export-command.ts, its flags from the one flag table), and the `ratelimit`, `config`,
 * `completion` and `sandbox` commands. Commands declare and validate flags, then call a
 * `runX(options, ctx)` (GitHub CLI's NewCmdX / xRun split). Command modules are imported lazily so
 * `--help` loads no HTTP, output or config-store code.
 */
import { Argument, Command, CommanderError, Option } from 'commander';
import type { Context } from '../context.js';
import { CONFIG_KEYS } from '../config/flags.js';
import { parseIntegerOption } from '../config/parse.js';
import { exportCommandSpecs, ID_SPECS, idsFromFlags, type IdFlagValues } from '../endpoints.js';
import { CollectionsError, ExitCode, UsageError } from '../errors.js';
import {
  COMPLETION_HELP,
  COMPLETION_SHELLS,
  CONFIG_ACTIONS,
  CONFIG_HELP,
  CONFIG_KEY_ACTIONS,
  RATELIMIT_HELP,
  VERIFY_HELP,
  type ConfigAction,
} from '../commands/command-specs.js';
import { bindToContext, commanderParser, withCompletion } from '../commands/commander.js';
import { createExportCommand, type ExportRunner } from '../commands/export-command.js';
import { idOption, type GlobalFlags } from '../commands/flags.js';
import { SANDBOX_HELP, SANDBOX_OPTION_HELP } from '../commands/sandbox-options.js';
import { exitCodesHelp, PROGRAM_EXIT_CODES } from '../commands/help-text.js';
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

/** What the commands of the program do; each default loads its command module lazily. Tests may replace them. */
export interface ProgramRunners {
  /** Runs an export command (default: commands/export.ts `runExportCommand`, whose code it passes to `setCode`). */
  export?: ExportRunner;
}

/** Shared by the command builders: the context, where exit codes go, and the secrets seen so far. */
interface Wiring {
  ctx: Context;
  setCode: (code: number) => void;
  /** Records the `--api-key` of parsed flags, so error text can scrub it. */
  remember: (flags: GlobalFlags) => void;
  secrets: string[];
}

function addRatelimitCommand(program: Command, { ctx, setCode, remember, secrets }: Wiring): void {
  const cmd = program.command('ratelimit').description("Show the rate-limit quota of each endpoint (spends one request of each endpoint's quota)");
  for (const id of ID_SPECS) cmd.addOption(idOption(id, id.probeHelp));
  cmd
    .option('--json', 'print JSON for scripts')
    .option('--cached', 'show the last values any command saw, with their age; sends nothing')
    .addHelpText('after', RATELIMIT_HELP)
    .action(async (_opts: unknown, self: Command) => {
      const flags = self.optsWithGlobals<GlobalFlags & IdFlagValues & { json?: boolean; cached?: boolean }>();
      remember(flags);
      const [{ runRatelimit }, { loadSettings }] = await Promise.all([import('../commands/ratelimit.js'), import('../config/settings.js')]);
      const { settings, store } = loadSettings(flags, ctx);
      if (settings.apiKey) secrets.push(settings.apiKey);
      const options = { settings, store, ...idsFromFlags(flags), json: flags.json === true, cached: flags.cached === true };
      setCode(await runRatelimit(options, ctx));
    });
}

function addConfigCommand(program: Command, { ctx, setCode, remember }: Wiring): void {
  const keys = ['api-key', 'base-url', ...CONFIG_KEYS.filter((k) => k !== 'api-key' && k !== 'base-url')];
  program
    .command('config')
    .description('Show or change stored settings: config [set|get|unset|list|profiles|path], per --profile')
    .addArgument(withCompletion(new Argument('[action]', 'set, get, unset, list, profiles or path; none: every profile'), { words: CONFIG_ACTIONS }))
    .addArgument(withCompletion(new Argument('[args...]', `key and value (${keys.join(', ')})`), { words: CONFIG_KEYS, after: CONFIG_KEY_ACTIONS }))
    .addHelpText('after', CONFIG_HELP)
    .action(async (action: string | undefined, args: string[], _opts: unknown, self: Command) => {
      const flags = self.optsWithGlobals<GlobalFlags>();
      remember(flags);
      const known = CONFIG_ACTIONS as readonly string[];
      if (action !== undefined && !known.includes(action)) throw new UsageError(`unknown config action '${action}' (use ${known.join(', ')})`);
      const { runConfig, runConfigOverview } = await import('../commands/config.js');
      if (action === undefined) setCode(runConfigOverview(flags, ctx));
      else setCode(await runConfig(action as ConfigAction, args, flags, ctx));
    });
}

function addCompletionCommand(program: Command, { ctx, setCode }: Wiring): void {
  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish)')
    .addArgument(withCompletion(new Argument('<shell>', 'bash, zsh or fish'), { words: COMPLETION_SHELLS }))
    .addHelpText('after', COMPLETION_HELP)
    .action(async (shell: string) => {
      const known = COMPLETION_SHELLS as readonly string[];
      if (!known.includes(shell)) throw new UsageError(`unknown shell '${shell}' (use ${known.join(', ')})`);
      const { runCompletion } = await import('../commands/completion.js');
      setCode(runCompletion(shell, ctx, program));
    });
}

function addVerifyCommand(program: Command, { ctx, setCode }: Wiring): void {
  program
    .command('verify')
    .description('Check exported files against their manifests (size, SHA-256, item count); sends nothing')
    .addArgument(new Argument('<manifest...>', 'manifest files (F.manifest.json)'))
    .addHelpText('after', VERIFY_HELP)
    .action(async (manifests: string[]) => {
      const { runVerify } = await import('../commands/verify.js');
      setCode(await runVerify(manifests, ctx));
    });
}

function addSandboxCommand(program: Command, { ctx, setCode }: Wiring): void {
  const sandbox = program.command('sandbox').description('Run the bundled Collection API on loopback (prints its base URL and key)');
  for (const o of SANDBOX_OPTION_HELP) {
    const desc = o.defaultValue !== undefined ? `${o.description} (default ${o.defaultValue})` : o.description;
    const option = new Option(o.flags, desc);
    if (o.type === 'integer') {
      const name = o.flags.split(' ')[0]!;
      option.argParser(commanderParser((v: string) => parseIntegerOption(name, v, 0, Number.MAX_SAFE_INTEGER)));
    }
    sandbox.addOption(o.words ? withCompletion(option, { words: o.words }) : option);
  }
  sandbox.addHelpText('after', SANDBOX_HELP).action(async (_opts: unknown, self: Command) => {
    const { runSandbox } = await import('../commands/sandbox.js');
    setCode(await runSandbox(self.opts(), ctx));
  });
}

/**
 * Builds the program for `argv`. `setCode` receives each command's exit code.
 * @param secrets collects secrets (the API key) as they become known, so error text can scrub them
 * @param runners replacements of what commands do (tests); defaults load the command modules lazily
 */
export function createProgram(
  argv: readonly string[],
  ctx: Context,
  setCode: (code: number) => void,
  secrets: string[],
  runners: ProgramRunners = {},
): Command {
  const program = bindToContext(new Command('collections'), ctx)
    .description('Export the collections of a rate-limited, paginated JSON-LD/Hydra API to JSON, NDJSON, CSV or a table.')
    .version(ctx.version, '-V, --version', 'print the version')
    .option('--api-key <key>', KEY_HELP)
    .option('--base-url <url>', 'API base URL (or COLLECTIONS_BASE_URL, or `collections config set base-url`)')
    .option('--profile <name>', 'stored profile to use (or COLLECTIONS_PROFILE; default "default")')
    .addHelpText('after', EXAMPLES);

  const remember = (flags: GlobalFlags): void => {
    if (flags.apiKey) secrets.push(flags.apiKey);
  };
  const wiring: Wiring = { ctx, setCode, remember, secrets };

  const runExport: ExportRunner = async (command, flags) => {
    remember(flags);
    if (runners.export) return runners.export(command, flags);
    const { runExportCommand } = await import('../commands/export.js');
    setCode(await runExportCommand(command, flags, argvForResume(argv), ctx, secrets));
  };
  for (const spec of exportCommandSpecs()) program.addCommand(createExportCommand(spec, ctx, runExport));

  addRatelimitCommand(program, wiring);
  addConfigCommand(program, wiring);
  addCompletionCommand(program, wiring);
  addVerifyCommand(program, wiring);
  addSandboxCommand(program, wiring);
  return program;
}

/** Rebuilds the command line for the "resume with" hint, without the API key and `--resume`. */
export function argvForResume(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const a = raw[i]!;
    if (a === '--api-key') {
      i++;
      continue;
    }
    if (a.startsWith('--api-key=')) continue;
    if (a === '--resume') continue;
    out.push(a);
  }
  return out;
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
 * Parses and runs `argv`; with no arguments at all, prints the overview (cli/overview.ts) on stdout.
 * @returns the exit code; commander usage errors map to 2, `--help`, `--version` and no arguments to 0
 * @throws whatever a command throws (main() maps it)
 */
export async function runProgram(argv: readonly string[], ctx: Context, secrets: string[], runners: ProgramRunners = {}): Promise<number> {
  let code: number = ExitCode.Ok;
  const program = createProgram(argv, ctx, (c) => (code = c), secrets, runners);
  if (argv.length === 0) {
    ctx.io.stdout.write(overviewText(program, ctx.version));
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
