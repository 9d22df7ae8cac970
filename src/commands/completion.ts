/**
 * `collections completion bash|zsh|fish`: prints a shell completion script. The script is generated
 * from data (the endpoint table, the output formats, the config keys and the option lists below),
 * so a new endpoint or format shows up in completion without editing any script by hand.
 */
import type { Context } from '../context.js';
import { CONFIG_KEYS } from '../config/values.js';
import { ENDPOINTS, exportCommands, ID_FLAGS } from '../endpoints.js';
import { UsageError } from '../errors.js';
import { OUTPUT_FORMATS } from '../output/writer.js';
import { CONFIG_ACTIONS } from './config.js';
import { SANDBOX_OPTION_HELP } from '../cli/help.js';

/** The shells a script can be generated for. */
export type CompletionShell = 'bash' | 'zsh' | 'fish';

/** Every {@link CompletionShell}. */
export const COMPLETION_SHELLS: readonly CompletionShell[] = ['bash', 'zsh', 'fish'];

/** One option as completion sees it. */
export interface CompletionOption {
  /** Long form, e.g. `--out`. */
  long: string;
  /** Short form, e.g. `-o`. */
  short?: string;
  /**
   * The option's value: `file` (complete paths), `text` (nothing to complete), or the list of
   * allowed words; absent for a switch.
   */
  value?: 'file' | 'text' | readonly string[];
  /** One line for the shell's menu. */
  description: string;
  /** May be given more than once (`--param`). */
  repeatable?: boolean;
}

/** Words for one positional argument. */
export interface CompletionPositional {
  /** What the argument is called (zsh's menu heading). */
  name: string;
  words: readonly string[];
  /** Complete only when the previous positional is one of these (e.g. config keys after `set`). */
  after?: readonly string[];
}

/** One command as completion sees it. */
export interface CompletionCommand {
  name: string;
  description: string;
  /** Options of the command besides {@link GLOBAL_OPTIONS}. */
  options: readonly CompletionOption[];
  positionals?: readonly CompletionPositional[];
}

/** Global options, accepted by every command (cli-spec.md). */
export const GLOBAL_OPTIONS: readonly CompletionOption[] = [
  { long: '--api-key', value: 'text', description: 'API key (prefer COLLECTIONS_API_KEY or config)' },
  { long: '--base-url', value: 'text', description: 'API base URL' },
  { long: '--profile', value: 'text', description: 'stored profile to use' },
];

/** Options of every export command (cli-spec.md, "Export options"), ids excluded. */
export const EXPORT_OPTIONS: readonly CompletionOption[] = [
  { long: '--out', short: '-o', value: 'file', description: 'write to a file (- for stdout)' },
  { long: '--format', short: '-f', value: OUTPUT_FORMATS, description: 'output format' },
  { long: '--cursor', description: 'cursor pagination' },
  { long: '--total', description: 'with --cursor, ask for the total item count' },
  { long: '--items-per-page', value: 'text', description: 'items per request, 1 to 1000' },
  { long: '--page', value: 'text', description: 'first page in offset mode' },
  { long: '--max-items', value: 'text', description: 'stop after exactly n items' },
  { long: '--param', value: 'text', description: 'extra query parameter key=value', repeatable: true },
  { long: '--fields', value: 'text', description: 'columns as dot paths, comma-separated' },
  { long: '--csv-safe', description: 'neutralise spreadsheet formulas in csv cells' },
  { long: '--resume', description: 'continue an interrupted export to the same --out' },
  { long: '--concurrency', value: 'text', description: 'pages in flight in offset mode' },
  { long: '--max-wait', value: 'text', description: 'longest rate-limit wait to accept, seconds' },
  { long: '--retries', value: 'text', description: 'retries after network errors or 5xx' },
  { long: '--timeout', value: 'text', description: 'per request, seconds' },
  { long: '--quiet', short: '-q', description: 'no progress and no summary' },
  { long: '--no-progress', description: 'no spinner' },
  { long: '--verbose', short: '-v', description: 'one stderr line per request' },
];

/** Id options, by the id they carry. */
const ID_OPTIONS: Readonly<Record<keyof typeof ID_FLAGS, CompletionOption>> = {
  taxpayerId: { long: ID_FLAGS.taxpayerId, value: 'text', description: 'taxpayer id' },
  invoiceId: { long: ID_FLAGS.invoiceId, value: 'text', description: 'invoice id' },
};

