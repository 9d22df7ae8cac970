/**
 * The definition of `collections completion` (commands/command.ts): its shell argument and the check
 * of it; what it does is commands/completion.ts `runCompletion`, loaded lazily, which reads the
 * whole program's commander tree.
 */
import { Argument, Command } from 'commander';
import { UsageError } from '../errors.js';
import type { CompletionCommandOptions } from './completion.js';
import type { CommandWiring, RunCommand } from './command.js';
import { COMPLETION_HELP, COMPLETION_SHELLS } from './command-specs.js';
import { bindToContext, withCompletion } from './commander.js';

/** commands/completion.ts `runCompletion`, loaded on first use. */
const runCompletion: RunCommand<CompletionCommandOptions> = async (ctx, options) => (await import('./completion.js')).runCompletion(ctx, options);

/**
 * Makes the `completion` command: its action checks the shell, then hands it and the program (the
 * command's parent, whose tree the script completes) to `run`, and its exit code to `wiring.setCode`.
 * @throws {UsageError} (from the action, exit 2) for an unknown shell
 */
export function createCompletionCommand(wiring: CommandWiring, run: RunCommand<CompletionCommandOptions> = runCompletion): Command {
  return bindToContext(new Command('completion'), wiring.ctx)
    .description('Print a shell completion script (bash, zsh or fish)')
    .addArgument(withCompletion(new Argument('<shell>', 'bash, zsh or fish'), { words: COMPLETION_SHELLS }))
    .addHelpText('after', COMPLETION_HELP)
    .action(async (shell: string, _opts: unknown, self: Command) => {
      const known = COMPLETION_SHELLS as readonly string[];
      if (!known.includes(shell)) throw new UsageError(`unknown shell '${shell}' (use ${known.join(', ')})`);
      wiring.setCode(await run(wiring.ctx, { shell, program: self.parent ?? self }));
    });
}
