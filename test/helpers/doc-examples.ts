/**
 * The command examples of the README and of docs/*.md, read as a reader would run them (docs/README.md,
 * "The examples are tested"): fenced `sh`, `bash` and `console` blocks, the `<!-- docs-test: … -->`
 * marker before each, and every `collections …` command in them as an argv. Only as much shell as
 * the docs use is understood (quotes, `\` continuations, `$VAR`, `"$@"`, `~`, `> file`, and the end
 * of the command at `|`, `&`, `;` or `#`); anything else (`<`, `$(…)`, an unknown variable) throws,
 * so an example the test cannot run faithfully must be marked skipped instead of run half.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One fenced block of a page. */
export interface DocBlock {
  /** Page path relative to the repository, e.g. `docs/files.md`. */
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The block's lines, fences excluded. */
  body: string[];
  /** Exit code every command of the block must end with (`<!-- docs-test: exit N -->`; default 0). */
  exit: number;
  /** Why the block is not run (`<!-- docs-test: skip (why) -->`), if it is not. */
  skip?: string;
}

/** One `collections …` command of a block, as words after the shell's quoting is removed. */
export interface DocCommand {
  /** The command line as written (continuations joined). */
  source: string;
  /** The arguments after `collections`, variables substituted. */
  args: string[];
  /** Where `> file` sends stdout, if the line says so. */
  stdoutTo?: string;
}

/** The pages whose examples run: README.md, then docs/*.md in name order. */
export function docPages(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

const MARKER = /^<!--\s*docs-test:\s*(.*?)\s*-->$/;
const RUNNABLE = new Set(['sh', 'bash', 'console']);

/**
 * The fenced blocks of one page in the runnable languages, with their markers.
 * @throws {Error} on a `docs-test` marker that is neither `exit N` nor `skip (why)`
 */
export function docBlocks(root: string, page: string): DocBlock[] {
  const lines = readFileSync(join(root, page), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    if (end < 0) throw new Error(`${page}:${i + 1}: unclosed fence`);
    const lang = open[1]!;
    const before = i > 0 ? MARKER.exec(lines[i - 1]!.trim()) : null;
    const block: DocBlock = { page, line: i + 1, lang, body: lines.slice(i + 1, end), exit: 0 };
    if (before) {
      const exit = /^exit (\d+)$/.exec(before[1]!);
      const skip = /^skip \((.+)\)$/.exec(before[1]!);
      if (exit) block.exit = Number(exit[1]);
      else if (skip) block.skip = skip[1]!;
      else throw new Error(`${page}:${i}: unknown marker <!-- docs-test: ${before[1]!} -->`);
    }
    if (RUNNABLE.has(lang)) blocks.push(block);
    i = end;
  }
  return blocks;
}

/** The logical lines of a block: `\` continuations joined, `$ ` prompts of a console block removed. */
function logicalLines(block: DocBlock): string[] {
  const out: string[] = [];
  let pending = '';
  for (const raw of block.body) {
    let line = pending === '' ? raw.trim() : `${pending} ${raw.trim()}`;
    if (line.endsWith('\\')) {
      pending = line.slice(0, -1).trimEnd();
      continue;
    }
    pending = '';
    if (block.lang === 'console') {
      if (!line.startsWith('$ ')) continue;
      line = line.slice(2);
    }
    out.push(line);
  }
  return out;
}

/**
 * The `collections` commands of a block, in order.
 * @param vars values of `$NAME` / `${NAME}` (`HOME` also stands for `~`)
 * @throws {Error} on shell the examples must not use (see the module comment)
 */
export function docCommands(block: DocBlock, vars: Readonly<Record<string, string>>): DocCommand[] {
  return logicalLines(block)
    .filter((l) => l === 'collections' || l.startsWith('collections '))
    .map((source) => {
      const words = shellWords(source, vars);
      const redirect = words.indexOf('\0>');
      const stdoutTo = redirect >= 0 ? words[redirect + 1] : undefined;
      const args = (redirect >= 0 ? words.slice(0, redirect) : words).slice(1);
      return stdoutTo === undefined ? { source, args } : { source, args, stdoutTo };
    });
}

/**
 * Splits one command line into words as a POSIX shell would, up to the end of its first command.
 * A `>` or `>>` becomes the word `\0>` followed by its target.
 */
export function shellWords(line: string, vars: Readonly<Record<string, string>>): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '' | "'" | '"' = '';
  const add = (text: string): void => {
    word = (word ?? '') + text;
  };
  const variable = (at: number): [string, number] => {
    const m = /^\$(?:\{(\w+)\}|(\w+)|(@))/.exec(line.slice(at));
    if (!m) throw new Error(`unsupported shell at ${JSON.stringify(line.slice(at))} in: ${line}`);
    if (m[3]) return ['', m[0].length];
    const name = m[1] ?? m[2]!;
    const value = vars[name];
    if (value === undefined) throw new Error(`unknown variable $${name} in: ${line}`);
    return [value, m[0].length];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = '';
      else add(c);
    } else if (quote === '"') {
      if (c === '"') quote = '';
      else if (c === '\\' && '$"\\'.includes(line[i + 1] ?? '')) add(line[++i]!);
      else if (c === '$') {
        const [value, length] = variable(i);
        add(value);
        i += length - 1;
      } else add(c);
    } else if (line.startsWith('"$@"', i) && word === undefined) {
      // "$@" with no arguments is no word at all.
      i += 3;
    } else if (c === "'" || c === '"') {
      quote = c;
      add('');
    } else if (c === '\\') add(line[++i] ?? '');
    else if (c === '$') {
      const [value, length] = variable(i);
      add(value);
      i += length - 1;
    } else if (c === '~' && word === undefined) add(vars['HOME'] ?? '~');
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '>') {
      if (word !== undefined) words.push(word);
      word = undefined;
      if (line[i + 1] === '>') i++;
      words.push('\0>');
    } else if (c === '<' || c === '`' || c === '(' || c === ')') {
      throw new Error(`unsupported shell ${JSON.stringify(c)} in: ${line}`);
    } else if (c === '|' || c === '&' || c === ';' || (c === '#' && word === undefined)) break;
    else add(c);
  }
  if (quote !== '') throw new Error(`unclosed quote in: ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}
