/**
 * Help that teaches (README, "Commands"): every subcommand's help lists the global flags it
 * accepts, examples that parse, and its exit codes; `collections` alone prints a short overview;
 * unknown commands and flags get the closest one suggested; a repeated id flag is refused.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import stringWidth from 'string-width';
import { createProgram } from '../../src/cli/program.js';
import { wrapHelp } from '../../src/commands/help-text.js';
import { planExport } from '../../src/export/plan/plan.js';
import { exportCommands } from '../../src/endpoints.js';
import { createTestContext, type TestContext, removeTempDirs, tempDir } from '../helpers/world.js';

afterAll(removeTempDirs);

/** Runs `collections ...args` in process with a fresh config folder; nothing may be fetched. */
async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string; t: TestContext }> {
  const dir = tempDir();
  const t = createTestContext({ cwd: dir.path, configDir: dir.file('config'), env });
  const code = await main(args, t.ctx);
  expect(t.fetched).toEqual([]);
  return { code, out: t.stdout.text(), err: t.stderr.text(), t };
}

/** The names of the program's subcommands, as built for a run. */
function subcommands(): string[] {
  const t = createTestContext();
  return createProgram(t.ctx, () => undefined).commands.map((c) => c.name());
}

/** The lines of the block that starts with `title` (up to the next blank line). */
function block(text: string, title: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(title);
  expect(start, `no "${title}" in:\n${text}`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l.trim() === '');
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

describe('every subcommand help', () => {
  it('covers every command of the program', () => {
    expect(subcommands()).toEqual([...exportCommands(), 'get', 'ratelimit', 'config', 'completion', 'verify', 'sandbox']);
  });

  it.each(subcommands().map((name) => ({ name })))('$name --help: global flags, examples, exit codes; exit 0', async ({ name }) => {
    const r = await run([name, '--help']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const globals = block(r.out, 'Global Options:').join('\n');
    for (const flag of ['--api-key <key>', '--base-url <url>', '--profile <name>']) expect(globals).toContain(flag);

    const examples = block(r.out, 'Examples:').filter((l) => l.startsWith('  $ '));
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const line of examples) expect(line).toMatch(new RegExp(`collections ${name}\\b`));

    // A meaning wider than the help goes on under its column.
    const codes = block(r.out, 'Exit codes:').filter((l) => /^ {2}\S/.test(l));
    expect(codes[0]).toMatch(/^ {2}0 +\S/);
    expect(codes.some((l) => /^ {2}2 +\S/.test(l))).toBe(true);
    for (const line of codes) expect(line).toMatch(/^ {2}\d+(\/\d+)? +\S/);
  });

  it('`help NAME` prints the same help as `NAME --help`', async () => {
    const [a, b] = await Promise.all([run(['help', 'invoices']), run(['invoices', '--help'])]);
    expect(a.out).toBe(b.out);
  });

  it('an export command lists all nine exit codes of an export, interruption last', async () => {
    const codes = block((await run(['payments', '--help'])).out, 'Exit codes:')
      .filter((l) => /^ {2}\S/.test(l))
      .map((l) => l.trim().split(/ +/)[0]);
    expect(codes).toEqual(['0', '2', '3', '4', '5', '6', '7', '8', '130/143']);
  });

  it('the program help lists the exit codes, 1 (a bug) included', async () => {
    const codes = block((await run(['--help'])).out, 'Exit codes:')
      .filter((l) => /^ {2}\S/.test(l))
      .map((l) => l.trim().split(/ +/)[0]);
    expect(codes).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '130/143']);
  });

  it.each(exportCommands().map((name) => ({ name })))('the examples of $name parse into an export plan as written', async ({ name }) => {
    const out = (await run([name, '--help'])).out;
    // An example wider than the help is cut with ` \` continuations (80 columns when not a terminal).
    const examples = block(out, 'Examples:')
      .join('\n')
      .replace(/ \\\n +/g, ' ')
      .split('\n')
      .map((l) => l.replace(/^ {2}\$ collections /, ''));
    expect(examples).toHaveLength(3);
    const settings = { apiKey: 'k', baseUrl: new URL('https://api.example.com/'), defaults: {} };
    for (const example of examples) {
      const argv = example.split(' ');
      const t = createTestContext();
      const planned: string[] = [];
      const program = createProgram(t.ctx, () => undefined, {
        runners: {
          export: (_ctx, { command, flags }) => {
            planned.push(planExport({ command, options: flags, settings, cwd: '/tmp', resumeCommand: '' }).pages.start.pathname);
            return 0;
          },
        },
      });
      await program.parseAsync(argv, { from: 'user' });
      expect(planned, example).toHaveLength(1);
      expect(t.stderr.text()).toBe('');
    }
  });
});

