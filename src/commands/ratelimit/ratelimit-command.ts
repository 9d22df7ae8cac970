/** The `ratelimit` command's definition and help. */
import { Command } from 'commander';
import { exportFlag } from '../../config/flags.js';
import { ID_SPECS } from '../../endpoints.js';
import { ExitCode } from '../../errors.js';
import { bindToContext, type CommandWiring, type RunCommand } from '../commander.js';
import { exportOption, idOption } from '../flags.js';
import { exitCodesHelp, SAMPLE_IDS, type ExitCodeRow } from '../help-text.js';
import type { RatelimitCommandOptions } from './ratelimit.js';

const runRatelimitLazily: RunCommand<RatelimitCommandOptions> = async (ctx, options) => (await import('./ratelimit.js')).runRatelimit(ctx, options);

const RATELIMIT_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'the quotas were shown (a 429 or 404 shows in its row)'],
  [String(ExitCode.Usage), 'usage or configuration error (missing key or base URL, empty id)'],
  [String(ExitCode.Auth), 'the API key was rejected (401 or 403)'],
  [String(ExitCode.Unavailable), 'the API could not be read (network, 5xx after retries)'],
];

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

export function createRatelimitCommand(wiring: CommandWiring, run: RunCommand<RatelimitCommandOptions> = runRatelimitLazily): Command {
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
