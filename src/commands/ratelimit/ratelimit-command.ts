/** `collections ratelimit`: the id flags, `-H, --header`, `--json` and `--cached`. */
import { Command } from 'commander';
import { ID_SPECS } from '../../endpoints.js';
import type { RatelimitCommandOptions } from './ratelimit.js';
import type { CommandWiring, RunCommand } from '../commander.js';
import { exitCodesHelp, RATELIMIT_EXIT_CODES, SAMPLE_IDS } from '../help-text.js';
import { bindToContext } from '../commander.js';
import { exportOption, idOption } from '../flags.js';
import { exportFlag } from '../../config/flags.js';

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

const runRatelimit: RunCommand<RatelimitCommandOptions> = async (ctx, options) => (await import('./ratelimit.js')).runRatelimit(ctx, options);

export function createRatelimitCommand(wiring: CommandWiring, run: RunCommand<RatelimitCommandOptions> = runRatelimit): Command {
  const cmd = bindToContext(new Command('ratelimit'), wiring.ctx).description(
    "Show the rate-limit quota of each endpoint (spends one request of each endpoint's quota)",
  );
  for (const id of ID_SPECS) cmd.addOption(idOption(id, id.probeHelp));
  cmd.addOption(exportOption(exportFlag('header')));
  return cmd
    .option('--json', 'print JSON for scripts')
    .option('--cached', 'show the last values any command saw, with their age; sends nothing')
    .addHelpText('after', RATELIMIT_HELP)
    .action(async (_opts: unknown, self: Command) => {
      const flags = self.optsWithGlobals<Omit<RatelimitCommandOptions, 'json' | 'cached'> & { json?: boolean; cached?: boolean }>();
      wiring.setCode(await run(wiring.ctx, { ...flags, json: flags.json === true, cached: flags.cached === true }));
    });
}
