/** The shape of a command's definition, commander glue shared by the commands and the program, and the completion hints commander has no field for. */
import { Command, CommanderError, InvalidArgumentError, type Argument, type Option } from 'commander';
import type { Context } from '../context.js';
import { helpWidth, wrapHelp } from './help-text.js';

/**
 * What a command does once commander has parsed it, as GitHub CLI's `NewCmdX(f, runF)`: each
 * `createXCommand(wiring, run)` defaults `run` to its `run<Name>`, loaded lazily, so `--help` loads
 * no HTTP, output or config-store code; tests pass a fake.
 * @returns the exit code (README, "Exit codes")
 * @throws {CollectionsError} for failures main() maps to exit codes
 */
export type RunCommand<O> = (ctx: Context, options: O) => Promise<number> | number;

/** What a command's definition needs from the program. */
export interface CommandWiring {
  /** Its streams take commander's output too. */
  ctx: Context;
  setCode: (code: number) => void;
  /** The command line without the API key and `--resume`, for the "resume with" hint of exports. */
  resumeArgv: readonly string[];
}

/**
 * Throws instead of exiting, writes to the context's streams, wraps help to {@link helpWidth}.
 * Needed on the program and on each command: `addCommand` does not copy these (`command()` does).
 */
export function bindToContext(cmd: Command, ctx: Pick<Context, 'io' | 'env'>): Command {
  return cmd
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      // Commander writes only help and the version here; data goes to ctx.io.stdout directly.
      writeOut: (s) => ctx.io.stdout.write(wrapHelp(s, helpWidth(ctx))),
      writeErr: (s) => ctx.io.stderr.write(s),
      getOutHelpWidth: () => helpWidth(ctx),
      outputError: (s, write) => write(`collections: ${s.replace(/^error: /, '')}`),
    });
}

/** So commander reports the parser's error as an invalid argument (exit 2). */
export function commanderParser<T>(parse: (value: string, previous: T | undefined) => T): (value: string, previous: T | undefined) => T {
  return (value, previous) => {
    try {
      return parse(value, previous);
    } catch (err) {
      throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
    }
  };
}

/** Beyond commander's `argChoices`. */
export interface CompletionHint {
  files?: boolean;
  /** Not checked by commander: the command checks them, with its own message. */
  words?: readonly string[];
  /** A positional argument offers {@link words} only after one of these. */
  after?: readonly string[];
  repeatable?: boolean;
}

const HINTS = new WeakMap<Option | Argument, CompletionHint>();

export function withCompletion<T extends Option | Argument>(target: T, hint: CompletionHint): T {
  HINTS.set(target, hint);
  return target;
}

export function completionHint(target: Option | Argument): CompletionHint {
  return HINTS.get(target) ?? {};
}

/**
 * Commander's "(Did you mean set?)": its similarity rule is not exported, so a silent program
 * whose commands are `words` is asked. '' when no word is close.
 */
export function commanderSuggestion(word: string, words: readonly string[]): string {
  const probe = new Command()
    .exitOverride()
    .showSuggestionAfterError(true)
    .helpCommand(false)
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
  for (const w of words) probe.command(w);
  try {
    probe.parse([word], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return /\(Did you mean [^)]*\)/.exec(err.message)?.[0] ?? '';
    throw err;
  }
  return '';
}

export type CompletionShell = 'bash' | 'zsh' | 'fish';

export const COMPLETION_SHELLS: readonly CompletionShell[] = ['bash', 'zsh', 'fish'];
