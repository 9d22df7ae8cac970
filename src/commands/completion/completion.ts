/**
 * `collections completion`: the script is GENERATED FROM THE COMMANDER TREE plus the completion
 * hints, so a flag added to the program is completed without touching this module.
 */
import type { Argument, Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { COMPLETION_SHELLS, completionHint } from '../commander.js';
import { renderBash, renderFish, renderZsh } from './completion-render.js';
import type { CompletionOption, CompletionPositional, CompletionSpec } from './completion-render.js';

function toCompletionOption(option: Option): CompletionOption {
  const hint = completionHint(option);
  const out: CompletionOption = { long: option.long ?? option.short!, description: option.description };
  if (option.short && option.long) out.short = option.short;
  if (option.required || option.optional) out.value = option.argChoices ?? hint.words ?? (hint.files ? 'file' : 'text');
  if (hint.repeatable) out.repeatable = true;
  return out;
}

function toPositional(argument: Argument): CompletionPositional {
  const hint = completionHint(argument);
  const out: CompletionPositional = { name: argument.name(), words: argument.argChoices ?? hint.words ?? [] };
  if (hint.after) out.after = hint.after;
  return out;
}

/** `.version()` names it `version`; offered before a command only. */
const isVersionOption = (option: Option): boolean => option.attributeName() === 'version';

/** Commander's implicit `help` command is not one of `program.commands`. */
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

export interface CompletionCommandOptions {
  /** As typed: checked here too. */
  shell: string;
  program: Command;
}

/**
 * @throws {UsageError} (exit 2) for an unknown shell; {@link Error} when a word of the tree is not a plain
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
