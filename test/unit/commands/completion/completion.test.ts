import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Command, Option } from 'commander';
import { createProgram } from '../../../../src/cli/program.js';
import { COMPLETION_SHELLS, type CompletionShell } from '../../../../src/commands/commander.js';
import { runCompletion } from '../../../../src/commands/completion/completion.js';
import { CONFIG_KEYS, EXPORT_FLAGS, longFlag } from '../../../../src/config/flags.js';
import { exportCommands } from '../../../../src/endpoints.js';
import { OUTPUT_FORMATS } from '../../../../src/format-names.js';
import { createTestContext } from '../../../helpers/world.js';

const COMMANDS = ['entities', 'events', 'invoices', 'line-items', 'payments', 'get', 'ratelimit', 'config', 'sandbox', 'completion', 'verify'];
const dir = mkdtempSync(join(tmpdir(), 'collections-completion-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The commander program the scripts are generated from. */
function program(): Command {
  const t = createTestContext();
  return createProgram({ ...t.ctx, version: '0.0.0-test' }, () => undefined);
}

/** The long flags of the program's global options (the version option is offered before a command only). */
const GLOBAL_LONGS = ['--api-key', '--base-url', '--profile'];

function script(shell: CompletionShell, root: Command = program()): string {
  const t = createTestContext();
  expect(runCompletion(t.ctx, { shell, program: root })).toBe(0);
  expect(t.stderr.text()).toBe('');
  return t.stdout.text();
}

/** A program of the given commands and no global options, for the renderers alone. */
const programOf = (...commands: Command[]): Command => {
  const root = new Command('collections');
  for (const c of commands) root.addCommand(c);
  return root;
};

/** The long flags fish completes on lines that match `condition` (a command's, or none for the global ones). */
function fishLongs(text: string, condition: RegExp): string[] {
  return text
    .split('\n')
    .filter((line) => condition.test(line))
    .flatMap((line) => /-l ([a-z-]+)/.exec(line)?.slice(1) ?? [])
    .map((l) => `--${l}`)
    .sort();
}

const hasShell = (name: string): boolean => spawnSync(name, ['-c', 'true']).status === 0;

/** Sources the bash script and asks it to complete `words` (the last one is the word being typed). */
function completeBash(words: string[]): string[] {
  const file = join(dir, 'collections.bash');
  writeFileSync(file, script('bash'));
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const out = execFileSync(
    'bash',
    ['-c', `source "$1"; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _collections; printf '%s\\n' "\${COMPREPLY[@]}"`, 'x', file],
    { encoding: 'utf8' },
  );
  return out.split('\n').filter((l) => l !== '');
}

describe('completion scripts', () => {
  it("the command list comes from the endpoint table plus the fixed commands, in the program's order", () => {
    const names = [...script('fish').matchAll(/-n __fish_use_subcommand -a (\S+)/g)].map((m) => m[1]);
    expect(names).toEqual([...exportCommands(), 'get', 'ratelimit', 'config', 'completion', 'verify', 'sandbox']);
    expect([...names].sort()).toEqual([...COMMANDS].sort());
  });

  it.each(COMPLETION_SHELLS)('%s: names every command, every format and the global options', (shell) => {
    const text = script(shell);
    for (const c of COMMANDS) expect(text).toMatch(new RegExp(`(^|[^a-z-])${c}([^a-z-]|$)`, 'm'));
    for (const f of OUTPUT_FORMATS) expect(text).toContain(f);
    for (const long of GLOBAL_LONGS) expect(text).toContain(shell === 'fish' ? `-l ${long.slice(2)}` : long);
    for (const long of EXPORT_FLAGS.map(longFlag)) expect(text).toContain(shell === 'fish' ? `-l ${long.slice(2)}` : long);
    for (const k of CONFIG_KEYS) expect(text).toContain(k);
  });

  it('bash: the script is valid syntax (bash -n)', () => {
    const file = join(dir, 'syntax.bash');
    writeFileSync(file, script('bash'));
    const r = spawnSync('bash', ['-n', file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.runIf(hasShell('zsh'))('zsh: the script is valid syntax (zsh -n)', () => {
    const file = join(dir, '_collections');
    writeFileSync(file, script('zsh'));
    expect(spawnSync('zsh', ['-n', file]).status).toBe(0);
  });

  it.runIf(hasShell('fish'))('fish: the script is valid syntax (fish -n)', () => {
    const file = join(dir, 'collections.fish');
    writeFileSync(file, script('fish'));
    expect(spawnSync('fish', ['-n', file]).status).toBe(0);
  });

  it.each([
    { words: ['collections', ''], expected: COMMANDS, absent: ['--cursor'] },
    { words: ['collections', 'in'], expected: ['invoices'], absent: ['entities'] },
    { words: ['collections', 'invoices', '--format', ''], expected: [...OUTPUT_FORMATS], absent: ['invoices'] },
    { words: ['collections', 'invoices', '-f', 'n'], expected: ['ndjson'], absent: ['json'] },
    { words: ['collections', 'line-items', '--'], expected: ['--taxpayer', '--invoice', '--cursor', '--api-key', '--no-progress'], absent: [] },
    { words: ['collections', 'entities', '--'], expected: ['--items-per-page'], absent: ['--taxpayer', '--invoice', '--cursor', '--total'] },
    { words: ['collections', 'ratelimit', '--'], expected: ['--cached', '--json', '--taxpayer'], absent: ['--cursor'] },
    { words: ['collections', '--profile', 'work', 'config', ''], expected: ['set', 'get', 'unset', 'list', 'path'], absent: ['work'] },
    { words: ['collections', 'config', 'set', ''], expected: [...CONFIG_KEYS], absent: ['set'] },
    { words: ['collections', 'config', 'list', ''], expected: [], absent: [...CONFIG_KEYS] },
    { words: ['collections', 'completion', ''], expected: ['bash', 'zsh', 'fish'], absent: [] },
  ])('bash completes $words', ({ words, expected, absent }) => {
    const got = completeBash(words);
    for (const w of expected) expect(got).toContain(w);
    for (const w of absent) expect(got).not.toContain(w);
  });

  it('refuses words that are not plain tokens, so nothing reaches a script unquoted', () => {
    const root = programOf(new Command('evil$(rm -rf ~)').description('x'));
    for (const shell of COMPLETION_SHELLS) expect(() => script(shell, root)).toThrow(/plain token/);
  });

  it('quotes descriptions with apostrophes for zsh and fish', () => {
    const root = programOf(new Command('invoices').description("a taxpayer's invoices").addOption(new Option('--x', "it's")));
    expect(script('fish', root)).toContain(`'a taxpayer'\\''s invoices'`);
    expect(script('zsh', root)).not.toMatch(/[^\\]'s invoices/);
  });
});

describe('completion stays in step with the commander program', () => {
  it('every option of every command of cli/program.ts is completed, and nothing else', () => {
    const root = program();
    const text = script('fish');
    const longs = (options: readonly { long?: string }[]): string[] =>
      options
        .map((o) => o.long)
        .filter((l): l is string => l !== undefined && l !== '--help' && l !== '--version')
        .sort();
    const globals = fishLongs(text, /^complete -c collections (-s \S+ )?-l /);
    expect(longs(root.options)).toEqual(globals);
    expect(globals).toEqual([...GLOBAL_LONGS].sort());
    expect(fishLongs(text, /-n 'not __fish_seen_subcommand_from /).filter((l) => l !== '--help')).toEqual(['--version']);
    for (const cmd of root.commands) {
      const ours = fishLongs(text, new RegExp(`-n '__fish_seen_subcommand_from ${cmd.name()}' (-s \\S+ )?-l `));
      // A hidden option (--cursor where no endpoint pages by cursor) is accepted but not offered.
      expect(longs(cmd.options.filter((o) => !o.hidden)), `options of ${cmd.name()}`).toEqual(ours);
    }
  });

  it.each(COMPLETION_SHELLS)('%s: every long option of every commander command appears in the script', (shell) => {
    const root = program();
    const text = script(shell);
    const all = [root, ...root.commands].flatMap((cmd) => cmd.options.map((o) => o.long!));
    expect(all.length).toBeGreaterThan(40);
    for (const long of all) expect(text, long).toContain(shell === 'fish' ? `-l ${long.slice(2)}` : long);
  });

  it('reads values from the tree: choices, file paths, hinted words, switches and repeatable options', () => {
    const bash = script('bash');
    expect(bash).toContain(`    -f|--format) COMPREPLY=( $(compgen -W "${OUTPUT_FORMATS.join(' ')}" -- "$cur") ); return 0 ;;`);
    expect(bash).toContain('    -o|--out) COMPREPLY=( $(compgen -f -- "$cur") ); return 0 ;;');
    expect(bash).toContain('    --taxpayer) return 0 ;;');
    expect(bash).toContain('    --param) return 0 ;;');
    expect(script('zsh')).toContain("'*--param[");
    const skipped = /^ {6}(\S+)\) skip=1 ;;$/m.exec(bash)![1]!.split('|');
    expect(skipped).toContain('--taxpayer');
    expect(skipped).not.toContain('--cursor');
    expect(skipped).not.toContain('--no-progress');
    expect(bash).toContain('    --cursor-previous) COMPREPLY=( $(compgen -W "previous last" -- "$cur") ); return 0 ;;');
    expect(bash).toContain('          0) words="set get unset list profiles path" ;;');
    expect(bash).toContain(`          1) case "\${pos[0]}" in set|get|unset) words="${CONFIG_KEYS.join(' ')}" ;; esac ;;`);
  });
});
