/**
 * The definition of `collections sandbox` (commands/command.ts): one option per row of
 * commands/sandbox-options.ts (integers parsed here, the rest checked by the run); what it does is
 * commands/sandbox.ts `runSandbox`, loaded lazily.
 */
import { Command, Option } from 'commander';
import { parseIntegerOption } from '../config/flags.js';
import type { CommandWiring, RunCommand } from './command.js';
import { bindToContext, commanderParser, withCompletion } from './commander.js';
import { SANDBOX_HELP, SANDBOX_OPTION_HELP, type SandboxCommandOptions } from './sandbox-options.js';

/** commands/sandbox.ts `runSandbox`, loaded on first use. */
const runSandbox: RunCommand<SandboxCommandOptions> = async (ctx, options) => (await import('./sandbox.js')).runSandbox(ctx, options);

/** Makes the `sandbox` command: its action hands its options to `run`, and its exit code to `wiring.setCode`. */
export function createSandboxCommand(wiring: CommandWiring, run: RunCommand<SandboxCommandOptions> = runSandbox): Command {
  const sandbox = bindToContext(new Command('sandbox'), wiring.ctx).description(
    'Run the bundled Collection API on loopback (prints its base URL and key)',
  );
  for (const o of SANDBOX_OPTION_HELP) {
    const desc = o.defaultValue !== undefined ? `${o.description} (default ${o.defaultValue})` : o.description;
    const option = new Option(o.flags, desc);
    if (o.type === 'integer') {
      const name = o.flags.split(' ')[0]!;
      option.argParser(commanderParser((v: string) => parseIntegerOption(name, v, 0, Number.MAX_SAFE_INTEGER)));
    }
    sandbox.addOption(o.words ? withCompletion(option, { words: o.words }) : option);
  }
  return sandbox.addHelpText('after', SANDBOX_HELP).action(async (_opts: unknown, self: Command) => {
    wiring.setCode(await run(wiring.ctx, self.opts<SandboxCommandOptions>()));
  });
}