/** Options of `ratelimit`. */
export const RATELIMIT_OPTIONS: readonly CompletionOption[] = [
  ID_OPTIONS.taxpayerId,
  ID_OPTIONS.invoiceId,
  { long: '--json', description: 'an array of objects for scripts' },
  { long: '--cached', description: 'last values seen, send nothing' },
];

/**
 * Options of `sandbox` for completion, derived from the same table the commander program declares
 * them from (`SANDBOX_OPTION_HELP` in cli/help.ts), so the two cannot drift apart.
 */
export const SANDBOX_OPTIONS: readonly CompletionOption[] = SANDBOX_OPTION_HELP.map((o) => ({
  long: o.flags.split(' ')[0]!,
  value: o.option === 'cursorPrevious' ? (['previous', 'last'] as const) : ('text' as const),
  description: o.description,
}));

/** The description of an export command: its endpoint's, or a summary when it has several. */
function exportDescription(command: string): string {
  const rows = ENDPOINTS.filter((e) => e.command === command);
  if (rows.length === 1) return rows[0]!.description;
  return `Export ${command.replace(/-/g, ' ')} (${rows.map((r) => r.ids.map((id) => ID_FLAGS[id]).join(' ')).join(', or ')})`;
}

/**
 * The commands and options completion covers, built from the endpoint table, the output formats
 * and the config keys: the export commands, then `ratelimit`, `config`, `sandbox`, `completion`.
 */
export function defaultCompletionSpec(sandboxOptions: readonly CompletionOption[] = SANDBOX_OPTIONS): CompletionCommand[] {
  const exports: CompletionCommand[] = exportCommands().map((command) => {
    const ids = new Set(ENDPOINTS.filter((e) => e.command === command).flatMap((e) => e.ids));
    const idOptions = (Object.keys(ID_OPTIONS) as Array<keyof typeof ID_OPTIONS>).filter((id) => ids.has(id)).map((id) => ID_OPTIONS[id]);
    return { name: command, description: exportDescription(command), options: [...idOptions, ...EXPORT_OPTIONS] };
  });
  return [
    ...exports,
    { name: 'ratelimit', description: 'Show the quota of each endpoint (one request each)', options: RATELIMIT_OPTIONS },
    {
      name: 'config',
      description: 'Stored settings per profile',
      options: [],
      positionals: [
        { name: 'action', words: CONFIG_ACTIONS },
        { name: 'key', words: CONFIG_KEYS, after: ['set', 'get', 'unset'] },
      ],
    },
    { name: 'sandbox', description: 'Run the bundled local Collection API', options: sandboxOptions },
    {
      name: 'completion',
      description: 'Print a shell completion script',
      options: [],
      positionals: [{ name: 'shell', words: COMPLETION_SHELLS }],
    },
  ];
}

/** Words that go into scripts unquoted must be plain tokens; our own data always is. */
const TOKEN = /^-{0,2}[A-Za-z0-9][A-Za-z0-9._-]*$/;

function checkTokens(spec: readonly CompletionCommand[]): void {
  const words: string[] = [];
  for (const c of spec) {
    words.push(c.name);
    for (const o of [...GLOBAL_OPTIONS, ...c.options]) {
      words.push(o.long);
      if (o.short) words.push(o.short);
      if (Array.isArray(o.value)) words.push(...(o.value as readonly string[]));
    }
    for (const p of c.positionals ?? []) words.push(...p.words, ...(p.after ?? []));
  }
  const bad = words.find((w) => !TOKEN.test(w));
  if (bad !== undefined) throw new Error(`completion word '${bad}' is not a plain token`);
}

/** Single-quotes text for sh/zsh/fish (`'` becomes `'\''`). */
const sq = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** Flags of an option, short first: `-o --out`. */
const flagsOf = (o: CompletionOption): string[] => (o.short ? [o.short, o.long] : [o.long]);

function unionOptions(spec: readonly CompletionCommand[]): CompletionOption[] {
  const seen = new Map<string, CompletionOption>();
  for (const o of [...GLOBAL_OPTIONS, ...spec.flatMap((c) => c.options)]) if (!seen.has(o.long)) seen.set(o.long, o);
  return [...seen.values()];
}

