/**
 * The definition of `collections config` (commands/command.ts): its action and key arguments and the
 * check of the action word (commander does not check it, so completion can offer the words); what it
 * does is commands/config.ts `runConfig`, loaded lazily.
 */
import { Argument, Command } from 'commander';
import { CONFIG_KEYS } from '../config/flags.js';
import { UsageError } from '../errors.js';
import type { ConfigCommandOptions } from './config.js';
import type { CommandWiring, RunCommand } from './command.js';
import { CONFIG_ACTIONS, CONFIG_HELP, CONFIG_KEY_ACTIONS, type ConfigAction } from './command-specs.js';
import { bindToContext, commanderSuggestion, withCompletion } from './commander.js';
import type { GlobalFlags } from './flags.js';

/** commands/config.ts `runConfig`, loaded on first use. */
const runConfig: RunCommand<ConfigCommandOptions> = async (ctx, options) => (await import('./config.js')).runConfig(ctx, options);

/**
 * Makes the `config` command: its action checks the action word, then hands the global flags, the
 * action and its arguments to `run`, and its exit code to `wiring.setCode`.
 * @throws {UsageError} (from the action, exit 2) for an unknown action, with commander's "did you mean"
 */
export function createConfigCommand(wiring: CommandWiring, run: RunCommand<ConfigCommandOptions> = runConfig): Command {
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
      wiring.setCode(await run(wiring.ctx, { ...self.optsWithGlobals<GlobalFlags>(), action: action as ConfigAction | undefined, args }));
    });
}