describe('help fits the terminal (issue 27: it reached 140 columns on an 80-column terminal)', () => {
  const screens = [[], ['--help'], ['help'], ...subcommands().map((name) => [name, '--help'])];
  const widest = (text: string): number => Math.max(...text.split('\n').map((l) => stringWidth(l)));

  it.each(screens.flatMap((args) => [80, 60].map((columns) => ({ args, columns }))))(
    'collections $args at COLUMNS=$columns: no line is wider',
    async ({ args, columns }) => {
      const r = await run(args, { COLUMNS: String(columns) });
      expect(r.code).toBe(0);
      expect(widest(r.out)).toBeLessThanOrEqual(columns);
    },
  );

  it('is 80 columns when not a terminal, and the terminal width when it is', async () => {
    const piped = await run(['sandbox', '--help']);
    expect(widest(piped.out)).toBeLessThanOrEqual(80);
    const dir = tempDir();
    const t = createTestContext({ cwd: dir.path, configDir: dir.file('config'), stdoutIsTTY: true, columns: 110 });
    expect(await main(['sandbox', '--help'], t.ctx)).toBe(0);
    expect(widest(t.stdout.text())).toBeGreaterThan(80);
    expect(widest(t.stdout.text())).toBeLessThanOrEqual(110);
  });

  it('a long example is cut with ` \\` continuations that paste as one command; a comment that does not fit goes above it', () => {
    const line = "  $ collections sandbox --faults 'status status=503 p=0.2; reset-mid-body requests=5'   # two faults";
    expect(wrapHelp(line, 60).split('\n')).toEqual([
      '  # two faults',
      '  $ collections sandbox --faults \\',
      "      'status status=503 p=0.2; reset-mid-body requests=5'",
    ]);
    expect(wrapHelp('  2        usage or configuration error, or the API rejected the parameters (400)', 60).split('\n')).toEqual([
      '  2        usage or configuration error, or the API rejected',
      '           the parameters (400)',
    ]);
  });

  it.each(['entities', 'events'])('%s --help does not list --cursor and --total, which always fail there', async (name) => {
    expect((await run([name, '--help'])).out).not.toMatch(/--cursor|--total/);
    expect((await run(['invoices', '--help'])).out).toMatch(/--cursor[\s\S]*--total/);
  });
});

describe('collections alone', () => {
  it('prints a short overview on stdout and exits 0', async () => {
    const r = await run([]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^collections 0\.0\.0-test: Export the collections of a rate-limited, paginated/);
    for (const name of subcommands()) expect(r.out).toMatch(new RegExp(`\\b${name}\\b`));
    expect(r.out).toContain('  $ collections config set base-url https://api.example.com\n');
    expect(r.out).toContain('  $ collections sandbox ');
    expect(r.out).toContain('  $ collections invoices --taxpayer PEIC211118IS0 --out invoices.ndjson\n');
    expect(r.out).toContain('collections --help');
    const lines = r.out.split('\n');
    expect(lines.length).toBeLessThan(30);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('with only a global flag, commander still shows the full help (exit 0)', async () => {
    const r = await run(['--profile', 'x']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^Usage: collections /);
  });
});

describe('suggestions', () => {
  it.each([
    [['invocies'], "collections: unknown command 'invocies'\n(Did you mean invoices?)\n"],
    [['ratelimt'], "collections: unknown command 'ratelimt'\n(Did you mean ratelimit?)\n"],
    [['invoices', '--taxpyer', 'X'], "collections: unknown option '--taxpyer'\n(Did you mean --taxpayer?)\n"],
    [['entities', '--base-ur', 'http://127.0.0.1:9'], "collections: unknown option '--base-ur'\n(Did you mean --base-url?)\n"],
  ])('collections %j suggests the closest (exit 2)', async (args, stderr) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.err).toBe(stderr);
    expect(r.out).toBe('');
  });
});