/** The bash script: one function, `complete -F`. */
export function renderBash(spec: readonly CompletionCommand[]): string {
  checkTokens(spec);
  const all = unionOptions(spec);
  const valued = all.filter((o) => o.value !== undefined).flatMap(flagsOf);
  const globals = GLOBAL_OPTIONS.flatMap(flagsOf);
  const lines: string[] = [
    '# bash completion for collections. Generated by `collections completion bash`.',
    '# Install: collections completion bash > ~/.local/share/bash-completion/completions/collections',
    '_collections() {',
    '  local cur prev cmd w i skip=0 words=""',
    '  local -a pos=()',
    '  COMPREPLY=()',
    '  cur="${COMP_WORDS[COMP_CWORD]}"',
    '  prev="${COMP_WORDS[COMP_CWORD-1]}"',
    '  cmd=""',
    '  for (( i=1; i<COMP_CWORD; i++ )); do',
    '    w="${COMP_WORDS[i]}"',
    '    if (( skip )); then skip=0; continue; fi',
    '    case "$w" in',
    `      ${valued.join('|')}) skip=1 ;;`,
    '      -*) ;;',
    '      *) if [[ -z "$cmd" ]]; then cmd="$w"; else pos+=("$w"); fi ;;',
    '    esac',
    '  done',
    '  case "$prev" in',
  ];
  for (const o of all) {
    if (o.value === undefined) continue;
    const pattern = flagsOf(o).join('|');
    if (o.value === 'file') lines.push(`    ${pattern}) COMPREPLY=( $(compgen -f -- "$cur") ); return 0 ;;`);
    else if (o.value === 'text') lines.push(`    ${pattern}) return 0 ;;`);
    else lines.push(`    ${pattern}) COMPREPLY=( $(compgen -W "${o.value.join(' ')}" -- "$cur") ); return 0 ;;`);
  }
  lines.push('  esac', '  case "$cmd" in');
  lines.push(`    "") words="${[...spec.map((c) => c.name), ...globals, '--help', '--version'].join(' ')}" ;;`);
  for (const c of spec) {
    const options = [...c.options.flatMap(flagsOf), ...globals, '--help'].join(' ');
    const positionals = c.positionals ?? [];
    if (positionals.length === 0) {
      lines.push(`    ${c.name}) words="${options}" ;;`);
      continue;
    }
    lines.push(`    ${c.name})`, '      if [[ "$cur" == -* ]]; then', `        words="${options}"`, '      else', '        case ${#pos[@]} in');
    positionals.forEach((p, index) => {
      if (p.after && index > 0) {
        lines.push(`          ${index}) case "\${pos[${index - 1}]}" in ${p.after.join('|')}) words="${p.words.join(' ')}" ;; esac ;;`);
      } else {
        lines.push(`          ${index}) words="${p.words.join(' ')}" ;;`);
      }
    });
    lines.push('        esac', '      fi', '      ;;');
  }
  lines.push(
    '  esac',
    '  COMPREPLY=( $(compgen -W "$words" -- "$cur") )',
    '  return 0',
    '}',
    'complete -o default -F _collections collections',
    '',
  );
  return lines.join('\n');
}

