/**
 * The program's help (its examples and exit codes, the overview) and what every command's help
 * shares: exit-code rows, sample ids, the wrapping to the terminal's width. Text only, so `--help`
 * stays cheap.
 */
import { Help, type Command } from 'commander';
import type { Context } from '../context.js';
import { exportCommands, type IdName } from '../endpoints.js';
import { ExitCode } from '../errors.js';
import { outputColumns } from '../io/terminal-text.js';

/** The code may be several, e.g. `130/143`. */
export type ExitCodeRow = readonly [code: string, meaning: string];

const INTERRUPTED = `${ExitCode.Sigint}/${ExitCode.Sigterm}`;

/** README, "Exit codes". */
export const EXPORT_EXIT_CODES: readonly ExitCodeRow[] = [
  [String(ExitCode.Ok), 'complete'],
  [String(ExitCode.Usage), 'usage or configuration error, or the API rejected the parameters (400)'],
  [String(ExitCode.Auth), 'the API key was rejected (401 or 403)'],
  [String(ExitCode.NotFound), 'not found (404): unknown taxpayer or invoice'],
  [String(ExitCode.RateLimited), 'a rate-limit wait longer than --max-wait; checkpoint kept'],
  [String(ExitCode.Unavailable), 'the API could not be read (network, 5xx after retries, unsafe response)'],
  [String(ExitCode.Output), 'the output could not be written'],
  [String(ExitCode.Verify), 'a database kept items it cannot hold as written apart, in collections_rejects; complete otherwise'],
  [INTERRUPTED, 'interrupted by SIGINT / SIGTERM; checkpoint kept'],
];

/** Shared by `verify --help` and the program's. */
export const VERIFY_FAILED: ExitCodeRow = [String(ExitCode.Verify), 'verify: an output is missing or its size, SHA-256 or item count differs'];

const PROGRAM_EXIT_CODES: readonly ExitCodeRow[] = [
  ...EXPORT_EXIT_CODES.slice(0, 1),
  [String(ExitCode.Internal), 'internal error (a bug: please report it)'],
  ...EXPORT_EXIT_CODES.slice(1, -2),
  [String(ExitCode.Verify), `${VERIFY_FAILED[1]}; an export into a database kept items apart (collections_rejects)`],
  ...EXPORT_EXIT_CODES.slice(-1),
];

export function exitCodesHelp(rows: readonly ExitCodeRow[]): string {
  const width = Math.max(...rows.map(([code]) => code.length));
  return `\nExit codes:\n${rows.map(([code, meaning]) => `  ${code.padEnd(width)}  ${meaning}`).join('\n')}`;
}

/** The sandbox serves both (its first taxpayer and that taxpayer's newest invoice), so every example runs as written. */
export const SAMPLE_IDS: Readonly<Record<IdName, string>> = {
  taxpayerId: 'PEIC211118IS0',
  invoiceId: '018e96f4-a418-7d2e-9f3a-4b5c6d7e8f90',
};

/** The first taxpayer's entity in the sandbox. */
export const SAMPLE_ENTITY_ID = '01869a77-fc00-7a1e-8c3b-5d6e7f8091a2';

export const PROGRAM_EXAMPLES = `
Examples:
  $ collections config set base-url https://api.example.com
  $ collections config set api-key            # prompts; keeps the key out of shell history
  $ collections invoices --taxpayer PEIC211118IS0 --cursor --out invoices.ndjson
  $ collections invoices --taxpayer PEIC211118IS0 --cursor --out invoices.ndjson --resume
  $ collections entities --format csv --fields id,taxpayer.id,taxpayer.name > entities.csv
  $ collections ratelimit --taxpayer PEIC211118IS0
  $ collections sandbox                         # a local API to try it all
${exitCodesHelp(PROGRAM_EXIT_CODES)}`;

/** Of the commands that are not export commands, for the overview. */
const SUMMARIES: Readonly<Record<string, string>> = {
  get: 'export any collection path (/entities/<entityId>/invoices, …)',
  ratelimit: 'show the rate-limit quota of each endpoint',
  config: 'show or change stored settings (base URL, key, defaults)',
  completion: 'print a shell completion script (bash, zsh, fish)',
  verify: 'check exported files against their manifests (size, hash, items)',
  sandbox: 'run a local copy of the API to try everything on',
};

const WIDTH = 80;
const COMMAND_COLUMN = 12;

/** What `collections` alone prints, for someone who has just installed it, instead of commander's full help on stderr. */
export function overviewText(program: Command, version: string): string {
  const exports = new Set(exportCommands());
  const others = program.commands
    .filter((cmd) => !exports.has(cmd.name()))
    .map((cmd) => `  ${cmd.name().padEnd(COMMAND_COLUMN)} ${SUMMARIES[cmd.name()] ?? cmd.description()}`);
  return [
    program.createHelp().boxWrap(`collections ${version}: ${program.description()}`, WIDTH),
    '',
    'Commands:',
    `  ${[...exports].join(', ')}`,
    `  ${''.padEnd(COMMAND_COLUMN)} export that collection (to a file, or stdout)`,
    ...others,
    '',
    'Start here:',
    '  $ collections config set base-url https://api.example.com',
    '  $ collections config set api-key   # prompts; keeps the key out of history',
    '  $ collections sandbox              # or first try it all on a local API',
    '',
    'Example:',
    `  $ collections invoices --taxpayer ${SAMPLE_IDS.taxpayerId} --out invoices.ndjson`,
    '',
    'More: collections --help, collections <command> --help',
    '',
  ].join('\n');
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
