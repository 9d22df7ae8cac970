/**
 * The commander program: global flags, one export command per row of the endpoint table, and the
 * `ratelimit`, `config`, `completion` and `sandbox` commands. Commands declare and validate flags,
 * then call a `runX(options, ctx)` (GitHub CLI's NewCmdX / xRun split). Command modules are imported
 * lazily so `--help` loads no HTTP, output or config code.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { Context } from '../context.js';
import { ENDPOINTS, exportCommands } from '../endpoints.js';
import { CollectionsError, ExitCode, UsageError } from '../errors.js';
import { parseIntegerOption, parseParam, parseSecondsOption } from './options.js';
import { CONFIG_HELP, COMPLETION_HELP, RATELIMIT_HELP, SANDBOX_HELP, SANDBOX_OPTION_HELP } from './help.js';

/** Global flags of every command (cli-spec.md, "Global options"). */
export interface GlobalFlags {
  apiKey?: string;
  baseUrl?: string;
  profile?: string;
}

/** Flags of the export commands, as commander hands them over (undefined = not given). */
export interface ExportFlags extends GlobalFlags {
  taxpayer?: string;
  invoice?: string;
  out?: string;
  format?: string;
  cursor?: boolean;
  total?: boolean;
  itemsPerPage?: number;
  page?: number;
  maxItems?: number;
  param?: Array<[string, string]>;
  fields?: string;
  csvSafe?: boolean;
  resume?: boolean;
  concurrency?: number;
  maxWait?: number;
  retries?: number;
  timeout?: number;
  quiet?: boolean;
  progress: boolean;
  verbose?: boolean;
}

/** Wraps a parser so commander reports its UsageError as an invalid argument (exit 2). */
function arg<T>(parse: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (err) {
      throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
    }
  };
}

function collectParam(value: string, previous: Array<[string, string]> | undefined): Array<[string, string]> {
  return [...(previous ?? []), arg(parseParam)(value)];
}

const KEY_HELP =
  'API key (prefer COLLECTIONS_API_KEY or `collections config set api-key`: flags are visible in shell history and `ps`)';

const EXAMPLES = `
Examples:
  $ collections config set base-url https://api.example.com
  $ collections config set api-key            # prompts; keeps the key out of shell history
  $ collections invoices --taxpayer PEIC211118IS0 --cursor --out invoices.ndjson
  $ collections invoices --taxpayer PEIC211118IS0 --cursor --out invoices.ndjson --resume
  $ collections entities --format csv --fields id,taxpayer.id,taxpayer.name > entities.csv
  $ collections ratelimit --taxpayer PEIC211118IS0
  $ collections sandbox                         # a local API to try it all

Exit codes: 0 complete, 2 usage/configuration or 400, 3 key rejected, 4 not found, 5 rate-limit wait
over --max-wait, 6 API unreadable, 7 output unwritable, 130/143 interrupted (checkpoint kept).`;

