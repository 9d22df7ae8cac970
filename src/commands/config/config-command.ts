/** The `config` command's definition and help. */
import { Argument, Command } from 'commander';
import { CONFIG_KEYS } from '../../config/flags.js';
import type { SettingsFlags } from '../../config/settings.js';
import { ExitCode, UsageError } from '../../errors.js';
import { bindToContext, commanderSuggestion, withCompletion, type CommandWiring, type RunCommand } from '../commander.js';
import { exitCodesHelp, type ExitCodeRow } from '../help-text.js';
import type { ConfigAction, ConfigCommandOptions } from './config.js';

const runConfigLazily: RunCommand<ConfigCommandOptions> = async (ctx, options) => (await import('./config.js')).runConfig(ctx, options);

const CONFIG_ACTIONS: readonly ConfigAction[] = ['set', 'get', 'unset', 'list', 'profiles', 'path'];

const CONFIG_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'done'],
  [String(ExitCode.Usage), 'unknown action or key, invalid value or profile name, unreadable settings file'],
  [String(ExitCode.Output), 'the settings file could not be written'],
  [String(ExitCode.Sigint), 'the key prompt was cancelled with Ctrl-C'],
];

const CONFIG_HELP = `
Keys: ${CONFIG_KEYS.join(', ')}

Settings are stored per profile (--profile NAME or COLLECTIONS_PROFILE; default "default") in a
file only you can read (mode 0600). A key stored in a profile is only sent to that profile's own
base URL. \`config set api-key\` without a value prompts for it without echo (or reads one line
from standard input when it is not a terminal), which keeps the key out of your shell history.

\`config\` alone prints every profile and its settings (the key masked, ****abcd); \`config list\`
prints one profile's; \`config profiles\` prints the profile names, one a line; \`config path\`
prints where the file is.

Examples:
  $ collections config set base-url https://api.example.com
  $ collections config set api-key
  $ printf '%s\\n' "$KEY" | collections config set api-key --profile sandbox
  $ collections config
  $ collections config profiles
${exitCodesHelp(CONFIG_EXIT_CODES)}`;

/**
 * Commander does not check the action word, so completion can offer the words.
 * @throws {UsageError} (from the action, exit 2) for an unknown action, with commander's "did you mean"
 */
export function createConfigCommand(wiring: CommandWiring, run: RunCommand<ConfigCommandOptions> = runConfigLazily): Command {
  const keys = ['api-key', 'base-url', ...CONFIG_KEYS.filter((k) => k !== 'api-key' && k !== 'base-url')];
  return bindToContext(new Command('config'), wiring.ctx)
    .description('Show or change stored settings: config [set|get|unset|list|profiles|path], per --profile')
    .addArgument(withCompletion(new Argument('[action]', 'set, get, unset, list, profiles or path; none: every profile'), { words: CONFIG_ACTIONS }))
    .addArgument(
      withCompletion(new Argument('[args...]', `key and value (${keys.join(', ')})`), { words: CONFIG_KEYS, after: ['set', 'get', 'unset'] }),
    )
    .addHelpText('after', CONFIG_HELP)
    .action(async (action: string | undefined, args: string[], _opts: unknown, self: Command) => {
      const known = CONFIG_ACTIONS as readonly string[];
      if (action !== undefined && !known.includes(action)) {
        const suggestion = commanderSuggestion(action, known);
        throw new UsageError(`unknown config action '${action}'${suggestion ? ` ${suggestion}` : ''}`, { hint: `use ${known.join(', ')}` });
      }
      wiring.setCode(await run(wiring.ctx, { ...self.optsWithGlobals<SettingsFlags>(), action: action as ConfigAction | undefined, args }));
    });
}