describe('words the program itself does not know', () => {
  it('`help nope` is one line naming the command, exit 2 (as gh does), not the whole help', async () => {
    const r = await run(['help', 'nope']);
    expect(r.code).toBe(2);
    expect(r.err).toBe("collections: unknown command 'nope'; run `collections --help` for the list of commands\n");
    expect(r.out).toBe('');
  });

  it('`-v` alone is an unknown option that points at -V and at --verbose of the export commands, exit 2, one line', async () => {
    const r = await run(['-v']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      "collections: unknown option '-v'; -V (--version) prints the version; -v (--verbose) goes after an export command, e.g. `collections invoices -v …`\n",
    );
    expect(r.out).toBe('');
  });

  it('`help invoices` and `-V` still work', async () => {
    expect((await run(['help', 'invoices'])).code).toBe(0);
    const v = await run(['-V']);
    expect([v.code, v.out]).toEqual([0, '0.0.0-test\n']);
  });
});

describe('a repeated id flag', () => {
  const env = { COLLECTIONS_API_KEY: 'k', COLLECTIONS_BASE_URL: 'http://127.0.0.1:9' };
  // --taxpayer of the export commands is a list (test/integration/many-taxpayers.test.ts); the others stay single.
  it.each([
    [['line-items', '--invoice', 'I1', '--taxpayer', 'T', '--invoice', 'I2'], '--invoice', 'I1', 'I2'],
    [['ratelimit', '--taxpayer', 'AAA', '--taxpayer', 'BBB'], '--taxpayer', 'AAA', 'BBB'],
  ])('collections %j is a usage error naming both values; nothing sent or written', async (args, flag, first, second) => {
    const r = await run(args, env);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`collections: ${flag} given twice ('${first}' and '${second}'): one ${flag} per run; run the command once for each\n`);
    expect(r.out).toBe('');
  });
});

describe('config alone and config profiles, from the command line', () => {
  it('config alone exits 0 and says how to start when nothing is stored; profiles lists names', async () => {
    const empty = await run(['config']);
    expect(empty.code).toBe(0);
    expect(empty.out).toBe('');
    expect(empty.err).toMatch(/^Nothing is stored yet \(.*config\.json\)\. Start with: collections config set base-url URL\n$/);
    expect(await run(['config', 'profiles'])).toMatchObject({ code: 0, out: '', err: '' });
  });

  it.each([
    ['lsit', ' (Did you mean list?)'],
    ['sett', ' (Did you mean set?)'],
    ['zzz', ''],
  ])("an unknown config action '%s' is a usage error with commander's did-you-mean and the actions", async (word, suggestion) => {
    const r = await run(['config', word]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`collections: unknown config action '${word}'${suggestion}; use set, get, unset, list, profiles, path\n`);
  });
});

describe('a repeated --taxpayer on an export command', () => {
  const env = { COLLECTIONS_API_KEY: 'k', COLLECTIONS_BASE_URL: 'http://127.0.0.1:9' };
  it.each([
    [['invoices', '--taxpayer', 'AAA', '--taxpayer', 'BBB'], /several taxpayers need --out FILE/],
    [['payments', '--taxpayer=AAA', '--out', 'p.ndjson', '--taxpayer=BBB'], /--out p\.ndjson has no \{taxpayer\}/],
    [['invoices', '--taxpayer', 'AAA', '--taxpayer', 'AAA', '--out', '{taxpayer}.csv'], /taxpayer AAA is listed twice/],
  ])('collections %j makes a list, and without a template it is a usage error; nothing sent or written', async (args, message) => {
    const r = await run(args, env);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.out).toBe('');
  });
});