/** Description text safe inside a zsh `_arguments` spec (`[`, `]`, `:` and quotes removed). */
const zshText = (text: string): string => text.replace(/[[\]]/g, '').replace(/:/g, ' -').replace(/['"`\\]/g, '');

/** `_arguments` specs of an option. */
function zshOption(o: CompletionOption): string[] {
  const flags = flagsOf(o);
  const exclusive = o.repeatable ? '*' : flags.length > 1 ? `(${flags.join(' ')})` : '';
  const action =
    o.value === undefined ? '' : o.value === 'file' ? ':file:_files' : o.value === 'text' ? ':value: ' : `:value:(${o.value.join(' ')})`;
  return flags.map((f) => sq(`${exclusive}${f}[${zshText(o.description)}]${action}`));
}

/** The zsh script: `#compdef`, `_arguments` per command. */
export function renderZsh(spec: readonly CompletionCommand[]): string {
  checkTokens(spec);
  const globals = GLOBAL_OPTIONS.flatMap(zshOption);
  const lines: string[] = [
    '#compdef collections',
    '# zsh completion for collections. Generated by `collections completion zsh`.',
    '# Install: collections completion zsh > "${fpath[1]}/_collections"',
    '',
    '_collections_commands() {',
    '  local -a commands',
    '  commands=(',
    ...spec.map((c) => `    ${sq(`${c.name}:${c.description.replace(/'/g, '')}`)}`),
    '  )',
    "  _describe -t commands 'collections command' commands",
    '}',
    '',
    '_collections() {',
    '  local curcontext="$curcontext" state line ret=1',
    '  typeset -A opt_args',
    '  local -a global_opts',
    `  global_opts=( ${globals.join(' ')} )`,
    '  _arguments -C $global_opts \\',
    "    '(- *)'{-h,--help}'[show help]' \\",
    "    '(- *)'{-V,--version}'[print the version]' \\",
    "    '1: :_collections_commands' \\",
    "    '*:: :->args' && ret=0",
    '  case $state in',
    '    args)',
    '      case $words[1] in',
  ];
  for (const c of spec) {
    const specs = [
      ...c.options.flatMap(zshOption),
      sq('(- *)--help[show help]'),
      ...(c.positionals ?? []).map((p, i) => sq(`${i + 1}:${p.name}:(${p.words.join(' ')})`)),
    ];
    lines.push(`        ${c.name})`, `          _arguments $global_opts ${specs.join(' ')} && ret=0`, '          ;;');
  }
  lines.push(
    '      esac',
    '      ;;',
    '  esac',
    '  return ret',
    '}',
    '',
    'if [ "$funcstack[1]" = "_collections" ]; then',
    '  _collections "$@"',
    'else',
    '  compdef _collections collections',
    'fi',
    '',
  );
  return lines.join('\n');
}

/** `complete` arguments of an option's flags: `-s o -l out`. */
function fishFlags(o: CompletionOption): string {
  const parts: string[] = [];
  if (o.short) parts.push(`-s ${o.short.slice(1)}`);
  parts.push(`-l ${o.long.slice(2)}`);
  return parts.join(' ');
}

function fishValue(o: CompletionOption): string {
  if (o.value === undefined) return '';
  if (o.value === 'file') return ' -r -F';
  if (o.value === 'text') return ' -x';
  return ` -x -a ${sq(o.value.join(' '))}`;
}

/** The fish script: one `complete` line per command, option and positional. */
export function renderFish(spec: readonly CompletionCommand[]): string {
  checkTokens(spec);
  const names = spec.map((c) => c.name).join(' ');
  const lines: string[] = [
    '# fish completion for collections. Generated by `collections completion fish`.',
    '# Install: collections completion fish > ~/.config/fish/completions/collections.fish',
    'complete -c collections -f',
    `complete -c collections -n ${sq(`not __fish_seen_subcommand_from ${names}`)} -s h -l help -d ${sq('show help')}`,
    `complete -c collections -n ${sq(`not __fish_seen_subcommand_from ${names}`)} -s V -l version -d ${sq('print the version')}`,
  ];
  for (const c of spec) {
    lines.push(`complete -c collections -n __fish_use_subcommand -a ${c.name} -d ${sq(c.description)}`);
  }
  for (const o of GLOBAL_OPTIONS) lines.push(`complete -c collections ${fishFlags(o)}${fishValue(o)} -d ${sq(o.description)}`);
  for (const c of spec) {
    const when = `__fish_seen_subcommand_from ${c.name}`;
    for (const o of c.options) lines.push(`complete -c collections -n ${sq(when)} ${fishFlags(o)}${fishValue(o)} -d ${sq(o.description)}`);
    const positionals = c.positionals ?? [];
    positionals.forEach((p, i) => {
      const previous = positionals[i - 1];
      let condition = when;
      if (i === 0) condition += `; and not __fish_seen_subcommand_from ${p.words.join(' ')}`;
      else condition += `; and __fish_seen_subcommand_from ${(p.after ?? previous!.words).join(' ')}; and not __fish_seen_subcommand_from ${p.words.join(' ')}`;
      lines.push(`complete -c collections -n ${sq(condition)} -a ${sq(p.words.join(' '))} -d ${sq(p.name)}`);
    });
  }
  lines.push('');
  return lines.join('\n');
}

/**
 * Prints the completion script of `shell` on stdout.
 * @param spec the commands to cover (default {@link defaultCompletionSpec})
 * @returns 0
 * @throws {UsageError} for an unknown shell
 */
export function runCompletion(shell: CompletionShell, ctx: Context, spec: readonly CompletionCommand[] = defaultCompletionSpec()): number {
  const render = shell === 'bash' ? renderBash : shell === 'zsh' ? renderZsh : shell === 'fish' ? renderFish : undefined;
  if (render === undefined) {
    throw new UsageError(`unknown shell '${String(shell)}'`, { hint: `choose one of ${COMPLETION_SHELLS.join(', ')}` });
  }
  ctx.io.stdout.write(render(spec));
  return 0;
}

export { COMPLETION_HELP } from '../cli/help.js';
