/**
 * Every command has one shape (`createXCommand(wiring, run)`): its definition parses the command
 * line and hands the options to its run function. Here each run function is a fake that records
 * what it was handed, so a table of command lines states what each command receives (as GitHub CLI
 * tests `NewCmdX` with a `runF`), and what it refuses before running anything.
 */
import { describe, expect, it } from 'vitest';
import { readCommandLine } from '../../../src/cli/argv.js';
import { runProgram, type ProgramRunners } from '../../../src/cli/program.js';
import { REDACTED } from '../../../src/http/redact.js';
import { createTestContext } from '../../helpers/world.js';

/** What one fake run function was handed: the command that ran and its options. */
interface Call {
  command: string;
  options: unknown;
}

/** Runs `argv` with a fake run function for every command, each returning `code`. */
async function parse(
  argv: string[],
  code = 0,
): Promise<{ calls: Call[]; exit: number | undefined; error: unknown; t: ReturnType<typeof createTestContext> }> {
  const t = createTestContext();
  const calls: Call[] = [];
  const fake =
    (command: string) =>
    (_ctx: unknown, options: unknown): number => {
      calls.push({ command, options });
      return code;
    };
  const runners: Required<ProgramRunners> = {
    export: fake('export'),
    ratelimit: fake('ratelimit'),
    config: fake('config'),
    completion: fake('completion'),
    verify: fake('verify'),
    sandbox: fake('sandbox'),
    get: fake('get'),
  };
  try {
    return { calls, exit: await runProgram(readCommandLine(argv), t.ctx, runners), error: undefined, t };
  } catch (error) {
    return { calls, exit: undefined, error, t };
  }
}

describe('the options each command hands its run function', () => {
  it.each<[string[], string, unknown]>([
    [['ratelimit'], 'ratelimit', { json: false, cached: false }],
    [['ratelimit', '--taxpayer', 'ABC', '--invoice', 'I-1', '--json'], 'ratelimit', { taxpayer: 'ABC', invoice: 'I-1', json: true, cached: false }],
    [
      ['--base-url', 'https://api.example.com', 'ratelimit', '--cached', '--profile', 'work'],
      'ratelimit',
      {
        baseUrl: 'https://api.example.com',
        profile: 'work',
        json: false,
        cached: true,
      },
    ],
    [['config'], 'config', { action: undefined, args: [] }],
    [['config', 'path'], 'config', { action: 'path', args: [] }],
    [
      ['config', 'set', 'base-url', 'https://api.example.com', '--profile', 'work'],
      'config',
      {
        profile: 'work',
        action: 'set',
        args: ['base-url', 'https://api.example.com'],
      },
    ],
    [['verify', 'a.manifest.json', 'b/c.manifest.json'], 'verify', { manifests: ['a.manifest.json', 'b/c.manifest.json'] }],
    [['sandbox'], 'sandbox', {}],
    [
      ['sandbox', '--port', '0', '--key', 'k-1', '--limit', '5', '--limit-scope', 'path'],
      'sandbox',
      { port: 0, key: 'k-1', limit: 5, limitScope: 'path' },
    ],
    [
      ['entities', '--max-items', '10', '--format', 'csv'],
      'export',
      { command: 'entities', flags: { maxItems: 10, format: 'csv', progress: true }, argv: ['entities', '--max-items', '10', '--format', 'csv'] },
    ],
    [
      ['get', '/entities/0190/invoices?type=I', '--cursor', '--out', 'i.ndjson', '-H', 'Accept-Version: 2020-06-28'],
      'get',
      {
        path: '/entities/0190/invoices?type=I',
        flags: { cursor: true, out: 'i.ndjson', header: [['Accept-Version', '2020-06-28']], progress: true },
        argv: ['get', '/entities/0190/invoices?type=I', '--cursor', '--out', 'i.ndjson', '-H', 'Accept-Version: 2020-06-28'],
      },
    ],
    [
      ['get', 'invoices/payments', '--since', '2024-05-01', '--since-field', 'updatedAt', '--state', 's.json', '--max-items', '5'],
      'get',
      {
        path: 'invoices/payments',
        flags: { since: '2024-05-01', sinceField: 'updatedAt', state: 's.json', maxItems: 5, progress: true },
        argv: ['get', 'invoices/payments', '--since', '2024-05-01', '--since-field', 'updatedAt', '--state', 's.json', '--max-items', '5'],
      },
    ],
    [
      ['invoices', '--taxpayer', 'A', '-H', 'X-A: 1', '--header', 'x-b:2'],
      'export',
      {
        command: 'invoices',
        flags: {
          taxpayer: 'A',
          header: [
            ['X-A', '1'],
            ['x-b', '2'],
          ],
          progress: true,
        },
        argv: ['invoices', '--taxpayer', 'A', '-H', 'X-A: 1', '--header', 'x-b:2'],
      },
    ],
    [['ratelimit', '-H', 'Accept-Version: 2020-06-28'], 'ratelimit', { header: [['Accept-Version', '2020-06-28']], json: false, cached: false }],
  ])('%j → %s', async (argv, command, options) => {
    const r = await parse(argv);
    expect(r.error).toBeUndefined();
    expect(r.calls).toEqual([{ command, options }]);
  });

  it('the values of credential-like --headers are secrets of the run before the command runs', async () => {
    const r = await parse(['get', '/entities', '-H', 'Authorization: Bearer tok-9876543', '-H', 'Accept-Version: 2020-06-28']);
    expect(r.calls).toHaveLength(1);
    expect(r.t.ctx.secrets.redact('Bearer tok-9876543 / tok-9876543 / 2020-06-28')).toBe(`${REDACTED} / ${REDACTED} / 2020-06-28`);
  });

  it('completion: the shell, and the program whose tree the script completes', async () => {
    const r = await parse(['completion', 'fish']);
    expect(r.calls).toHaveLength(1);
    const options = r.calls[0]!.options as { shell: string; program: { name(): string; commands: unknown[] } };
    expect(options.shell).toBe('fish');
    expect(options.program.name()).toBe('collections');
    expect(options.program.commands.length).toBeGreaterThan(5);
  });

  it('an export: the resume hint gets the command line without the key and --resume', async () => {
    const r = await parse(['invoices', '--taxpayer', 'A', '--api-key', 'K-0123456', '--resume', '--out', 'x.ndjson', '--api-key=K-0123456']);
    expect(r.calls).toEqual([
      {
        command: 'export',
        options: {
          command: 'invoices',
          flags: { taxpayer: 'A', apiKey: 'K-0123456', resume: true, out: 'x.ndjson', progress: true },
          argv: ['invoices', '--taxpayer', 'A', '--out', 'x.ndjson'],
        },
      },
    ]);
  });

  it("the run function's exit code is the program's", async () => {
    expect((await parse(['verify', 'a.manifest.json'], 8)).exit).toBe(8);
    expect((await parse(['config', 'path'], 0)).exit).toBe(0);
  });

  it.each(['ratelimit', 'verify x.json', 'entities', 'config path', 'completion bash', 'sandbox'])(
    '%s: the --api-key given is a secret of the run before the command runs',
    async (words) => {
      const r = await parse([...words.split(' '), '--api-key', 'secret-key-42']);
      expect(r.calls).toHaveLength(1);
      expect(r.t.ctx.secrets.redact('key secret-key-42 seen')).toBe(`key ${REDACTED} seen`);
    },
  );
});

