/**
 * `collections sandbox`: one option per row of the sandbox's switch table, integers parsed here;
 * the rest is checked by `serveSandbox`, loaded with `runSandbox` lazily so `--help` loads none of the sandbox.
 */
import { Command, Option } from 'commander';
import { parseIntegerOption } from '../../config/flags.js';
import { ExitCode } from '../../errors.js';
import { SANDBOX_SWITCHES, type SandboxCommandOptions, type SandboxSwitch } from '../../sandbox/switches.js';
import { bindToContext, commanderParser, withCompletion, type CommandWiring, type RunCommand } from '../commander.js';
import { exitCodesHelp, type ExitCodeRow } from '../help-text.js';

const runSandboxLazily: RunCommand<SandboxCommandOptions> = async (ctx, options) => (await import('./sandbox.js')).runSandbox(ctx, options);

const SANDBOX_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'stopped with Ctrl-C or SIGTERM'],
  [String(ExitCode.Usage), 'invalid option or fault spec, or the port cannot be listened on'],
];

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

export function createSandboxCommand(wiring: CommandWiring, run: RunCommand<SandboxCommandOptions> = runSandboxLazily): Command {
  const sandbox = bindToContext(new Command('sandbox'), wiring.ctx).description(
    'Run the bundled Collection API on loopback (prints its base URL and key)',
  );
  for (const o of Object.values<SandboxSwitch>(SANDBOX_SWITCHES)) {
    const option = new Option(o.flag, o.default !== undefined ? `${o.help} (default ${o.default})` : o.help);
    if (o.type === 'integer') {
      const name = o.flag.split(' ')[0]!;
      option.argParser(commanderParser((v: string) => parseIntegerOption(name, v, 0, Number.MAX_SAFE_INTEGER)));
    }
    sandbox.addOption(o.words ? withCompletion(option, { words: o.words }) : option);
  }
  return sandbox.addHelpText('after', SANDBOX_HELP).action(async (_opts: unknown, self: Command) => {
    wiring.setCode(await run(wiring.ctx, self.opts<SandboxCommandOptions>()));
  });
}
