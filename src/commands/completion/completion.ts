/**
 * `collections completion bash|zsh|fish`: prints a shell completion script GENERATED FROM THE
 * COMMANDER TREE: every command of the program, its options (long and short flags, whether they
 * take a value, commander's `argChoices`, the description) and its arguments, plus the completion
 * hints of commands/commander.ts (file names for `--out`, words commander does not check). A flag
 * added to the program is completed without touching this module, so the two cannot drift apart.
 */
import type { Argument, Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { COMPLETION_SHELLS, completionHint } from '../commander.js';
import { renderBash, renderFish, renderZsh } from './completion-render.js';
import type { CompletionOption, CompletionPositional, CompletionSpec } from './completion-render.js';

/** An option of the commander tree as completion sees it. */
function toCompletionOption(option: Option): CompletionOption {
  const hint = completionHint(option);
  const out: CompletionOption = { long: option.long ?? option.short!, description: option.description };
  if (option.short && option.long) out.short = option.short;
  if (option.required || option.optional) out.value = option.argChoices ?? hint.words ?? (hint.files ? 'file' : 'text');
  if (hint.repeatable) out.repeatable = true;
  return out;
}

/** A positional argument of the commander tree as completion sees it. */
function toPositional(argument: Argument): CompletionPositional {
  const hint = completionHint(argument);
  const out: CompletionPositional = { name: argument.name(), words: argument.argChoices ?? hint.words ?? [] };
  if (hint.after) out.after = hint.after;
  return out;
}

/** Whether an option of the program is its version option (`.version()` names it `version`), offered before a command only. */
const isVersionOption = (option: Option): boolean => option.attributeName() === 'version';

/**
 * What completion covers, read from the commander tree: the program's options (the version option
 * apart), then each command of `program.commands` (commander's implicit `help` command is not one)
 * with its visible options and its arguments.
 */
export function completionSpec(program: Command): CompletionSpec {
  const visible = (options: readonly Option[]): Option[] => options.filter((o) => !o.hidden);
  const rootOptions = visible(program.options);
  return {
    globals: rootOptions.filter((o) => !isVersionOption(o)).map(toCompletionOption),
    rootOnly: rootOptions.filter((o) => isVersionOption(o)).map(toCompletionOption),
    commands: program.commands.map((cmd) => {
      const positionals = cmd.registeredArguments.map(toPositional);
      return {
        name: cmd.name(),
        description: cmd.description(),
        options: visible(cmd.options).map(toCompletionOption),
        ...(positionals.length > 0 ? { positionals } : {}),
      };
    }),
  };
}

/** What the `completion` command (commands/completion-command.ts) hands {@link runCompletion}. */
export interface CompletionCommandOptions {
  /** The word the user typed: one of {@link COMPLETION_SHELLS}, checked by {@link runCompletion} too. */
  shell: string;
  /** The program whose commander tree the script completes. */
  program: Command;
}

/**
 * Prints the completion script of `shell` for the commander tree of `program` on stdout.
 * @returns 0
 * @throws {UsageError} for an unknown shell; {@link Error} when a word of the tree is not a plain
 *   token (it would reach the script unquoted: a bug)
 */
export function runCompletion(ctx: Context, { shell, program }: CompletionCommandOptions): number {
  const render = shell === 'bash' ? renderBash : shell === 'zsh' ? renderZsh : shell === 'fish' ? renderFish : undefined;
  if (render === undefined) {
    throw new UsageError(`unknown shell '${shell}'`, { hint: `choose one of ${COMPLETION_SHELLS.join(', ')}` });
  }
  ctx.io.stdout.write(render(completionSpec(program)));
  return ExitCode.Ok;
}
