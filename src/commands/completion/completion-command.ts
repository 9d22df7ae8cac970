import { Argument, Command } from 'commander';
import { ExitCode, UsageError } from '../../errors.js';
import { bindToContext, COMPLETION_SHELLS, withCompletion, type CommandWiring, type CompletionShell, type RunCommand } from '../commander.js';
import { exitCodesHelp, type ExitCodeRow } from '../help-text.js';
import type { CompletionCommandOptions } from './completion.js';

const runCompletionLazily: RunCommand<CompletionCommandOptions> = async (ctx, options) =>
  (await import('./completion.js')).runCompletion(ctx, options);

const COMPLETION_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'the script was printed'],
  [String(ExitCode.Usage), 'unknown shell'],
];

const COMPLETION_HELP = `
Examples:
  $ collections completion bash > ~/.local/share/bash-completion/completions/collections
  $ collections completion zsh > "\${fpath[1]}/_collections"
  $ collections completion fish > ~/.config/fish/completions/collections.fish
${exitCodesHelp(COMPLETION_EXIT_CODES)}`;

/** `run` gets the program, whose tree the script completes. @throws {UsageError} (from the action, exit 2) for an unknown shell */
export function createCompletionCommand(wiring: CommandWiring, run: RunCommand<CompletionCommandOptions> = runCompletionLazily): Command {
  return bindToContext(new Command('completion'), wiring.ctx)
    .description('Print a shell completion script (bash, zsh or fish)')
    .addArgument(withCompletion(new Argument('<shell>', 'bash, zsh or fish'), { words: COMPLETION_SHELLS }))
    .addHelpText('after', COMPLETION_HELP)
    .action(async (shell: string, _opts: unknown, self: Command) => {
      const known = COMPLETION_SHELLS as readonly string[];
      if (!known.includes(shell)) throw new UsageError(`unknown shell '${shell}' (use ${known.join(', ')})`);
      wiring.setCode(await run(wiring.ctx, { shell: shell as CompletionShell, program: self.parent ?? self }));
    });
}