describe('what a command refuses before running anything', () => {
  it.each<[string[], number, RegExp]>([
    [['config', 'bogus'], 2, /^unknown config action 'bogus'$/],
    [['config', 'sett'], 2, /^unknown config action 'sett' \(Did you mean set\?\)$/],
    [['get', '/entities', '-H', 'X-Api-Key: other-key'], 2, /^--header X-Api-Key cannot be set this way: the key comes from/],
    [['invoices', '--taxpayer', 'A', '-H', 'Accept: text/csv'], 2, /^--header Accept cannot be set this way/],
    [['ratelimit', '-H', 'X-Pagination-Style: cursor'], 2, /^--header X-Pagination-Style cannot be set this way: --cursor sets it$/],
    [['completion', 'powershell'], 2, /^unknown shell 'powershell' \(use bash, zsh, fish\)$/],
  ])('%j → exit %i', async (argv, exitCode, message) => {
    const r = await parse(argv);
    expect(r.calls).toEqual([]);
    expect(r.error).toMatchObject({ exitCode, message: expect.stringMatching(message) as string });
  });

  it.each([
    [['sandbox', '--port', '-1']],
    [['verify']],
    [['completion']],
    [['ratelimit', '--bogus']],
    [['entities', '--concurrency', '0']],
    [['get']],
    [['get', '/entities', '--taxpayer', 'A']],
    [['get', '/entities', '--parallel', '2']],
    [['invoices', '--taxpayer', 'A', '--since-field', 'updatedAt']],
  ])('%j: a commander usage error, exit 2', async (argv) => {
    const r = await parse(argv);
    expect(r.calls).toEqual([]);
    expect(r.exit).toBe(2);
    expect(r.t.stderr.text()).toMatch(/^collections: /);
  });
});

describe('the export command a line runs (exportCommand: its modules are imported at once, its command built alone)', () => {
  it.each([
    { words: ['invoices', '--taxpayer', 'X'], runs: 'invoices' },
    { words: ['line-items', '--invoice', 'I'], runs: 'line-items' },
    { words: ['get', '/entities/E/invoices'], runs: 'get' },
    { words: ['get', '/entities/E/invoices', '--', '--help'], runs: 'get' },
    { words: ['invoices', '--taxpayer', 'X', '--help'], runs: undefined },
    { words: ['invoices', '-h'], runs: undefined },
    { words: ['--profile', 'p', 'invoices'], runs: undefined },
    { words: ['config', 'get', 'base-url'], runs: undefined },
    { words: ['help', 'invoices'], runs: undefined },
    { words: [], runs: undefined },
  ])('$words → $runs', ({ words, runs }) => {
    expect(readCommandLine(words).exportCommand).toBe(runs);
  });

  it('an export command built alone refuses and suggests as among all commands', async () => {
    const r = await parse(['invoices', '--taxpayer', 'X', '--concurency', '8']);
    expect(r.calls).toEqual([]);
    expect(r.exit).toBe(2);
    expect(r.t.stderr.text()).toContain("unknown option '--concurency'");
    expect(r.t.stderr.text()).toContain('--concurrency');
  });
});
