/**
 * Commander glue shared by the command factories and the program: binding a command to a
 * {@link Context}, turning our parsers' errors into commander's, and the completion hints that
 * commander has no field for (a value that names a file, words a positional argument completes to).
 * Shell completion (commands/completion.ts) is generated from the commander tree plus these hints.
 */
import { Command, CommanderError, InvalidArgumentError, type Argument, type Option } from 'commander';
import type { Context } from '../context.js';

/**
 * Makes `cmd` report to the context's streams and throw instead of exiting (commander's
 * `exitOverride`), with error lines as `collections: <message>` (README, "Exit codes"); its help
 * lists the global flags a subcommand accepts (`showGlobalOptions`: `--api-key`, `--base-url`,
 * `--profile`), and an unknown command or flag is answered with the closest one
 * (`showSuggestionAfterError`: "(Did you mean invoices?)"). The same settings on the program and
 * on each command: `addCommand` does not copy them (`command()` does).
 * @returns `cmd`
 */
export function bindToContext(cmd: Command, ctx: Pick<Context, 'io'>): Command {
  return cmd
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (s) => ctx.io.stdout.write(s),
      writeErr: (s) => ctx.io.stderr.write(s),
      outputError: (s, write) => write(`collections: ${s.replace(/^error: /, '')}`),
    });
}

/**
 * Wraps a parser so commander reports its error as an invalid argument (its message after
 * commander's `option '--x <n>' argument 'v' is invalid.`; exit 2).
 */
export function commanderParser<T>(parse: (value: string, previous: T | undefined) => T): (value: string, previous: T | undefined) => T {
  return (value, previous) => {
    try {
      return parse(value, previous);
    } catch (err) {
      throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
    }
  };
}

/** What completion offers for an option's value or a positional argument, beyond commander's `argChoices`. */
export interface CompletionHint {
  /** The value is a path: complete file names. */
  files?: boolean;
  /** Words to offer, not checked by commander (the command checks them, with its own message). */
  words?: readonly string[];
  /** For a positional argument: offer {@link words} only after one of these words. */
  after?: readonly string[];
  /** The option may be given more than once. */
  repeatable?: boolean;
}

const HINTS = new WeakMap<Option | Argument, CompletionHint>();

/**
 * Attaches a completion hint to an option or argument, leaving its parsing and help untouched.
 * @returns `target`
 */
export function withCompletion<T extends Option | Argument>(target: T, hint: CompletionHint): T {
  HINTS.set(target, hint);
  return target;
}

/** The completion hint of an option or argument, `{}` when none was attached. */
export function completionHint(target: Option | Argument): CompletionHint {
  return HINTS.get(target) ?? {};
}

/**
 * Commander's "(Did you mean set?)" for `word` among `words`, the answer it gives a mistyped
 * command; its similarity rule is not exported, so a silent program whose commands are `words` is
 * asked. Used for words commander does not check itself (config's actions).
 * @returns e.g. `(Did you mean set?)`; '' when no word is close
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
