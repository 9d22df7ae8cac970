import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { createProgram } from '../../../../src/cli/program.js';
import { COMPLETION_SHELLS, type CompletionShell } from '../../../../src/commands/commander.js';
import {
  completionSpec,
  renderBash,
  renderFish,
  renderZsh,
  runCompletion,
  type CompletionSpec,
} from '../../../../src/commands/completion/completion.js';
import { CONFIG_KEYS, EXPORT_FLAGS, longFlag } from '../../../../src/config/flags.js';
import { exportCommands } from '../../../../src/endpoints.js';
import { UsageError } from '../../../../src/errors.js';
import { OUTPUT_FORMATS } from '../../../../src/format-names.js';
import { createTestContext } from '../../../helpers/context.js';

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

function script(shell: CompletionShell): string {
  const t = createTestContext();
  expect(runCompletion(t.ctx, { shell, program: program() })).toBe(0);
  expect(t.stderr.text()).toBe('');
  return t.stdout.text();
}

/** A spec of the given commands and no global options, for the renderers alone. */
const specOf = (commands: CompletionSpec['commands']): CompletionSpec => ({ globals: [], rootOnly: [], commands });

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
    const names = completionSpec(program()).commands.map((c) => c.name);
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
    const spec = specOf([{ name: 'evil$(rm -rf ~)', description: 'x', options: [] }]);
    for (const render of [renderBash, renderZsh, renderFish]) expect(() => render(spec)).toThrow(/plain token/);
  });

  it('quotes descriptions with apostrophes for zsh and fish', () => {
    const spec = specOf([{ name: 'invoices', description: "a taxpayer's invoices", options: [{ long: '--x', description: "it's" }] }]);
    expect(renderFish(spec)).toContain(`'a taxpayer'\\''s invoices'`);
    expect(renderZsh(spec)).not.toMatch(/[^\\]'s invoices/);
  });

  it('an unknown shell is a usage error', () => {
    const t = createTestContext();
    expect(() => runCompletion(t.ctx, { shell: 'powershell', program: program() })).toThrow(UsageError);
    expect(t.stdout.text()).toBe('');
  });
});

describe('completion stays in step with the commander program', () => {
  it('every option of every command of cli/program.ts is completed, and nothing else', () => {
    const root = program();
    const spec = completionSpec(root);
    const byName = new Map(spec.commands.map((c) => [c.name, c]));
    const longs = (options: readonly { long?: string }[]): string[] =>
      options
        .map((o) => o.long)
        .filter((l): l is string => l !== undefined && l !== '--help' && l !== '--version')
        .sort();
    expect(longs(root.options)).toEqual(spec.globals.map((o) => o.long).sort());
    expect(spec.globals.map((o) => o.long).sort()).toEqual([...GLOBAL_LONGS].sort());
    expect(spec.rootOnly.map((o) => o.long)).toEqual(['--version']);
    expect(spec.commands.map((c) => c.name)).toEqual(root.commands.map((c) => c.name()));
    for (const cmd of root.commands) {
      const ours = byName.get(cmd.name());
      expect(ours, `command ${cmd.name()} is missing from completion`).toBeDefined();
      // A hidden option (--cursor where no endpoint pages by cursor) is accepted but not offered.
      expect(longs(cmd.options.filter((o) => !o.hidden)), `options of ${cmd.name()}`).toEqual(ours!.options.map((o) => o.long).sort());
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
    const spec = completionSpec(program());
    const options = (name: string) => new Map(spec.commands.find((c) => c.name === name)!.options.map((o) => [o.long, o]));
    const invoices = options('invoices');
    expect(invoices.get('--format')).toMatchObject({ short: '-f', value: [...OUTPUT_FORMATS] });
    expect(invoices.get('--out')).toMatchObject({ short: '-o', value: 'file' });
    expect(invoices.get('--taxpayer')).toMatchObject({ value: 'text' });
    expect(invoices.get('--param')).toMatchObject({ value: 'text', repeatable: true });
    expect(invoices.get('--cursor')!.value).toBeUndefined();
    expect(invoices.get('--no-progress')!.value).toBeUndefined();
    expect(options('sandbox').get('--cursor-previous')!.value).toEqual(['previous', 'last']);
    const config = spec.commands.find((c) => c.name === 'config')!;
    expect(config.positionals).toEqual([
      { name: 'action', words: ['set', 'get', 'unset', 'list', 'profiles', 'path'] },
      { name: 'args', words: CONFIG_KEYS, after: ['set', 'get', 'unset'] },
    ]);
  });
});
