/** Commander glue shared by the commands and the program, and the completion hints commander has no field for. */
import { Command, CommanderError, Help, InvalidArgumentError, type Argument, type Option } from 'commander';
import type { Context } from '../context.js';
import { outputColumns } from '../io/terminal-text.js';

/**
 * What a command does once commander has parsed it, as GitHub CLI's `NewCmdX(f, runF)`: the
 * program loads each `run<Name>` lazily, so `--help` loads no HTTP, output or config-store code;
 * tests pass a fake.
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

/** `COLUMNS`, else the terminal's width, else 80. */
export function helpWidth(ctx: Pick<Context, 'io' | 'env'>): number {
  return outputColumns(ctx.io, ctx.env) ?? 80;
}

/** Its default does not wrap below 40 columns. */
const HELP = Object.assign(new Help(), { minWidthToWrap: 1 });

/** Fewer columns left by a hanging indent put the text under the line's start instead. */
const MIN_HANGING_TEXT = 24;

/** A quoted string is one word: a break inside it would change the command. */
function commandWords(text: string): string[] {
  return text.match(/(?:'[^']*'|"(?:\\.|[^"\\])*"|[^\s'"])+/g) ?? [];
}

/** Cut with ` \` continuations so it still pastes into a shell; a `# comment` that does not fit goes above. */
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

/** What fits is left as written: a paragraph is reflowed only when one of its lines is too wide. */
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