function addExportOptions(cmd: Command, hasIds: { taxpayer: boolean; invoice: boolean }): Command {
  if (hasIds.taxpayer) cmd.option('--taxpayer <rfc>', 'taxpayer id (RFC)');
  if (hasIds.invoice) cmd.option('--invoice <id>', 'invoice id (UUID)');
  return cmd
    .option('-o, --out <file>', 'write to a file (completed atomically); omitted or - means stdout')
    .addOption(
      new Option('-f, --format <format>', 'output format (default: from the --out extension, else ndjson)').choices([
        'json',
        'ndjson',
        'csv',
        'table',
      ]),
    )
    .option('--cursor', 'cursor pagination (X-Pagination-Style: cursor)')
    .option('--total', 'with --cursor, ask for hydra:totalItems so progress shows a percentage (slower)')
    .option('--items-per-page <n>', 'items per request, 1 to 1000 (default 1000)', arg((v) => parseIntegerOption('--items-per-page', v, 1, 1000)))
    .option('--page <n>', 'first page in offset mode (default 1)', arg((v) => parseIntegerOption('--page', v, 1, Number.MAX_SAFE_INTEGER)))
    .option('--max-items <n>', 'stop after exactly n items', arg((v) => parseIntegerOption('--max-items', v, 1, Number.MAX_SAFE_INTEGER)))
    .option('--param <key=value>', "extra query parameter for the API's filters (repeatable)", collectParam)
    .option('--fields <a,b.c>', 'columns for csv and table (dot paths); also projects json and ndjson items')
    .option('--csv-safe', 'neutralise spreadsheet formulas in csv string cells (=, +, -, @, tab, CR)')
    .option('--resume', 'continue an interrupted export to the same --out from its checkpoint')
    .option('--concurrency <n>', 'pages in flight in offset mode, 1 to 16 (default 4)', arg((v) => parseIntegerOption('--concurrency', v, 1, 16)))
    .option('--max-wait <seconds>', 'longest single rate-limit wait to accept; past it exit 5, checkpoint kept (default: no limit)', arg((v) => parseSecondsOption('--max-wait', v)))
    .option('--retries <n>', 'retries after network errors, 5xx or unreadable bodies (default 5)', arg((v) => parseIntegerOption('--retries', v, 0, 100)))
    .option('--timeout <seconds>', 'per request attempt (default 60)', arg((v) => parseSecondsOption('--timeout', v, 0.001)))
    .option('-q, --quiet', 'no progress and no summary')
    .option('--no-progress', 'no spinner (the summary stays)')
    .option('-v, --verbose', 'one stderr line per request: method, path, status, ms, remaining quota, X-Request-ID');
}

/**
 * Builds the program for `argv`. `setCode` receives each command's exit code.
 * @param secrets collects secrets (the API key) as they become known, so error text can scrub them
 */
