/**
 * Commander glue shared by the command factories and the program: binding a command to a
 * {@link Context}, turning our parsers' errors into commander's, and the completion hints that
 * commander has no field for (a value that names a file, words a positional argument completes to).
 * Shell completion (commands/completion.ts) is generated from the commander tree plus these hints.
 */
import { Command, CommanderError, Help, InvalidArgumentError, type Argument, type Option } from 'commander';
import type { Context } from '../context.js';
import { outputColumns } from '../io/terminal-text.js';

/**
 * What a command does once commander has parsed it, as GitHub CLI's `NewCmdX(f, runF)`: each
 * `create<Name>Command(wiring, run)` loads its `run<Name>` lazily, so `--help` loads no HTTP,
 * output or config-store code; tests pass a fake.
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
 * Makes `cmd` report to the context's streams and throw instead of exiting (commander's
 * `exitOverride`), with error lines as `collections: <message>` (README, "Exit codes"); its help
 * lists the global flags a subcommand accepts (`showGlobalOptions`: `--api-key`, `--base-url`,
 * `--profile`), and an unknown command or flag is answered with the closest one
 * (`showSuggestionAfterError`: "(Did you mean invoices?)"). Its help, the texts added after it
 * included, is wrapped to {@link helpWidth} ({@link wrapHelp}). The same settings on the program and
 * on each command: `addCommand` does not copy them (`command()` does).
 * @returns `cmd`
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

/** The width help is wrapped to: `COLUMNS`, else the terminal's width, else 80 columns. */
export function helpWidth(ctx: Pick<Context, 'io' | 'env'>): number {
  return outputColumns(ctx.io, ctx.env) ?? 80;
}

/** Commander's word wrapping and display width, wrapping at any width (its default skips below 40). */
const HELP = Object.assign(new Help(), { minWidthToWrap: 1 });

/** Columns a hanging indent leaves at least; with fewer, the text goes under the line's start instead. */
const MIN_HANGING_TEXT = 24;

/** Words of a command line, a quoted string being one word (a break inside it would change the command). */
function commandWords(text: string): string[] {
  return text.match(/(?:'[^']*'|"(?:\\.|[^"\\])*"|[^\s'"])+/g) ?? [];
}

/**
 * An example command line (`  $ collections …`) cut at spaces into lines ending in ` \`, each
 * continuation indented 4 more, so it still pastes into a shell; a `# comment` that does not fit
 * after it goes on a line of its own above it.
 */
function wrapCommand(line: string, width: number): string[] {
  const lead = line.indexOf('$');
  const comment = /\s+(#.*)$/.exec(line.slice(lead));
  const command = comment ? line.slice(lead, lead + comment.index) : line.slice(lead);
  const out: string[] = [];
  let current = ' '.repeat(lead);
  for (const word of commandWords(command)) {
    const joined = current.trim() === '' ? current + word : `${current} ${word}`;
    if (current.trim() === '' || HELP.displayWidth(joined) + 2 <= width) current = joined;
    else {
      out.push(`${current} \\`);
      current = `${' '.repeat(lead + 4)}${word}`;
    }
  }
  out.push(current);
  if (comment) {
    const withComment = `${out.at(-1)!}  ${comment[1]}`;
    if (HELP.displayWidth(withComment) <= width) out[out.length - 1] = withComment;
    else {
      const text = HELP.boxWrap(comment[1]!.replace(/^#\s*/, ''), width - lead - 2).split('\n');
      out.unshift(...text.map((t) => `${' '.repeat(lead)}# ${t}`));
    }
  }
  return out;
}

/**
 * An indented line (a list or two columns: `  2        usage or …`) wrapped with a hanging indent
 * under its second column, or under its start when that leaves too little room.
 */
function wrapIndented(line: string, width: number): string[] {
  const lead = /^\s*/.exec(line)![0].length;
  const gap = /^\s*\S+(?: \S+)*? {2,}(?=\S)/.exec(line);
  const longest = (text: string): number => Math.max(0, ...text.split(/\s+/).map((w) => HELP.displayWidth(w)));
  if (gap !== null && width - gap[0].length >= Math.max(MIN_HANGING_TEXT, longest(line.slice(gap[0].length)))) {
    const column = gap[0].length;
    const wrapped = HELP.boxWrap(line.slice(column), width - column).split('\n');
    return wrapped.map((text, k) => (k === 0 ? line.slice(0, column) : ' '.repeat(column)) + text);
  }
  // Less indent when a word would not fit under the line's own.
  const body = line.slice(lead);
  const room = Math.max(0, width - longest(body));
  const [first, rest] = [Math.min(lead, room), Math.min(lead + 2, room)];
  return HELP.boxWrap(body, width - rest)
    .split('\n')
    .map((text, k) => ' '.repeat(k === 0 ? first : rest) + text);
}

/**
 * Help text wrapped to `width` columns: a paragraph (lines starting at column 0, up to a blank
 * line, an indented line or a line ending in `:`) that has a line too wide is reflowed; a wider
 * example command is cut with ` \` continuations; another wider indented line gets a hanging
 * indent. What fits is left as written.
 */
export function wrapHelp(text: string, width: number): string {
  const lines = text.split('\n');
  const out: string[] = [];
  const prose = (l: string | undefined): l is string => l !== undefined && /^\S/.test(l);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (prose(line)) {
      const paragraph = [line];
      while (!paragraph.at(-1)!.endsWith(':') && prose(lines[i + 1])) paragraph.push(lines[++i]!);
      const fits = paragraph.every((l) => HELP.displayWidth(l) <= width);
      out.push(...(fits ? paragraph : HELP.boxWrap(paragraph.join(' '), width).split('\n')));
    } else if (HELP.displayWidth(line) <= width) out.push(line);
    else if (/^\s*\$ /.test(line)) out.push(...wrapCommand(line, width));
    else out.push(...wrapIndented(line, width));
  }
  return out.join('\n');
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

/** The shells `completion` writes a script for. */
export type CompletionShell = 'bash' | 'zsh' | 'fish';

export const COMPLETION_SHELLS: readonly CompletionShell[] = ['bash', 'zsh', 'fish'];