export function createProgram(
  argv: readonly string[],
  ctx: Context,
  setCode: (code: number) => void,
  secrets: string[],
): Command {
  const program = new Command('collections');
  program
    .description('Export the collections of a rate-limited, paginated JSON-LD/Hydra API to JSON, NDJSON, CSV or a table.')
    .version(ctx.version, '-V, --version', 'print the version')
    .option('--api-key <key>', KEY_HELP)
    .option('--base-url <url>', 'API base URL (or COLLECTIONS_BASE_URL, or `collections config set base-url`)')
    .option('--profile <name>', 'stored profile to use (or COLLECTIONS_PROFILE; default "default")')
    .addHelpText('after', EXAMPLES)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
      outputError: (s, write) => write(`collections: ${s.replace(/^error: /, '')}`),
    });

  const remember = (flags: GlobalFlags): void => {
    if (flags.apiKey) secrets.push(flags.apiKey);
  };

  for (const command of exportCommands()) {
    const rows = ENDPOINTS.filter((e) => e.command === command);
    const taxpayer = rows.some((e) => e.ids.includes('taxpayerId'));
    const invoice = rows.some((e) => e.ids.includes('invoiceId'));
    const description = rows.length === 1 ? rows[0]!.description : 'Export invoice line items (of a taxpayer, of one invoice, or both)';
    const cmd = addExportOptions(program.command(command).description(description), { taxpayer, invoice });
    cmd.addHelpText(
      'after',
      `\nEndpoints:\n${rows.map((e) => `  ${e.path.padEnd(56)} ${e.ids.length ? e.ids.map((i) => (i === 'taxpayerId' ? '--taxpayer' : '--invoice')).join(' ') : ''}${e.cursor ? '  (--cursor supported)' : ''}`).join('\n')}\n`,
    );
    cmd.action(async (_opts: unknown, self: Command) => {
      const flags = self.optsWithGlobals<ExportFlags>();
      remember(flags);
      const { runExportCommand } = await import('../commands/export.js');
      setCode(await runExportCommand(command, flags, argvForResume(argv), ctx, secrets));
    });
  }

  program
    .command('ratelimit')
    .description("Show the rate-limit quota of each endpoint (spends one request of each endpoint's quota)")
    .option('--taxpayer <rfc>', 'also check the endpoints of this taxpayer')
    .option('--invoice <id>', 'also check the endpoints of this invoice')
    .option('--json', 'print JSON for scripts')
    .option('--cached', 'show the last values any command saw, with their age; sends nothing')
    .addHelpText('after', RATELIMIT_HELP)
    .action(async (_opts: unknown, self: Command) => {
      const flags = self.optsWithGlobals<GlobalFlags & { taxpayer?: string; invoice?: string; json?: boolean; cached?: boolean }>();
      remember(flags);
      const [{ runRatelimit }, { loadSettings }] = await Promise.all([import('../commands/ratelimit.js'), import('./settings.js')]);
      const { settings, store } = loadSettings(flags, ctx);
      if (settings.apiKey) secrets.push(settings.apiKey);
      setCode(
        await runRatelimit(
          {
            settings,
            store,
            ...(flags.taxpayer !== undefined ? { taxpayerId: flags.taxpayer } : {}),
            ...(flags.invoice !== undefined ? { invoiceId: flags.invoice } : {}),
            json: flags.json === true,
            cached: flags.cached === true,
          },
          ctx,
        ),
      );
    });

  program
    .command('config')
    .description('Show or change stored settings: config set|get|unset|list|path, per --profile')
    .argument('<action>', 'set, get, unset, list or path')
    .argument('[args...]', 'key and value (api-key, base-url, items-per-page, format, concurrency, max-wait, retries, timeout)')
    .addHelpText('after', CONFIG_HELP)
    .action(async (action: string, args: string[], _opts: unknown, self: Command) => {
      const flags = self.optsWithGlobals<GlobalFlags>();
      remember(flags);
      const { runConfig, CONFIG_ACTIONS } = await import('../commands/config.js');
      const known = CONFIG_ACTIONS as readonly string[];
      if (!known.includes(action)) throw new UsageError(`unknown config action '${action}' (use ${known.join(', ')})`);
      setCode(await runConfig(action as (typeof CONFIG_ACTIONS)[number], args, flags, ctx));
    });

  program
    .command('completion')
    .description('Print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText('after', COMPLETION_HELP)
    .action(async (shell: string) => {
      const { runCompletion, COMPLETION_SHELLS } = await import('../commands/completion.js');
      const known = COMPLETION_SHELLS as readonly string[];
      if (!known.includes(shell)) throw new UsageError(`unknown shell '${shell}' (use ${known.join(', ')})`);
      setCode(runCompletion(shell as (typeof COMPLETION_SHELLS)[number], ctx));
    });

  const sandbox = program
    .command('sandbox')
    .description('Run the bundled Collection API on loopback (prints its base URL and key)');
  for (const o of SANDBOX_OPTION_HELP) {
    const parse =
      o.type === 'integer'
        ? arg((v) => parseIntegerOption(o.flags.split(' ')[0]!, v, 0, Number.MAX_SAFE_INTEGER))
        : undefined;
    const desc = o.defaultValue !== undefined ? `${o.description} (default ${o.defaultValue})` : o.description;
    if (parse) sandbox.option(o.flags, desc, parse);
    else sandbox.option(o.flags, desc);
  }
  sandbox.addHelpText('after', SANDBOX_HELP).action(async (_opts: unknown, self: Command) => {
    const { runSandbox } = await import('../commands/sandbox.js');
    setCode(await runSandbox(self.opts(), ctx));
  });

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

/**
 * Parses and runs `argv`.
 * @returns the exit code; commander usage errors map to 2, `--help` and `--version` to 0
 * @throws whatever a command throws (main() maps it)
 */
export async function runProgram(argv: readonly string[], ctx: Context, secrets: string[]): Promise<number> {
  let code: number = ExitCode.Ok;
  const program = createProgram(argv, ctx, (c) => (code = c), secrets);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && !(err instanceof CollectionsError)) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
        return ExitCode.Ok;
      }
      if (err.code === 'commander.executeSubCommandAsync') return ExitCode.Internal;
      return ExitCode.Usage;
    }
    throw err;
  }
  return code;
}

/** Re-exported for commands that validate flags after parsing. */
export { UsageError };
